package git

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// historyRepo makes main: c1 (a.txt, b.go) <- c2 (a.txt changed, c.py
// added) <- c3 (b.go renamed to d/b.go, a.txt deleted), and returns the
// repository and the three commits.
func historyRepo(t *testing.T, g *Git, format string) (string, []string) {
	t.Helper()
	repo := initRepo(t, g, format)
	c1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "one\n\nbody", Changes: []FileChange{
		create("a.txt", "a\n"), create("b.go", "package b\n"),
	}})
	c2 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "two", Changes: []FileChange{
		{Op: ChangeUpdate, Path: "a.txt", Content: strings.NewReader("a\nb\nc\n")}, create("c.py", "print(1)\n"),
	}})
	c3 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "three", Changes: []FileChange{
		{Op: ChangeRename, FromPath: "b.go", Path: "d/b.go"}, {Op: ChangeDelete, Path: "a.txt"},
	}})
	return repo, []string{c1, c2, c3}
}

func TestRevListAndReadCommits(t *testing.T) {
	for _, format := range []string{ObjectFormatSHA1, ObjectFormatSHA256} {
		t.Run(format, func(t *testing.T) {
			g := newTestGit(t)
			ctx := t.Context()
			repo, c := historyRepo(t, g, format)

			shas, err := g.RevList(ctx, repo, RevListOptions{Revs: []string{"main"}})
			if err != nil || strings.Join(shas, ",") != strings.Join([]string{c[2], c[1], c[0]}, ",") {
				t.Fatalf("RevList = %v, %v", shas, err)
			}
			shas, err = g.RevList(ctx, repo, RevListOptions{Revs: []string{"main"}, Skip: 1, Limit: 1})
			if err != nil || len(shas) != 1 || shas[0] != c[1] {
				t.Fatalf("RevList page = %v, %v", shas, err)
			}
			shas, err = g.RevList(ctx, repo, RevListOptions{Revs: []string{"main"}, Not: []string{c[0]}})
			if err != nil || len(shas) != 2 {
				t.Fatalf("RevList not = %v, %v", shas, err)
			}
			n, err := g.CountCommits(ctx, repo, RevListOptions{Revs: []string{"main"}, Path: "a.txt", Limit: 1})
			if err != nil || n != 3 {
				t.Fatalf("CountCommits(a.txt) = %d, %v", n, err)
			}
			if _, err := g.RevList(ctx, repo, RevListOptions{Revs: []string{"nope"}}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("RevList(nope) = %v", err)
			}
			for _, bad := range []RevListOptions{
				{Revs: []string{"--output=/tmp/x"}}, {Revs: []string{"main"}, Not: []string{"-x"}}, {Revs: []string{"main"}, Path: "../x"}, {},
			} {
				if _, err := g.RevList(ctx, repo, bad); !errors.Is(err, ErrInvalidArgument) {
					t.Errorf("RevList(%+v) = %v, want ErrInvalidArgument", bad, err)
				}
			}

			commits, err := g.ReadCommits(ctx, repo, []string{c[0], "main"})
			if err != nil || len(commits) != 2 {
				t.Fatalf("ReadCommits = %v, %v", commits, err)
			}
			if commits[0].SHA != c[0] || commits[0].Message != "one\n\nbody\n" || commits[0].Author != testAuthor || len(commits[0].Parents) != 0 {
				t.Errorf("commit 1 = %+v", commits[0])
			}
			if commits[1].SHA != c[2] || len(commits[1].Parents) != 1 || commits[1].Parents[0] != c[1] || commits[1].Signature != "" {
				t.Errorf("commit 3 = %+v", commits[1])
			}
			if _, err := g.ReadCommits(ctx, repo, []string{"main", "nope"}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("ReadCommits(nope) = %v", err)
			}

			all := []Commit{commits[0].Commit, commits[1].Commit}
			mid, _ := g.ReadCommits(ctx, repo, []string{c[1]})
			all = append(all, mid[0].Commit)
			stats, err := g.CommitsNumstat(ctx, repo, all)
			if err != nil {
				t.Fatal(err)
			}
			if s := stats[c[0]]; s.Additions != 2 || s.Deletions != 0 || len(s.Files) != 2 {
				t.Errorf("stats c1 = %+v", s)
			}
			if s := stats[c[1]]; s.Additions != 3 || s.Deletions != 0 || len(s.Files) != 2 {
				t.Errorf("stats c2 = %+v", s)
			}
			if s := stats[c[2]]; s.Deletions != 3 || len(s.Files) != 2 {
				t.Errorf("stats c3 = %+v", s)
			}
			files, err := g.CommitsFiles(ctx, repo, all)
			if err != nil {
				t.Fatal(err)
			}
			if got := files[c[2]]; len(got) != 3 {
				t.Errorf("files c3 = %+v (a rename is a deletion and an addition)", got)
			}
			if got := files[c[1]]; len(got) != 2 || got[0] != (FileStatus{"M", "a.txt"}) || got[1] != (FileStatus{"A", "c.py"}) {
				t.Errorf("files c2 = %+v", got)
			}
		})
	}
}

