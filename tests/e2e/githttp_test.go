package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rtPkt frames s as one pkt-line.
func rtPkt(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

// rtReadPkt reads one pkt-line; flush packets come back as "".
func rtReadPkt(t *testing.T, r *bufio.Reader) (string, bool) {
	t.Helper()
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		t.Fatalf("read pkt-line length: %v", err)
	}
	n, err := strconv.ParseUint(string(head[:]), 16, 16)
	if err != nil {
		t.Fatalf("bad pkt-line length %q", head)
	}
	if n < 4 {
		return "", true
	}
	buf := make([]byte, n-4)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatalf("read pkt-line: %v", err)
	}
	return string(buf), false
}

// rtGitHTTP sends a raw request to a git route (path relative to the root).
func rtGitHTTP(t *testing.T, s *Server, method, path string, body io.Reader, hdr map[string]string, name, secret string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if name != "" {
		req.SetBasicAuth(name, secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// rtDrain reads and closes a response body.
func rtDrain(resp *http.Response) string {
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return string(b)
}

// TestGitHTTPAuth: anonymous reads of public repositories, 401 with
// WWW-Authenticate for the rest, basic auth with a password or a token,
// no URL tokens, readers that cannot push and writers that can.
func TestGitHTTPAuth(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob, carol, dave := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol"), s.CreateUser("dave")
	k.create(alice.Token, "user/repos", map[string]any{"name": "open", "auto_init": true})
	k.create(alice.Token, "user/repos", map[string]any{"name": "secret", "private": true, "auto_init": true})
	k.want(k.api("PUT", "repos/alice/secret/collaborators/bob", alice.Token, map[string]any{"permission": "read"}), 204, "", "bob reads")
	k.want(k.api("PUT", "repos/alice/secret/collaborators/carol", alice.Token, map[string]any{"permission": "write"}), 204, "", "carol writes")

	t.Run("anonymous", func(t *testing.T) {
		dir := k.mustClone("", "", "alice/open")
		if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
			t.Fatal("anonymous clone has no README.md")
		}
		// Private and missing repositories look alike: 401 asking for credentials.
		for _, full := range []string{"alice/secret", "alice/nothing", "nobody/nothing"} {
			for _, svc := range []string{"git-upload-pack", "git-receive-pack"} {
				resp := rtGitHTTP(t, s, "GET", full+".git/info/refs?service="+svc, nil, nil, "", "")
				body := rtDrain(resp)
				if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
					t.Fatalf("anonymous %s on %s: %d, WWW-Authenticate %q: %s", svc, full, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
				}
			}
			resp := rtGitHTTP(t, s, "POST", full+".git/git-upload-pack", strings.NewReader("0000"),
				map[string]string{"Content-Type": "application/x-git-upload-pack-request"}, "", "")
			rtDrain(resp)
			if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
				t.Fatalf("anonymous upload-pack POST on %s: %d", full, resp.StatusCode)
			}
		}
		// git gives up with an authentication error when it may not prompt.
		_, out, err := k.clone("", "", "alice/secret")
		if err == nil || !strings.Contains(out, "could not read Username") {
			t.Fatalf("anonymous clone of a private repository: %v\n%s", err, out)
		}
		// Anonymous pushes to a public repository are asked for credentials too.
		resp := rtGitHTTP(t, s, "GET", "alice/open.git/info/refs?service=git-receive-pack", nil, nil, "", "")
		rtDrain(resp)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("anonymous receive-pack advertisement on a public repository: %d", resp.StatusCode)
		}
		work := k.workTree(map[string]string{"x.txt": "x\n"})
		if out, err := k.git(work, nil, "push", k.url("", "", "alice/open"), "main:anon"); err == nil || !strings.Contains(out, "could not read Username") {
			t.Fatalf("anonymous push: %v\n%s", err, out)
		}
	})

	t.Run("basic auth", func(t *testing.T) {
		k.mustClone(alice.Name, alice.Password, "alice/secret")
		k.mustClone(alice.Name, alice.Token, "alice/secret")
		k.mustClone(bob.Name, bob.Password, "alice/secret")
		// A token as the user name.
		k.mustClone(alice.Token, "x-oauth-basic", "alice/secret")
		// Wrong credentials: 401 again, git reports the failure.
		resp := rtGitHTTP(t, s, "GET", "alice/secret.git/info/refs?service=git-upload-pack", nil, nil, alice.Name, "wrong")
		rtDrain(resp)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("wrong password: %d", resp.StatusCode)
		}
		_, out, err := k.clone(alice.Name, "wrong", "alice/secret")
		if err == nil || !strings.Contains(out, "Authentication failed") {
			t.Fatalf("clone with a wrong password: %v\n%s", err, out)
		}
		// Someone who cannot see it: 404, not 401 (credentials are fine).
		_, out, err = k.clone(dave.Name, dave.Password, "alice/secret")
		if err == nil || !strings.Contains(out, "not found") {
			t.Fatalf("stranger clone: %v\n%s", err, out)
		}
		resp = rtGitHTTP(t, s, "GET", "alice/secret.git/info/refs?service=git-upload-pack", nil, nil, dave.Name, dave.Password)
		rtDrain(resp)
		if resp.StatusCode != 404 {
			t.Fatalf("stranger info/refs: %d", resp.StatusCode)
		}
		// Without ".git" in the address.
		dir := filepath.Join(t.TempDir(), "noext")
		u := strings.TrimSuffix(k.url(alice.Name, alice.Password, "alice/secret"), ".git")
		if out, err := k.git("", nil, "clone", u, dir); err != nil {
			t.Fatalf("clone without .git: %v\n%s", err, out)
		}
	})

	t.Run("no URL tokens", func(t *testing.T) {
		for _, q := range []string{"token", "access_token"} {
			resp := rtGitHTTP(t, s, "GET", "alice/secret.git/info/refs?service=git-upload-pack&"+q+"="+alice.Token, nil, nil, "", "")
			body := rtDrain(resp)
			if resp.StatusCode != 401 || strings.Contains(body, "refs/heads/main") {
				t.Fatalf("?%s= on info/refs: %d %q", q, resp.StatusCode, body)
			}
			resp = rtGitHTTP(t, s, "POST", "alice/secret.git/git-upload-pack?"+q+"="+alice.Token, strings.NewReader("0000"),
				map[string]string{"Content-Type": "application/x-git-upload-pack-request"}, "", "")
			rtDrain(resp)
			if resp.StatusCode != 401 {
				t.Fatalf("?%s= on upload-pack: %d", q, resp.StatusCode)
			}
			resp = rtGitHTTP(t, s, "GET", "alice/open.git/info/refs?service=git-receive-pack&"+q+"="+alice.Token, nil, nil, "", "")
			rtDrain(resp)
			if resp.StatusCode != 401 {
				t.Fatalf("?%s= on a push advertisement: %d", q, resp.StatusCode)
			}
		}
		// Nor on the other routes outside the API: an attachment of a
		// private repository is not served for a query token.
		k.want(k.api("POST", "repos/alice/secret/issues", alice.Token, map[string]any{"title": "with a file"}), 201, "", "issue")
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("attachment", "note.txt")
		io.WriteString(fw, "private note")
		mw.Close()
		up := rtGitHTTP(t, s, "POST", "api/v1/repos/alice/secret/issues/1/assets", &buf,
			map[string]string{"Content-Type": mw.FormDataContentType(), "Authorization": "token " + alice.Token}, "", "")
		var at struct {
			UUID string `json:"uuid"`
		}
		if body := rtDrain(up); up.StatusCode != 201 || json.Unmarshal([]byte(body), &at) != nil || at.UUID == "" {
			t.Fatalf("upload an attachment: %d %s", up.StatusCode, body)
		}
		for _, q := range []string{"token", "access_token"} {
			resp := rtGitHTTP(t, s, "GET", "attachments/"+at.UUID+"?"+q+"="+alice.Token, nil, nil, "", "")
			if body := rtDrain(resp); resp.StatusCode == 200 || strings.Contains(body, "private note") {
				t.Fatalf("attachment with ?%s=: %d %q", q, resp.StatusCode, body)
			}
		}
		resp := rtGitHTTP(t, s, "GET", "attachments/"+at.UUID, nil, nil, alice.Name, alice.Password)
		if body := rtDrain(resp); resp.StatusCode != 200 || body != "private note" {
			t.Fatalf("attachment with basic auth: %d %q", resp.StatusCode, body)
		}

		// Basic auth still wins over a stray query token.
		resp = rtGitHTTP(t, s, "GET", "alice/secret.git/info/refs?service=git-upload-pack&token=bogus", nil, nil, alice.Name, alice.Password)
		if body := rtDrain(resp); resp.StatusCode != 200 || !strings.Contains(body, "refs/heads/main") {
			t.Fatalf("basic auth with a stray ?token=: %d", resp.StatusCode)
		}
	})

	t.Run("readers cannot push, writers can", func(t *testing.T) {
		dir := k.mustClone(bob.Name, bob.Password, "alice/secret")
		k.commit(dir, map[string]string{"bob.txt": "bob\n"}, "by bob")
		before := k.mustGit(dir, "ls-remote", "origin")
		out, err := k.git(dir, nil, "push", "origin", "HEAD:main")
		if err == nil || !strings.Contains(out, "You do not have permission to push to this repository.") {
			t.Fatalf("reader push: %v\n%s", err, out)
		}
		if after := k.mustGit(dir, "ls-remote", "origin"); after != before {
			t.Fatalf("a refused push changed refs:\n%s\n%s", before, after)
		}
		// Readers may start a push, to open pull requests through refs/for/
		// (AGit, as in Gitea); the pre-receive hook refused the branch above.
		resp := rtGitHTTP(t, s, "GET", "alice/secret.git/info/refs?service=git-receive-pack", nil, nil, bob.Name, bob.Password)
		rtDrain(resp)
		if resp.StatusCode != 200 {
			t.Fatalf("reader receive-pack advertisement: %d", resp.StatusCode)
		}
		// The writer pushes a branch; the API sees it.
		cdir := k.mustClone(carol.Name, carol.Password, "alice/secret")
		sha := k.commit(cdir, map[string]string{"carol.txt": "carol\n"}, "by carol")
		k.mustGit(cdir, "push", "-q", "origin", "HEAD:refs/heads/carol-work")
		var br struct {
			Name   string
			Commit struct{ ID string }
		}
		r := k.api("GET", "repos/alice/secret/branches/carol-work", alice.Token, nil)
		k.want(r, 200, "", "pushed branch")
		r.Decode(t, &br)
		if br.Commit.ID != sha {
			t.Fatalf("branch carol-work at %s, want %s", br.Commit.ID, sha)
		}
		// A token limited to reading cannot push, even for a writer.
		ro := s.CreateToken(carol.Name, carol.Password, "ro", "read:repository")
		k.commit(cdir, map[string]string{"carol2.txt": "2\n"}, "again")
		out, err = k.git(cdir, nil, "push", k.url(carol.Name, ro, "alice/secret"), "HEAD:refs/heads/carol-work")
		if err == nil || !strings.Contains(out, "write:repository") {
			t.Fatalf("push with a read-only token: %v\n%s", err, out)
		}
		k.mustClone(carol.Name, ro, "alice/secret")
		// An account that may not sign in is refused.
		k.want(k.api("PATCH", "admin/users/carol", s.AdminTok, map[string]any{"prohibit_login": true, "login_name": "carol", "source_id": 0}), 200, "", "prohibit carol")
		_, out, err = k.clone(carol.Name, carol.Password, "alice/secret")
		if err == nil || !strings.Contains(out, "prohibited") {
			t.Fatalf("prohibited account clones: %v\n%s", err, out)
		}
	})
}

