package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// inputKit drives the request-input tests: one server, one user with a
// repository and an issue.
type inputKit struct {
	t     *testing.T
	s     *Server
	alice *User
}

func newInputKit(t *testing.T) *inputKit {
	s := StartServer(t)
	k := &inputKit{t: t, s: s, alice: s.CreateUser("alice")}
	k.want(s.API("POST", "user/repos", k.alice.Token, map[string]any{"name": "proj", "auto_init": true}), 201, "", "create repo")
	k.want(s.API("POST", "repos/alice/proj/issues", k.alice.Token, map[string]any{"title": "first"}), 201, "", "create issue")
	return k
}

// want checks a response's status and that its body holds msg.
func (k *inputKit) want(r *Response, status int, msg, what string) {
	k.t.Helper()
	if r.Status != status || !strings.Contains(string(r.Body), msg) {
		k.t.Fatalf("%s: %d %s, want %d with %q", what, r.Status, r.Body, status, msg)
	}
	if status >= 400 {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(r.Body, &e) != nil || e.Message == "" {
			k.t.Fatalf("%s: %d answer is not in Gitea's error shape: %s", what, status, r.Body)
		}
	}
}

// count reads the length of a JSON list.
func (k *inputKit) count(path string) int {
	k.t.Helper()
	r := k.s.API("GET", path, k.alice.Token, nil)
	var list []json.RawMessage
	if r.Status != 200 || json.Unmarshal(r.Body, &list) != nil {
		k.t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	return len(list)
}

// TestInputUnstorableText: a NUL character (which PostgreSQL cannot store)
// or bytes that are not UTF-8 answer the same on every database: 404 in a
// path (a lookup of something that cannot exist), 422 naming the parameter in
// a query, 422 naming the field in a JSON body; nothing is stored.
func TestInputUnstorableText(t *testing.T) {
	k := newInputKit(t)
	s, tok := k.s, k.alice.Token

	for _, p := range []string{
		"api/v1/users/a%00b", "api/v1/users/a%ffb", "api/v1/repos/root/a%00b", "api/v1/repos/a%00b/proj/issues",
		"api/v1/orgs/a%00b", "api/v1/orgs/a%00b/teams", "api/v1/repos/alice/proj/labels/a%00b",
		"api/v1/repos/alice/proj/branches/a%00b", "api/v1/repos/alice/proj/contents/a%00b",
		"a%00b/proj.git/info/refs?service=git-upload-pack", "alice/a%00b.git/info/refs?service=git-upload-pack",
		"avatars/a%00b", "attachments/a%00b",
	} {
		for _, who := range []string{"", tok} {
			k.want(s.Do("GET", p, Token(who)), 404, "", "GET "+p)
		}
	}

	for _, p := range []string{
		"repos/search?q=a%00b", "users/search?q=a%00b", "repos/alice/proj/issues?labels=a%00b",
		"repos/issues/search?q=a%00b", "repos/search?q=%ff%fe", "repos/alice/proj/issues?state=open&milestones=a%00",
	} {
		for _, who := range []string{"", tok} {
			param := p[strings.Index(p, "?")+1:]
			param = param[strings.LastIndex(param, "&")+1:]
			param, _, _ = strings.Cut(param, "=")
			k.want(s.API("GET", p, who, nil), 422, param, "GET "+p)
		}
	}
	// The header form of sudo: a name that cannot exist.
	k.want(s.Do("GET", "api/v1/user", Token(s.AdminTok), Header("Sudo", "a\xffb")), 404, "", "sudo with bytes that are not UTF-8")

	nul := "a\x00b"
	issues, labels, milestones, comments := k.count("repos/alice/proj/issues?state=all"), k.count("repos/alice/proj/labels"),
		k.count("repos/alice/proj/milestones?state=all"), k.count("repos/alice/proj/issues/1/comments")
	for _, c := range []struct {
		method, path, field string
		body                any
		admin               bool
	}{
		{"POST", "repos/alice/proj/issues", "Title", map[string]any{"title": nul}, false},
		{"POST", "repos/alice/proj/issues", "Body", map[string]any{"title": "ok", "body": nul}, false},
		{"PATCH", "repos/alice/proj/issues/1", "Body", map[string]any{"body": nul}, false},
		{"POST", "repos/alice/proj/issues/1/comments", "Body", map[string]any{"body": nul}, false},
		{"POST", "repos/alice/proj/labels", "Name", map[string]any{"name": nul, "color": "#ff0000"}, false},
		{"POST", "repos/alice/proj/issues/1/labels", "Labels", map[string]any{"labels": []string{nul}}, false},
		{"POST", "repos/alice/proj/milestones", "Description", map[string]any{"title": "m", "description": nul}, false},
		{"PATCH", "repos/alice/proj", "Description", map[string]any{"description": nul}, false},
		{"PATCH", "user/settings", "FullName", map[string]any{"full_name": nul}, false},
		{"POST", "orgs", "UserName", map[string]any{"username": nul}, false},
		{"POST", "orgs", "Description", map[string]any{"username": "acme", "description": nul}, false},
		{"POST", "repos/alice/proj/statuses/main", "Context", map[string]any{"state": "success", "context": nul}, false},
		{"POST", "user/keys", "Title", map[string]any{"title": nul, "key": "ssh-ed25519 AAAA"}, false},
		{"POST", "users/alice/tokens", "Name", map[string]any{"name": nul, "scopes": []string{"all"}}, false},
		{"POST", "admin/users", "Username", map[string]any{"username": nul, "email": "x@example.com", "password": "long-password-1"}, true},
		{"PATCH", "admin/users/alice", "LoginName", map[string]any{"login_name": nul, "source_id": 0}, true},
		{"PUT", "repos/alice/proj/topics", "Topics", map[string]any{"topics": []string{nul}}, false},
	} {
		var r *Response
		switch {
		case c.admin:
			r = s.API(c.method, c.path, s.AdminTok, c.body)
		case strings.HasPrefix(c.path, "users/alice/tokens"):
			r = s.Do(c.method, "api/v1/"+c.path, Basic("alice", k.alice.Password), JSON(c.body))
		default:
			r = s.API(c.method, c.path, tok, c.body)
		}
		k.want(r, 422, "["+c.field+"]", c.method+" "+c.path+" with a NUL in "+c.field)
	}
	if n := k.count("repos/alice/proj/issues?state=all"); n != issues {
		t.Fatalf("issues: %d, want %d", n, issues)
	}
	if n := k.count("repos/alice/proj/labels"); n != labels {
		t.Fatalf("labels: %d, want %d", n, labels)
	}
	if n := k.count("repos/alice/proj/milestones?state=all"); n != milestones {
		t.Fatalf("milestones: %d, want %d", n, milestones)
	}
	if n := k.count("repos/alice/proj/issues/1/comments"); n != comments {
		t.Fatalf("comments: %d, want %d", n, comments)
	}
	if r := s.API("GET", "orgs/acme", tok, nil); r.Status != 404 {
		t.Fatalf("an organization was created: %d %s", r.Status, r.Body)
	}
	// Text that merely looks like an escape is text, and is stored whole.
	r := s.API("POST", "repos/alice/proj/issues", tok, map[string]any{"title": `a \u0000 b`, "body": `C: "\0" and \\u0000`})
	k.want(r, 201, `a \\u0000 b`, "an escaped backslash before u0000")
}

// TestInputLengthLimits: every stored string is checked against its limit
// before the database, with a 422 naming the field, the same on SQLite (which
// would store anything) as on PostgreSQL and MariaDB (which would fail).
func TestInputLengthLimits(t *testing.T) {
	k := newInputKit(t)
	s, tok := k.s, k.alice.Token
	long := func(n int) string { return strings.Repeat("x", n) }

	for _, c := range []struct {
		method, path, field string
		body                any
		admin               bool
	}{
		{"POST", "admin/users", "LoginName", map[string]any{"username": "bob", "email": "bob@example.com", "password": "long-password-1", "login_name": long(100000), "source_id": 0}, true},
		{"PATCH", "admin/users/alice", "LoginName", map[string]any{"login_name": long(256), "source_id": 0}, true},
		{"PATCH", "admin/users/alice", "Website", map[string]any{"login_name": "alice", "source_id": 0, "website": "https://" + long(250)}, true},
		{"POST", "user/repos", "DefaultBranch", map[string]any{"name": "b1", "auto_init": true, "default_branch": long(300)}, false},
		{"POST", "user/repos", "DefaultBranch", map[string]any{"name": "b2", "default_branch": long(100000)}, false},
		{"POST", "user/repos", "DefaultBranch", map[string]any{"name": "b3", "default_branch": long(101)}, false},
		{"POST", "user/repos", "Description", map[string]any{"name": "d1", "description": long(2049)}, false},
		{"PATCH", "repos/alice/proj", "Website", map[string]any{"website": "https://" + long(300)}, false},
		{"PATCH", "repos/alice/proj", "DefaultBranch", map[string]any{"default_branch": long(101)}, false},
		{"POST", "repos/alice/proj/issues", "Title", map[string]any{"title": long(256)}, false},
		{"POST", "repos/alice/proj/labels", "Description", map[string]any{"name": "l", "color": "#ff0000", "description": long(256)}, false},
		{"POST", "repos/alice/proj/milestones", "Title", map[string]any{"title": long(256)}, false},
		{"POST", "repos/alice/proj/statuses/main", "Context", map[string]any{"state": "success", "context": long(256)}, false},
		{"POST", "repos/alice/proj/statuses/main", "TargetURL", map[string]any{"state": "success", "target_url": "https://" + long(2100)}, false},
		{"POST", "user/keys", "Title", map[string]any{"title": long(256), "key": "ssh-ed25519 AAAA"}, false},
		{"PATCH", "user/settings", "FullName", map[string]any{"full_name": long(101)}, false},
		{"PATCH", "user/settings", "Language", map[string]any{"language": long(256)}, false},
		{"POST", "orgs", "Description", map[string]any{"username": "acme", "description": long(256)}, false},
		{"POST", "user/emails", "Emails", map[string]any{"emails": []string{long(250) + "@example.com"}}, false},
		{"POST", "repos/alice/proj/issues/1/reactions", "Reaction", map[string]any{"content": long(256)}, false},
		{"POST", "repos/alice/proj/branches", "BranchName", map[string]any{"new_branch_name": long(101)}, false},
		{"POST", "repos/migrate", "RepoName", map[string]any{"clone_addr": "https://example.com/x.git", "repo_name": long(101)}, false},
	} {
		who := tok
		if c.admin {
			who = s.AdminTok
		}
		k.want(s.API(c.method, c.path, who, c.body), 422, "["+c.field+"]", c.method+" "+c.path+" with a long "+c.field)
	}
	for _, name := range []string{"b1", "b2", "b3", "d1"} {
		if r := s.API("GET", "repos/alice/"+name, tok, nil); r.Status != 404 {
			t.Fatalf("repository %s was created: %d", name, r.Status)
		}
	}
	// At the limit, everything is stored whole, and text fields hold more.
	branch := strings.Repeat("b", 100)
	k.want(s.API("POST", "user/repos", tok, map[string]any{"name": "edge", "auto_init": true, "default_branch": branch}), 201, branch, "a 100-character default branch")
	k.want(s.API("GET", "repos/alice/edge/branches/"+branch, tok, nil), 200, branch, "the 100-character branch")
	k.want(s.API("PATCH", "admin/users/alice", s.AdminTok, map[string]any{"login_name": long(255), "source_id": 0}), 200, "", "a 255-character login name")
	k.want(s.API("POST", "repos/alice/proj/issues", tok, map[string]any{"title": strings.Repeat("é", 255), "body": long(200000)}), 201, strings.Repeat("é", 255), "a 255-character title and a long body")
	k.want(s.API("POST", "repos/alice/proj/statuses/main", tok, map[string]any{"state": "success", "context": strings.Repeat("ç", 255), "description": long(1024)}), 201, "", "a 255-character status context")
}

// TestInputContentType: a request body must declare JSON. A browser sends a
// text/plain or form body cross-site without asking first, with the basic
// credentials it has cached; such a request changes nothing.
func TestInputContentType(t *testing.T) {
	k := newInputKit(t)
	s := k.s
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ct", "-f", keyPath).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(keyPath + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"title": "laptop", "key": strings.TrimSpace(string(pub))})
	basic := Basic("alice", k.alice.Password)
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "bogus/;;"} {
		k.want(s.Do("POST", "api/v1/user/keys", basic, Header("Content-Type", ct), RawBody(string(body))), 422, "Content-Type", "a key sent as "+ct)
	}
	// No Content-Type at all.
	r := s.Do("POST", "api/v1/user/keys", basic, RawBody(string(body)), func(r *http.Request) { r.Header.Del("Content-Type") })
	k.want(r, 422, "Content-Type", "a key sent without a Content-Type")
	if n := k.count("user/keys"); n != 0 {
		t.Fatalf("%d keys were added", n)
	}
	k.want(s.Do("POST", "api/v1/user/keys", basic, Header("Content-Type", "application/json; charset=utf-8"), RawBody(string(body))), 201, "laptop", "a key sent as JSON")
	k.want(s.Do("PATCH", "api/v1/repos/alice/proj", Token(k.alice.Token), Header("Content-Type", "application/merge-patch+json"), RawBody(`{"description":"d"}`)), 200, `"description":"d"`, "a +json media type")
	// Routes whose body is optional still take none, whatever the header.
	k.want(s.Do("PUT", "api/v1/repos/alice/proj/issues/1/lock", Token(k.alice.Token)), 204, "", "lock without a body")
}