func TestSignedCommitAndTagObject(t *testing.T) {
	data := []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nmsg\n")
	sig, payload := splitCommitSignature(data)
	if sig != "-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n" {
		t.Errorf("signature = %q", sig)
	}
	if want := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n\nmsg\n"; string(payload) != want {
		t.Errorf("payload = %q", payload)
	}

	tag := parseTagObject("x", []byte("object abc\ntype commit\ntag v1\ntagger T <t@x> 5 +0100\n\nrelease\n-----BEGIN PGP SIGNATURE-----\nzz\n-----END PGP SIGNATURE-----\n"))
	if tag.Object != "abc" || tag.ObjectType != "commit" || tag.Name != "v1" || tag.Tagger == nil || tag.Tagger.Email != "t@x" ||
		tag.Message != "release\n" || !strings.HasPrefix(tag.Signature, "-----BEGIN PGP") || !strings.HasSuffix(tag.Payload, "release\n") {
		t.Errorf("tag = %+v", tag)
	}
}

func TestRefsTagObjectsBundleLanguages(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo, c := historyRepo(t, g, ObjectFormatSHA1)
	if _, err := g.CreateBranch(ctx, repo, "feature/x", c[0]); err != nil {
		t.Fatal(err)
	}
	tg, err := g.CreateTag(ctx, repo, CreateTagOptions{Name: "v1", Target: c[1], Message: "first", Tagger: &testAuthor})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	collect := func(prefix string) []string {
		names = nil
		if err := g.WalkRefs(ctx, repo, prefix, func(r Ref) error { names = append(names, r.Name+" "+r.Type); return nil }); err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := strings.Join(collect(""), ","); got != "refs/heads/feature/x commit,refs/heads/main commit,refs/tags/v1 tag" {
		t.Errorf("all refs = %s", got)
	}
	if got := strings.Join(collect("refs/heads/fea"), ","); got != "refs/heads/feature/x commit" {
		t.Errorf("prefix refs = %s", got)
	}
	if got := collect("refs/heads/*"); len(got) != 0 {
		t.Errorf("glob prefix = %v", got)
	}

	obj, err := g.ReadTagObject(ctx, repo, tg.ObjectSHA)
	if err != nil || obj.Name != "v1" || obj.Object != c[1] || obj.Message != "first\n" || obj.Tagger.Email != testAuthor.Email {
		t.Fatalf("ReadTagObject = %+v, %v", obj, err)
	}
	for _, bad := range []string{c[1], "nope", "-x", "0000000000000000000000000000000000000000"} {
		if _, err := g.ReadTagObject(ctx, repo, bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("ReadTagObject(%s) = %v", bad, err)
		}
	}

	var bundle bytes.Buffer
	if err := g.BundleCommit(ctx, repo, c[1], &bundle); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(bundle.Bytes(), []byte("# v2 git bundle\n")) || !bytes.Contains(bundle.Bytes(), []byte(c[1]+" refs/heads/bundle")) {
		t.Errorf("bundle header: %q", bundle.Bytes()[:min(200, bundle.Len())])
	}
	if bytes.Contains(bundle.Bytes(), []byte(c[2])) {
		t.Error("bundle names a later commit")
	}
	cmd := exec.Command("git", "bundle", "list-heads", "/dev/stdin")
	cmd.Stdin = bytes.NewReader(bundle.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), c[1]) {
		t.Errorf("git bundle list-heads: %v %s", err, out)
	}
	if err := g.BundleCommit(ctx, repo, "main", &bundle); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("BundleCommit(main) = %v", err)
	}
	if out, _ := exec.Command("git", "--git-dir", repo, "for-each-ref").Output(); strings.Contains(string(out), "bundle") {
		t.Errorf("the repository got a bundle ref: %s", out)
	}

	stats, err := g.LanguageStats(ctx, repo, c[1], 0)
	if err != nil || stats["Go"] != int64(len("package b\n")) || stats["Python"] != int64(len("print(1)\n")) || len(stats) != 2 {
		t.Errorf("LanguageStats = %v, %v", stats, err)
	}
	if stats, err := g.LanguageStats(ctx, repo, c[1], 1); err != nil || len(stats) > 1 {
		t.Errorf("bounded LanguageStats = %v, %v", stats, err)
	}
	for p, want := range map[string]string{"x/Makefile": "Makefile", "a.tsx": "TypeScript", "README.md": "", "app.min.js": "", "Dockerfile.dev": "Dockerfile"} {
		if got := LanguageOf(p); got != want {
			t.Errorf("LanguageOf(%s) = %q, want %q", p, got, want)
		}
	}
}
