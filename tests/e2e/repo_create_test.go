package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rtKit drives repository creation, editing and git transport tests: API
// calls with a token and the real git client with an isolated configuration.
type rtKit struct {
	t *testing.T
	s *Server
}

func newRTKit(t *testing.T, s *Server) *rtKit {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	return &rtKit{t: t, s: s}
}

// rtRepo is the part of a repository's JSON the tests look at.
type rtRepo struct {
	ID            int64     `json:"id"`
	Name          string    `json:"name"`
	FullName      string    `json:"full_name"`
	Description   string    `json:"description"`
	Website       string    `json:"website"`
	Private       bool      `json:"private"`
	Empty         bool      `json:"empty"`
	Archived      bool      `json:"archived"`
	ArchivedAt    time.Time `json:"archived_at"`
	Template      bool      `json:"template"`
	DefaultBranch string    `json:"default_branch"`
	ObjectFormat  string    `json:"object_format_name"`
	Updated       time.Time `json:"updated_at"`
	Created       time.Time `json:"created_at"`
	CloneURL      string    `json:"clone_url"`
	HasIssues     bool      `json:"has_issues"`
	HasWiki       bool      `json:"has_wiki"`
	HasPulls      bool      `json:"has_pull_requests"`
	HasProjects   bool      `json:"has_projects"`
	HasReleases   bool      `json:"has_releases"`
	HasPackages   bool      `json:"has_packages"`
	HasActions    bool      `json:"has_actions"`
	AllowMerge    bool      `json:"allow_merge_commits"`
	AllowRebase   bool      `json:"allow_rebase"`
	AllowSquash   bool      `json:"allow_squash_merge"`
	AllowFF       bool      `json:"allow_fast_forward_only_merge"`
	MergeStyle    string    `json:"default_merge_style"`
	DeleteBranch  bool      `json:"default_delete_branch_after_merge"`
	Owner         struct {
		Login string `json:"login"`
	} `json:"owner"`
	Permissions *struct {
		Admin bool `json:"admin"`
		Push  bool `json:"push"`
		Pull  bool `json:"pull"`
	} `json:"permissions"`
}

// api sends a request to api/v1/path with a token ("" for signed out) and a
// JSON body (nil for none).
func (k *rtKit) api(method, path, tok string, body any) *Response {
	k.t.Helper()
	return k.s.API(method, path, tok, body)
}

// message is the "message" of an API error.
func rtMessage(resp *Response) string {
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(resp.Body, &e)
	return e.Message
}

// want fails unless resp has the status and, when msg is set, a message
// containing it (case-insensitive).
func (k *rtKit) want(resp *Response, status int, msg, what string) {
	k.t.Helper()
	if resp.Status != status {
		k.t.Fatalf("%s: status %d, want %d: %s", what, resp.Status, status, resp.Body)
	}
	if msg != "" && !strings.Contains(strings.ToLower(rtMessage(resp)), strings.ToLower(msg)) {
		k.t.Fatalf("%s: message %q does not contain %q", what, rtMessage(resp), msg)
	}
}

// create posts body to path (e.g. "user/repos") and returns the repository.
func (k *rtKit) create(tok, path string, body map[string]any) rtRepo {
	k.t.Helper()
	resp := k.api("POST", path, tok, body)
	k.want(resp, 201, "", "create repository "+fmt.Sprint(body["name"])+" at "+path)
	var r rtRepo
	resp.Decode(k.t, &r)
	return r
}

// get loads full as tok sees it.
func (k *rtKit) get(tok, full string) (int, rtRepo) {
	k.t.Helper()
	resp := k.api("GET", "repos/"+full, tok, nil)
	var r rtRepo
	if resp.Status == 200 {
		resp.Decode(k.t, &r)
	}
	return resp.Status, r
}

// mustGet loads full and fails unless it answers 200.
func (k *rtKit) mustGet(tok, full string) rtRepo {
	k.t.Helper()
	st, r := k.get(tok, full)
	if st != 200 {
		k.t.Fatalf("GET repos/%s: %d", full, st)
	}
	return r
}

// gitEnv is the environment of the test's git commands.
func rtGitEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "LC_ALL=C",
		"GIT_AUTHOR_NAME=RT Author", "GIT_AUTHOR_EMAIL=rt@example.com",
		"GIT_COMMITTER_NAME=RT Committer", "GIT_COMMITTER_EMAIL=rt@example.com",
	}
}

