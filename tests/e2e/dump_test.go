package e2e

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dumpGit runs git in dir and returns its trimmed output.
func dumpGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// startRestored restores archive into a fresh data directory (and a fresh
// database when CAIRN_DATABASE_URL is set) and starts a server on it.
func startRestored(t *testing.T, archive string) *Server {
	t.Helper()
	s := &Server{t: t, DataDir: t.TempDir(), HTTPAddr: freePort(t), SSHAddr: "off", logs: &bytes.Buffer{}, logMu: &sync.Mutex{}, done: make(chan struct{})}
	s.URL = "http://" + s.HTTPAddr + "/"
	s.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.DataDir, "CAIRN_DATA_DIR=" + s.DataDir,
		"CAIRN_HTTP_ADDR=" + s.HTTPAddr, "CAIRN_SSH_ADDR=off", "CAIRN_ROOT_URL=" + s.URL, "CAIRN_SERVER_SHUTDOWN_TIMEOUT=10s"}
	if dbURL := testDatabaseURL(t); dbURL != "" {
		s.Env = append(s.Env, "CAIRN_DATABASE_URL="+dbURL)
	}
	start := time.Now()
	if out, err := s.Cairn("restore", "--file", archive); err != nil {
		t.Fatalf("cairn restore: %v\n%s", err, out)
	}
	t.Logf("restore took %s", time.Since(start))
	// A second restore into the now filled instance is refused.
	if out, err := s.Cairn("restore", "--file", archive); err == nil || !strings.Contains(out, "refusing to restore") {
		t.Fatalf("restore into a non-empty instance: %v\n%s", err, out)
	}
	s.launch(cairnBinary(t), nil)
	return s
}

