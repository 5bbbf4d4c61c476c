package e2e

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRepoBadInputTraversal: repository names and file paths that try to
// leave the repository, over the API and git.
func TestRepoBadInputTraversal(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	k.create(bob.Token, "user/repos", map[string]any{"name": "secret", "private": true, "auto_init": true})

	// Creation with traversal names: 422, nothing on disk outside the
	// repositories directory.
	for _, name := range []string{"../x", "a/../b", "/abs", "..", "../../../../tmp/evil", "a\\..\\b"} {
		k.want(k.api("POST", "user/repos", alice.Token, map[string]any{"name": name}), 422, "", "create "+name)
	}
	if _, err := os.Stat(filepath.Join(s.DataDir, "evil")); err == nil {
		t.Fatal("a traversal name created a directory")
	}
	// Lookups with traversal names find nothing; none reaches bob's repository.
	for _, p := range []string{
		"repos/alice/..", "repos/alice/%2e%2e", "repos/alice/..%2Fbob%2Fsecret", "repos/alice/proj%2F..%2F..%2Fbob%2Fsecret",
		"repos/%2e%2e/bob", "repos/alice/.%2e/contents", "repos/alice/proj.git", "repos/alice/%2Fetc%2Fpasswd",
	} {
		// 404, or a redirect of the router to the cleaned path (which
		// leads nowhere either).
		resp := k.api("GET", p, alice.Token, nil)
		if resp.Status != 404 && resp.Status/100 != 3 || strings.Contains(string(resp.Body), `"full_name":"bob/secret"`) {
			t.Fatalf("GET %s: %d %s", p, resp.Status, resp.Body)
		}
	}
	// Git addresses: no traversal reaches bob's private repository.
	for _, p := range []string{
		"alice/..%2Fbob%2Fsecret.git/info/refs?service=git-upload-pack",
		"alice/proj.git%2F..%2F..%2Fbob%2Fsecret.git/info/refs?service=git-upload-pack",
		"alice/%2e%2e/info/refs?service=git-upload-pack",
		"%2e%2e/bob/info/refs?service=git-upload-pack",
		"alice/proj/..%2F..%2Fbob/secret.git/info/refs?service=git-upload-pack",
	} {
		resp := rtGitHTTP(t, s, "GET", p, nil, nil, alice.Name, alice.Password)
		body := rtDrain(resp)
		if resp.StatusCode == 200 || strings.Contains(body, "refs/heads") {
			t.Fatalf("GET %s: %d %q", p, resp.StatusCode, body)
		}
	}
	// Unclean paths (dot segments) are never served as is.
	conn, err := net.Dial("tcp", s.HTTPAddr)
	if err != nil {
		t.Fatal(err)
	}
	auth := base64.StdEncoding.EncodeToString([]byte(alice.Name + ":" + alice.Password))
	fmt.Fprintf(conn, "GET /alice/../bob/secret.git/info/refs?service=git-upload-pack HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\nConnection: close\r\n\r\n", s.HTTPAddr, auth)
	raw, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(raw.Body)
	conn.Close()
	if raw.StatusCode == 200 || strings.Contains(string(body), "refs/heads") {
		t.Fatalf("dot segments: %d %q", raw.StatusCode, body)
	}
	if raw.StatusCode/100 == 3 {
		// A redirect to the clean address is fine: that address is checked
		// for what the caller may see like any other.
		resp := rtGitHTTP(t, s, "GET", strings.TrimPrefix(raw.Header.Get("Location"), "/"), nil, nil, alice.Name, alice.Password)
		if rtDrain(resp); resp.StatusCode != 404 {
			t.Fatalf("after the redirect: %d", resp.StatusCode)
		}
	}

	// File paths through the read API.
	for _, p := range []string{
		"contents/..%2F..%2F..%2Fetc%2Fpasswd", "contents/%2Fetc%2Fpasswd", "raw/..%2F..%2Fconfig", "raw/%2Fetc%2Fpasswd",
		"raw/.git%2Fconfig", "contents/.GIT/HEAD", "raw/README.md%2F..%2F..%2F..%2Fconfig", "contents/README.md%00.txt",
		"media/..%2F..%2Fconfig", "raw/.%2e/.%2e/config", "contents/README.md/..",
	} {
		resp := k.api("GET", "repos/alice/proj/"+p, alice.Token, nil)
		if resp.Status/100 == 3 && !strings.HasPrefix(resp.Header.Get("Location"), "/api/v1/repos/alice/proj/") {
			t.Fatalf("GET %s redirects out of the repository: %s", p, resp.Header.Get("Location"))
		}
		if resp.Status != 404 && resp.Status != 422 && resp.Status/100 != 3 || strings.Contains(string(resp.Body), "[core]") || strings.Contains(string(resp.Body), "root:") {
			t.Fatalf("GET %s: %d %.200s", p, resp.Status, resp.Body)
		}
	}
	// Writes with such paths change nothing.
	refs := k.serverRefs(k.mustGet(alice.Token, "alice/proj").ID)
	for _, p := range []string{"..%2Fescape.txt", "%2Fabs.txt", ".git%2Fhooks%2Fpre-receive", "a%2F..%2F..%2Fb"} {
		resp := k.api("POST", "repos/alice/proj/contents/"+p, alice.Token, map[string]any{"content": base64.StdEncoding.EncodeToString([]byte("x"))})
		if resp.Status != 422 && resp.Status != 404 {
			t.Fatalf("create %s: %d %s", p, resp.Status, resp.Body)
		}
	}
	if after := k.serverRefs(k.mustGet(alice.Token, "alice/proj").ID); after != refs {
		t.Fatalf("refused writes changed refs:\n%s\n%s", refs, after)
	}
}