// TestGitHTTPProtocolV2: protocol v2 over HTTP (ls-remote, clone, fetch),
// and v0 still works.
func TestGitHTTPProtocolV2(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "private": true, "auto_init": true})
	u := k.url(alice.Name, alice.Password, "alice/proj")

	trace := []string{"GIT_TRACE_PACKET=1"}
	out, err := k.git("", trace, "-c", "protocol.version=2", "ls-remote", u)
	if err != nil || !strings.Contains(out, "version 2") || !strings.Contains(out, "refs/heads/main") {
		t.Fatalf("v2 ls-remote: %v\n%s", err, lastLines(out, 30))
	}
	if !strings.Contains(out, "ls-refs") {
		t.Fatalf("v2 ls-remote did not use ls-refs:\n%s", lastLines(out, 30))
	}
	dst := filepath.Join(t.TempDir(), "v2")
	out, err = k.git("", trace, "-c", "protocol.version=2", "clone", u, dst)
	if err != nil || !strings.Contains(out, "fetch<") && !strings.Contains(out, "command=fetch") {
		t.Fatalf("v2 clone: %v\n%s", err, lastLines(out, 30))
	}
	if _, err := os.Stat(filepath.Join(dst, "README.md")); err != nil {
		t.Fatal("v2 clone has no README.md")
	}
	// Push (receive-pack has no v2) and fetch back with v2.
	sha := k.commit(dst, map[string]string{"v2.txt": "v2\n"}, "v2")
	k.mustGit(dst, "push", "-q", "origin", "HEAD:refs/heads/side")
	other := filepath.Join(t.TempDir(), "v0")
	out, err = k.git("", trace, "-c", "protocol.version=0", "clone", u, other)
	if err != nil || strings.Contains(out, "version 2") {
		t.Fatalf("v0 clone: %v\n%s", err, lastLines(out, 30))
	}
	out, err = k.git(other, trace, "-c", "protocol.version=2", "fetch", "origin", "side")
	if err != nil || !strings.Contains(out, "version 2") {
		t.Fatalf("v2 fetch: %v\n%s", err, lastLines(out, 30))
	}
	if got := k.mustGit(other, "rev-parse", "FETCH_HEAD"); got != sha {
		t.Fatalf("fetched %s, want %s", got, sha)
	}

	// Raw: a v2 advertisement starts with "version 2", without the
	// "# service=" line of v0; a bogus protocol value falls back to v0.
	resp := rtGitHTTP(t, s, "GET", "alice/proj.git/info/refs?service=git-upload-pack", nil,
		map[string]string{"Git-Protocol": "version=2"}, alice.Name, alice.Password)
	body := rtDrain(resp)
	if resp.StatusCode != 200 || !strings.HasPrefix(body, rtPkt("version 2\n")) ||
		resp.Header.Get("Content-Type") != "application/x-git-upload-pack-advertisement" {
		t.Fatalf("v2 advertisement: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	for proto, v2 := range map[string]bool{
		"version=2;rm -rf /:x=$(id)": false, "version=20": false, "version=1": false, "": false,
		"version=1:version=2": true, "x=y:version=2": true,
	} {
		resp = rtGitHTTP(t, s, "GET", "alice/proj.git/info/refs?service=git-upload-pack", nil,
			map[string]string{"Git-Protocol": proto}, alice.Name, alice.Password)
		body = rtDrain(resp)
		if v2 {
			if resp.StatusCode != 200 || !strings.HasPrefix(body, rtPkt("version 2\n")) {
				t.Fatalf("Git-Protocol %q: %d %q", proto, resp.StatusCode, body)
			}
			continue
		}
		if resp.StatusCode != 200 || !strings.HasPrefix(body, rtPkt("# service=git-upload-pack\n")+"0000") || !strings.Contains(body, "refs/heads/main") {
			t.Fatalf("Git-Protocol %q: %d %q", proto, resp.StatusCode, body)
		}
	}
	// A v2 ls-refs command over raw HTTP.
	req := rtPkt("command=ls-refs\n") + "0001" + rtPkt("ref-prefix refs/heads/\n") + "0000"
	resp = rtGitHTTP(t, s, "POST", "alice/proj.git/git-upload-pack", strings.NewReader(req),
		map[string]string{"Git-Protocol": "version=2", "Content-Type": "application/x-git-upload-pack-request"}, alice.Name, alice.Password)
	body = rtDrain(resp)
	if resp.StatusCode != 200 || !strings.Contains(body, sha+" refs/heads/side\n") || strings.Contains(body, "refs/tags") {
		t.Fatalf("raw ls-refs: %d %q", resp.StatusCode, body)
	}
	// Dumb HTTP and unknown services are refused.
	resp = rtGitHTTP(t, s, "GET", "alice/proj.git/info/refs", nil, nil, alice.Name, alice.Password)
	rtDrain(resp)
	if resp.StatusCode != 403 {
		t.Fatalf("dumb info/refs: %d", resp.StatusCode)
	}
	for _, svc := range []string{"git-upload-archive", "git-foo", "--upload-pack=x"} {
		resp = rtGitHTTP(t, s, "GET", "alice/proj.git/info/refs?service="+svc, nil, nil, alice.Name, alice.Password)
		rtDrain(resp)
		if resp.StatusCode != 403 {
			t.Fatalf("info/refs?service=%s: %d", svc, resp.StatusCode)
		}
	}
	resp = rtGitHTTP(t, s, "GET", "alice/proj.git/git-upload-pack", nil, nil, alice.Name, alice.Password)
	rtDrain(resp)
	if resp.StatusCode != 405 {
		t.Fatalf("GET git-upload-pack: %d", resp.StatusCode)
	}
}

