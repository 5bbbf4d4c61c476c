package e2e

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// relKit drives the repository relationship routes (collaborators, stars,
// watches, topics, forks, transfers, migrations) of one server.
type relKit struct {
	t *testing.T
	s *Server
}

func newRelKit(t *testing.T, s *Server) *relKit { return &relKit{t: t, s: s} }

// do sends a request with a token ("" for signed out) and a JSON body (nil for none).
func (k *relKit) do(method, path, tok string, body any) *Response {
	k.t.Helper()
	return k.s.API(method, path, tok, body)
}

// want fails unless resp has the status and, when msg is set, a message containing it.
func (k *relKit) want(resp *Response, status int, msg, what string) {
	k.t.Helper()
	if resp.Status != status {
		k.t.Fatalf("%s: status %d, want %d: %s", what, resp.Status, status, resp.Body)
	}
	if msg != "" {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(resp.Body, &e)
		if !strings.Contains(e.Message, msg) {
			k.t.Fatalf("%s: message %q does not contain %q", what, e.Message, msg)
		}
	}
}

// repo creates a repository of u, with a README commit when init.
func (k *relKit) repo(u *User, name string, private, init bool) *gitea.Repository {
	k.t.Helper()
	resp := k.do("POST", "user/repos", u.Token, map[string]any{"name": name, "private": private, "auto_init": init})
	k.want(resp, 201, "", "create repo "+name)
	var r gitea.Repository
	resp.Decode(k.t, &r)
	return &r
}

// get loads a repository as tok sees it (status and decoded body).
func (k *relKit) get(tok, full string) (int, *gitea.Repository) {
	k.t.Helper()
	resp := k.do("GET", "repos/"+full, tok, nil)
	var r gitea.Repository
	if resp.Status == 200 {
		resp.Decode(k.t, &r)
	}
	return resp.Status, &r
}

// cloneURL is the HTTP clone address of full with u's password ("" user: anonymous).
func (k *relKit) cloneURL(u *User, full string) string {
	base, _ := url.Parse(k.s.URL)
	if u != nil {
		base.User = url.UserPassword(u.Name, u.Password)
	}
	return base.String() + full + ".git"
}

