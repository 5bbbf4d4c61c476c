package repo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/password"
	"github.com/cairn-forge/cairn/internal/user"
)

type filesEnv struct {
	ctx  context.Context
	svc  *Service
	doer *user.User
}

func newFilesEnv(t *testing.T) *filesEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	env := map[string]string{"CAIRN_DATA_DIR": dir, "CAIRN_ROOT_URL": "https://forge.example/"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	g, err := git.New(git.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	users := user.NewService(d, user.Options{PasswordParams: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}})
	doer, err := users.Create(ctx, user.CreateOptions{Name: "ann", Email: "ann@example.org", Password: "secret-pw", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	doer.FullName = "Ann Example"
	return &filesEnv{ctx: ctx, svc: NewService(d, g, users, cfg, nil), doer: doer}
}

func (e *filesEnv) repo(t *testing.T, name string) *Repository {
	t.Helper()
	r, err := e.svc.Create(e.ctx, e.doer, e.doer, CreateOptions{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *filesEnv) change(t *testing.T, r *Repository, opts ChangeFilesOptions) *ChangeFilesResult {
	t.Helper()
	res, err := e.svc.ChangeFiles(e.ctx, r, e.doer, opts)
	if err != nil {
		t.Fatalf("ChangeFiles: %v", err)
	}
	return res
}

func (e *filesEnv) read(t *testing.T, r *Repository, rev, p string) string {
	t.Helper()
	rc, _, err := e.svc.Git.ReadBlob(e.ctx, e.svc.Path(r), rev+":"+p)
	if err != nil {
		t.Fatalf("read %s:%s: %v", rev, p, err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return string(b)
}

// wantFileErr checks a domain error's kind and message.
func wantFileErr(t *testing.T, err error, k errs.Kind, text string) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want a %v error %q", err, err, k, text)
	}
	if e.Kind != k || !strings.Contains(e.Message, text) {
		t.Fatalf("got kind %v %q, want kind %v containing %q", e.Kind, e.Message, k, text)
	}
}

func TestChangeFilesLifecycle(t *testing.T) {
	e := newFilesEnv(t)
	r := e.repo(t, "life")
	path := e.svc.Path(r)

	// The first file of an empty repository creates the default branch,
	// authored and committed by the caller, with Gitea's default message.
	res := e.change(t, r, ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "./docs//README.md", Content: []byte("hello\n")}}})
	if res.Branch != "main" || res.Paths[0] != "docs/README.md" || len(res.Commit.Parents) != 0 {
		t.Fatalf("first change: branch %q paths %v parents %v", res.Branch, res.Paths, res.Commit.Parents)
	}
	if r.IsEmpty {
		t.Fatal("repository still empty after the first change")
	}
	if a := res.Commit.Author; a.Name != "Ann Example" || a.Email != "ann@example.org" || res.Commit.Committer.Email != "ann@example.org" {
		t.Fatalf("identity %+v / %+v", a, res.Commit.Committer)
	}
	if res.Commit.Message != "Add docs/README.md\n" {
		t.Fatalf("message %q", res.Commit.Message)
	}
	readme := res.Entries[0]
	if readme == nil || readme.Size != 6 || e.read(t, r, "main", "docs/README.md") != "hello\n" {
		t.Fatalf("entry %+v", readme)
	}

	// Update: the SHA must match.
	_, err := e.svc.ChangeFiles(e.ctx, r, e.doer, ChangeFilesOptions{Files: []FileOperation{{Operation: FileUpdate, Path: "docs/README.md", SHA: strings.Repeat("a", 40), Content: []byte("x")}}})
	wantFileErr(t, err, errs.KindInvalid, "sha does not match")
	res = e.change(t, r, ChangeFilesOptions{Message: "  Edit readme  ", Signoff: true,
		Author:     FileIdentity{Name: "Bob", Email: "bob@example.org"},
		AuthorDate: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC),
		Files:      []FileOperation{{Operation: FileUpdate, Path: "docs/README.md", SHA: readme.SHA, Content: []byte("v2\n")}}})
	if res.Commit.Message != "Edit readme\n\nSigned-off-by: Bob <bob@example.org>\n" {
		t.Fatalf("message %q", res.Commit.Message)
	}
	// A given author alone stands for the committer too (as in Gitea).
	if res.Commit.Author.Name != "Bob" || res.Commit.Committer.Email != "bob@example.org" || res.Commit.Author.When.Year() != 2020 {
		t.Fatalf("identities %+v / %+v", res.Commit.Author, res.Commit.Committer)
	}
	v2 := res.Entries[0]

	// Move with from_path, then several operations in one commit.
	res = e.change(t, r, ChangeFilesOptions{Files: []FileOperation{{Operation: FileUpdate, FromPath: "docs/README.md", Path: "README.md", SHA: v2.SHA, Content: []byte("v3\n")}}})
	if res.Commit.Message != "Update README.md\n" {
		t.Fatalf("message %q", res.Commit.Message)
	}
	if _, err := e.svc.Git.GetTreeEntry(e.ctx, path, "main", "docs/README.md"); !errors.Is(err, git.ErrNotFound) {
		t.Fatalf("moved file still at its old path: %v", err)
	}
	moved := res.Entries[0]
	res = e.change(t, r, ChangeFilesOptions{Files: []FileOperation{
		{Operation: FileCreate, Path: "a.txt", Content: []byte("a")},
		{Operation: FileCreate, Path: "bin/blob", Content: []byte{0, 1, 2, 255}},
		{Operation: FileDelete, Path: "README.md", SHA: moved.SHA},
	}})
	if res.Commit.Message != "Add a.txt, bin/blob\nDelete README.md\n" || res.Entries[2] != nil || res.Entries[1].Size != 4 {
		t.Fatalf("multi change: %q %+v", res.Commit.Message, res.Entries)
	}
	if e.read(t, r, "main", "bin/blob") != "\x00\x01\x02\xff" {
		t.Fatal("binary content changed")
	}
	tip := res.Commit.SHA

	// A new branch starts from the given branch and leaves it alone.
	res = e.change(t, r, ChangeFilesOptions{Branch: "main", NewBranch: "feature/x", Files: []FileOperation{{Operation: FileCreate, Path: "f", Content: []byte("f")}}})
	if res.Branch != "feature/x" || res.Commit.Parents[0] != tip {
		t.Fatalf("new branch: %q parents %v", res.Branch, res.Commit.Parents)
	}
	if now, _ := e.svc.Git.ResolveCommit(e.ctx, path, "main"); now != tip {
		t.Fatal("main moved by a change to a new branch")
	}

	bad := []struct {
		name string
		opts ChangeFilesOptions
		kind errs.Kind
		text string
	}{
		{"no files", ChangeFilesOptions{}, errs.KindInvalid, "[Files]: Required"},
		{"traversal", ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "../x", Content: []byte("x")}}}, errs.KindInvalid, "malformed path"},
		{"absolute", ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "/etc/x", Content: []byte("x")}}}, errs.KindInvalid, "malformed path"},
		{"dot git", ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "a/.GIT/config", Content: []byte("x")}}}, errs.KindInvalid, "malformed path"},
		{"from traversal", ChangeFilesOptions{Files: []FileOperation{{Operation: FileUpdate, Path: "x", FromPath: "../a.txt", SHA: tip, Content: []byte("x")}}}, errs.KindInvalid, "malformed path"},
		{"root", ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "/", Content: []byte("x")}}}, errs.KindInvalid, "malformed path"},
		{"exists", ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "a.txt", Content: []byte("x")}}}, errs.KindInvalid, "repository file already exists"},
		{"missing file", ChangeFilesOptions{Files: []FileOperation{{Operation: FileDelete, Path: "nope", SHA: tip}}}, errs.KindNotFound, "repository file does not exist"},
		{"no sha", ChangeFilesOptions{Files: []FileOperation{{Operation: FileDelete, Path: "a.txt"}}}, errs.KindInvalid, "[SHA]: Required"},
		{"directory", ChangeFilesOptions{Files: []FileOperation{{Operation: FileDelete, Path: "bin", SHA: tip}}}, errs.KindInvalid, "a directory exists"},
		{"file in the way", ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "a.txt/b", Content: []byte("x")}}}, errs.KindInvalid, "in the way"},
		{"twice", ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "n", Content: []byte("x")}, {Operation: FileCreate, Path: "./n", Content: []byte("x")}}}, errs.KindInvalid, "more than one operation"},
		{"operation", ChangeFilesOptions{Files: []FileOperation{{Operation: "rename", Path: "n"}}}, errs.KindInvalid, "[Operation]"},
		{"no branch", ChangeFilesOptions{Branch: "nope", Files: []FileOperation{{Operation: FileCreate, Path: "n", Content: []byte("x")}}}, errs.KindNotFound, "branch does not exist"},
		{"bad branch", ChangeFilesOptions{Branch: "-x", Files: []FileOperation{{Operation: FileCreate, Path: "n", Content: []byte("x")}}}, errs.KindInvalid, "[Branch]"},
		{"new branch exists", ChangeFilesOptions{NewBranch: "feature/x", Files: []FileOperation{{Operation: FileCreate, Path: "n", Content: []byte("x")}}}, errs.KindInvalid, "branch already exists"},
		{"bad email", ChangeFilesOptions{Author: FileIdentity{Name: "x", Email: "x <y>"}, Files: []FileOperation{{Operation: FileCreate, Path: "n", Content: []byte("x")}}}, errs.KindInvalid, "[Author.Email]"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.ChangeFiles(e.ctx, r, e.doer, tt.opts)
			wantFileErr(t, err, tt.kind, tt.text)
			if now, _ := e.svc.Git.ResolveCommit(e.ctx, path, "main"); now != tip {
				t.Fatal("a refused change moved the branch")
			}
		})
	}
}