// restoreTruncated restores archive cut short after its manifest into a
// fresh instance: the restore fails saying what to delete, leaves its
// marker, and a second attempt is refused as the target is partly filled.
func restoreTruncated(t *testing.T, archive string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := tar.NewReader(f).Next()
	f.Close()
	if err != nil || hdr.Name != "manifest.json" {
		t.Fatalf("first entry %v: %v", hdr, err)
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	cut := 512 + (hdr.Size+511)/512*512 + 700 // inside the entry after the manifest
	short := filepath.Join(t.TempDir(), "short.tar")
	if err := os.WriteFile(short, b[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + dir, "CAIRN_SSH_ADDR=off"}
	if dbURL := testDatabaseURL(t); dbURL != "" {
		env = append(env, "CAIRN_DATABASE_URL="+dbURL)
	}
	run := func() (string, error) {
		cmd := exec.Command(cairnBinary(t), "restore", "--file", short)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(); err == nil || !strings.Contains(out, "to restore again, delete") {
		t.Fatalf("restore of a truncated archive: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "restore-incomplete")); err != nil {
		t.Fatalf("no marker left by the failed restore: %v", err)
	}
	// Refused: by the marker, or first by the repositories already placed.
	if out, err := run(); err == nil || !strings.Contains(out, "refusing to restore: an earlier restore") && !strings.Contains(out, "repositories directory") {
		t.Fatalf("restore after a failed one: %v\n%s", err, out)
	}
}

// names returns the sorted values of key in a JSON list answer.
func dumpNames(t *testing.T, s *Server, path, tok, key string) []string {
	t.Helper()
	r := s.API("GET", path, tok, nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	var list []map[string]any
	r.Decode(t, &list)
	var out []string
	for _, m := range list {
		out = append(out, strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(toString(m[key]), "\n", " "), "\r", "")))
	}
	sort.Strings(out)
	return out
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// TestDumpRestore dumps an instance while pushes and issue creations run,
// restores it into a fresh instance and compares them through the API and git.
func TestDumpRestore(t *testing.T) { dumpRoundTrip(t) }

// TestDumpRestoreFromSQLite restores a dump of a SQLite instance onto the
// database CAIRN_DATABASE_URL names.
func TestDumpRestoreFromSQLite(t *testing.T) {
	if os.Getenv("CAIRN_DATABASE_URL") == "" {
		t.Skip("CAIRN_DATABASE_URL is not set: TestDumpRestore already covers SQLite to SQLite")
	}
	dumpRoundTrip(t, WithEnv("CAIRN_DATABASE_URL="))
}

func dumpRoundTrip(t *testing.T, opts ...ServerOption) {
	s := StartServer(t, opts...)
	// --help does nothing else.
	empty := filepath.Join(t.TempDir(), "none")
	for _, cmd := range []string{"dump", "restore"} {
		out, err := exec.Command(cairnBinary(t), "--data-dir", empty, cmd, "--help").CombinedOutput()
		if _, serr := os.Stat(empty); err != nil || serr == nil || !strings.Contains(string(out), "--file FILE") {
			t.Fatalf("cairn %s --help: %v, data dir created: %v\n%s", cmd, err, serr == nil, out)
		}
	}
	// A dump of a directory without an instance is refused.
	if out, err := exec.Command(cairnBinary(t), "--data-dir", empty, "dump", "--file", filepath.Join(t.TempDir(), "x.tar")).CombinedOutput(); err == nil || !strings.Contains(string(out), "no Cairn instance") {
		t.Fatalf("dump of an empty directory: %v\n%s", err, out)
	}
	alice := s.CreateUser("alice")
	s.CreateUser("bob")
	mustStatus(t, s.API("POST", "orgs", alice.Token, map[string]any{"username": "acme"}), 201, "create org")
	mustStatus(t, s.API("POST", "orgs/acme/repos", alice.Token, map[string]any{"name": "tool", "auto_init": true}), 201, "create org repo")
	mustStatus(t, s.API("POST", "user/repos", alice.Token, map[string]any{"name": "busy", "auto_init": true}), 201, "create repo")
	mustStatus(t, s.API("POST", "user/repos", alice.Token, map[string]any{"name": "empty"}), 201, "create empty repo")
	mustStatus(t, s.Do("POST", "api/v1/user/avatar", Token(alice.Token), JSON(map[string]any{"image": pngOf(t, 64, 64)})), 204, "avatar")

	// Commits, a tag and a second branch in acme/tool.
	work := t.TempDir()
	remote := strings.Replace(s.URL, "http://", "http://alice:"+alice.Password+"@", 1)
	dumpGit(t, work, "clone", "-q", remote+"acme/tool.git", "tool")
	tool := filepath.Join(work, "tool")
	for i := range 3 {
		os.WriteFile(filepath.Join(tool, "f"+strconv.Itoa(i)), bytes.Repeat([]byte("data "+strconv.Itoa(i)), 1000), 0o644)
		dumpGit(t, tool, "add", ".")
		dumpGit(t, tool, "commit", "-q", "-m", "commit "+strconv.Itoa(i))
	}
	dumpGit(t, tool, "tag", "-a", "v1", "-m", "release 1")
	dumpGit(t, tool, "push", "-q", "origin", "HEAD:main", "HEAD~1:refs/heads/side", "v1")

	mustStatus(t, s.API("POST", "repos/acme/tool/issues", alice.Token, map[string]any{"title": "first issue", "body": "body one"}), 201, "issue")
	mustStatus(t, s.API("POST", "repos/acme/tool/issues/1/comments", alice.Token, map[string]any{"body": "a comment"}), 201, "comment")
	att := s.Upload("api/v1/repos/acme/tool/issues/1/assets", alice.Token, "attachment", "notes.txt", []byte("attachment bytes"), 0)
	mustStatus(t, att, 201, "attachment")
	var attJSON struct {
		URL string `json:"browser_download_url"`
	}
	att.Decode(t, &attJSON)
	token := s.CreateToken("bob", "bob-pw-123", "kept", "read:user")

	// Writes while the dump runs: pushes to alice/busy and new issues, bounded.
	dumpGit(t, work, "clone", "-q", remote+"alice/busy.git", "busy")
	busy := filepath.Join(work, "busy")
	stop := make(chan struct{})
	var pushed atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 40 {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(filepath.Join(busy, "n"), []byte(strconv.Itoa(i)), 0o644)
			cmd := exec.Command("sh", "-c", "git add . && git -c user.name=t -c user.email=t@e commit -q -m c && git push -q origin HEAD:main")
			cmd.Dir = busy
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("background push %d: %v\n%s", i, err, out)
				return
			}
			s.API("POST", "repos/alice/busy/issues", alice.Token, map[string]any{"title": "during " + strconv.Itoa(i)})
			pushed.Add(1)
		}
	}()
	for pushed.Load() < 2 {
		time.Sleep(20 * time.Millisecond)
	}
	archive := filepath.Join(t.TempDir(), "dump.tar")
	start := time.Now()
	if out, err := s.Cairn("dump", "--file", archive); err != nil {
		close(stop)
		wg.Wait()
		t.Fatalf("cairn dump: %v\n%s", err, out)
	}
	t.Logf("dump took %s", time.Since(start))
	if pushed.Load() == 40 {
		t.Fatal("the background writes ended before the dump did: it did not run concurrently with them")
	}
	close(stop)
	wg.Wait()

	restoreTruncated(t, archive)
	r := startRestored(t, archive)
	adminTok := r.CreateToken(adminName, adminPassword, "after-restore", "all")
	r.AdminTok = adminTok

	for _, c := range []struct{ path, key string }{
		{"admin/users?limit=50", "login"},
		{"admin/orgs?limit=50", "username"},
		{"repos/acme/tool/issues?state=all&type=issues", "title"},
		{"repos/acme/tool/issues/1/comments", "body"},
	} {
		want, got := dumpNames(t, s, c.path, s.AdminTok, c.key), dumpNames(t, r, c.path, adminTok, c.key)
		if strings.Join(want, "|") != strings.Join(got, "|") {
			t.Errorf("%s: restored %q, want %q", c.path, got, want)
		}
	}
	// The schema is whole: every index of the source exists in the target
	// (a PostgreSQL restore drops the loose ones and builds them again).
	// Only for targets of the source's kind: index names are per database.
	if (os.Getenv("CAIRN_DATABASE_URL") == "") == (srcDBKind(s) == "") {
		if want, got := dumpIndexes(t, s), dumpIndexes(t, r); strings.Join(want, ",") != strings.Join(got, ",") {
			t.Errorf("indexes after restore:\n got %q\nwant %q", got, want)
		}
	}
	var search struct {
		Data []struct {
			FullName string `json:"full_name"`
		} `json:"data"`
	}
	r.API("GET", "repos/search?limit=50", adminTok, nil).Decode(t, &search)
	if len(search.Data) != 3 {
		t.Errorf("restored repositories: %+v", search.Data)
	}

	// Refs: acme/tool is identical; every ref of every restored repository
	// resolves and git fsck is clean.
	for _, name := range []string{"acme/tool", "alice/busy"} {
		var id struct {
			ID int64 `json:"id"`
		}
		r.API("GET", "repos/"+name, adminTok, nil).Decode(t, &id)
		dir := filepath.Join(r.DataDir, "repositories", strconv.FormatInt(id.ID, 10)+".git")
		dumpGit(t, dir, "fsck", "--strict", "--no-dangling")
		refs := dumpGit(t, dir, "for-each-ref", "--format=%(objectname) %(refname)")
		for _, l := range strings.Split(refs, "\n") {
			oid, _, _ := strings.Cut(l, " ")
			dumpGit(t, dir, "cat-file", "-e", oid)
		}
		if name == "acme/tool" {
			if want := dumpGit(t, work, "ls-remote", remote+name); dumpGit(t, work, "ls-remote", strings.Replace(r.URL, "http://", "http://alice:"+alice.Password+"@", 1)+name) != want {
				t.Errorf("%s: refs differ after restore", name)
			}
		}
	}
	// Issues created during the dump: the restored ones are a prefix of the source's.
	srcBusy := dumpNames(t, s, "repos/alice/busy/issues?state=all&limit=50", s.AdminTok, "number")
	gotBusy := dumpNames(t, r, "repos/alice/busy/issues?state=all&limit=50", adminTok, "number")
	if len(gotBusy) < 2 || len(gotBusy) > len(srcBusy) {
		t.Errorf("alice/busy: %d issues restored, the source has %d", len(gotBusy), len(srcBusy))
	}

	// The attachment's bytes, the avatar, the token.
	down := r.Do("GET", strings.TrimPrefix(strings.Replace(attJSON.URL, s.URL, r.URL, 1), r.URL))
	if down.Status != 200 || string(down.Body) != "attachment bytes" {
		t.Errorf("attachment after restore: %d %q", down.Status, down.Body)
	}
	var u struct {
		AvatarURL string `json:"avatar_url"`
	}
	r.API("GET", "users/alice", adminTok, nil).Decode(t, &u)
	if av := r.Do("GET", strings.TrimPrefix(u.AvatarURL, r.URL)); !strings.Contains(u.AvatarURL, "avatars/custom/") || av.Status != 200 {
		t.Errorf("avatar after restore: %q %d", u.AvatarURL, av.Status)
	}
	me := r.API("GET", "user", token, nil)
	if me.Status != 200 || !strings.Contains(string(me.Body), `"login":"bob"`) {
		t.Errorf("token after restore: %d %s", me.Status, me.Body)
	}
	// New rows get fresh ids (sequences were moved past the restored rows).
	mustStatus(t, r.API("POST", "repos/acme/tool/issues", adminTok, map[string]any{"title": "after restore"}), 201, "issue after restore")
	r.CreateUser("carol")
}

// srcDBKind is the scheme of the database URL a server runs on, "" for SQLite.
func srcDBKind(s *Server) string {
	scheme := "" // the last setting wins, as in fndServerDB
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "CAIRN_DATABASE_URL="); ok {
			scheme, _, _ = strings.Cut(v, ":")
		}
	}
	return scheme
}

// dumpIndexes lists the indexes of a server's database as table.index.
func dumpIndexes(t *testing.T, s *Server) []string {
	t.Helper()
	q := "SELECT tbl_name || '.' || name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY 1"
	switch srcDBKind(s) {
	case "postgres", "postgresql":
		q = "SELECT tablename || '.' || indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1"
	case "mysql":
		q = "SELECT DISTINCT CONCAT(table_name, '.', index_name) FROM information_schema.statistics WHERE table_schema = DATABASE() ORDER BY 1"
	}
	rows, err := fndServerDB(t, s).Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if len(names) < 10 {
		t.Fatalf("only %d indexes found: %q", len(names), names)
	}
	return names
}
