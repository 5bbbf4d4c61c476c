package git

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var testTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("", 2*3600))

func newTestGit(t *testing.T) *Git {
	t.Helper()
	g, err := New(Options{HomeDir: t.TempDir(), TempDir: t.TempDir(), Now: func() time.Time { return testTime }})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

func initRepo(t *testing.T, g *Git, format string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "repo.git")
	if err := g.InitBare(t.Context(), path, InitOptions{DefaultBranch: "main", ObjectFormat: format}); err != nil {
		t.Fatalf("InitBare: %v", err)
	}
	return path
}

var testAuthor = Signature{Name: "Ann Author", Email: "ann@example.com", When: testTime}

func commitFiles(t *testing.T, g *Git, repo string, opts CommitFilesOptions) string {
	t.Helper()
	if opts.Author.Name == "" {
		opts.Author = testAuthor
	}
	if opts.Message == "" {
		opts.Message = "change"
	}
	sha, err := g.CommitFiles(t.Context(), repo, opts)
	if err != nil {
		t.Fatalf("CommitFiles: %v", err)
	}
	return sha
}

func create(path, content string) FileChange {
	return FileChange{Op: ChangeCreate, Path: path, Content: strings.NewReader(content)}
}

func readBlob(t *testing.T, g *Git, repo, rev string) string {
	t.Helper()
	r, size, err := g.ReadBlob(t.Context(), repo, rev)
	if err != nil {
		t.Fatalf("ReadBlob(%s): %v", rev, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading blob %s: %v", rev, err)
	}
	if int64(len(b)) != size {
		t.Fatalf("blob %s: size %d, read %d", rev, size, len(b))
	}
	return string(b)
}

func TestInitBare(t *testing.T) {
	for _, format := range []string{ObjectFormatSHA1, ObjectFormatSHA256} {
		t.Run(format, func(t *testing.T) {
			g := newTestGit(t)
			ctx := t.Context()
			repo := initRepo(t, g, format)
			if got, err := g.ObjectFormat(ctx, repo); err != nil || got != format {
				t.Fatalf("ObjectFormat = %q, %v", got, err)
			}
			if empty, err := g.IsEmpty(ctx, repo); err != nil || !empty {
				t.Fatalf("IsEmpty = %v, %v", empty, err)
			}
			if head, err := g.HeadBranch(ctx, repo); err != nil || head != "main" {
				t.Fatalf("HeadBranch = %q, %v", head, err)
			}
			if err := g.InitBare(ctx, repo, InitOptions{}); !errors.Is(err, ErrAlreadyExists) {
				t.Fatalf("second InitBare = %v, want ErrAlreadyExists", err)
			}
			if _, _, err := g.Log(ctx, repo, LogOptions{}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Log on empty repo = %v, want ErrNotFound", err)
			}
			sha := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("a.txt", "a\n")}})
			wantLen := map[string]int{ObjectFormatSHA1: 40, ObjectFormatSHA256: 64}[format]
			if len(sha) != wantLen {
				t.Fatalf("commit %q has length %d, want %d", sha, len(sha), wantLen)
			}
			if empty, err := g.IsEmpty(ctx, repo); err != nil || empty {
				t.Fatalf("IsEmpty after commit = %v, %v", empty, err)
			}
		})
	}
	t.Run("bad options", func(t *testing.T) {
		g := newTestGit(t)
		dir := t.TempDir()
		for _, opts := range []InitOptions{{ObjectFormat: "md5"}, {DefaultBranch: "-x"}, {DefaultBranch: "a..b"}} {
			if err := g.InitBare(t.Context(), filepath.Join(dir, "r.git"), opts); !errors.Is(err, ErrInvalidArgument) {
				t.Errorf("InitBare(%+v) = %v, want ErrInvalidArgument", opts, err)
			}
		}
	})
	t.Run("missing repository", func(t *testing.T) {
		g := newTestGit(t)
		_, err := g.IsEmpty(t.Context(), filepath.Join(t.TempDir(), "nope.git"))
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("IsEmpty(missing) = %v, want ErrNotFound", err)
		}
	})
}