// TestGitHTTPGzipBodies: gzip-encoded request bodies, sent raw and by git
// itself when a fetch negotiation is large.
func TestGitHTTPGzipBodies(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "private": true})
	work := k.workTree(map[string]string{"README.md": "hello\n"})
	head := k.mustGit(work, "rev-parse", "HEAD")
	// Forty branches on forty commits: a clone wants forty objects, a
	// request body over 1 KiB, which git compresses.
	for i := 0; i < 40; i++ {
		k.mustGit(work, "checkout", "-q", "-b", fmt.Sprintf("b%02d", i), head)
		k.commit(work, map[string]string{fmt.Sprintf("f%02d.txt", i): fmt.Sprint(i)}, fmt.Sprint("commit ", i))
	}
	k.mustGit(work, "checkout", "-q", "main")
	k.mustGit(work, "push", "-q", k.url(alice.Name, alice.Password, "alice/proj"), "--all")

	// Raw: a gzip'd v0 upload-pack request for main.
	var req bytes.Buffer
	gz := gzip.NewWriter(&req)
	io.WriteString(gz, rtPkt("want "+head+" ofs-delta no-progress\n")+"0000"+rtPkt("done\n"))
	gz.Close()
	resp := rtGitHTTP(t, s, "POST", "alice/proj.git/git-upload-pack", &req, map[string]string{
		"Content-Type": "application/x-git-upload-pack-request", "Content-Encoding": "gzip"}, alice.Name, alice.Password)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-git-upload-pack-result" {
		t.Fatalf("gzip upload-pack: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), rtDrain(resp))
	}
	br := bufio.NewReader(resp.Body)
	if line, _ := rtReadPkt(t, br); line != "NAK\n" {
		t.Fatalf("first line %q, want NAK", line)
	}
	pack, err := io.ReadAll(br)
	resp.Body.Close()
	if err != nil || !bytes.HasPrefix(pack, []byte("PACK")) {
		t.Fatalf("no pack after NAK (%v): %q", err, pack[:min(len(pack), 20)])
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.pack"), pack, 0o644); err != nil {
		t.Fatal(err)
	}
	k.mustGit(dir, "index-pack", "x.pack")
	objects := k.mustGit(dir, "verify-pack", "-v", "x.idx")
	if !strings.Contains(objects, head+" commit") || !strings.Contains(objects, " blob ") || !strings.Contains(objects, " tree ") {
		t.Fatalf("the pack lacks the wanted commit or its tree and blob:\n%s", objects)
	}
	if strings.Count(objects, " commit ") != 1 {
		t.Fatalf("the pack holds more than the wanted commit:\n%s", objects)
	}
	// A body that claims gzip but is not is refused, not passed on.
	resp = rtGitHTTP(t, s, "POST", "alice/proj.git/git-upload-pack", strings.NewReader("0000not gzip"), map[string]string{
		"Content-Type": "application/x-git-upload-pack-request", "Content-Encoding": "gzip"}, alice.Name, alice.Password)
	rtDrain(resp)
	if resp.StatusCode != 400 {
		t.Fatalf("bad gzip body: %d", resp.StatusCode)
	}

	// The real client: with protocol v0 and v2 a clone's negotiation is
	// gzip'd; the clone gets every branch.
	for _, v := range []string{"0", "2"} {
		dst := filepath.Join(t.TempDir(), "c")
		out, err := k.git("", []string{"GIT_TRACE_CURL=1", "GIT_TRACE_CURL_NO_DATA=1"}, "-c", "protocol.version="+v, "clone", "--no-checkout",
			k.url(alice.Name, alice.Password, "alice/proj"), dst)
		if err != nil {
			t.Fatalf("v%s clone: %v\n%s", v, err, lastLines(out, 40))
		}
		if !strings.Contains(out, "Content-Encoding: gzip") {
			t.Fatalf("v%s: git did not compress its request, the test proves nothing:\n%s", v, lastLines(out, 60))
		}
		if n := strings.Count(k.mustGit(dst, "branch", "-r"), "origin/b"); n != 40 {
			t.Fatalf("v%s clone has %d of 40 branches", v, n)
		}
		k.mustGit(dst, "fsck", "--no-progress")
	}
}