// git runs git in dir (a temporary directory when empty) with extra
// environment entries and returns its combined, trimmed output.
func (k *rtKit) git(dir string, env []string, args ...string) (string, error) {
	k.t.Helper()
	if dir == "" {
		dir = k.t.TempDir()
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(rtGitEnv(dir), env...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// mustGit runs git and fails the test when it fails.
func (k *rtKit) mustGit(dir string, args ...string) string {
	k.t.Helper()
	out, err := k.git(dir, nil, args...)
	if err != nil {
		k.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// url is the HTTP address of full ("owner/name") with credentials (none
// when name is empty).
func (k *rtKit) url(name, secret, full string) string {
	u, _ := url.Parse(k.s.URL + full + ".git")
	if name != "" {
		u.User = url.UserPassword(name, secret)
	}
	return u.String()
}

// clone clones full with the given credentials into a new directory.
func (k *rtKit) clone(name, secret, full string) (string, string, error) {
	k.t.Helper()
	dir := filepath.Join(k.t.TempDir(), "clone")
	out, err := k.git("", nil, "clone", k.url(name, secret, full), dir)
	return dir, out, err
}

// mustClone clones full and fails the test when git fails.
func (k *rtKit) mustClone(name, secret, full string) string {
	k.t.Helper()
	dir, out, err := k.clone(name, secret, full)
	if err != nil {
		k.t.Fatalf("clone %s as %q: %v\n%s", full, name, err, out)
	}
	return dir
}

// workTree makes a local repository on branch main with one commit holding files.
func (k *rtKit) workTree(files map[string]string) string {
	k.t.Helper()
	dir := k.t.TempDir()
	k.mustGit(dir, "init", "-q", "-b", "main")
	k.commit(dir, files, "initial")
	return dir
}

// commit writes files in dir and commits them.
func (k *rtKit) commit(dir string, files map[string]string, msg string) string {
	k.t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			k.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			k.t.Fatal(err)
		}
	}
	k.mustGit(dir, "add", "-A")
	k.mustGit(dir, "commit", "-q", "--allow-empty", "-m", msg)
	return k.mustGit(dir, "rev-parse", "HEAD")
}

// bareDir is the directory of repository id on the server.
func (k *rtKit) bareDir(id int64) string {
	return filepath.Join(k.s.DataDir, "repositories", fmt.Sprintf("%d.git", id))
}

// serverRefs lists the references of repository id straight from its directory.
func (k *rtKit) serverRefs(id int64) string {
	k.t.Helper()
	return k.mustGit(k.bareDir(id), "for-each-ref", "--format=%(refname) %(objectname)")
}

// fsck checks repository id on the server.
func (k *rtKit) fsck(id int64) {
	k.t.Helper()
	out, err := k.git(k.bareDir(id), nil, "fsck", "--full", "--strict", "--no-progress")
	if err != nil {
		k.t.Fatalf("git fsck of repository %d: %v\n%s", id, err, out)
	}
}

var rtHex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)
var rtHex40 = regexp.MustCompile(`^[0-9a-f]{40}$`)

// TestRepoCreateRoutes: the four creation routes, who may use them, and
// what they create.
func TestRepoCreateRoutes(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")

	// POST /user/repos.
	k.want(k.api("POST", "user/repos", "", map[string]any{"name": "anon"}), 401, "", "signed-out create")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "mine", "description": "desc", "private": true})
	if r.FullName != "alice/mine" || !r.Private || !r.Empty || r.Description != "desc" || r.DefaultBranch != "main" ||
		r.ObjectFormat != "sha1" || r.Owner.Login != "alice" || r.Permissions == nil || !r.Permissions.Admin {
		t.Fatalf("created repository: %+v", r)
	}
	if r.CloneURL != s.URL+"alice/mine.git" {
		t.Fatalf("clone_url %q", r.CloneURL)
	}
	if st, _ := k.get(bob.Token, "alice/mine"); st != 404 {
		t.Fatalf("private repository visible to a stranger: %d", st)
	}
	if _, err := os.Stat(filepath.Join(k.bareDir(r.ID), "HEAD")); err != nil {
		t.Fatalf("no bare repository on disk: %v", err)
	}
	k.want(k.api("POST", "user/repos", alice.Token, map[string]any{"name": "MINE"}), 409, "already exists", "duplicate name, other case")

	// POST /orgs/{org}/repos and POST /org/{org}/repos behave the same.
	k.want(k.api("POST", "orgs", alice.Token, map[string]any{"username": "acme", "visibility": "public"}), 201, "", "create org")
	k.want(k.api("POST", "orgs", alice.Token, map[string]any{"username": "hidden", "visibility": "private"}), 201, "", "create private org")
	resp := k.api("POST", "orgs/acme/teams", alice.Token, map[string]any{"name": "readers", "permission": "read",
		"units": []string{"repo.code"}, "can_create_org_repo": false, "includes_all_repositories": true})
	k.want(resp, 201, "", "create team")
	var team struct{ ID int64 }
	resp.Decode(t, &team)
	k.want(k.api("PUT", fmt.Sprintf("teams/%d/members/carol", team.ID), alice.Token, nil), 204, "", "add carol")
	for i, route := range []string{"orgs/%s/repos", "org/%s/repos"} {
		name := fmt.Sprintf("tool%d", i)
		path := fmt.Sprintf(route, "acme")
		k.want(k.api("POST", path, "", map[string]any{"name": name}), 401, "", route+" signed out")
		k.want(k.api("POST", path, bob.Token, map[string]any{"name": name}), 403, "not allowed to create repository", route+" by a non-member")
		k.want(k.api("POST", path, carol.Token, map[string]any{"name": name}), 403, "not allowed to create repository", route+" by a member without the right")
		k.want(k.api("POST", fmt.Sprintf(route, "nosuchorg"), alice.Token, map[string]any{"name": name}), 404, "", route+" unknown org")
		k.want(k.api("POST", fmt.Sprintf(route, "hidden"), bob.Token, map[string]any{"name": name}), 404, "", route+" invisible org")
		k.want(k.api("POST", fmt.Sprintf(route, "alice"), alice.Token, map[string]any{"name": name}), 404, "", route+" a user is no org")
		r := k.create(alice.Token, path, map[string]any{"name": name, "private": true, "auto_init": true})
		if r.FullName != "acme/"+name || r.Owner.Login != "acme" || !r.Private || r.Empty {
			t.Fatalf("%s created %+v", route, r)
		}
		k.want(k.api("POST", path, alice.Token, map[string]any{"name": name}), 409, "already exists", route+" duplicate")
		k.want(k.api("POST", path, alice.Token, map[string]any{"name": "bad/name"}), 422, "", route+" bad name")
		// The team member reads it (team units), the stranger does not see it.
		if st, _ := k.get(carol.Token, "acme/"+name); st != 200 {
			t.Fatalf("%s: team member GET %d", route, st)
		}
		if st, _ := k.get(bob.Token, "acme/"+name); st != 404 {
			t.Fatalf("%s: stranger GET %d", route, st)
		}
	}
	// A team that may create repositories lets its members do so.
	resp = k.api("POST", "orgs/acme/teams", alice.Token, map[string]any{"name": "makers", "permission": "write",
		"units": []string{"repo.code"}, "can_create_org_repo": true})
	k.want(resp, 201, "", "create makers team")
	resp.Decode(t, &team)
	k.want(k.api("PUT", fmt.Sprintf("teams/%d/members/carol", team.ID), alice.Token, nil), 204, "", "add carol to makers")
	for _, route := range []string{"orgs/acme/repos", "org/acme/repos"} {
		name := "by-carol-" + strings.Split(route, "/")[0]
		r := k.create(carol.Token, route, map[string]any{"name": name})
		if r.Owner.Login != "acme" || r.Permissions == nil || !r.Permissions.Admin {
			t.Fatalf("member-created repository: %+v %+v", r, r.Permissions)
		}
	}

	// POST /admin/users/{username}/repos.
	k.want(k.api("POST", "admin/users/bob/repos", alice.Token, map[string]any{"name": "given"}), 403, "", "non-admin creates for bob")
	k.want(k.api("POST", "admin/users/nobody/repos", s.AdminTok, map[string]any{"name": "given"}), 404, "", "admin creates for unknown user")
	r = k.create(s.AdminTok, "admin/users/bob/repos", map[string]any{"name": "given", "private": true, "auto_init": true})
	if r.FullName != "bob/given" || r.Owner.Login != "bob" || !r.Private || r.Empty {
		t.Fatalf("admin-created repository: %+v", r)
	}
	got := k.mustGet(bob.Token, "bob/given")
	if got.Permissions == nil || !got.Permissions.Admin {
		t.Fatalf("bob does not own the repository the admin created for him: %+v", got.Permissions)
	}
	k.want(k.api("POST", "admin/users/bob/repos", s.AdminTok, map[string]any{"name": "given"}), 409, "already exists", "admin duplicate")
	// The owner's repository list follows.
	resp = k.api("GET", "users/bob/repos", bob.Token, nil)
	k.want(resp, 200, "", "bob's repositories")
	if resp.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("bob has %s repositories, want 1", resp.Header.Get("X-Total-Count"))
	}
}

