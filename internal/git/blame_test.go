package git

import (
	"bufio"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBlame(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, ObjectFormatSHA1)
	c1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "first\n\nbody", Changes: []FileChange{
		create("dir/f.txt", "one\ntwo\nthree\n"),
	}})
	bea := Signature{Name: "Bea <x>", Email: "bea@example.com", When: time.Date(2023, 1, 2, 3, 4, 5, 0, time.FixedZone("", -5*3600))}
	c2 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "second", Author: Signature{Name: "Bea", Email: bea.Email, When: bea.When},
		Changes: []FileChange{{Op: ChangeUpdate, Path: "dir/f.txt", Content: strings.NewReader("one\n\tTWO\nthree\nfour")}},
	})

	var got []BlameLine
	if err := g.Blame(t.Context(), repo, "main", "dir/f.txt", func(l BlameLine) error {
		got = append(got, l)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		sha, text string
		num, orig int
	}{{c1, "one", 1, 1}, {c2, "\tTWO", 2, 2}, {c1, "three", 3, 3}, {c2, "four", 4, 4}}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		l := got[i]
		if l.Commit.SHA != w.sha || l.Text != w.text || l.Number != w.num || l.OrigNumber != w.orig {
			t.Errorf("line %d: %s %q %d/%d, want %s %q %d/%d", i, l.Commit.SHA, l.Text, l.Number, l.OrigNumber, w.sha, w.text, w.num, w.orig)
		}
	}
	// Lines of one commit share its record, filled in once.
	if got[0].Commit != got[2].Commit {
		t.Error("lines of the same commit have different records")
	}
	first, second := got[0].Commit, got[1].Commit
	if first.Summary != "first" || first.Author.Name != testAuthor.Name || first.Author.Email != testAuthor.Email ||
		!first.Author.When.Equal(testTime) || first.Previous != "" {
		t.Errorf("first commit: %+v", first)
	}
	if _, off := second.Author.When.Zone(); second.Summary != "second" || second.Author.Name != "Bea" ||
		!second.Author.When.Equal(bea.When) || off != -5*3600 {
		t.Errorf("second commit: %+v", second)
	}
	if second.Previous != c1 || second.PreviousPath != "dir/f.txt" {
		t.Errorf("second commit's previous: %q %q", second.Previous, second.PreviousPath)
	}

	// The callback's error stops the walk.
	stop := errors.New("stop")
	n := 0
	if err := g.Blame(t.Context(), repo, c2, "dir/f.txt", func(BlameLine) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("stopping: %v after %d lines", err, n)
	}

	// An older revision has the older text.
	var old []string
	if err := g.Blame(t.Context(), repo, c1, "dir/f.txt", func(l BlameLine) error { old = append(old, l.Text); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(old, ",") != "one,two,three" {
		t.Errorf("older revision: %q", old)
	}

	for _, bad := range []struct{ rev, path string }{{"-x", "dir/f.txt"}, {"main", "../x"}, {"main", ""}, {"main", ".git/config"}} {
		if err := g.Blame(t.Context(), repo, bad.rev, bad.path, func(BlameLine) error { return nil }); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Blame(%q, %q): %v, want ErrInvalidArgument", bad.rev, bad.path, err)
		}
	}
	for _, missing := range []struct{ rev, path string }{{"nope", "dir/f.txt"}, {"main", "dir/none"}, {"main", "dir"}} {
		if err := g.Blame(t.Context(), repo, missing.rev, missing.path, func(BlameLine) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Errorf("Blame(%q, %q): %v, want ErrNotFound", missing.rev, missing.path, err)
		}
	}
}

func TestParseBlameMalformed(t *testing.T) {
	sha := strings.Repeat("a", 40)
	for _, in := range []string{
		"garbage\n",
		sha + " x 1 1\n\tline\n",
		sha + " 1 1 1\nauthor A\n", // no line follows its header
	} {
		err := parseBlame(bufio.NewReader(strings.NewReader(in)), func(BlameLine) error { return nil })
		if err == nil {
			t.Errorf("parseBlame(%q) succeeded", in)
		}
	}
	// A long line is cut, not buffered whole.
	long := strings.Repeat("x", maxBlameLine+100)
	var got string
	err := parseBlame(bufio.NewReaderSize(strings.NewReader(sha+" 1 1 1\n\t"+long+"\n"), 16), func(l BlameLine) error {
		got = l.Text
		return nil
	})
	if err != nil || len(got) != maxBlameLine-1 {
		t.Errorf("long line: %v, %d bytes", err, len(got))
	}
}
