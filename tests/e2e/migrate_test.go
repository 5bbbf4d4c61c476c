package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// relSourceRepo makes a bare repository on disk with one commit on main and
// a tag, and returns its path and a work tree pushing to it.
func relSourceRepo(k *relKit) (string, string) {
	k.t.Helper()
	base := k.t.TempDir()
	src := filepath.Join(base, "src.git")
	work := filepath.Join(base, "work")
	k.mustGit(base, "init", "-q", "--bare", "-b", "main", src)
	k.mustGit(base, "init", "-q", "-b", "main", work)
	k.mustGit(work, "remote", "add", "origin", src)
	if out, err := k.commitPush(work, "one.txt"); err != nil {
		k.t.Fatalf("seed source: %v %s", err, out)
	}
	k.mustGit(work, "tag", "v1")
	k.mustGit(work, "push", "-q", "origin", "v1")
	return src, work
}

// relRepoCount is the number of repositories the admin can find.
func relRepoCount(k *relKit) string {
	k.t.Helper()
	resp := k.do("GET", "repos/search?limit=1", k.s.AdminTok, nil)
	return resp.Header.Get("X-Total-Count")
}

func TestMigrateLocalPathPrivateMirrorMatrix(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_SECURITY_IMPORT_LOCAL_PATHS=true"))
	k := newRelKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	admin := &User{Name: adminName, Password: adminPassword, Token: s.AdminTok}
	src, work := relSourceRepo(k)
	head := k.mustGit(work, "rev-parse", "HEAD")

	// Local paths: administrators only, absolute and clean, real repositories.
	k.want(k.do("POST", "repos/migrate", alice.Token, map[string]any{"clone_addr": src, "repo_name": "x"}), 422, "not allowed to import local", "non-admin local import")
	k.want(k.do("POST", "repos/migrate", alice.Token, map[string]any{"clone_addr": "file://" + src, "repo_name": "x"}), 422, "not allowed to import local", "non-admin file URL")
	for _, bad := range []string{"relative/path.git", src + "/../src.git", filepath.Dir(src), "/nonexistent/repo.git"} {
		k.want(k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": bad, "repo_name": "x"}), 422, "", "bad local path "+bad)
	}
	link := filepath.Join(t.TempDir(), "link.git")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	k.want(k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": link, "repo_name": "x"}), 422, "", "symlinked path")
	if n := relRepoCount(k); n != "0" {
		t.Fatalf("refused migrations left %s repositories", n)
	}

	// private x mirror, all four.
	for _, c := range []struct{ private, mirror bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		name := fmt.Sprintf("m-%v-%v", c.private, c.mirror)
		r, resp, err := s.Admin.MigrateRepo(gitea.MigrateRepoOption{
			CloneAddr: src, RepoName: name, RepoOwner: "alice", Private: c.private, Mirror: c.mirror, Service: gitea.GitServicePlain,
			Description: "migrated",
		})
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("%s: %v %v", name, resp, err)
		}
		if r.Private != c.private || r.Mirror != c.mirror || r.Empty || r.DefaultBranch != "main" || r.Description != "migrated" {
			t.Fatalf("%s: private=%v mirror=%v empty=%v branch=%q", name, r.Private, r.Mirror, r.Empty, r.DefaultBranch)
		}
		if c.mirror && (r.OriginalURL != src || r.MirrorUpdated.IsZero()) {
			t.Fatalf("%s: original_url %q mirror_updated %v", name, r.OriginalURL, r.MirrorUpdated)
		}
		if st, _ := k.get(bob.Token, "alice/"+name); (st == 200) == c.private {
			t.Fatalf("%s: stranger GET %d", name, st)
		}
		dir, ok := k.clone(alice, "alice/"+name)
		if !ok {
			t.Fatalf("%s: cannot clone", name)
		}
		if got := k.mustGit(dir, "rev-parse", "HEAD"); got != head {
			t.Fatalf("%s: HEAD %s want %s", name, got, head)
		}
		if got := k.mustGit(dir, "rev-parse", "v1"); got != head {
			t.Fatalf("%s: tag v1 %s", name, got)
		}
		out, err := k.commitPush(dir, "local.txt")
		if c.mirror && err == nil {
			t.Fatalf("%s: push to a mirror succeeded", name)
		}
		if !c.mirror && err != nil {
			t.Fatalf("%s: push to a migrated copy failed: %s", name, out)
		}
		if c.mirror && !strings.Contains(out, "mirror") {
			t.Fatalf("%s: push refusal does not say why: %s", name, out)
		}
	}
	k.want(k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "m-false-false", "repo_owner": "alice"}), 409, "same name", "duplicate name")
	k.want(k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "bad/name"}), 422, "", "bad name")
	k.want(k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "mm", "mirror": true, "mirror_interval": "1m"}), 422, "mirror interval", "short interval")
	k.want(k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "gh", "service": "github", "issues": true}), 422, "not supported", "issues from github")

	// mirror-sync picks up a new commit; only writers (admins here) may ask.
	if out, err := k.commitPush(work, "two.txt"); err != nil {
		t.Fatalf("push to source: %v %s", err, out)
	}
	newHead := k.mustGit(work, "rev-parse", "HEAD")
	k.want(k.do("PUT", "repos/alice/m-false-true/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), 204, "", "bob reads the mirror")
	k.want(k.do("POST", "repos/alice/m-false-true/mirror-sync", bob.Token, nil), 403, "", "reader syncs")
	k.want(k.do("POST", "repos/alice/m-false-false/mirror-sync", alice.Token, nil), 400, "not a mirror", "sync a non-mirror")
	_, before := k.get(alice.Token, "alice/m-false-true")
	time.Sleep(1100 * time.Millisecond)
	if _, err := s.Client(alice.Token).MirrorSync("alice", "m-false-true"); err != nil {
		t.Fatal(err)
	}
	_, after := k.get(alice.Token, "alice/m-false-true")
	if !after.MirrorUpdated.After(before.MirrorUpdated) {
		t.Fatalf("mirror_updated did not move: %v -> %v", before.MirrorUpdated, after.MirrorUpdated)
	}
	dir, _ := k.clone(admin, "alice/m-false-true")
	if got := k.mustGit(dir, "rev-parse", "HEAD"); got != newHead {
		t.Fatalf("mirror after sync at %s, want %s", got, newHead)
	}
}

func TestMigrateLocalPathOffByDefault(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	src, _ := relSourceRepo(k)
	k.want(k.do("POST", "repos/migrate", s.AdminTok, map[string]any{"clone_addr": src, "repo_name": "x"}), 422, "not allowed to import local", "admin without IMPORT_LOCAL_PATHS")
	k.want(k.do("POST", "repos/migrate", "", map[string]any{"clone_addr": src, "repo_name": "x"}), 401, "", "signed out")
}

func TestMigrateOverHTTPFromSelf(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_MIGRATIONS_ALLOW_LOCALNETWORKS=true", "CAIRN_MIGRATIONS_BLOCKED_DOMAINS=localhost"))
	k := newRelKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.repo(alice, "src", true, true)
	work, _ := k.clone(alice, "alice/src")
	srcURL := s.URL + "alice/src.git"

	// Wrong credentials: a clear 422 and nothing left behind.
	resp := k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": srcURL, "repo_name": "stolen", "auth_username": "alice", "auth_password": "wrong-password"})
	k.want(resp, 422, "", "wrong password")
	if strings.Contains(string(resp.Body), "wrong-password") {
		t.Fatalf("password echoed: %s", resp.Body)
	}
	if st, _ := k.get(bob.Token, "bob/stolen"); st != 404 {
		t.Fatalf("failed migration left a repository: %d", st)
	}
	// bob owns nothing after the failure.
	var bu struct{ ID int64 }
	k.do("GET", "users/bob", bob.Token, nil).Decode(t, &bu)
	if got := k.fullNames(k.do("GET", "users/bob/repos", bob.Token, nil)); len(got) != 0 {
		t.Fatalf("bob's repositories after a failed migration: %v", got)
	}

	// A private mirror with credentials; the credentials never show.
	resp = k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": srcURL, "repo_name": "mir", "mirror": true, "private": true,
		"auth_username": "alice", "auth_password": alice.Password, "mirror_interval": "10m"})
	k.want(resp, 201, "", "mirror over http")
	if strings.Contains(string(resp.Body), alice.Password) {
		t.Fatalf("credentials in the answer: %s", resp.Body)
	}
	var m gitea.Repository
	resp.Decode(t, &m)
	if m.OriginalURL != srcURL || !m.Mirror || !m.Private || m.MirrorInterval != "10m0s" {
		t.Fatalf("mirror: %+v", m)
	}
	// Credentials inside the address work too, and are stripped.
	withCreds := strings.Replace(srcURL, "http://", "http://alice:"+alice.Password+"@", 1)
	resp = k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": withCreds, "repo_name": "copy"})
	k.want(resp, 201, "", "copy with credentials in the address")
	var cp gitea.Repository
	resp.Decode(t, &cp)
	if cp.OriginalURL != srcURL || cp.Mirror || cp.Private {
		t.Fatalf("copy: original %q mirror %v private %v", cp.OriginalURL, cp.Mirror, cp.Private)
	}
	for _, r := range []string{"bob/mir", "bob/copy"} {
		body := k.do("GET", "repos/"+r, bob.Token, nil).Body
		if strings.Contains(string(body), alice.Password) {
			t.Fatalf("%s shows the password: %s", r, body)
		}
	}

	// The stored credentials let the mirror sync a new commit.
	if out, err := k.commitPush(work, "new.txt"); err != nil {
		t.Fatalf("push to source: %v %s", err, out)
	}
	head := k.mustGit(work, "rev-parse", "HEAD")
	k.want(k.do("POST", "repos/bob/mir/mirror-sync", bob.Token, nil), 200, "", "sync")
	dir, ok := k.clone(bob, "bob/mir")
	if !ok {
		t.Fatal("clone mirror")
	}
	if got := k.mustGit(dir, "rev-parse", "HEAD"); got != head {
		t.Fatalf("mirror at %s, want %s", got, head)
	}

	// BLOCKED_DOMAINS applies to the address and to every redirect.
	k.want(k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": strings.Replace(srcURL, "127.0.0.1", "localhost", 1), "repo_name": "r1",
		"auth_username": "alice", "auth_password": alice.Password}), 422, "disallowed hosts", "blocked host")
	redirector := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(s.URL, "127.0.0.1", "localhost", 1)+"alice/src.git"+strings.TrimPrefix(r.URL.Path, "/x.git")+"?"+r.URL.RawQuery, http.StatusFound)
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = redirector.Serve(l) }()
	t.Cleanup(func() { _ = redirector.Close() })
	k.want(k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": "http://" + l.Addr().String() + "/x.git", "repo_name": "r2",
		"auth_username": "alice", "auth_password": alice.Password}), 422, "disallowed hosts", "redirect to a blocked host")
	// A redirect to an allowed address is followed.
	okRedirect := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.URL+"alice/src.git"+strings.TrimPrefix(r.URL.Path, "/x.git")+"?"+r.URL.RawQuery, http.StatusMovedPermanently)
	})}
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = okRedirect.Serve(l2) }()
	t.Cleanup(func() { _ = okRedirect.Close() })
	resp = k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": "http://" + l2.Addr().String() + "/x.git", "repo_name": "r3",
		"auth_username": "alice", "auth_password": alice.Password})
	k.want(resp, 201, "", "redirect to an allowed host")
	var r3 gitea.Repository
	resp.Decode(t, &r3)
	if r3.OriginalURL != srcURL || r3.Empty {
		t.Fatalf("redirected migration: original %q empty %v", r3.OriginalURL, r3.Empty)
	}
}