func TestChangeFilesPushRules(t *testing.T) {
	e := newFilesEnv(t)
	r := e.repo(t, "rules")
	first := e.change(t, r, ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "a", Content: []byte("1")}}})

	var seen []hooks.Request
	e.svc.AddPushRule(func(_ context.Context, _ *Repository, req hooks.Request) (string, error) {
		seen = append(seen, req)
		if strings.HasSuffix(req.Updates[0].Ref, "/protected") || len(seen) == 2 {
			return "Cairn: branch protected is protected: changes need a pull request.", nil
		}
		return "", nil
	})
	// An allowed change is checked with the update it makes.
	res := e.change(t, r, ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "b", Content: []byte("2")}}})
	if len(seen) != 1 || seen[0].PusherID != e.doer.ID || seen[0].RepoID != r.ID {
		t.Fatalf("rule saw %+v", seen)
	}
	if u := seen[0].Updates[0]; u.Ref != "refs/heads/main" || u.OldSHA != first.Commit.SHA || u.NewSHA != res.Commit.SHA {
		t.Fatalf("rule saw update %+v, want %s -> %s", u, first.Commit.SHA, res.Commit.SHA)
	}
	// A refused one comes back with the rule's message and changes nothing.
	_, err := e.svc.ChangeFiles(e.ctx, r, e.doer, ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "c", Content: []byte("3")}}})
	wantFileErr(t, err, errs.KindForbidden, "changes need a pull request")
	if tip, _ := e.svc.Git.ResolveCommit(e.ctx, e.svc.Path(r), "main"); tip != res.Commit.SHA {
		t.Fatal("refused change moved the branch")
	}
	// A new branch is checked as a creation.
	_, err = e.svc.ChangeFiles(e.ctx, r, e.doer, ChangeFilesOptions{NewBranch: "protected", Files: []FileOperation{{Operation: FileCreate, Path: "c", Content: []byte("3")}}})
	wantFileErr(t, err, errs.KindForbidden, "changes need a pull request")
	if u := seen[2].Updates[0]; u.OldSHA != strings.Repeat("0", 40) || u.Ref != "refs/heads/protected" {
		t.Fatalf("creation checked as %+v", u)
	}
	if _, err := e.svc.Git.GetBranch(e.ctx, e.svc.Path(r), "protected"); !errors.Is(err, git.ErrNotFound) {
		t.Fatalf("refused branch exists: %v", err)
	}

	// The built-in rules apply too: an archived repository refuses.
	r.IsArchived = true
	if err := e.svc.Store.Update(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.ChangeFiles(e.ctx, r, e.doer, ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "d", Content: []byte("4")}}})
	wantFileErr(t, err, errs.KindForbidden, "archived")
}