func TestCommitFilesAndRead(t *testing.T) {
	for _, format := range []string{ObjectFormatSHA1, ObjectFormatSHA256} {
		t.Run(format, func(t *testing.T) {
			g := newTestGit(t)
			ctx := t.Context()
			repo := initRepo(t, g, format)

			c1 := commitFiles(t, g, repo, CommitFilesOptions{
				Branch:  "main",
				Message: "initial\n\nbody text",
				Changes: []FileChange{
					create("README.md", "# hello\n"),
					create("docs/guide.md", "guide\nline 2\n"),
					{Op: ChangeCreate, Path: "bin/run.sh", Content: strings.NewReader("#!/bin/sh\n"), Mode: ModeExecutable},
				},
			})
			committer := Signature{Name: "Cal Committer", Email: "cal@example.com", When: testTime.Add(time.Hour)}
			c2 := commitFiles(t, g, repo, CommitFilesOptions{
				Branch:    "main",
				Committer: &committer,
				Message:   "second",
				Changes: []FileChange{
					{Op: ChangeUpdate, Path: "README.md", Content: strings.NewReader("# hello\nworld\n")},
					{Op: ChangeRename, FromPath: "docs/guide.md", Path: "docs/manual.md"},
					create("src/main.go", "package main\n"),
				},
			})

			// Commit metadata.
			c, err := g.GetCommit(ctx, repo, "main")
			if err != nil {
				t.Fatalf("GetCommit: %v", err)
			}
			if c.SHA != c2 || !slices.Equal(c.Parents, []string{c1}) || c.Message != "second\n" {
				t.Fatalf("GetCommit = %+v", c)
			}
			if c.Author.Name != testAuthor.Name || c.Author.Email != testAuthor.Email || !c.Author.When.Equal(testTime) {
				t.Fatalf("author = %+v", c.Author)
			}
			if _, off := c.Author.When.Zone(); off != 2*3600 {
				t.Fatalf("author zone offset = %d", off)
			}
			if c.Committer.Name != "Cal Committer" || !c.Committer.When.Equal(committer.When) {
				t.Fatalf("committer = %+v", c.Committer)
			}
			root, err := g.GetCommit(ctx, repo, c1)
			if err != nil || len(root.Parents) != 0 || root.Subject() != "initial" || root.Message != "initial\n\nbody text\n" {
				t.Fatalf("root commit = %+v, %v", root, err)
			}

			// Contents.
			if got := readBlob(t, g, repo, "main:README.md"); got != "# hello\nworld\n" {
				t.Fatalf("README = %q", got)
			}
			if got := readBlob(t, g, repo, "main:docs/manual.md"); got != "guide\nline 2\n" {
				t.Fatalf("manual = %q", got)
			}
			if _, err := g.GetTreeEntry(ctx, repo, "main", "docs/guide.md"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("renamed source still there: %v", err)
			}
			e, err := g.GetTreeEntry(ctx, repo, "main", "bin/run.sh")
			if err != nil || !e.IsExecutable() || e.Size != int64(len("#!/bin/sh\n")) || e.Name != "run.sh" {
				t.Fatalf("GetTreeEntry(bin/run.sh) = %+v, %v", e, err)
			}
			if size, err := g.BlobSize(ctx, repo, e.SHA); err != nil || size != e.Size {
				t.Fatalf("BlobSize = %d, %v", size, err)
			}
			if typ, err := g.ObjectType(ctx, repo, "main^{tree}"); err != nil || typ != TypeTree {
				t.Fatalf("ObjectType = %q, %v", typ, err)
			}
			if _, _, err := g.ReadBlob(ctx, repo, "main:docs"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("ReadBlob(tree) = %v, want ErrNotFound", err)
			}
			if _, err := g.Stat(ctx, repo, "main:nope"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Stat(missing) = %v, want ErrNotFound", err)
			}

			top, err := g.ListTree(ctx, repo, "main", "", false)
			if err != nil {
				t.Fatalf("ListTree: %v", err)
			}
			if got := entryPaths(top); !slices.Equal(got, []string{"README.md", "bin", "docs", "src"}) {
				t.Fatalf("ListTree root = %v", got)
			}
			docs, err := g.ListTree(ctx, repo, "main", "docs", false)
			if err != nil || len(docs) != 1 || docs[0].Path != "docs/manual.md" || docs[0].Name != "manual.md" || docs[0].Size != 13 {
				t.Fatalf("ListTree(docs) = %+v, %v", docs, err)
			}
			all, err := g.ListTree(ctx, repo, c2, "", true)
			if err != nil {
				t.Fatalf("ListTree recursive: %v", err)
			}
			want := []string{"README.md", "bin", "bin/run.sh", "docs", "docs/manual.md", "src", "src/main.go"}
			if got := entryPaths(all); !slices.Equal(got, want) {
				t.Fatalf("ListTree recursive = %v", got)
			}
			if _, err := g.ListTree(ctx, repo, "main", "README.md", false); !errors.Is(err, ErrNotFound) {
				t.Fatalf("ListTree(file) = %v, want ErrNotFound", err)
			}
			if _, err := g.ListTree(ctx, repo, "nope", "", false); !errors.Is(err, ErrNotFound) {
				t.Fatalf("ListTree(bad rev) = %v, want ErrNotFound", err)
			}
			stop := errors.New("stop")
			n := 0
			err = g.WalkTree(ctx, repo, "main", "", true, func(TreeEntry) error {
				n++
				return stop
			})
			if !errors.Is(err, stop) || n != 1 {
				t.Fatalf("WalkTree stop = %v after %d", err, n)
			}

			// Stats.
			st, err := g.CommitStats(ctx, repo, c2)
			if err != nil {
				t.Fatalf("CommitStats: %v", err)
			}
			if st.Additions != 2 || st.Deletions != 0 || len(st.Files) != 3 {
				t.Fatalf("CommitStats = %+v", st)
			}
			var renamed *FileStat
			for i := range st.Files {
				if st.Files[i].OldPath != "" {
					renamed = &st.Files[i]
				}
			}
			if renamed == nil || renamed.OldPath != "docs/guide.md" || renamed.Path != "docs/manual.md" {
				t.Fatalf("rename not detected: %+v", st.Files)
			}
			rootStats, err := g.CommitStats(ctx, repo, c1)
			if err != nil || rootStats.Additions != 4 || len(rootStats.Files) != 3 {
				t.Fatalf("CommitStats(root) = %+v, %v", rootStats, err)
			}

			// Delete, then the log with a path filter.
			c3 := commitFiles(t, g, repo, CommitFilesOptions{
				Branch:  "main",
				Message: "remove readme",
				Changes: []FileChange{{Op: ChangeDelete, Path: "README.md"}},
			})
			commits, total, err := g.Log(ctx, repo, LogOptions{Rev: "main"})
			if err != nil || total != 3 || len(commits) != 3 || commits[0].SHA != c3 || commits[2].SHA != c1 {
				t.Fatalf("Log = %d commits, total %d, %v", len(commits), total, err)
			}
			if commits[1].Committer.Name != "Cal Committer" || commits[1].Message != "second\n" ||
				commits[1].Tree == "" || !slices.Equal(commits[1].Parents, []string{c1}) {
				t.Fatalf("Log entry = %+v", commits[1])
			}
			commits, total, err = g.Log(ctx, repo, LogOptions{Rev: "main", Path: "README.md"})
			if err != nil || total != 3 || len(commits) != 3 {
				t.Fatalf("Log(README.md) = %d, total %d, %v", len(commits), total, err)
			}
			commits, total, err = g.Log(ctx, repo, LogOptions{Rev: "main", Path: "docs"})
			if err != nil || total != 2 || len(commits) != 2 || commits[0].SHA != c2 {
				t.Fatalf("Log(docs) = %d, total %d, %v", len(commits), total, err)
			}
			commits, total, err = g.Log(ctx, repo, LogOptions{Rev: "main", Skip: 1, Limit: 1})
			if err != nil || total != 3 || len(commits) != 1 || commits[0].SHA != c2 {
				t.Fatalf("Log page = %v, total %d, %v", commits, total, err)
			}
			if _, _, err := g.Log(ctx, repo, LogOptions{Rev: "main", Path: "../etc"}); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("Log(../etc) = %v", err)
			}

			// Diff and patch.
			var diff bytes.Buffer
			if err := g.Diff(ctx, repo, DiffOptions{Head: c2}, &diff); err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if !strings.Contains(diff.String(), "+world") || !strings.Contains(diff.String(), "rename to docs/manual.md") {
				t.Fatalf("Diff = %s", diff.String())
			}
			diff.Reset()
			if err := g.Diff(ctx, repo, DiffOptions{Base: c1, Head: c3}, &diff); err != nil || !strings.Contains(diff.String(), "deleted file mode") {
				t.Fatalf("Diff(c1..c3) = %v: %s", err, diff.String())
			}
			var patch bytes.Buffer
			if err := g.Patch(ctx, repo, DiffOptions{Head: c1}, &patch); err != nil || !strings.Contains(patch.String(), "Subject: [PATCH] initial") {
				t.Fatalf("Patch(root) = %v: %s", err, patch.String())
			}
			patch.Reset()
			if err := g.Patch(ctx, repo, DiffOptions{Base: c1, Head: "main"}, &patch); err != nil || strings.Count(patch.String(), "Subject: [PATCH") != 2 {
				t.Fatalf("Patch(range) = %v: %s", err, patch.String())
			}
		})
	}
}