// TestRepoBadInputRefs: references and revisions that start with '-' or do
// not exist, over the API and git.
func TestRepoBadInputRefs(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	k.want(k.api("POST", "repos/alice/proj/tags", alice.Token, map[string]any{"tag_name": "v1"}), 201, "", "tag v1")
	before := k.serverRefs(r.ID)

	// A file an option-like revision would write, were it passed to git as an option.
	victim := filepath.Join(t.TempDir(), "x")
	for _, c := range []struct {
		method, path string
		body         map[string]any
		status       int
	}{
		// Option-like names.
		{"GET", "branches/-x", nil, 404},
		{"GET", "branches/--help", nil, 404},
		{"GET", "tags/-x", nil, 404},
		{"GET", "commits?sha=-x", nil, 422},
		{"GET", "commits?sha=--all", nil, 422},
		{"GET", "commits?sha=--output=" + victim, nil, 422},
		{"GET", "git/commits/--all", nil, 422},
		{"GET", "git/refs/--all", nil, 404},
		{"GET", "contents/README.md?ref=--output=x", nil, 404},
		{"GET", "contents?ref=-x", nil, 404},
		{"GET", "raw/README.md?ref=-x", nil, 404},
		{"GET", "archive/--format=x.zip", nil, 404},
		{"GET", "archive/-x.tar.gz", nil, 404},
		{"GET", "compare/--all...main", nil, 404},
		{"GET", "compare/main...--all", nil, 404},
		{"GET", "git/trees/--all", nil, 400},
		{"DELETE", "branches/-x", nil, 404},
		{"DELETE", "tags/-x", nil, 404},
		{"POST", "branches", map[string]any{"new_branch_name": "-x"}, 422},
		{"POST", "branches", map[string]any{"new_branch_name": "x", "old_ref_name": "--orphan"}, 422},
		{"POST", "branches", map[string]any{"new_branch_name": "x", "old_branch_name": "-main"}, 422},
		{"POST", "tags", map[string]any{"tag_name": "-x"}, 422},
		{"POST", "tags", map[string]any{"tag_name": "x", "target": "--all"}, 404},
		{"PATCH", "branches/main", map[string]any{"name": "-x"}, 422},
		{"PATCH", "", map[string]any{"default_branch": "--orphan"}, 422},
		// References that do not exist.
		{"GET", "branches/nope", nil, 404},
		{"GET", "tags/nope", nil, 404},
		{"GET", "commits?sha=nope", nil, 404},
		{"GET", "git/commits/nope", nil, 404},
		{"GET", "git/commits/0000000000000000000000000000000000000000", nil, 404},
		{"GET", "git/refs/heads/nope", nil, 404},
		{"GET", "contents/README.md?ref=nope", nil, 404},
		{"GET", "raw/README.md?ref=nope", nil, 404},
		{"GET", "archive/nope.zip", nil, 404},
		{"GET", "archive/nope.bundle", nil, 404},
		{"GET", "compare/nope...main", nil, 404},
		{"GET", "compare/main...nope", nil, 404},
		{"DELETE", "branches/nope", nil, 404},
		{"DELETE", "tags/nope", nil, 404},
		{"POST", "branches", map[string]any{"new_branch_name": "x", "old_ref_name": "nope"}, 404},
		{"POST", "tags", map[string]any{"tag_name": "x", "target": "nope"}, 404},
		{"PATCH", "branches/nope", map[string]any{"name": "y"}, 404},
		{"PATCH", "", map[string]any{"default_branch": "nope"}, 404},
	} {
		resp := k.api(c.method, "repos/alice/proj/"+c.path, alice.Token, c.body)
		if c.path == "" {
			resp = k.api(c.method, "repos/alice/proj", alice.Token, c.body)
		}
		if resp.Status != c.status {
			t.Errorf("%s %s %v: status %d, want %d: %.300s", c.method, c.path, c.body, resp.Status, c.status, resp.Body)
		}
	}
	if _, err := os.Stat(victim); err == nil {
		t.Error("an option-like revision wrote " + victim)
	}
	if after := k.serverRefs(r.ID); after != before {
		t.Fatalf("bad input changed refs:\n%s\n--\n%s", before, after)
	}

	// Over git: option-like branch and tag names are refused by the server.
	dir := k.mustClone(alice.Name, alice.Password, "alice/proj")
	for _, ref := range []string{"refs/heads/-x", "refs/heads/--upload-pack=x", "refs/tags/-v1", "refs/heads/HEAD", "refs/tags/refs/tags/x"} {
		out, err := k.git(dir, nil, "push", "origin", "HEAD:"+ref)
		if err == nil || !strings.Contains(out, "invalid") {
			t.Fatalf("push to %s: %v\n%s", ref, err, out)
		}
	}
	if after := k.serverRefs(r.ID); after != before {
		t.Fatalf("refused pushes changed refs:\n%s\n--\n%s", before, after)
	}
	// Deleting a reference that does not exist is harmless.
	out, err := k.git(dir, nil, "push", "origin", ":refs/heads/nope")
	if err == nil && !strings.Contains(out, "nope") {
		t.Fatalf("deleting a missing branch: %s", out)
	}
	// Fetching a missing reference fails cleanly.
	out, err = k.git(dir, nil, "fetch", "origin", "refs/heads/nope")
	if err == nil || !strings.Contains(out, "couldn't find remote ref") {
		t.Fatalf("fetch of a missing ref: %v\n%s", err, out)
	}
	// Ordinary pushes still work afterwards.
	k.commit(dir, map[string]string{"ok.txt": "ok\n"}, "ok")
	k.mustGit(dir, "push", "-q", "origin", "HEAD:main", "HEAD:refs/heads/x-ok")
	k.fsck(r.ID)
}