// TestRepoCreateAutoInit: README, .gitignore and LICENSE from the templates,
// on the requested default branch, checked in a clone.
func TestRepoCreateAutoInit(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	r := k.create(alice.Token, "user/repos", map[string]any{
		"name": "init", "description": "Some words.", "auto_init": true, "readme": "Default",
		"gitignores": "Go,Node", "license": "MIT", "default_branch": "trunk",
	})
	if r.Empty || r.DefaultBranch != "trunk" {
		t.Fatalf("auto-initialized repository: empty=%v default=%q", r.Empty, r.DefaultBranch)
	}
	dir := k.mustClone(alice.Name, alice.Password, "alice/init")
	if b := k.mustGit(dir, "rev-parse", "--abbrev-ref", "HEAD"); b != "trunk" {
		t.Fatalf("clone checked out %q, want trunk", b)
	}
	if n := k.mustGit(dir, "rev-list", "--count", "HEAD"); n != "1" {
		t.Fatalf("%s commits, want 1", n)
	}
	if refs := k.mustGit(dir, "ls-remote", "--heads", "origin"); strings.Count(refs, "\n") != 0 || !strings.HasSuffix(refs, "refs/heads/trunk") {
		t.Fatalf("remote heads:\n%s", refs)
	}
	if files := k.mustGit(dir, "ls-files"); files != ".gitignore\nLICENSE\nREADME.md" {
		t.Fatalf("files:\n%s", files)
	}
	author := k.mustGit(dir, "log", "-1", "--format=%an <%ae>|%s")
	if author != "alice <alice@example.com>|Initial commit" {
		t.Fatalf("initial commit: %q", author)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("README.md"); got != "# init\n\nSome words.\n" {
		t.Fatalf("README.md = %q", got)
	}
	var tmpl struct{ Source string }
	for _, name := range []string{"Go", "Node"} {
		resp := k.api("GET", "gitignore/templates/"+name, "", nil)
		k.want(resp, 200, "", "gitignore template "+name)
		resp.Decode(t, &tmpl)
		if tmpl.Source == "" || !strings.Contains(read(".gitignore"), strings.TrimSpace(tmpl.Source)) {
			t.Fatalf(".gitignore lacks the %s template:\n%s", name, read(".gitignore"))
		}
	}
	lic := read("LICENSE")
	if !strings.Contains(lic, "MIT License") || !strings.Contains(lic, "alice") || !strings.Contains(lic, fmt.Sprint(time.Now().Year())) {
		t.Fatalf("LICENSE:\n%s", lic)
	}
	// The contents API sees the same commit.
	resp := k.api("GET", "repos/alice/init/contents/README.md?ref=trunk", alice.Token, nil)
	k.want(resp, 200, "", "README through the API")

	// Without auto_init, templates are ignored and the repository is empty.
	r = k.create(alice.Token, "user/repos", map[string]any{"name": "bare", "license": "MIT", "gitignores": "Go"})
	if !r.Empty {
		t.Fatal("a repository without auto_init is not empty")
	}
	// Unknown templates are refused and leave nothing behind.
	for field, value := range map[string]string{"readme": "Fancy", "gitignores": "Go,NoSuchLang", "license": "NoSuchLicense"} {
		resp := k.api("POST", "user/repos", alice.Token, map[string]any{"name": "broken", "auto_init": true, field: value})
		k.want(resp, 422, value, "unknown "+field+" template")
		if st, _ := k.get(alice.Token, "alice/broken"); st != 404 {
			t.Fatalf("a refused creation left alice/broken behind: %d", st)
		}
	}
	// A bad default branch is refused too.
	k.want(k.api("POST", "user/repos", alice.Token, map[string]any{"name": "broken", "default_branch": "-x"}), 422, "", "default branch -x")
	k.want(k.api("POST", "user/repos", alice.Token, map[string]any{"name": "broken", "default_branch": "a..b"}), 422, "", "default branch a..b")
	k.want(k.api("POST", "user/repos", alice.Token, map[string]any{"name": "broken", "object_format_name": "md5"}), 422, "object format", "object format md5")
	if st, _ := k.get(alice.Token, "alice/broken"); st != 404 {
		t.Fatalf("a refused creation left alice/broken behind: %d", st)
	}
}

// TestRepoCreateSHA256: object_format_name sha256 gives a SHA-256
// repository that git clones from and pushes to.
func TestRepoCreateSHA256(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "s256", "object_format_name": "sha256", "auto_init": true})
	if r.ObjectFormat != "sha256" {
		t.Fatalf("object_format_name %q", r.ObjectFormat)
	}
	if f := k.mustGit(k.bareDir(r.ID), "rev-parse", "--show-object-format"); f != "sha256" {
		t.Fatalf("bare repository object format %q", f)
	}
	dir := k.mustClone(alice.Name, alice.Password, "alice/s256")
	head := k.mustGit(dir, "rev-parse", "HEAD")
	if !rtHex64.MatchString(head) {
		t.Fatalf("HEAD %q is not a SHA-256 name", head)
	}
	if f := k.mustGit(dir, "rev-parse", "--show-object-format"); f != "sha256" {
		t.Fatalf("clone object format %q", f)
	}
	// Push a commit; the API reports SHA-256 names.
	next := k.commit(dir, map[string]string{"more.txt": "more\n"}, "more")
	k.mustGit(dir, "push", "-q", "origin", "HEAD")
	var br struct {
		Commit struct{ ID string } `json:"commit"`
	}
	resp := k.api("GET", "repos/alice/s256/branches/main", alice.Token, nil)
	k.want(resp, 200, "", "branch of the sha256 repository")
	resp.Decode(t, &br)
	if br.Commit.ID != next || !rtHex64.MatchString(br.Commit.ID) {
		t.Fatalf("branch commit %q, want %q", br.Commit.ID, next)
	}
	k.fsck(r.ID)

	// An empty SHA-256 repository accepts a push of a SHA-256 history.
	e := k.create(alice.Token, "user/repos", map[string]any{"name": "s256empty", "object_format_name": "sha256"})
	work := t.TempDir()
	k.mustGit(work, "init", "-q", "-b", "main", "--object-format=sha256")
	k.commit(work, map[string]string{"a.txt": "a\n"}, "a")
	k.mustGit(work, "push", "-q", k.url(alice.Name, alice.Password, "alice/s256empty"), "main")
	got := k.mustGet(alice.Token, "alice/s256empty")
	if got.Empty || got.ObjectFormat != "sha256" {
		t.Fatalf("after the push: %+v", got)
	}
	dir = k.mustClone(alice.Name, alice.Token, "alice/s256empty")
	if head := k.mustGit(dir, "rev-parse", "HEAD"); !rtHex64.MatchString(head) {
		t.Fatalf("HEAD %q", head)
	}
	k.fsck(e.ID)

	// A SHA-1 history cannot go into a SHA-256 repository.
	sha1 := k.workTree(map[string]string{"x": "x\n"})
	if out, err := k.git(sha1, nil, "push", k.url(alice.Name, alice.Password, "alice/s256empty"), "main:other"); err == nil {
		t.Fatalf("a SHA-1 push into a SHA-256 repository succeeded:\n%s", out)
	}
	if refs := k.serverRefs(e.ID); strings.Contains(refs, "other") {
		t.Fatalf("the refused push created a ref:\n%s", refs)
	}
}