func entryPaths(entries []TreeEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Path)
	}
	return out
}

func TestCommitFilesErrors(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	base := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		create("a.txt", "a\n"),
		create("dir/b.txt", "b\n"),
	}})
	blobA, err := g.ResolveRef(ctx, repo, "main:a.txt")
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		opts    CommitFilesOptions
		wantErr error
	}{
		{"create existing", CommitFilesOptions{Changes: []FileChange{create("a.txt", "x")}}, ErrAlreadyExists},
		{"update missing", CommitFilesOptions{Changes: []FileChange{{Op: ChangeUpdate, Path: "nope", Content: strings.NewReader("x")}}}, ErrNotFound},
		{"delete missing", CommitFilesOptions{Changes: []FileChange{{Op: ChangeDelete, Path: "nope"}}}, ErrNotFound},
		{"rename missing", CommitFilesOptions{Changes: []FileChange{{Op: ChangeRename, FromPath: "nope", Path: "x"}}}, ErrNotFound},
		{"rename onto existing", CommitFilesOptions{Changes: []FileChange{{Op: ChangeRename, FromPath: "a.txt", Path: "dir/b.txt"}}}, ErrAlreadyExists},
		{"update wrong sha", CommitFilesOptions{Changes: []FileChange{{Op: ChangeUpdate, Path: "a.txt", SHA: strings.Repeat("1", 40), Content: strings.NewReader("x")}}}, ErrConflict},
		{"file over directory", CommitFilesOptions{Changes: []FileChange{create("dir", "x")}}, ErrConflict},
		{"directory over file", CommitFilesOptions{Changes: []FileChange{create("a.txt/c", "x")}}, ErrConflict},
		{"file and directory in one batch", CommitFilesOptions{Changes: []FileChange{create("n", "x"), create("n/m", "y")}}, ErrConflict},
		{"dot-dot path", CommitFilesOptions{Changes: []FileChange{create("../x", "x")}}, ErrInvalidArgument},
		{"dot-git path", CommitFilesOptions{Changes: []FileChange{create(".git/config", "x")}}, ErrInvalidArgument},
		{"dot-git upper case", CommitFilesOptions{Changes: []FileChange{create("sub/.GIT/hooks/post-update", "x")}}, ErrInvalidArgument},
		{"absolute path", CommitFilesOptions{Changes: []FileChange{create("/etc/passwd", "x")}}, ErrInvalidArgument},
		{"empty path", CommitFilesOptions{Changes: []FileChange{create("", "x")}}, ErrInvalidArgument},
		{"no changes", CommitFilesOptions{}, ErrInvalidArgument},
		{"bad mode", CommitFilesOptions{Changes: []FileChange{{Op: ChangeCreate, Path: "m", Mode: "040000", Content: strings.NewReader("x")}}}, ErrInvalidArgument},
		{"injected branch", CommitFilesOptions{Branch: "--upload-pack=evil", Changes: []FileChange{create("z", "x")}}, ErrInvalidArgument},
		{"bad author", CommitFilesOptions{Author: Signature{Name: "a>b", Email: "x@y"}, Changes: []FileChange{create("z", "x")}}, ErrInvalidArgument},
		{"stale expected sha", CommitFilesOptions{ExpectedSHA: strings.Repeat("0", 40), Changes: []FileChange{create("z", "x")}}, ErrNotFound},
		{"start point on existing branch", CommitFilesOptions{StartPoint: "main", Changes: []FileChange{create("z", "x")}}, ErrAlreadyExists},
		{"missing start point", CommitFilesOptions{Branch: "new", StartPoint: "nope", Changes: []FileChange{create("z", "x")}}, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts.Branch == "" {
				opts.Branch = "main"
			}
			if opts.Author.Name == "" {
				opts.Author = testAuthor
			}
			opts.Message = "should fail"
			_, err := g.CommitFiles(ctx, repo, opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("CommitFiles = %v, want %v", err, tt.wantErr)
			}
			if tip, err := g.ResolveCommit(ctx, repo, "main"); err != nil || tip != base {
				t.Fatalf("main moved to %s (%v)", tip, err)
			}
		})
	}

	// Valid uses of the same features.
	c := commitFiles(t, g, repo, CommitFilesOptions{Branch: "feature", StartPoint: "main", Changes: []FileChange{
		{Op: ChangeUpdate, Path: "a.txt", SHA: blobA, Content: strings.NewReader("A\n")},
		{Op: ChangeDelete, Path: "dir/b.txt"},
		create("dir", "now a file\n"),
		{Op: ChangeCreate, Path: "link", Mode: ModeSymlink, Content: strings.NewReader("a.txt")},
	}})
	if got := readBlob(t, g, repo, "feature:dir"); got != "now a file\n" {
		t.Fatalf("dir = %q", got)
	}
	if e, err := g.GetTreeEntry(ctx, repo, c, "link"); err != nil || !e.IsSymlink() {
		t.Fatalf("link = %+v, %v", e, err)
	}
	if got, err := g.GetCommit(ctx, repo, "feature"); err != nil || !slices.Equal(got.Parents, []string{base}) {
		t.Fatalf("feature parents = %v, %v", got.Parents, err)
	}
	commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", ExpectedSHA: base, Changes: []FileChange{create("c.txt", "c")}})
	orphan := commitFiles(t, g, repo, CommitFilesOptions{Branch: "orphan", Changes: []FileChange{create("only.txt", "o")}})
	if got, err := g.GetCommit(ctx, repo, orphan); err != nil || len(got.Parents) != 0 {
		t.Fatalf("orphan = %+v, %v", got, err)
	}
}

