package git

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// compareRepo makes two commits differing in every way ChangedFiles
// reports, and returns them.
func compareRepo(t *testing.T, g *Git) (string, string, string) {
	t.Helper()
	repo := initRepo(t, g, ObjectFormatSHA1)
	long := strings.Repeat("a line that makes the file long enough to be recognized\n", 20)
	c0 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		create("keep.txt", "keep\n"),
		create("del.txt", "gone\n"),
		create("mod.txt", "one\ntwo\nthree\n"),
		create("ren.txt", long),
		create("ws.txt", "a b\nc\n"),
		create("wsall.txt", "a b\n"),
		create("eol.txt", "x\ny\n"),
		create("bin.dat", "\x00\x01\x02"),
		create("link", "keep.txt"),
	}})
	c1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		create("new.txt", "n1\nn2\n"),
		{Op: ChangeDelete, Path: "del.txt"},
		update("mod.txt", "one\nTWO\nthree\nfour\n"),
		{Op: ChangeRename, FromPath: "ren.txt", Path: "moved/ren.txt", Content: strings.NewReader(long + "one more\n")},
		update("ws.txt", "a   b\nc\n"),
		update("wsall.txt", "ab\n"),
		update("eol.txt", "x  \ny\n"),
		update("bin.dat", "\x00\x01\x03"),
		{Op: ChangeUpdate, Path: "link", Content: strings.NewReader("keep.txt"), Mode: ModeSymlink},
	}})
	return repo, c0, c1
}

func fileNames(files []ChangedFile) []string {
	var names []string
	for _, f := range files {
		names = append(names, f.Filename)
	}
	return names
}

func TestChangedFiles(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c0, c1 := compareRepo(t, g)

	files, truncated, err := g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{DetectRenames: true})
	if err != nil || truncated {
		t.Fatalf("ChangedFiles = %v, %v, %v", files, truncated, err)
	}
	want := []ChangedFile{
		{Filename: "bin.dat", Status: FileModified, Binary: true},
		{Filename: "del.txt", Status: FileDeleted, Deletions: 1},
		{Filename: "eol.txt", Status: FileModified, Additions: 1, Deletions: 1},
		{Filename: "link", Status: FileChanged},
		{Filename: "mod.txt", Status: FileModified, Additions: 2, Deletions: 1},
		{Filename: "moved/ren.txt", PreviousFilename: "ren.txt", Status: FileRenamed, Additions: 1},
		{Filename: "new.txt", Status: FileAdded, Additions: 2},
		{Filename: "ws.txt", Status: FileModified, Additions: 1, Deletions: 1},
		{Filename: "wsall.txt", Status: FileModified, Additions: 1, Deletions: 1},
	}
	if !slices.Equal(files, want) {
		t.Fatalf("ChangedFiles =\n%+v\nwant\n%+v", files, want)
	}

	// Without rename detection: a deletion and an addition.
	files, _, err = g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ren []ChangedFile
	for _, f := range files {
		if strings.HasSuffix(f.Filename, "ren.txt") {
			ren = append(ren, f)
		}
	}
	if len(files) != 10 || len(ren) != 2 || ren[0].Status != FileAdded || ren[0].Additions != 21 ||
		ren[1].Status != FileDeleted || ren[1].Deletions != 20 || ren[1].PreviousFilename != "" {
		t.Fatalf("ChangedFiles without renames = %+v", files)
	}

	// Whitespace modes leave out files changed only in ignored whitespace.
	for _, tc := range []struct {
		mode   string
		hidden []string
	}{
		{"", nil},
		{WhitespaceShowAll, nil},
		{WhitespaceIgnoreAll, []string{"eol.txt", "ws.txt", "wsall.txt"}},
		{WhitespaceIgnoreChange, []string{"eol.txt", "ws.txt"}},
		{WhitespaceIgnoreEOL, []string{"eol.txt"}},
	} {
		files, truncated, err := g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{Whitespace: tc.mode, DetectRenames: true})
		if err != nil || truncated {
			t.Fatalf("ChangedFiles(%q) = %v, %v", tc.mode, truncated, err)
		}
		var wantNames []string
		for _, f := range want {
			if !slices.Contains(tc.hidden, f.Filename) {
				wantNames = append(wantNames, f.Filename)
			}
		}
		if got := fileNames(files); !slices.Equal(got, wantNames) {
			t.Errorf("ChangedFiles(%q) = %v, want %v", tc.mode, got, wantNames)
		}
	}

	// The cap.
	for _, mode := range []string{"", WhitespaceIgnoreAll} {
		files, truncated, err = g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{Whitespace: mode, DetectRenames: true, MaxFiles: 3})
		if err != nil || !truncated || len(files) != 3 || files[1] != want[1] {
			t.Fatalf("ChangedFiles(%q, max 3) = %+v, %v, %v", mode, files, truncated, err)
		}
	}
	files, truncated, err = g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{DetectRenames: true, MaxFiles: len(want)})
	if err != nil || truncated || !slices.Equal(files, want) {
		t.Fatalf("ChangedFiles(max = all) = %+v, %v, %v", files, truncated, err)
	}
	files, truncated, err = g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{Whitespace: WhitespaceIgnoreAll, MaxFiles: 7})
	if err != nil || truncated || len(files) != 7 {
		t.Fatalf("ChangedFiles(ignore-all, max = all) = %+v, %v, %v", files, truncated, err)
	}

	// No change, errors.
	if files, truncated, err := g.ChangedFiles(ctx, repo, c1, c1, ChangedFilesOptions{}); err != nil || truncated || len(files) != 0 {
		t.Fatalf("ChangedFiles(same) = %v, %v, %v", files, truncated, err)
	}
	if _, _, err := g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{Whitespace: "ignore-some"}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("bad whitespace mode = %v", err)
	}
	if _, _, err := g.ChangedFiles(ctx, repo, "--cached", c1, ChangedFilesOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("option as revision = %v", err)
	}
	if _, _, err := g.ChangedFiles(ctx, repo, c0, "nope", ChangedFilesOptions{}); err == nil {
		t.Fatal("missing revision accepted")
	}
}

func TestChangedFilesOddNames(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	names := []string{":colon", "tab\tname", "1\t2\t3", "space name", "ünïcode", "-dash"}
	var changes []FileChange
	for i, n := range names {
		changes = append(changes, create(n, fmt.Sprintf("%d\n", i)))
	}
	c0 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("x", "x\n")}})
	c1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: changes})
	files, _, err := g.ChangedFiles(ctx, repo, c0, c1, ChangedFilesOptions{DetectRenames: true})
	if err != nil {
		t.Fatal(err)
	}
	got := fileNames(files)
	want := slices.Clone(names)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("names = %q, want %q", got, want)
	}
	for _, f := range files {
		if f.Status != FileAdded || f.Additions != 1 {
			t.Fatalf("file = %+v", f)
		}
	}
}