// TestRepoCreateForcePrivate: with [repository] FORCE_PRIVATE every new
// repository is private, whoever creates it and however.
func TestRepoCreateForcePrivate(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_FORCE_PRIVATE=true"))
	k := newRTKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	k.want(k.api("POST", "orgs", alice.Token, map[string]any{"username": "acme"}), 201, "", "create org")
	for _, c := range []struct{ tok, path, full string }{
		{alice.Token, "user/repos", "alice/a"},
		{alice.Token, "orgs/acme/repos", "acme/b"},
		{alice.Token, "org/acme/repos", "acme/c"},
		{s.AdminTok, "admin/users/alice/repos", "alice/d"},
		{s.AdminTok, "user/repos", "root/e"},
	} {
		name := strings.Split(c.full, "/")[1]
		r := k.create(c.tok, c.path, map[string]any{"name": name, "private": false, "auto_init": true})
		if !r.Private {
			t.Fatalf("%s via %s is public", c.full, c.path)
		}
		if st, _ := k.get(bob.Token, c.full); st != 404 {
			t.Fatalf("%s visible to a stranger: %d", c.full, st)
		}
		if st, _ := k.get("", c.full); st != 404 {
			t.Fatalf("%s visible signed out: %d", c.full, st)
		}
	}
	// Owners cannot make them public; the site administrator can.
	k.want(k.api("PATCH", "repos/alice/a", alice.Token, map[string]any{"private": false}), 422, "private", "owner makes it public")
	if r := k.mustGet(alice.Token, "alice/a"); !r.Private {
		t.Fatal("the refused edit made the repository public")
	}
	k.want(k.api("PATCH", "repos/alice/a", alice.Token, map[string]any{"description": "still fine"}), 200, "", "other edits still work")
	resp := k.api("PATCH", "repos/alice/a", s.AdminTok, map[string]any{"private": false})
	k.want(resp, 200, "", "admin makes it public")
	if st, _ := k.get(bob.Token, "alice/a"); st != 200 {
		t.Fatalf("after the admin's edit bob gets %d", st)
	}
	// Search shows bob only that one.
	resp = k.api("GET", "repos/search?limit=50", bob.Token, nil)
	k.want(resp, 200, "", "search")
	var sr struct {
		Data []rtRepo `json:"data"`
	}
	resp.Decode(t, &sr)
	if len(sr.Data) != 1 || sr.Data[0].FullName != "alice/a" {
		t.Fatalf("bob's search: %+v", sr.Data)
	}
}