func TestConcurrentCommitFiles(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	base := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("counter", "0")}})

	for round := range 2 {
		tip, err := g.ResolveCommit(ctx, repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		const n = 6
		var wg sync.WaitGroup
		shas := make([]string, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				opts := CommitFilesOptions{
					Branch:  "main",
					Author:  testAuthor,
					Message: "writer",
					Changes: []FileChange{{Op: ChangeUpdate, Path: "counter", Content: strings.NewReader(strings.Repeat("x", i+1))}},
				}
				if round == 0 {
					opts.ExpectedSHA = tip
				}
				shas[i], errs[i] = g.CommitFiles(ctx, repo, opts)
			})
		}
		wg.Wait()
		winners := 0
		var winner string
		for i, err := range errs {
			switch {
			case err == nil:
				winners++
				winner = shas[i]
			case !errors.Is(err, ErrConflict):
				t.Fatalf("round %d writer %d: %v, want ErrConflict", round, i, err)
			}
		}
		if round == 0 && winners != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1", round, winners)
		}
		if winners < 1 {
			t.Fatalf("round %d: no winner", round)
		}
		got, err := g.GetCommit(ctx, repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 && (got.SHA != winner || !slices.Equal(got.Parents, []string{base})) {
			t.Fatalf("main = %s (parents %v), winner %s", got.SHA, got.Parents, winner)
		}
	}
	// No commit was lost behind the branch's back: the history is linear
	// and holds every winner.
	if _, total, err := g.Log(ctx, repo, LogOptions{Rev: "main"}); err != nil || total < 3 {
		t.Fatalf("Log total = %d, %v", total, err)
	}
}

