package protect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
)

// pushFixture is a migrated SQLite database, a bare repository with three
// commits (base, next on top of it, and other beside next) and a service
// reading both.
type pushFixture struct {
	s                 *Service
	r                 *repo.Repository
	base, next, other string
}

func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newPushFixture(t testing.TB) *pushFixture {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, "", t.TempDir())
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
	dir := t.TempDir()
	bare := filepath.Join(dir, "r.git")
	work := filepath.Join(dir, "w")
	runGit(t, dir, "init", "-q", "--bare", bare)
	runGit(t, dir, "init", "-q", work)
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		runGit(t, work, "add", "-A")
		runGit(t, work, "commit", "-q", "-m", name)
	}
	write("a.txt", "a")
	f := &pushFixture{r: &repo.Repository{ID: 1, OwnerID: 1}}
	f.base = runGit(t, work, "rev-parse", "HEAD")
	write("secret/key", "k")
	f.next = runGit(t, work, "rev-parse", "HEAD")
	runGit(t, work, "checkout", "-q", "-b", "side", f.base)
	write("docs/x.md", "x")
	f.other = runGit(t, work, "rev-parse", "HEAD")
	runGit(t, work, "push", "-q", bare, "HEAD:refs/heads/side", f.next+":refs/heads/main")
	f.s = &Service{db: d, git: g, repoPath: func(*repo.Repository) string { return bare }}
	return f
}

func (f *pushFixture) rule(t testing.TB, b *BranchRule) {
	t.Helper()
	b.RepoID = f.r.ID
	if err := f.s.CreateBranchRule(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

func TestPushRule(t *testing.T) {
	f := newPushFixture(t)
	ctx := context.Background()
	f.rule(t, &BranchRule{RuleName: "main", CanPush: true, ProtectedFilePatterns: "secret/*"})
	f.rule(t, &BranchRule{RuleName: "side", CanPush: true, CanForcePush: true, EnableForcePushAllowlist: true,
		ForcePushAllowlistUserIDs: []int64{7}})
	zero := strings.Repeat("0", len(f.base))
	for _, c := range []struct {
		u      hooks.RefUpdate
		pusher int64
		want   string
	}{
		{hooks.RefUpdate{OldSHA: f.next, NewSHA: zero, Ref: "refs/heads/main"}, 1, "branch main is protected from deletion"},
		{hooks.RefUpdate{OldSHA: f.next, NewSHA: f.other, Ref: "refs/heads/main"}, 1, "branch main is protected from force push"},
		{hooks.RefUpdate{OldSHA: f.base, NewSHA: f.next, Ref: "refs/heads/main"}, 1, "branch main is protected from changing file secret/key"},
		{hooks.RefUpdate{OldSHA: f.other, NewSHA: f.base, Ref: "refs/heads/side"}, 1, "branch side is protected from force push"},
		{hooks.RefUpdate{OldSHA: f.other, NewSHA: f.base, Ref: "refs/heads/side"}, 7, ""},
		{hooks.RefUpdate{OldSHA: f.base, NewSHA: f.other, Ref: "refs/heads/feature"}, 1, ""},
		{hooks.RefUpdate{OldSHA: zero, NewSHA: f.next, Ref: "refs/heads/main"}, 1, ""},
	} {
		got, err := f.s.PushRule(ctx, f.r, hooks.Request{RepoID: 1, PusherID: c.pusher, Updates: []hooks.RefUpdate{c.u}})
		if err != nil || got != c.want {
			t.Errorf("%s %s..%s by %d = %q, %v; want %q", c.u.Ref, c.u.OldSHA[:7], c.u.NewSHA[:7], c.pusher, got, err, c.want)
		}
	}
	// Deploy keys push where the allowlist admits deploy keys; a user on
	// the allowlist does not make the key allowed.
	f.rule(t, &BranchRule{RuleName: "dk/*", CanPush: true, EnableWhitelist: true, WhitelistUserIDs: []int64{1}})
	f.rule(t, &BranchRule{RuleName: "dk2/*", CanPush: true, EnableWhitelist: true, WhitelistDeployKeys: true})
	for ref, want := range map[string]string{"refs/heads/dk/x": "Not allowed to push to protected branch dk/x", "refs/heads/dk2/x": ""} {
		got, err := f.s.PushRule(ctx, f.r, hooks.Request{RepoID: 1, PusherID: 1, DeployKeyID: 3,
			Updates: []hooks.RefUpdate{{OldSHA: f.base, NewSHA: f.next, Ref: ref}}})
		if err != nil || got != want {
			t.Errorf("deploy key push to %s = %q, %v; want %q", ref, got, err, want)
		}
	}
	// Objects outside the repository are refused before git runs.
	_, err := f.s.PushRule(ctx, f.r, hooks.Request{Updates: []hooks.RefUpdate{{OldSHA: f.base, NewSHA: f.next, Ref: "refs/heads/main"}},
		ObjectDirs: hooks.ObjectDirs{ObjectDirectory: "/tmp"}})
	if err == nil {
		t.Fatal("object directory outside the repository accepted")
	}
}

// BenchmarkPushRuleProtected is the pre-receive check of a fast-forward
// push to a protected branch without required signatures: one query and
// one git process (force-push detection); with protected file patterns a
// second git process lists the changed files.
func BenchmarkPushRuleProtected(b *testing.B) {
	for _, c := range []struct {
		name string
		rule *BranchRule
	}{
		{"unprotected", nil},
		{"protected", &BranchRule{RuleName: "main", CanPush: true}},
		{"protected+files", &BranchRule{RuleName: "main", CanPush: true, ProtectedFilePatterns: "*.lock"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			f := newPushFixture(b)
			if c.rule != nil {
				f.rule(b, c.rule)
			}
			req := hooks.Request{RepoID: 1, PusherID: 1, Updates: []hooks.RefUpdate{{OldSHA: f.base, NewSHA: f.next, Ref: "refs/heads/main"}}}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if msg, err := f.s.PushRule(ctx, f.r, req); msg != "" || err != nil {
					b.Fatal(msg, err)
				}
			}
		})
	}
}