func TestChangeFilesConcurrentUpdates(t *testing.T) {
	e := newFilesEnv(t)
	r := e.repo(t, "race")
	base := e.change(t, r, ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "f", Content: []byte("0")}}})
	sha := base.Entries[0].SHA

	const n = 6
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, results[i] = e.svc.ChangeFiles(e.ctx, r, e.doer, ChangeFilesOptions{Files: []FileOperation{
				{Operation: FileUpdate, Path: "f", SHA: sha, Content: []byte(fmt.Sprint(i + 1))},
			}})
		}(i)
	}
	wg.Wait()
	won := -1
	for i, err := range results {
		if err == nil {
			if won >= 0 {
				t.Fatalf("updates %d and %d with the same sha both succeeded", won, i)
			}
			won = i
			continue
		}
		var de *errs.Error
		if !errors.As(err, &de) || !(strings.Contains(de.Message, "sha does not match") || de.Kind == errs.KindConflict) {
			t.Fatalf("loser %d: %v", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no update succeeded")
	}
	if got := e.read(t, r, "main", "f"); got != fmt.Sprint(won+1) {
		t.Fatalf("file has %q, the winner wrote %d", got, won+1)
	}
	// Exactly one commit on top of the base.
	tip, _ := e.svc.Git.ResolveCommit(e.ctx, e.svc.Path(r), "main")
	c, err := e.svc.Git.GetCommit(e.ctx, e.svc.Path(r), tip)
	if err != nil || len(c.Parents) != 1 || c.Parents[0] != base.Commit.SHA {
		t.Fatalf("history after the race: %+v %v", c, err)
	}

	// Concurrent changes to different files all land, one after the other.
	results = make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, results[i] = e.svc.ChangeFiles(e.ctx, r, e.doer, ChangeFilesOptions{Files: []FileOperation{
				{Operation: FileCreate, Path: fmt.Sprintf("new-%d", i), Content: []byte("x")},
			}})
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range results {
		if err == nil {
			ok++
		} else {
			wantFileErr(t, err, errs.KindConflict, "kept moving")
		}
	}
	entries, err := e.svc.Git.ListTree(e.ctx, e.svc.Path(r), "main", "", false)
	if err != nil || len(entries) != 1+ok || ok < 2 {
		t.Fatalf("%d of %d independent changes landed, tree has %d entries (%v)", ok, n, len(entries), err)
	}
}

func TestReadEntryAndRefs(t *testing.T) {
	e := newFilesEnv(t)
	r := e.repo(t, "read")
	path := e.svc.Path(r)
	c1 := e.change(t, r, ChangeFilesOptions{Files: []FileOperation{
		{Operation: FileCreate, Path: "README.md", Content: []byte("hi")},
		{Operation: FileCreate, Path: "src/main.go", Content: []byte("package main")},
		{Operation: FileCreate, Path: ".gitmodules", Content: []byte("[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n")},
	}}).Commit.SHA
	c2 := e.change(t, r, ChangeFilesOptions{Files: []FileOperation{{Operation: FileCreate, Path: "src/util.go", Content: []byte("package main")}}}).Commit.SHA
	if _, err := e.svc.Git.CreateTag(e.ctx, path, git.CreateTagOptions{Name: "v1", Target: c1}); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		ref, kind, commit string
	}{
		{"", RefKindBranch, c2}, {"main", RefKindBranch, c2}, {"refs/heads/main", RefKindBranch, c2},
		{"v1", RefKindTag, c1}, {"refs/tags/v1", RefKindTag, c1}, {c1[:10], RefKindCommit, c1}, {c1, RefKindCommit, c1},
	} {
		fr, err := e.svc.ResolveFileRef(e.ctx, r, tt.ref)
		if err != nil || fr.Kind != tt.kind || fr.Commit != tt.commit {
			t.Errorf("ResolveFileRef(%q) = %+v, %v; want %s %s", tt.ref, fr, err, tt.kind, tt.commit)
		}
	}
	for _, bad := range []string{"main~1", "main^", "HEAD", "-x", "nope", "main:README.md", "ffff", "@{1}"} {
		_, err := e.svc.ResolveFileRef(e.ctx, r, bad)
		wantFileErr(t, err, errs.KindNotFound, "no commit found")
	}

	head, _ := e.svc.ResolveFileRef(e.ctx, r, "")
	dir, list, err := e.svc.ReadEntry(e.ctx, r, head, "src")
	if err != nil || !dir.IsDir() || len(list) != 2 {
		t.Fatalf("ReadEntry(src): %+v %v %v", dir, list, err)
	}
	last := map[string]string{}
	for _, en := range list {
		last[en.Path] = en.LastCommit
	}
	if last["src/main.go"] != c1 || last["src/util.go"] != c2 {
		t.Fatalf("last commits %v", last)
	}
	f, list, err := e.svc.ReadEntry(e.ctx, r, head, "README.md")
	if err != nil || list != nil || f.Kind() != "file" || f.LastCommit != c1 || f.Size != 2 {
		t.Fatalf("ReadEntry(README.md): %+v %v", f, err)
	}
	if _, _, err := e.svc.ReadEntry(e.ctx, r, head, "nope"); !errs.IsNotFound(err) {
		t.Fatalf("missing entry: %v", err)
	}

	// A legacy raw path: the shortest leading part naming a branch or tag.
	e.change(t, r, ChangeFilesOptions{NewBranch: "release/1.0", Files: []FileOperation{{Operation: FileCreate, Path: "rel", Content: []byte("r")}}})
	for _, tt := range []struct{ in, ref, path string }{
		{"main/src/main.go", "main", "src/main.go"},
		{"release/1.0/rel", "release/1.0", "rel"},
		{"v1/README.md", "v1", "README.md"},
		{c1 + "/README.md", c1, "README.md"},
		{"README.md", "main", "README.md"},
		{"src/main.go", "main", "src/main.go"},
	} {
		fr, p, err := e.svc.InferFileRef(e.ctx, r, tt.in)
		if err != nil || fr.Name != tt.ref || p != tt.path {
			t.Errorf("InferFileRef(%q) = %+v %q %v; want %s %s", tt.in, fr, p, err, tt.ref, tt.path)
		}
	}
}