func TestBranchesAndTags(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	c1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "one", Changes: []FileChange{create("f", "1")}})
	c2 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Message: "two", Changes: []FileChange{create("g", "2")}})

	if sha, err := g.CreateBranch(ctx, repo, "feature/a", c1); err != nil || sha != c1 {
		t.Fatalf("CreateBranch = %s, %v", sha, err)
	}
	if _, err := g.CreateBranch(ctx, repo, "dev", "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(ctx, repo, "dev", "main"); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("CreateBranch(existing) = %v", err)
	}
	if _, err := g.CreateBranch(ctx, repo, "x", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("CreateBranch(bad start) = %v", err)
	}
	if _, err := g.CreateBranch(ctx, repo, "--upload-pack=evil", "main"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("CreateBranch(injection) = %v", err)
	}

	all, total, err := g.ListBranches(ctx, repo, ListOptions{})
	if err != nil || total != 3 {
		t.Fatalf("ListBranches = %v, %d, %v", all, total, err)
	}
	if got := branchNames(all); !slices.Equal(got, []string{"dev", "feature/a", "main"}) {
		t.Fatalf("branches = %v", got)
	}
	main := all[2]
	if main.Commit.SHA != c2 || main.Commit.Message != "two\n" || !slices.Equal(main.Commit.Parents, []string{c1}) ||
		main.Commit.Author.Email != testAuthor.Email || !main.Commit.Committer.When.Equal(testTime) {
		t.Fatalf("main = %+v", main)
	}
	page, total, err := g.ListBranches(ctx, repo, ListOptions{Skip: 1, Limit: 1})
	if err != nil || total != 3 || len(page) != 1 || page[0].Name != "feature/a" {
		t.Fatalf("page = %v, %d, %v", page, total, err)
	}
	if b, err := g.GetBranch(ctx, repo, "feature/a"); err != nil || b.Commit.SHA != c1 {
		t.Fatalf("GetBranch = %+v, %v", b, err)
	}
	if _, err := g.GetBranch(ctx, repo, "feature"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetBranch(prefix) = %v", err)
	}

	// Rename follows HEAD.
	if err := g.RenameBranch(ctx, repo, "main", "trunk"); err != nil {
		t.Fatalf("RenameBranch: %v", err)
	}
	if head, err := g.HeadBranch(ctx, repo); err != nil || head != "trunk" {
		t.Fatalf("HEAD = %q, %v", head, err)
	}
	if err := g.RenameBranch(ctx, repo, "dev", "trunk"); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("RenameBranch onto existing = %v", err)
	}
	if err := g.RenameBranch(ctx, repo, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("RenameBranch(missing) = %v", err)
	}
	if err := g.DeleteBranch(ctx, repo, "dev", c1); !errors.Is(err, ErrConflict) {
		t.Fatalf("DeleteBranch(stale) = %v", err)
	}
	if err := g.DeleteBranch(ctx, repo, "dev", c2); err != nil {
		t.Fatalf("DeleteBranch: %v", err)
	}
	if err := g.DeleteBranch(ctx, repo, "dev", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("DeleteBranch(missing) = %v", err)
	}
	if err := g.SetHeadBranch(ctx, repo, "feature/a"); err != nil {
		t.Fatal(err)
	}
	if head, _ := g.HeadBranch(ctx, repo); head != "feature/a" {
		t.Fatalf("HEAD = %q", head)
	}

	// Tags.
	light, err := g.CreateTag(ctx, repo, CreateTagOptions{Name: "v1.0", Target: c1})
	if err != nil || light.Annotated || light.CommitSHA != c1 || light.ObjectSHA != c1 {
		t.Fatalf("lightweight tag = %+v, %v", light, err)
	}
	tagger := Signature{Name: "Tim Tagger", Email: "tim@example.com", When: testTime.Add(time.Hour)}
	ann, err := g.CreateTag(ctx, repo, CreateTagOptions{Name: "v2.0", Target: "trunk", Message: "Release 2", Tagger: &tagger})
	if err != nil || !ann.Annotated || ann.CommitSHA != c2 || ann.ObjectSHA == c2 || ann.ObjectType != TypeTag ||
		ann.Message != "Release 2\n" || ann.Tagger == nil || ann.Tagger.Name != "Tim Tagger" || !ann.Tagger.When.Equal(tagger.When) {
		t.Fatalf("annotated tag = %+v, %v", ann, err)
	}
	if _, err := g.CreateTag(ctx, repo, CreateTagOptions{Name: "v2.0", Target: c1}); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("CreateTag(existing) = %v", err)
	}
	if _, err := g.CreateTag(ctx, repo, CreateTagOptions{Name: "v3", Target: c1, Message: "m"}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("CreateTag(no tagger) = %v", err)
	}
	if _, err := g.CreateTag(ctx, repo, CreateTagOptions{Name: "v3", Target: "--upload-pack=evil"}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("CreateTag(injected target) = %v", err)
	}
	if sha, err := g.ResolveCommit(ctx, repo, "v2.0"); err != nil || sha != c2 {
		t.Fatalf("ResolveCommit(tag) = %s, %v", sha, err)
	}
	if sha, err := g.ResolveRef(ctx, repo, "v2.0"); err != nil || sha != ann.ObjectSHA {
		t.Fatalf("ResolveRef(tag) = %s, %v", sha, err)
	}
	tags, total, err := g.ListTags(ctx, repo, ListOptions{})
	if err != nil || total != 2 || len(tags) != 2 {
		t.Fatalf("ListTags = %+v, %d, %v", tags, total, err)
	}
	if got, err := g.GetTag(ctx, repo, "v2.0"); err != nil || got.Message != "Release 2\n" {
		t.Fatalf("GetTag = %+v, %v", got, err)
	}
	if err := g.DeleteTag(ctx, repo, "v2.0", ""); err != nil {
		t.Fatalf("DeleteTag: %v", err)
	}
	if _, err := g.GetTag(ctx, repo, "v2.0"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetTag(deleted) = %v", err)
	}
}

