package repo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/user"
)

// mirrorEnv is a repository service on SQLite in a temporary directory,
// with local imports allowed, and an administrator.
type mirrorEnv struct {
	s     *Service
	d     *db.DB
	admin *user.User
	dir   string
}

func newMirrorEnv(t *testing.T) *mirrorEnv {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	env := map[string]string{"CAIRN_DATA_DIR": filepath.Join(dir, "data"), "CAIRN_SECURITY_IMPORT_LOCAL_PATHS": "true"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cfg.DataDir, "tmp"), 0o750); err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(ctx, "", cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	g, err := git.New(git.Options{TempDir: filepath.Join(cfg.DataDir, "tmp")})
	if err != nil {
		t.Fatal(err)
	}
	users := user.NewService(d, user.Options{MinPasswordLength: 1})
	admin, err := users.Create(ctx, user.CreateOptions{Name: "boss", Email: "boss@example.com", Password: "secret-pw", IsAdmin: true, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	return &mirrorEnv{s: NewService(d, g, users, cfg, nil), d: d, admin: admin, dir: dir}
}

// gitIn runs git in dir and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitTo adds a commit to branch main of the bare repository src.
func commitTo(t *testing.T, work, src, file string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(work, file), []byte(file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, work, "add", file)
	gitIn(t, work, "commit", "-q", "-m", "add "+file)
	gitIn(t, work, "push", "-q", src, "HEAD:refs/heads/main")
	return gitIn(t, work, "rev-parse", "HEAD")
}

func TestMirrorWorkerSyncsDueMirrors(t *testing.T) {
	e := newMirrorEnv(t)
	ctx := context.Background()
	src := filepath.Join(e.dir, "src.git")
	work := filepath.Join(e.dir, "work")
	gitIn(t, e.dir, "init", "-q", "--bare", "-b", "main", src)
	gitIn(t, e.dir, "init", "-q", "-b", "main", work)
	first := commitTo(t, work, src, "a.txt")

	r, err := e.s.Migrate(ctx, e.admin, e.admin, MigrateOptions{CloneAddr: src, Name: "m", Mirror: true, MirrorInterval: "10m"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsMirror || r.IsEmpty || r.DefaultBranch != "main" || r.OriginalURL != src {
		t.Fatalf("migrated mirror: %+v", r)
	}
	if b, err := e.s.Git.GetBranch(ctx, e.s.Path(r), "main"); err != nil || b.Commit.SHA != first {
		t.Fatalf("mirror main = %+v, %v; want %s", b, err, first)
	}
	second := commitTo(t, work, src, "b.txt")

	// Not due yet: nothing happens.
	if n, err := e.s.SyncDueMirrors(ctx, 2); err != nil || n != 0 {
		t.Fatalf("SyncDueMirrors before due = %d, %v", n, err)
	}
	// A running sync's lease keeps the worker away.
	lease := -time.Now().Add(time.Hour).Unix()
	if _, err := e.d.Exec(ctx, "UPDATE mirror SET next_update_unix = ? WHERE repo_id = ?", lease, r.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := e.s.SyncDueMirrors(ctx, 2); err != nil || n != 0 {
		t.Fatalf("SyncDueMirrors during a lease = %d, %v", n, err)
	}
	if err := e.s.SyncMirror(ctx, r); err != nil {
		t.Fatal(err)
	}
	if b, _ := e.s.Git.GetBranch(ctx, e.s.Path(r), "main"); b.Commit.SHA != first {
		t.Fatal("a manual sync ran while another held the lease")
	}
	// Due: the worker fetches the new commit and reschedules.
	if _, err := e.d.Exec(ctx, "UPDATE mirror SET next_update_unix = ?, updated_unix = 0 WHERE repo_id = ?", 1, r.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := e.s.SyncDueMirrors(ctx, 2); err != nil || n != 1 {
		t.Fatalf("SyncDueMirrors when due = %d, %v", n, err)
	}
	if b, err := e.s.Git.GetBranch(ctx, e.s.Path(r), "main"); err != nil || b.Commit.SHA != second {
		t.Fatalf("after sync main = %+v, %v; want %s", b, err, second)
	}
	ms, err := e.s.MirrorsOf(ctx, []int64{r.ID})
	if err != nil {
		t.Fatal(err)
	}
	m := ms[r.ID]
	if m.Updated.IsZero() || time.Until(m.NextUpdate) < 9*time.Minute || m.LastError != "" {
		t.Fatalf("mirror state after sync: %+v", m)
	}
	// A failing remote is recorded, and the mirror is rescheduled.
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	if _, err := e.d.Exec(ctx, "UPDATE mirror SET next_update_unix = ? WHERE repo_id = ?", 1, r.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := e.s.SyncDueMirrors(ctx, 2); err != nil || n != 0 {
		t.Fatalf("SyncDueMirrors with a broken remote = %d, %v", n, err)
	}
	ms, _ = e.s.MirrorsOf(ctx, []int64{r.ID})
	if ms[r.ID].LastError == "" || time.Until(ms[r.ID].NextUpdate) < 9*time.Minute {
		t.Fatalf("failed sync not recorded: %+v", ms[r.ID])
	}
}

func TestMigrateFailureLeavesNothing(t *testing.T) {
	e := newMirrorEnv(t)
	ctx := context.Background()
	empty := filepath.Join(e.dir, "notgit")
	if err := os.MkdirAll(filepath.Join(empty, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll(filepath.Join(empty, "refs"), 0o755)
	_ = os.WriteFile(filepath.Join(empty, "HEAD"), []byte("garbage"), 0o644)
	if _, err := e.s.Migrate(ctx, e.admin, e.admin, MigrateOptions{CloneAddr: empty, Name: "broken"}); err == nil {
		t.Fatal("migration of a broken repository succeeded")
	}
	n, err := e.d.Count(ctx, "SELECT COUNT(*) FROM repository")
	if err != nil || n != 0 {
		t.Fatalf("repositories left: %d, %v", n, err)
	}
	entries, _ := os.ReadDir(filepath.Join(e.s.cfg.DataDir, "repositories"))
	if len(entries) != 0 {
		t.Fatalf("directories left: %v", entries)
	}
	u, err := e.s.users.Store.GetByID(ctx, e.admin.ID)
	if err != nil || u.NumRepos != 0 {
		t.Fatalf("repository count: %d, %v", u.NumRepos, err)
	}
}