func TestParseGitmodules(t *testing.T) {
	got := parseGitmodules("# comment\n[submodule \"a\"]\n\tpath = libs/a/\n\turl = https://x/a.git\n[core]\n\tpath = nope\n\turl = nope\n" +
		"[submodule \"b\"]\n url=\"git@x:b.git\"\n path=b\n[submodule \"c\"]\n path = c\n")
	if len(got) != 2 || got["libs/a"] != "https://x/a.git" || got["b"] != "git@x:b.git" {
		t.Fatalf("parseGitmodules: %v", got)
	}
}

func TestCommitIdentities(t *testing.T) {
	e := newFilesEnv(t)
	doer := *e.doer
	doer.FullName = "Ann <the> Example\n"
	tests := []struct {
		name                 string
		private              bool
		author, committer    FileIdentity
		wantAuthor, wantComm string
	}{
		{"caller", false, FileIdentity{}, FileIdentity{}, "Ann the Example <ann@example.org>", "Ann the Example <ann@example.org>"},
		{"private e-mail", true, FileIdentity{}, FileIdentity{}, "Ann the Example <ann@noreply.forge.example>", "Ann the Example <ann@noreply.forge.example>"},
		{"name without e-mail ignored", false, FileIdentity{Name: "X"}, FileIdentity{}, "Ann the Example <ann@example.org>", "Ann the Example <ann@example.org>"},
		{"committer alone", false, FileIdentity{}, FileIdentity{Name: "C", Email: "c@x.org"}, "C <c@x.org>", "C <c@x.org>"},
		{"both", false, FileIdentity{Name: "A", Email: "a@x.org"}, FileIdentity{Name: "C", Email: "c@x.org"}, "A <a@x.org>", "C <c@x.org>"},
		{"e-mail only", false, FileIdentity{Email: "zed@x.org"}, FileIdentity{}, "zed <zed@x.org>", "zed <zed@x.org>"},
		{"own e-mail only", false, FileIdentity{Email: "ANN@example.org"}, FileIdentity{}, "Ann the Example <ANN@example.org>", "Ann the Example <ANN@example.org>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := doer
			d.KeepEmailPrivate = tt.private
			a, c, err := e.svc.commitIdentities(&d, ChangeFilesOptions{Author: tt.author, Committer: tt.committer})
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Name + " <" + a.Email + ">"; got != tt.wantAuthor {
				t.Errorf("author %q, want %q", got, tt.wantAuthor)
			}
			if got := c.Name + " <" + c.Email + ">"; got != tt.wantComm {
				t.Errorf("committer %q, want %q", got, tt.wantComm)
			}
		})
	}
}