func branchNames(bs []Branch) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Name)
	}
	return out
}

func TestArgumentInjection(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("f", "1")}})
	const evil = "--upload-pack=evil"
	calls := map[string]func() error{
		"ResolveRef":    func() error { _, err := g.ResolveRef(ctx, repo, evil); return err },
		"ResolveCommit": func() error { _, err := g.ResolveCommit(ctx, repo, evil); return err },
		"GetCommit":     func() error { _, err := g.GetCommit(ctx, repo, evil); return err },
		"Stat":          func() error { _, err := g.Stat(ctx, repo, evil); return err },
		"Log":           func() error { _, _, err := g.Log(ctx, repo, LogOptions{Rev: evil}); return err },
		"ListTree":      func() error { _, err := g.ListTree(ctx, repo, evil, "", false); return err },
		"GetTreeEntry":  func() error { _, err := g.GetTreeEntry(ctx, repo, "main", "../x"); return err },
		"GetTreeEntry .git": func() error {
			_, err := g.GetTreeEntry(ctx, repo, "main", ".git/config")
			return err
		},
		"Archive": func() error {
			return g.Archive(ctx, repo, ArchiveOptions{Rev: evil, Format: ArchiveZip}, io.Discard)
		},
		"Archive prefix": func() error {
			return g.Archive(ctx, repo, ArchiveOptions{Rev: "main", Format: ArchiveZip, Prefix: "../x"}, io.Discard)
		},
		"Diff":          func() error { return g.Diff(ctx, repo, DiffOptions{Base: evil, Head: "main"}, io.Discard) },
		"Patch":         func() error { return g.Patch(ctx, repo, DiffOptions{Head: evil}, io.Discard) },
		"DeleteBranch":  func() error { return g.DeleteBranch(ctx, repo, evil, "") },
		"RenameBranch":  func() error { return g.RenameBranch(ctx, repo, "main", evil) },
		"SetHeadBranch": func() error { return g.SetHeadBranch(ctx, repo, evil) },
		"CloneMirror":   func() error { return g.CloneMirror(ctx, evil, filepath.Join(t.TempDir(), "m.git"), MirrorOptions{}) },
		"DiffStats":     func() error { _, err := g.DiffStats(ctx, repo, "main", evil); return err },
		"GetBranch":     func() error { _, err := g.GetBranch(ctx, repo, evil); return err },
		"CreateTag name": func() error {
			_, err := g.CreateTag(ctx, repo, CreateTagOptions{Name: evil, Target: "main"})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
		})
	}
}