// rtBigCommit adds a commit with size bytes of random (incompressible) data
// and returns its SHA.
func rtBigCommit(t *testing.T, k *rtKit, dir, name string, size int) string {
	t.Helper()
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	k.mustGit(dir, "add", name)
	k.mustGit(dir, "commit", "-q", "-m", "big "+name)
	return k.mustGit(dir, "rev-parse", "HEAD")
}

// rtPack builds the pack of the commits in newSHA not in oldSHA (all of
// newSHA's history when oldSHA is empty).
func rtPack(t *testing.T, dir, newSHA, oldSHA string) []byte {
	t.Helper()
	cmd := exec.Command("git", "pack-objects", "--revs", "--stdout", "-q")
	cmd.Dir = dir
	cmd.Env = rtGitEnv(dir)
	in := newSHA + "\n"
	if oldSHA != "" {
		in += "^" + oldSHA + "\n"
	}
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pack-objects: %v", err)
	}
	return out
}

// rtRawPush opens a connection and sends a receive-pack request updating
// ref from oldSHA to newSHA with pack, but only the first n bytes of the
// body; it returns the connection and the rest of the body.
func rtRawPush(t *testing.T, s *Server, full, name, secret, ref, oldSHA, newSHA string, pack []byte, n int) (net.Conn, []byte) {
	t.Helper()
	body := []byte(rtPkt(oldSHA+" "+newSHA+" "+ref+"\x00report-status\n") + "0000")
	body = append(body, pack...)
	conn, err := net.Dial("tcp", s.HTTPAddr)
	if err != nil {
		t.Fatal(err)
	}
	auth := base64.StdEncoding.EncodeToString([]byte(name + ":" + secret))
	fmt.Fprintf(conn, "POST /%s.git/git-receive-pack HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\n"+
		"Content-Type: application/x-git-receive-pack-request\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		full, s.HTTPAddr, auth, len(body))
	if n > len(body) {
		n = len(body)
	}
	if _, err := conn.Write(body[:n]); err != nil {
		t.Fatal(err)
	}
	return conn, body[n:]
}

// rtQuarantines lists receive-pack's temporary object directories left in
// repository id.
func rtQuarantines(k *rtKit, id int64) []string {
	list, _ := filepath.Glob(filepath.Join(k.bareDir(id), "objects", "tmp_objdir-*"))
	more, _ := filepath.Glob(filepath.Join(k.bareDir(id), "objects", "incoming-*"))
	locks, _ := filepath.Glob(filepath.Join(k.bareDir(id), "refs", "heads", "*.lock"))
	return append(append(list, more...), locks...)
}

// rtEventually polls cond for up to ten seconds.
func rtEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRepoBadInputInterruptedPush: a push whose client goes away mid-way
// changes no reference, leaves a repository git fsck finds clean and no
// temporary files, and the next push works.
func TestRepoBadInputInterruptedPush(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	dir := k.mustClone(alice.Name, alice.Password, "alice/proj")
	old := k.mustGit(dir, "rev-parse", "HEAD")
	before := k.serverRefs(r.ID)

	t.Run("connection closed mid-pack", func(t *testing.T) {
		next := rtBigCommit(t, k, dir, "big1.bin", 4<<20)
		pack := rtPack(t, dir, next, old)
		conn, _ := rtRawPush(t, s, "alice/proj", alice.Name, alice.Password, "refs/heads/main", old, next, pack, len(pack)/2)
		time.Sleep(300 * time.Millisecond)
		conn.Close()
		rtEventually(t, "receive-pack cleans up", func() bool { return len(rtQuarantines(k, r.ID)) == 0 })
		if after := k.serverRefs(r.ID); after != before {
			t.Fatalf("an interrupted push changed refs:\n%s\n--\n%s", before, after)
		}
		k.fsck(r.ID)
		if out, err := k.git(k.bareDir(r.ID), nil, "cat-file", "-e", next); err == nil {
			t.Fatalf("the commit of an interrupted push is in the repository: %s", out)
		}
	})

	t.Run("client gone after the whole pack", func(t *testing.T) {
		// Into an empty repository, so that recording the push matters: the
		// client sends a complete push and leaves without reading the
		// answer. Either nothing happened, or the branch exists and the
		// repository is recorded as not empty with that default branch.
		e := k.create(alice.Token, "user/repos", map[string]any{"name": "fresh", "default_branch": "trunk"})
		next := rtBigCommit(t, k, dir, "big2.bin", 2<<20)
		full := rtPack(t, dir, next, "")
		zero := strings.Repeat("0", 40)
		conn, _ := rtRawPush(t, s, "alice/fresh", alice.Name, alice.Password, "refs/heads/work", zero, next, full, 1<<30)
		// The client never reads the answer, but stays until the server has
		// the whole request: closing a socket with unread data resets the
		// connection, and a reset discards what the server has not read yet
		// (TCP, not Cairn), which on a busy machine can be the pack's tail.
		rtEventually(t, "the server takes the pack", func() bool { return k.serverRefs(e.ID) != "" })
		conn.Close()
		rtEventually(t, "the push settles", func() bool { return len(rtQuarantines(k, e.ID)) == 0 })
		var got rtRepo
		var refs string
		rtEventually(t, "git and the API agree", func() bool {
			refs = k.serverRefs(e.ID)
			got = k.mustGet(alice.Token, "alice/fresh")
			if refs == "" {
				return got.Empty
			}
			return !got.Empty && got.DefaultBranch == "work"
		})
		t.Logf("client gone: refs %q, empty %v, default %q", refs, got.Empty, got.DefaultBranch)
		if refs != "refs/heads/work "+next {
			t.Fatalf("a complete push whose client left was not applied: refs %q", refs)
		}
		k.fsck(e.ID)
		k.mustGit(dir, "reset", "-q", "--hard", old)
	})

	t.Run("git client killed", func(t *testing.T) {
		// Kill the client at several moments; whatever the moment, the
		// branch is either untouched or fully updated, never broken.
		base := old
		for i, delay := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, 600 * time.Millisecond} {
			k.mustGit(dir, "reset", "-q", "--hard", base)
			next := rtBigCommit(t, k, dir, fmt.Sprintf("kill%d.bin", i), 24<<20)
			cmd := exec.Command("git", "push", "-q", "origin", "HEAD:main")
			cmd.Dir = dir
			cmd.Env = rtGitEnv(dir)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			rtEventually(t, "receive-pack ends", func() bool { return len(rtQuarantines(k, r.ID)) == 0 })
			main := k.mustGit(k.bareDir(r.ID), "rev-parse", "refs/heads/main")
			if main != base && main != next {
				t.Fatalf("kill after %v: main at %s, neither %s nor %s", delay, main, base, next)
			}
			k.fsck(r.ID)
			t.Logf("killed after %v: main updated: %v", delay, main == next)
			// The API agrees with git.
			var br struct{ Commit struct{ ID string } }
			resp := k.api("GET", "repos/alice/proj/branches/main", alice.Token, nil)
			k.want(resp, 200, "", "branch main")
			resp.Decode(t, &br)
			if br.Commit.ID != main {
				t.Fatalf("API says main is %s, git says %s", br.Commit.ID, main)
			}
			base = main
		}
	})

	// A normal push afterwards goes through.
	k.mustGit(dir, "fetch", "-q", "origin")
	k.mustGit(dir, "reset", "-q", "--hard", "origin/main")
	done := k.commit(dir, map[string]string{"after.txt": "after\n"}, "after")
	k.mustGit(dir, "push", "-q", "origin", "HEAD:main")
	if got := k.mustGit(k.bareDir(r.ID), "rev-parse", "refs/heads/main"); got != done {
		t.Fatalf("main at %s after a normal push, want %s", got, done)
	}
	k.fsck(r.ID)
}