// TestRepoNameValidation: illegal characters, reserved names and patterns,
// length, and duplicates, on creation and rename.
func TestRepoNameValidation(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice := s.CreateUser("alice")
	bad := map[string]string{
		"":                          "Name",
		"a b":                       "invalid",
		"a/b":                       "invalid",
		"../x":                      "invalid",
		"a/../b":                    "invalid",
		"/abs":                      "invalid",
		"x\\y":                      "invalid",
		"naïve":                     "invalid",
		"semi;colon":                "invalid",
		"tab\tname":                 "invalid",
		".":                         "reserved",
		"..":                        "reserved",
		"-":                         "reserved",
		"x.git":                     ".git",
		"X.GIT":                     ".git",
		"x.wiki":                    ".wiki",
		"x.rss":                     ".rss",
		"x.atom":                    ".atom",
		strings.Repeat("a", 101):    "100 characters",
		"with\x00nul":               "invalid",
		"%2e%2e":                    "invalid",
		"quote'":                    "invalid",
		"<script>":                  "invalid",
		"emoji\U0001F600":           "invalid",
		"trailing/":                 "invalid",
		"spaces ":                   "invalid",
		"\u202eevil":                "invalid",
		"white\nspace":              "invalid",
		"question?":                 "invalid",
		"hash#":                     "invalid",
		"star*":                     "invalid",
		"colon:name":                "invalid",
		"tilde~1":                   "invalid",
		"caret^":                    "invalid",
		"at@{":                      "invalid",
		"brace{x}":                  "invalid",
		"pipe|x":                    "invalid",
		"amp&x":                     "invalid",
		"dollar$x":                  "invalid",
		"backtick`":                 "invalid",
		"percent%":                  "invalid",
		"plus+x":                    "invalid",
		"equals=x":                  "invalid",
		"comma,x":                   "invalid",
		"bracket[x]":                "invalid",
		"paren(x)":                  "invalid",
		"exclaim!":                  "invalid",
		"dq\"":                      "invalid",
		"lt<":                       "invalid",
		"gt>":                       "invalid",
		strings.Repeat("é", 30):     "invalid",
		"a\u00a0b":                  "invalid",
		"\x7f":                      "invalid",
		"\u2215slash":               "invalid",
		"\uff0e\uff0e":              "invalid",
		"-\u0000":                   "invalid",
		"ok-but-.git":               ".git",
		"ok.wiki":                   ".wiki",
		"Foo.Git":                   ".git",
		"name.atom":                 ".atom",
		"name.rss":                  ".rss",
		strings.Repeat("b", 200):    "100 characters",
		strings.Repeat("c", 100000): "",
	}
	for name, msg := range bad {
		short := name
		if len(short) > 30 {
			short = short[:30] + "..."
		}
		for _, path := range []string{"user/repos", "admin/users/alice/repos"} {
			tok := alice.Token
			if strings.HasPrefix(path, "admin") {
				tok = s.AdminTok
			}
			resp := k.api("POST", path, tok, map[string]any{"name": name})
			if resp.Status != 422 {
				t.Fatalf("create %q via %s: status %d, want 422: %.300s", short, path, resp.Status, resp.Body)
			}
			if msg != "" && !strings.Contains(strings.ToLower(rtMessage(resp)), strings.ToLower(msg)) {
				t.Fatalf("create %q via %s: message %q does not mention %q", short, path, rtMessage(resp), msg)
			}
		}
	}
	// Nothing was created.
	resp := k.api("GET", "users/alice/repos", alice.Token, nil)
	if resp.Header.Get("X-Total-Count") != "0" {
		t.Fatalf("refused names created repositories: %s", resp.Body)
	}
	entries, _ := os.ReadDir(filepath.Join(s.DataDir, "repositories"))
	if len(entries) != 0 {
		t.Fatalf("refused names left directories: %v", entries)
	}

	// Good names, including the edges.
	for _, name := range []string{"a", "A.b-c_d", "x.gitx", "git", ".hidden", "_under", strings.Repeat("z", 100), "1.0", "a..b"} {
		k.create(alice.Token, "user/repos", map[string]any{"name": name})
	}
	// Duplicates: 409 whatever the letter case.
	k.want(k.api("POST", "user/repos", alice.Token, map[string]any{"name": "a.B-C_D"}), 409, "already exists", "duplicate in another case")

	// Renames go through the same rules.
	for name, msg := range map[string]string{"../x": "invalid", "x.git": ".git", "..": "reserved", "a/b": "invalid"} {
		k.want(k.api("PATCH", "repos/alice/a", alice.Token, map[string]any{"name": name}), 422, msg, "rename to "+name)
	}
	k.want(k.api("PATCH", "repos/alice/a", alice.Token, map[string]any{"name": "GIT"}), 422, "taken", "rename onto an existing name")
	resp = k.api("PATCH", "repos/alice/a", alice.Token, map[string]any{"name": "renamed"})
	k.want(resp, 200, "", "rename")
	if st, _ := k.get(alice.Token, "alice/a"); st != 404 {
		t.Fatalf("old name still answers %d", st)
	}
	k.mustGet(alice.Token, "alice/renamed")
}