func TestArchiveAndBundle(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	if err := g.Bundle(ctx, repo, io.Discard); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Bundle(empty) = %v, want ErrNotFound", err)
	}
	commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{
		create("README.md", "hello\n"),
		create("src/a.go", "package a\n"),
	}})

	var buf bytes.Buffer
	if err := g.Archive(ctx, repo, ArchiveOptions{Rev: "main", Format: ArchiveZip, Prefix: "repo-main"}, &buf); err != nil {
		t.Fatalf("Archive zip: %v", err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("zip: %v", err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	if files["repo-main/README.md"] != "hello\n" || files["repo-main/src/a.go"] != "package a\n" || len(files) != 2 {
		t.Fatalf("zip files = %v", files)
	}

	buf.Reset()
	if err := g.Archive(ctx, repo, ArchiveOptions{Rev: "main", Format: ArchiveTarGz}, &buf); err != nil {
		t.Fatalf("Archive tar.gz: %v", err)
	}
	if _, err := gzip.NewReader(&buf); err != nil {
		t.Fatalf("tar.gz is not gzip: %v", err)
	}
	if err := g.Archive(ctx, repo, ArchiveOptions{Rev: "nope", Format: ArchiveZip}, io.Discard); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Archive(bad rev) = %v", err)
	}
	if err := g.Archive(ctx, repo, ArchiveOptions{Rev: "main", Format: "rar"}, io.Discard); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Archive(rar) = %v", err)
	}

	buf.Reset()
	if err := g.Bundle(ctx, repo, &buf); err != nil {
		t.Fatalf("Bundle: %v", err)
	}
	if !strings.HasPrefix(buf.String(), "# v2 git bundle\n") {
		t.Fatalf("bundle header %q", buf.String()[:min(20, buf.Len())])
	}
}

func TestStream(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB, more than a pipe holds
	commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("big", big)}})

	// Closing early stops the process without an error.
	r, size, err := g.ReadBlob(ctx, repo, "main:big")
	if err != nil || size != int64(len(big)) {
		t.Fatalf("ReadBlob = %d, %v", size, err)
	}
	if _, err := io.ReadFull(r, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung")
	}

	// A failing command reports its error instead of io.EOF, with stderr.
	s, err := g.repoCommand(repo, "cat-file", "blob").Values("0000000000000000000000000000000000000001").Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(s)
	s.Close()
	var ge *Error
	if !errors.As(err, &ge) || ge.ExitCode == 0 || !strings.Contains(ge.Stderr, "fatal") {
		t.Fatalf("stream error = %v", err)
	}

	// A canceled context surfaces as context.Canceled.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.ResolveRef(cctx, repo, "main"); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled = %v", err)
	}
}