// git runs git in dir with an isolated configuration.
func (k *relKit) git(dir string, args ...string) (string, error) {
	k.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
		"GIT_AUTHOR_NAME=Rel", "GIT_AUTHOR_EMAIL=rel@example.com", "GIT_COMMITTER_NAME=Rel", "GIT_COMMITTER_EMAIL=rel@example.com")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (k *relKit) mustGit(dir string, args ...string) string {
	k.t.Helper()
	out, err := k.git(dir, args...)
	if err != nil {
		k.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

// clone clones full as u into a fresh directory; ok is false when git refused.
func (k *relKit) clone(u *User, full string) (string, bool) {
	k.t.Helper()
	dir := filepath.Join(k.t.TempDir(), "w")
	_, err := k.git(k.t.TempDir(), "clone", "-q", k.cloneURL(u, full), dir)
	return dir, err == nil
}

// commitPush adds a file in a clone and pushes it; it returns git's output and error.
func (k *relKit) commitPush(dir, file string) (string, error) {
	k.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644); err != nil {
		k.t.Fatal(err)
	}
	k.mustGit(dir, "add", file)
	k.mustGit(dir, "commit", "-q", "-m", "add "+file)
	return k.git(dir, "push", "-q", "origin", "HEAD")
}

// names returns the "login" of each user in a JSON list.
func (k *relKit) names(resp *Response) []string {
	k.t.Helper()
	var list []struct {
		Login string `json:"login"`
	}
	resp.Decode(k.t, &list)
	out := []string{}
	for _, u := range list {
		out = append(out, u.Login)
	}
	return out
}

// fullNames returns the full_name of each repository in a JSON list.
func (k *relKit) fullNames(resp *Response) []string {
	k.t.Helper()
	var list []struct {
		FullName string `json:"full_name"`
	}
	resp.Decode(k.t, &list)
	out := []string{}
	for _, r := range list {
		out = append(out, r.FullName)
	}
	return out
}

func TestCollaboratorLevels(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	k.repo(alice, "secret", true, true)
	const full = "alice/secret"

	// A stranger sees nothing, over the API or git.
	if st, _ := k.get(bob.Token, full); st != 404 {
		t.Fatalf("stranger GET private repo: %d", st)
	}
	k.want(k.do("GET", "repos/"+full+"/collaborators", bob.Token, nil), 404, "", "stranger lists collaborators")
	if _, ok := k.clone(bob, full); ok {
		t.Fatal("stranger cloned a private repository")
	}
	k.want(k.do("PUT", "repos/"+full+"/collaborators/carol", bob.Token, map[string]any{"permission": "read"}), 404, "", "stranger adds collaborator")

	// Bad input.
	k.want(k.do("PUT", "repos/"+full+"/collaborators/bob", alice.Token, map[string]any{"permission": "owner"}), 422, "Permission", "owner permission")
	k.want(k.do("PUT", "repos/"+full+"/collaborators/nobody", alice.Token, map[string]any{"permission": "read"}), 422, "", "unknown user")
	k.want(k.do("PUT", "repos/"+full+"/collaborators/alice", alice.Token, map[string]any{"permission": "read"}), 422, "owner", "owner as collaborator")
	k.want(k.do("GET", "repos/"+full+"/collaborators/nobody", alice.Token, nil), 422, "", "check unknown user")

	// Read: clone, no push, no admin.
	ca := s.Client(alice.Token)
	read := gitea.AccessModeRead
	if _, err := ca.AddCollaborator("alice", "secret", "bob", gitea.AddCollaboratorOption{Permission: &read}); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := ca.IsCollaborator("alice", "secret", "bob"); err != nil || !ok {
		t.Fatalf("IsCollaborator(bob) = %v, %v", ok, err)
	}
	k.want(k.do("GET", "repos/"+full+"/collaborators/carol", alice.Token, nil), 404, "", "carol is no collaborator")
	st, r := k.get(bob.Token, full)
	if st != 200 || r.Permissions == nil || !r.Permissions.Pull || r.Permissions.Push || r.Permissions.Admin {
		t.Fatalf("reader's view: %d %+v", st, r.Permissions)
	}
	dir, ok := k.clone(bob, full)
	if !ok {
		t.Fatal("reader cannot clone")
	}
	if out, err := k.commitPush(dir, "by-reader.txt"); err == nil {
		t.Fatalf("reader pushed: %s", out)
	}
	k.want(k.do("PATCH", "repos/"+full, bob.Token, map[string]any{"description": "x"}), 403, "", "reader edits repo")
	k.want(k.do("PUT", "repos/"+full+"/collaborators/carol", bob.Token, map[string]any{"permission": "read"}), 403, "", "reader adds collaborator")
	p, _, err := s.Client(bob.Token).CollaboratorPermission("alice", "secret", "bob")
	if err != nil || p.Permission != "read" || p.Role != "read" || p.User == nil || p.User.UserName != "bob" {
		t.Fatalf("reader's own permission: %+v %v", p, err)
	}
	k.want(k.do("GET", "repos/"+full+"/collaborators/alice/permission", bob.Token, nil), 403, "Only admins", "reader asks about the owner")
	k.want(k.do("GET", "repos/"+full+"/collaborators/bob/permission", "", nil), 404, "", "signed out asks")

	// Write: push works, admin still refused.
	k.want(k.do("PUT", "repos/"+full+"/collaborators/bob", alice.Token, map[string]any{"permission": "write"}), 204, "", "upgrade to write")
	if out, err := k.git(dir, "push", "-q", "origin", "HEAD"); err != nil {
		t.Fatalf("writer cannot push: %v %s", err, out)
	}
	k.want(k.do("PATCH", "repos/"+full, bob.Token, map[string]any{"description": "x"}), 403, "", "writer edits repo")
	var perm struct{ Permission string }
	resp := k.do("GET", "repos/"+full+"/collaborators/bob/permission", alice.Token, nil)
	k.want(resp, 200, "", "owner asks about writer")
	resp.Decode(t, &perm)
	if perm.Permission != "write" {
		t.Fatalf("writer's permission: %q", perm.Permission)
	}

	// Admin: edits the repository and manages collaborators.
	k.want(k.do("PUT", "repos/"+full+"/collaborators/bob", alice.Token, map[string]any{"permission": "admin"}), 204, "", "upgrade to admin")
	k.want(k.do("PATCH", "repos/"+full, bob.Token, map[string]any{"description": "by bob"}), 200, "", "admin edits repo")
	k.want(k.do("PUT", "repos/"+full+"/collaborators/carol", bob.Token, map[string]any{"permission": "read"}), 204, "", "admin adds carol")
	resp = k.do("GET", "repos/"+full+"/collaborators/carol/permission", bob.Token, nil)
	k.want(resp, 200, "", "admin asks about carol")
	resp = k.do("GET", "repos/"+full+"/collaborators?limit=1", carol.Token, nil)
	k.want(resp, 200, "", "list collaborators")
	if got := k.names(resp); resp.Header.Get("X-Total-Count") != "2" || len(got) != 1 || got[0] != "bob" {
		t.Fatalf("collaborators page 1: %v total %s", got, resp.Header.Get("X-Total-Count"))
	}
	list, _, err := ca.ListCollaborators("alice", "secret", gitea.ListCollaboratorsOptions{})
	if err != nil || len(list) != 2 || list[1].UserName != "carol" {
		t.Fatalf("SDK collaborators: %v %v", list, err)
	}

	// Removal takes everything away again.
	k.want(k.do("DELETE", "repos/"+full+"/collaborators/bob", alice.Token, nil), 204, "", "remove bob")
	if st, _ := k.get(bob.Token, full); st != 404 {
		t.Fatalf("removed collaborator GET: %d", st)
	}
	if _, ok := k.clone(bob, full); ok {
		t.Fatal("removed collaborator cloned")
	}
	resp = k.do("GET", "repos/"+full+"/collaborators/bob/permission", alice.Token, nil)
	k.want(resp, 200, "", "owner asks about ex-collaborator")
	resp.Decode(t, &perm)
	if perm.Permission != "none" {
		t.Fatalf("ex-collaborator permission %q", perm.Permission)
	}

	// On a public repository, collaborators are listed to signed-in users only.
	k.repo(alice, "open", false, false)
	k.want(k.do("GET", "repos/alice/open/collaborators", "", nil), 401, "", "signed-out list")
	k.want(k.do("GET", "repos/alice/open/collaborators", carol.Token, nil), 200, "", "signed-in list")
}