// TestRepoGetByIDAndDelete: GET /repositories/{id}, and DELETE with what it
// removes.
func TestRepoGetByIDAndDelete(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	pub := k.create(alice.Token, "user/repos", map[string]any{"name": "pub", "auto_init": true})
	priv := k.create(alice.Token, "user/repos", map[string]any{"name": "priv", "private": true, "auto_init": true})

	byID := func(tok string, id any) (int, rtRepo) {
		resp := k.api("GET", fmt.Sprintf("repositories/%v", id), tok, nil)
		var r rtRepo
		if resp.Status == 200 {
			resp.Decode(t, &r)
		}
		return resp.Status, r
	}
	if st, r := byID("", pub.ID); st != 200 || r.FullName != "alice/pub" {
		t.Fatalf("public by id signed out: %d %+v", st, r)
	}
	if st, r := byID(alice.Token, priv.ID); st != 200 || r.FullName != "alice/priv" || !r.Private {
		t.Fatalf("private by id for the owner: %d %+v", st, r)
	}
	for _, tok := range []string{"", bob.Token} {
		if st, _ := byID(tok, priv.ID); st != 404 {
			t.Fatalf("private by id for a stranger: %d", st)
		}
	}
	if st, r := byID(s.AdminTok, priv.ID); st != 200 || r.FullName != "alice/priv" {
		t.Fatalf("private by id for the admin: %d", st)
	}
	for _, id := range []any{999999, 0, -1} {
		if st, _ := byID(alice.Token, id); st != 404 {
			t.Fatalf("repositories/%v: %d, want 404", id, st)
		}
	}
	if st, _ := byID(alice.Token, "abc"); st != 422 && st != 404 {
		t.Fatalf("repositories/abc: %d", st)
	}

	// DELETE: owners only.
	k.want(k.api("PUT", "repos/alice/pub/collaborators/bob", alice.Token, map[string]any{"permission": "admin"}), 204, "", "bob admin")
	k.want(k.api("DELETE", "repos/alice/pub", "", nil), 401, "", "signed-out delete")
	k.want(k.api("DELETE", "repos/alice/pub", bob.Token, nil), 403, "owner", "collaborator admin deletes")
	k.want(k.api("DELETE", "repos/alice/priv", bob.Token, nil), 404, "", "stranger deletes a private repository")
	k.want(k.api("PUT", "user/starred/alice/pub", bob.Token, nil), 204, "", "bob stars")
	dir := k.bareDir(pub.ID)
	k.want(k.api("DELETE", "repos/alice/pub", alice.Token, nil), 204, "", "owner deletes")
	if st, _ := k.get(alice.Token, "alice/pub"); st != 404 {
		t.Fatalf("deleted repository answers %d", st)
	}
	if st, _ := byID(alice.Token, pub.ID); st != 404 {
		t.Fatalf("deleted repository by id answers %d", st)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the directory of the deleted repository is still there: %v", err)
	}
	if _, out, err := k.clone(alice.Name, alice.Password, "alice/pub"); err == nil {
		t.Fatalf("cloned a deleted repository: %s", out)
	}
	k.want(k.api("DELETE", "repos/alice/pub", alice.Token, nil), 404, "", "delete twice")
	var bu struct {
		Starred int `json:"starred_repos_count"`
	}
	k.api("GET", "users/bob", bob.Token, nil).Decode(t, &bu)
	if bu.Starred != 0 {
		t.Fatalf("bob still counts %d stars", bu.Starred)
	}
	resp := k.api("GET", "user/starred", bob.Token, nil)
	if strings.Contains(string(resp.Body), "alice/pub") {
		t.Fatalf("bob's stars still list the deleted repository: %s", resp.Body)
	}
	// The name is free again and the new repository starts empty.
	again := k.create(alice.Token, "user/repos", map[string]any{"name": "pub"})
	if !again.Empty || again.ID == pub.ID {
		t.Fatalf("recreated repository: %+v", again)
	}
	if refs := k.serverRefs(again.ID); refs != "" {
		t.Fatalf("the new repository inherited refs:\n%s", refs)
	}
	// An admin deletes anybody's repository.
	k.want(k.api("DELETE", "repos/alice/priv", s.AdminTok, nil), 204, "", "admin deletes")
	resp = k.api("GET", "user/repos", alice.Token, nil)
	if resp.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("alice's repositories after the deletions: %s", resp.Body)
	}
}