// TestGitHTTPPushRecordsState: pushes create branches and tags the API
// sees, and the first push changes empty, updated_at and, when the pushed
// branch is not the default one, the default branch.
func TestGitHTTPPushRecordsState(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	r0 := k.create(alice.Token, "user/repos", map[string]any{"name": "proj"})
	if !r0.Empty || r0.DefaultBranch != "main" {
		t.Fatalf("new repository %+v", r0)
	}
	// An empty repository clones (with a warning) and lists nothing.
	k.mustClone(alice.Name, alice.Password, "alice/proj")
	time.Sleep(1100 * time.Millisecond) // updated_at has a one-second resolution

	work := k.workTree(map[string]string{"README.md": "hi\n"})
	k.mustGit(work, "checkout", "-q", "-b", "feature")
	feature := k.commit(work, map[string]string{"f.txt": "f\n"}, "feature")
	k.mustGit(work, "checkout", "-q", "main")
	main := k.mustGit(work, "rev-parse", "HEAD")
	k.mustGit(work, "tag", "v1")
	k.mustGit(work, "tag", "-a", "v2", "-m", "annotated", feature)
	remote := k.url(alice.Name, alice.Password, "alice/proj")
	k.mustGit(work, "push", "-q", remote, "main", "feature", "v1", "v2")

	r1 := k.mustGet(alice.Token, "alice/proj")
	if r1.Empty || r1.DefaultBranch != "main" || !r1.Updated.After(r0.Updated) {
		t.Fatalf("after the first push: empty=%v default=%q updated %v (before %v)", r1.Empty, r1.DefaultBranch, r1.Updated, r0.Updated)
	}
	var branches []struct {
		Name   string
		Commit struct{ ID string }
	}
	resp := k.api("GET", "repos/alice/proj/branches", alice.Token, nil)
	k.want(resp, 200, "", "branches")
	resp.Decode(t, &branches)
	got := map[string]string{}
	for _, b := range branches {
		got[b.Name] = b.Commit.ID
	}
	if len(got) != 2 || got["main"] != main || got["feature"] != feature {
		t.Fatalf("branches %v", got)
	}
	var tags []struct {
		Name   string
		Commit struct{ SHA string }
	}
	resp = k.api("GET", "repos/alice/proj/tags", alice.Token, nil)
	k.want(resp, 200, "", "tags")
	resp.Decode(t, &tags)
	tg := map[string]string{}
	for _, x := range tags {
		tg[x.Name] = x.Commit.SHA
	}
	if len(tg) != 2 || tg["v1"] != main || tg["v2"] != feature {
		t.Fatalf("tags %v", tg)
	}
	// Deleting a branch and a tag by push shows too.
	time.Sleep(1100 * time.Millisecond)
	k.mustGit(work, "push", "-q", remote, ":feature", ":v1")
	k.want(k.api("GET", "repos/alice/proj/branches/feature", alice.Token, nil), 404, "", "deleted branch")
	k.want(k.api("GET", "repos/alice/proj/tags/v1", alice.Token, nil), 404, "", "deleted tag")
	if r2 := k.mustGet(alice.Token, "alice/proj"); !r2.Updated.After(r1.Updated) || r2.Empty {
		t.Fatalf("a deleting push: updated %v (before %v), empty %v", r2.Updated, r1.Updated, r2.Empty)
	}

	// First push of a branch other than the default: it becomes the default.
	k.create(alice.Token, "user/repos", map[string]any{"name": "other"})
	k.mustGit(work, "push", "-q", k.url(alice.Name, alice.Password, "alice/other"), "main:develop")
	r3 := k.mustGet(alice.Token, "alice/other")
	if r3.Empty || r3.DefaultBranch != "develop" {
		t.Fatalf("first push of develop: %+v", r3)
	}
	dir := k.mustClone(alice.Name, alice.Password, "alice/other")
	if b := k.mustGit(dir, "rev-parse", "--abbrev-ref", "HEAD"); b != "develop" {
		t.Fatalf("clone checks out %q", b)
	}
	// Pushing only tags leaves a repository empty of branches... and not empty.
	k.create(alice.Token, "user/repos", map[string]any{"name": "tagsonly"})
	k.mustGit(work, "push", "-q", k.url(alice.Name, alice.Password, "alice/tagsonly"), "v2")
	if r := k.mustGet(alice.Token, "alice/tagsonly"); r.DefaultBranch != "main" {
		t.Fatalf("tags-only push changed the default branch: %+v", r)
	}
}

// TestGitHTTPDisabled: [repository] DISABLE_HTTP_GIT turns the transport
// off while the API keeps working.
func TestGitHTTPDisabled(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_DISABLE_HTTP_GIT=true"))
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	resp := rtGitHTTP(t, s, "GET", "alice/proj.git/info/refs?service=git-upload-pack", nil, nil, alice.Name, alice.Password)
	rtDrain(resp)
	if resp.StatusCode != 403 {
		t.Fatalf("disabled transport: %d", resp.StatusCode)
	}
	if _, out, err := k.clone(alice.Name, alice.Password, "alice/proj"); err == nil {
		t.Fatalf("cloned with the transport disabled: %s", out)
	}
	k.want(k.api("GET", "repos/alice/proj/contents/README.md", alice.Token, nil), 200, "", "API still works")
}