func TestCloneAndFetchMirror(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	src := initRepo(t, g, ObjectFormatSHA1)
	c1 := commitFiles(t, g, src, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("f", "1")}})

	dst := filepath.Join(t.TempDir(), "mirror.git")
	if err := g.CloneMirror(ctx, src, dst, MirrorOptions{}); err == nil {
		t.Fatal("local clone allowed without the file protocol")
	}
	local := MirrorOptions{AllowProtocols: []string{"file"}}
	if err := g.CloneMirror(ctx, src, dst, local); err != nil {
		t.Fatalf("CloneMirror: %v", err)
	}
	if sha, err := g.ResolveCommit(ctx, dst, "main"); err != nil || sha != c1 {
		t.Fatalf("mirror main = %s, %v", sha, err)
	}
	c2 := commitFiles(t, g, src, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("g", "2")}})
	if _, err := g.CreateBranch(ctx, src, "other", c1); err != nil {
		t.Fatal(err)
	}
	if err := g.FetchMirror(ctx, dst, local); err != nil {
		t.Fatalf("FetchMirror: %v", err)
	}
	if sha, err := g.ResolveCommit(ctx, dst, "main"); err != nil || sha != c2 {
		t.Fatalf("mirror main after fetch = %s, %v", sha, err)
	}
	if err := g.DeleteBranch(ctx, src, "other", ""); err != nil {
		t.Fatal(err)
	}
	if err := g.FetchMirror(ctx, dst, local); err != nil {
		t.Fatalf("FetchMirror: %v", err)
	}
	if _, err := g.GetBranch(ctx, dst, "other"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("pruned branch = %v", err)
	}
}

func TestMaskURL(t *testing.T) {
	base := &Error{Args: []string{"clone"}, ExitCode: 128, Err: errors.New("exit status 128"),
		Stderr: "fatal: unable to access 'https://bob:s3cret@example.com/r.git/'"}
	err := maskURL(fmt.Errorf("%w: %w", ErrNotFound, base), "https://bob:s3cret@example.com/r.git")
	if strings.Contains(err.Error(), "s3cret") || !errors.Is(err, ErrNotFound) {
		t.Fatalf("masked = %v", err)
	}
	if err := maskURL(base, "https://example.com/r.git"); err != base {
		t.Fatalf("no credentials: %v", err)
	}
}

func TestRunService(t *testing.T) {
	g := newTestGit(t)
	ctx := t.Context()
	repo := initRepo(t, g, ObjectFormatSHA1)
	c1 := commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("f", "1")}})

	tests := []struct {
		name     string
		svc      Service
		protocol string
		want     string
	}{
		{"upload-pack v0", UploadPack, "", c1 + " HEAD\x00"},
		{"upload-pack v2", UploadPack, "version=2", "version 2"},
		{"upload-pack bad protocol dropped", UploadPack, "evil=1", c1 + " HEAD\x00"},
		{"receive-pack", ReceivePack, "", c1 + " refs/heads/main\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := g.RunService(ctx, repo, tt.svc, ServiceOptions{
				StatelessRPC: true, AdvertiseRefs: true, Protocol: tt.protocol, Stdout: &out,
			})
			if err != nil {
				t.Fatalf("RunService: %v", err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Fatalf("advertisement %q lacks %q", out.String(), tt.want)
			}
		})
	}

	// A full stateless fetch negotiation: want the tip, get a pack.
	req := pktLine("want "+c1+" ofs-delta\n") + "0000" + pktLine("done\n")
	var out bytes.Buffer
	err := g.RunService(ctx, repo, UploadPack, ServiceOptions{StatelessRPC: true, Stdin: strings.NewReader(req), Stdout: &out})
	if err != nil {
		t.Fatalf("upload-pack: %v", err)
	}
	if !strings.Contains(out.String(), "PACK") {
		t.Fatalf("no pack in response: %q", out.String()[:min(100, out.Len())])
	}

	if err := g.RunService(ctx, repo, "shell", ServiceOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("unknown service = %v", err)
	}
	if err := g.RunService(ctx, repo, UploadArchive, ServiceOptions{StatelessRPC: true}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("stateless upload-archive = %v", err)
	}
}

func pktLine(s string) string {
	return fmt.Sprintf("%04x%s", len(s)+4, s)
}

func TestReadSmallBlob(t *testing.T) {
	g := newTestGit(t)
	repo := initRepo(t, g, ObjectFormatSHA1)
	commitFiles(t, g, repo, CommitFilesOptions{Branch: "main", Changes: []FileChange{create("small", "twelve bytes"), create("docs/x", "x")}})
	ctx := t.Context()
	if b, err := g.ReadSmallBlob(ctx, repo, "main:small", 12); err != nil || string(b) != "twelve bytes" {
		t.Fatalf("ReadSmallBlob(at the limit) = %q, %v", b, err)
	}
	if b, err := g.ReadSmallBlob(ctx, repo, "main:small", 11); !errors.Is(err, ErrBlobTooLarge) || b != nil {
		t.Fatalf("ReadSmallBlob(over the limit) = %q, %v; want ErrBlobTooLarge", b, err)
	}
	if _, err := g.ReadSmallBlob(ctx, repo, "main:docs", 100); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ReadSmallBlob(tree) = %v, want ErrNotFound", err)
	}
}