// TestRepoEdit: PATCH of description, website, visibility, archiving,
// default branch, merge settings and units.
func TestRepoEdit(t *testing.T) {
	s := StartServer(t)
	k := newRTKit(t, s)
	alice, bob := s.CreateUser("alice"), s.CreateUser("bob")
	r := k.create(alice.Token, "user/repos", map[string]any{"name": "proj", "auto_init": true})
	dir := k.mustClone(alice.Name, alice.Password, "alice/proj")
	k.mustGit(dir, "checkout", "-q", "-b", "dev")
	k.commit(dir, map[string]string{"dev.txt": "dev\n"}, "dev work")
	k.mustGit(dir, "push", "-q", "origin", "dev")

	patch := func(tok string, body map[string]any, status int, msg, what string) rtRepo {
		t.Helper()
		resp := k.api("PATCH", "repos/alice/proj", tok, body)
		k.want(resp, status, msg, what)
		var out rtRepo
		if status == 200 {
			resp.Decode(t, &out)
		}
		return out
	}

	// Who may edit.
	patch("", map[string]any{"description": "x"}, 401, "", "signed out")
	patch(bob.Token, map[string]any{"description": "x"}, 403, "", "stranger on a public repository")
	k.want(k.api("PUT", "repos/alice/proj/collaborators/bob", alice.Token, map[string]any{"permission": "write"}), 204, "", "bob writer")
	patch(bob.Token, map[string]any{"description": "x"}, 403, "", "writer")

	// Description and website.
	e := patch(alice.Token, map[string]any{"description": "New words", "website": "https://example.com/proj"}, 200, "", "description and website")
	if e.Description != "New words" || e.Website != "https://example.com/proj" {
		t.Fatalf("after edit: %+v", e)
	}
	patch(alice.Token, map[string]any{"website": "javascript:alert(1)"}, 422, "", "javascript website")
	patch(alice.Token, map[string]any{"website": "not a url"}, 422, "", "bad website")
	patch(alice.Token, map[string]any{"description": strings.Repeat("d", 2049)}, 422, "", "description too long")
	if g := k.mustGet(alice.Token, "alice/proj"); g.Description != "New words" || g.Website != "https://example.com/proj" {
		t.Fatalf("refused edits changed the repository: %+v", g)
	}
	// Fields left out are unchanged.
	e = patch(alice.Token, map[string]any{}, 200, "", "empty edit")
	if e.Description != "New words" || e.Website != "https://example.com/proj" || e.DefaultBranch != "main" {
		t.Fatalf("empty edit changed: %+v", e)
	}

	// Visibility.
	e = patch(alice.Token, map[string]any{"private": true}, 200, "", "make private")
	if !e.Private {
		t.Fatal("not private")
	}
	if st, _ := k.get("", "alice/proj"); st != 404 {
		t.Fatalf("private repository signed out: %d", st)
	}
	if _, out, err := k.clone("", "", "alice/proj"); err == nil {
		t.Fatalf("anonymous clone of a private repository: %s", out)
	}
	if st, _ := k.get(bob.Token, "alice/proj"); st != 200 {
		t.Fatalf("collaborator loses a private repository: %d", st)
	}
	patch(alice.Token, map[string]any{"private": false}, 200, "", "make public")
	if st, _ := k.get("", "alice/proj"); st != 200 {
		t.Fatalf("public again, signed out: %d", st)
	}

	// Default branch: must exist; HEAD follows.
	patch(alice.Token, map[string]any{"default_branch": "nope"}, 404, "nope", "missing default branch")
	patch(alice.Token, map[string]any{"default_branch": "-dev"}, 422, "", "option-like default branch")
	if g := k.mustGet(alice.Token, "alice/proj"); g.DefaultBranch != "main" {
		t.Fatalf("a refused default branch was stored: %q", g.DefaultBranch)
	}
	e = patch(alice.Token, map[string]any{"default_branch": "dev"}, 200, "", "default branch dev")
	if e.DefaultBranch != "dev" {
		t.Fatalf("default branch %q", e.DefaultBranch)
	}
	if head := k.mustGit(k.bareDir(r.ID), "symbolic-ref", "HEAD"); head != "refs/heads/dev" {
		t.Fatalf("HEAD of the bare repository: %q", head)
	}
	d2 := k.mustClone("", "", "alice/proj")
	if b := k.mustGit(d2, "rev-parse", "--abbrev-ref", "HEAD"); b != "dev" {
		t.Fatalf("clone checks out %q, want dev", b)
	}
	if _, err := os.Stat(filepath.Join(d2, "dev.txt")); err != nil {
		t.Fatal("the clone of the new default branch lacks dev.txt")
	}
	// The default branch cannot be deleted by a push.
	if out, err := k.git(dir, nil, "push", "origin", ":dev"); err == nil || !strings.Contains(out, "default branch") {
		t.Fatalf("deleting the default branch by push: %v\n%s", err, out)
	}
	patch(alice.Token, map[string]any{"default_branch": "main"}, 200, "", "back to main")

	// Merge settings round-trip.
	e = patch(alice.Token, map[string]any{"allow_merge_commits": false, "allow_rebase": false, "allow_squash_merge": true,
		"allow_fast_forward_only_merge": false, "default_merge_style": "squash", "default_delete_branch_after_merge": true}, 200, "", "merge settings")
	if e.AllowMerge || e.AllowRebase || !e.AllowSquash || e.AllowFF || e.MergeStyle != "squash" || !e.DeleteBranch {
		t.Fatalf("merge settings: %+v", e)
	}
	patch(alice.Token, map[string]any{"default_merge_style": "octopus"}, 422, "", "bad merge style")
	if g := k.mustGet(alice.Token, "alice/proj"); g.MergeStyle != "squash" || g.AllowMerge {
		t.Fatalf("merge settings after a refused edit: %+v", g)
	}

	// Units.
	e = patch(alice.Token, map[string]any{"has_wiki": false, "has_projects": false, "has_releases": false, "has_packages": false, "has_actions": false}, 200, "", "units off")
	if e.HasWiki || e.HasProjects || e.HasReleases || e.HasPackages || e.HasActions || !e.HasIssues || !e.HasPulls {
		t.Fatalf("units: %+v", e)
	}
	e = patch(alice.Token, map[string]any{"has_wiki": true}, 200, "", "wiki on")
	if !e.HasWiki || e.HasProjects {
		t.Fatalf("units after wiki on: %+v", e)
	}

	// Archiving: read-only for everyone, pushes refused with a clear message.
	before := k.mustGet(alice.Token, "alice/proj")
	e = patch(alice.Token, map[string]any{"archived": true}, 200, "", "archive")
	if !e.Archived || e.ArchivedAt.IsZero() || e.ArchivedAt.Before(before.Created.Add(-time.Second)) {
		t.Fatalf("archived: %v at %v", e.Archived, e.ArchivedAt)
	}
	k.commit(dir, map[string]string{"late.txt": "late\n"}, "late")
	if out, err := k.git(dir, nil, "push", "origin", "dev"); err == nil || !strings.Contains(out, "archived") {
		t.Fatalf("push to an archived repository: %v\n%s", err, out)
	}
	k.want(k.api("POST", "repos/alice/proj/branches", alice.Token, map[string]any{"new_branch_name": "x"}), 403, "", "branch in an archived repository")
	if g := k.mustGet(bob.Token, "alice/proj"); g.Permissions == nil || g.Permissions.Push {
		t.Fatalf("writer may push to an archived repository: %+v", g.Permissions)
	}
	e = patch(alice.Token, map[string]any{"archived": false}, 200, "", "unarchive")
	if e.Archived {
		t.Fatal("still archived")
	}
	k.mustGit(dir, "push", "-q", "origin", "dev")

	// Template flag.
	e = patch(alice.Token, map[string]any{"template": true}, 200, "", "template")
	if !e.Template {
		t.Fatal("template flag not stored")
	}
}