// TestRepoBadInputConcurrentPushes: two pushes to the same branch at once;
// one wins, the other fails cleanly, and everything agrees afterwards.
func TestRepoBadInputConcurrentPushes(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	k.want(k.api("PUT", "repos/alice/proj/collaborators/bob", alice.Token, map[string]any{"permission": "write"}), 204, "", "bob writes")
	da := k.mustClone(alice.Name, alice.Password, "alice/proj")
	db := k.mustClone(bob.Name, bob.Password, "alice/proj")
	for round := 0; round < 4; round++ {
		k.mustGit(da, "pull", "-q", "--ff-only")
		k.mustGit(db, "pull", "-q", "--ff-only")
		ca := rtBigCommit(t, k, da, fmt.Sprintf("a%d.bin", round), 1<<20)
		cb := rtBigCommit(t, k, db, fmt.Sprintf("b%d.bin", round), 1<<20)
		type result struct {
			out string
			err error
		}
		res := make([]result, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, d := range []string{da, db} {
			wg.Add(1)
			go func(i int, d string) {
				defer wg.Done()
				<-start
				cmd := exec.Command("git", "push", "origin", "HEAD:main")
				cmd.Dir = d
				cmd.Env = rtGitEnv(d)
				out, err := cmd.CombinedOutput()
				res[i] = result{string(out), err}
			}(i, d)
		}
		close(start)
		wg.Wait()
		wins := 0
		var winner string
		for i, x := range res {
			if x.err == nil {
				wins++
				winner = []string{ca, cb}[i]
				continue
			}
			low := strings.ToLower(x.out)
			if !strings.Contains(low, "rejected") && !strings.Contains(low, "failed to update ref") && !strings.Contains(low, "cannot lock ref") {
				t.Fatalf("round %d: the losing push failed without a clear reason:\n%s", round, x.out)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d pushes won:\n%s\n--\n%s", round, wins, res[0].out, res[1].out)
		}
		rtEventually(t, "pushes finish", func() bool { return len(rtQuarantines(k, r.ID)) == 0 })
		main := k.mustGit(k.bareDir(r.ID), "rev-parse", "refs/heads/main")
		if main != winner {
			t.Fatalf("round %d: main at %s, the winner pushed %s", round, main, winner)
		}
		var br struct{ Commit struct{ ID string } }
		resp := k.api("GET", "repos/alice/proj/branches/main", alice.Token, nil)
		resp.Decode(t, &br)
		if br.Commit.ID != winner {
			t.Fatalf("round %d: API says main is %s, want %s", round, br.Commit.ID, winner)
		}
		k.fsck(r.ID)
		// The loser catches up for the next round.
		for _, d := range []string{da, db} {
			k.mustGit(d, "fetch", "-q", "origin")
			k.mustGit(d, "reset", "-q", "--hard", "origin/main")
		}
	}
	// Concurrent pushes to different branches both succeed.
	k.mustGit(da, "checkout", "-q", "-b", "a-side")
	k.mustGit(db, "checkout", "-q", "-b", "b-side")
	k.commit(da, map[string]string{"a.txt": "a"}, "a")
	k.commit(db, map[string]string{"b.txt": "b"}, "b")
	var wg sync.WaitGroup
	errsCh := make(chan string, 2)
	for _, d := range []string{da, db} {
		wg.Add(1)
		go func(d string) {
			defer wg.Done()
			cmd := exec.Command("git", "push", "origin", "HEAD")
			cmd.Dir = d
			cmd.Env = rtGitEnv(d)
			if out, err := cmd.CombinedOutput(); err != nil {
				errsCh <- string(out)
			}
		}(d)
	}
	wg.Wait()
	close(errsCh)
	for e := range errsCh {
		t.Fatalf("push to a separate branch failed: %s", e)
	}
	for _, b := range []string{"a-side", "b-side"} {
		k.want(k.api("GET", "repos/alice/proj/branches/"+b, alice.Token, nil), 200, "", b)
	}
}

// TestRepoBadInputDeletedMidPush: a repository deleted while a push is on
// its way refuses the rest cleanly and nothing of it is left behind.
func TestRepoBadInputDeletedMidPush(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")

	t.Run("between advertisement and pack", func(t *testing.T) {
		r := k.create(alice.Token, "user/repos", map[string]any{"name": "gone1", "auto_init": true})
		dir := k.mustClone(alice.Name, alice.Password, "alice/gone1")
		old := k.mustGit(dir, "rev-parse", "HEAD")
		next := k.commit(dir, map[string]string{"x.txt": "x\n"}, "x")
		resp := rtGitHTTP(t, s, "GET", "alice/gone1.git/info/refs?service=git-receive-pack", nil, nil, alice.Name, alice.Password)
		if body := rtDrain(resp); resp.StatusCode != 200 || !strings.Contains(body, old+" refs/heads/main") {
			t.Fatalf("advertisement: %d %q", resp.StatusCode, body)
		}
		k.want(k.api("DELETE", "repos/alice/gone1", alice.Token, nil), 204, "", "delete")
		pack := rtPack(t, dir, next, old)
		conn, rest := rtRawPush(t, s, "alice/gone1", alice.Name, alice.Password, "refs/heads/main", old, next, pack, 0)
		conn.Write(rest)
		raw, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(raw.Body)
		conn.Close()
		if raw.StatusCode != 404 {
			t.Fatalf("pack for a deleted repository: %d %q", raw.StatusCode, body)
		}
		if _, err := os.Stat(k.bareDir(r.ID)); !os.IsNotExist(err) {
			t.Fatalf("the deleted repository's directory exists: %v", err)
		}
		// git itself gets a clear error.
		out, err := k.git(dir, nil, "push", "origin", "HEAD:main")
		if err == nil || !strings.Contains(out, "not found") {
			t.Fatalf("git push to a deleted repository: %v\n%s", err, out)
		}
	})

	t.Run("during the pack upload", func(t *testing.T) {
		r := k.create(alice.Token, "user/repos", map[string]any{"name": "gone2", "auto_init": true})
		dir := k.mustClone(alice.Name, alice.Password, "alice/gone2")
		old := k.mustGit(dir, "rev-parse", "HEAD")
		next := rtBigCommit(t, k, dir, "big.bin", 4<<20)
		pack := rtPack(t, dir, next, old)
		conn, rest := rtRawPush(t, s, "alice/gone2", alice.Name, alice.Password, "refs/heads/main", old, next, pack, len(pack)/2)
		time.Sleep(300 * time.Millisecond)
		k.want(k.api("DELETE", "repos/alice/gone2", alice.Token, nil), 204, "", "delete mid-push")
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		_, werr := conn.Write(rest)
		var status int
		var body []byte
		if raw, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
			status = raw.StatusCode
			body, _ = io.ReadAll(raw.Body)
		}
		conn.Close()
		t.Logf("push into a deleted repository: status %d (write err %v): %q", status, werr, body)
		// Either the transport broke off, or git reported a failed update;
		// never a success.
		if strings.Contains(string(body), "ok refs/heads/main") || strings.Contains(string(body), "unpack ok") {
			t.Fatalf("push into a deleted repository updated main: %q", body)
		}
		rtEventually(t, "the deleted repository's directory stays gone", func() bool {
			_, err := os.Stat(k.bareDir(r.ID))
			return os.IsNotExist(err)
		})
		time.Sleep(500 * time.Millisecond)
		if _, err := os.Stat(k.bareDir(r.ID)); !os.IsNotExist(err) {
			t.Fatalf("something recreated the deleted repository's directory: %v", err)
		}
		entries, _ := os.ReadDir(filepath.Join(s.DataDir, "repositories"))
		for _, e := range entries {
			if strings.Contains(e.Name(), fmt.Sprint(r.ID)) && e.Name() != fmt.Sprintf("%d.git", r.ID) {
				t.Fatalf("leftover %s", e.Name())
			}
		}
		// The name is free; a new repository under it starts empty.
		n := k.create(alice.Token, "user/repos", map[string]any{"name": "gone2"})
		if !n.Empty || n.ID == r.ID {
			t.Fatalf("recreated repository: %+v", n)
		}
		if refs := k.serverRefs(n.ID); refs != "" {
			t.Fatalf("the new repository has refs:\n%s", refs)
		}
		if out, err := k.git(k.bareDir(n.ID), nil, "cat-file", "-e", next); err == nil {
			t.Fatalf("the new repository has the pushed commit: %s", out)
		}
	})
}