// TestInputLongBranchPush: git allows branch names longer than a default
// branch may have; a first push of only such a branch still records the push
// (on PostgreSQL and MariaDB the name would not fit the column), and a first
// push that also has a usable branch makes that one the default.
func TestInputLongBranchPush(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	long := "feature/" + strings.Repeat("x", 140) + "/" + strings.Repeat("y", 140) // 289 characters
	for _, c := range []struct {
		repo     string
		branches []string
		want     string
	}{
		{"only-long", []string{long}, "main"},
		{"long-first", []string{long, "topic"}, "topic"},
	} {
		k.create(alice.Token, "user/repos", map[string]any{"name": c.repo})
		dir := k.workTree(map[string]string{"a.txt": "a\n"})
		args := []string{"push", k.url(alice.Name, alice.Password, "alice/"+c.repo)}
		for _, b := range c.branches {
			args = append(args, "main:refs/heads/"+b)
		}
		k.mustGit(dir, args...)
		got := k.mustGet(alice.Token, "alice/"+c.repo)
		if got.Empty || got.DefaultBranch != c.want {
			t.Fatalf("%s: empty %v, default branch %q; want %q", c.repo, got.Empty, got.DefaultBranch, c.want)
		}
		if r := s.API("GET", "repos/alice/"+c.repo+"/branches/"+long, alice.Token, nil); r.Status != 200 {
			t.Fatalf("%s: the long branch: %d %s", c.repo, r.Status, r.Body)
		}
	}
}