func TestMigrateSSRFRefused(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	bob := s.CreateUser("bob")
	// A listener that counts connections: a refused address must never be dialed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	_, port, _ := net.SplitHostPort(l.Addr().String())
	for _, addr := range []string{
		"http://" + l.Addr().String() + "/x.git",
		"http://localhost:" + port + "/x.git",
		"http://[::1]:" + port + "/x.git",
		"https://10.0.0.1/x.git",
		"http://192.168.0.1/x.git",
		"http://169.254.169.254/latest/meta-data",
		"git://127.0.0.1:" + port + "/x.git",
		s.URL + "root/anything.git",
	} {
		start := time.Now()
		resp := k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": addr, "repo_name": "ssrf"})
		k.want(resp, 422, "disallowed hosts", addr)
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("%s: refusal took %v (a connection was tried?)", addr, d)
		}
	}
	for _, addr := range []string{"ssh://git@example.com/x.git", "ftp://example.com/x.git"} {
		k.want(k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": addr, "repo_name": "ssrf"}), 422, "not allowed", addr)
	}
	time.Sleep(100 * time.Millisecond)
	if n := conns.Load(); n != 0 {
		t.Fatalf("%d connections reached a refused address", n)
	}
	if n := relRepoCount(k); n != "0" {
		t.Fatalf("refused migrations left %s repositories", n)
	}
	// Owner rules: only for yourself or an organization you own.
	alice := s.CreateUser("alice")
	k.want(k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": "https://example.com/x.git", "repo_name": "x", "repo_owner": alice.Name}), 403, "not an organization", "for another user")
	k.want(k.do("POST", "repos/migrate", bob.Token, map[string]any{"clone_addr": "https://example.com/x.git", "repo_name": "x", "repo_owner": "nobody"}), 422, "", "unknown owner")
}
