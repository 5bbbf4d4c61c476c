package e2e

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// gdEnv is the environment of the test's own git commands: no user or
// system configuration, fixed identities.
func gdEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_AUTHOR_NAME=Test Author", "GIT_AUTHOR_EMAIL=author@example.com",
		"GIT_COMMITTER_NAME=Test Committer", "GIT_COMMITTER_EMAIL=committer@example.com",
	}
}

// gdGit runs git in dir and returns its trimmed output; extra are
// additional environment entries.
func gdGit(t testing.TB, dir string, extra []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gdEnv(dir), extra...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// gdGitStdin is gdGit with standard input.
func gdGitStdin(t testing.TB, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gdEnv(dir)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// gdRepo is a repository prepared by the test and pushed to the server.
type gdRepo struct {
	s      *Server
	owner  *User
	pusher *User
	name   string
	work   string            // local work tree
	c      map[string]string // commit SHAs by label
}

// full is "owner/name".
func (g *gdRepo) full() string { return g.owner.Name + "/" + g.name }

// api is the API path of the repository, with a trailing slash.
func (g *gdRepo) api() string { return "api/v1/repos/" + g.full() + "/" }

// remote is the clone URL with the pusher's credentials.
func (g *gdRepo) remote() string {
	u, _ := url.Parse(g.s.URL + g.full() + ".git")
	u.User = url.UserPassword(g.pusher.Name, g.pusher.Token)
	return u.String()
}

// git runs git in the work tree.
func (g *gdRepo) git(t testing.TB, args ...string) string { return gdGit(t, g.work, nil, args...) }

// gdCreateRepo creates an empty repository for owner (or, with org set,
// for that organization) through the API.
func gdCreateRepo(t testing.TB, s *Server, owner *User, org, name string, private bool) {
	t.Helper()
	path := "api/v1/user/repos"
	if org != "" {
		path = "api/v1/orgs/" + org + "/repos"
	}
	r := s.Do("POST", path, Token(owner.Token), JSON(map[string]any{"name": name, "private": private}))
	if r.Status != 201 {
		t.Fatalf("create repository %s: %d %s", name, r.Status, r.Body)
	}
}

// gdPrepare builds this history in a work tree and pushes it (all
// branches and tags) to ownerName/name as pusher:
//
//	c1  README.md, main.go, lib/util.py        (author = the pusher's address)
//	c2  main.go changed, web/app.js, web/style.css added
//	c3  lib/util.py renamed to lib/helpers.py, README.md deleted   <- main
//	c4  feature.go added on top of c2                              <- feature/x
//	branches b01..b05 at c1; tag v1.0 (lightweight) at c1, v2.0 (annotated) at c3
func gdPrepare(t testing.TB, s *Server, pusher *User, ownerName, name string) *gdRepo {
	t.Helper()
	work := t.TempDir()
	g := &gdRepo{s: s, owner: &User{Name: ownerName}, pusher: pusher, name: name, work: work, c: map[string]string{}}
	g.git(t, "init", "-q", "-b", "main", ".")
	write := func(p, content string) {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(label, msg, date string, extra ...string) {
		env := append([]string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, extra...)
		gdGit(t, work, env, "add", "-A")
		gdGit(t, work, env, "commit", "-q", "-m", msg)
		g.c[label] = g.git(t, "rev-parse", "HEAD")
	}
	write("README.md", "# Demo\n")
	write("main.go", "package main\n\nfunc main() {}\n")
	write("lib/util.py", "def f():\n    return 1\n")
	commit("c1", "first commit\n\nwith a body", "2024-01-02T03:04:05+02:00",
		"GIT_AUTHOR_NAME="+pusher.Name, "GIT_AUTHOR_EMAIL="+pusher.Name+"@example.com")
	write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }\n")
	write("web/app.js", "console.log(1);\n")
	write("web/style.css", "body { color: red; }\n")
	commit("c2", "second commit", "2024-01-03T03:04:05+00:00")
	g.git(t, "mv", "lib/util.py", "lib/helpers.py")
	g.git(t, "rm", "-q", "README.md")
	commit("c3", "third commit", "2024-01-04T03:04:05-05:00")
	g.git(t, "checkout", "-q", "-b", "feature/x", g.c["c2"])
	write("feature.go", "package main\n\nvar feature = true\n")
	commit("c4", "feature commit", "2024-01-05T03:04:05+00:00")
	g.git(t, "checkout", "-q", "main")
	for i := 1; i <= 5; i++ {
		g.git(t, "branch", fmt.Sprintf("b%02d", i), g.c["c1"])
	}
	g.git(t, "tag", "v1.0", g.c["c1"])
	gdGit(t, work, []string{"GIT_COMMITTER_DATE=2024-02-01T00:00:00+00:00"}, "tag", "-a", "v2.0", "-m", "release two", g.c["c3"])
	g.git(t, "push", "-q", g.remote(), "--all")
	g.git(t, "push", "-q", g.remote(), "--tags")
	return g
}

// gdSetup starts a server with an owner and a prepared public (or private)
// repository "demo".
func gdSetup(t testing.TB, private bool) (*Server, *gdRepo) {
	t.Helper()
	s := StartServer(t)
	owner := s.CreateUser("owner")
	gdCreateRepo(t, s, owner, "", "demo", private)
	g := gdPrepare(t, s, owner, "owner", "demo")
	g.owner = owner
	return s, g
}

// gdOrgReader creates organization org (owned by owner) with a team that
// may only read the code of all its repositories, and puts reader in it.
func gdOrgReader(t testing.TB, s *Server, owner, reader *User, org string) {
	t.Helper()
	r := s.Do("POST", "api/v1/orgs", Token(owner.Token), JSON(map[string]any{"username": org, "visibility": "public"}))
	if r.Status != 201 {
		t.Fatalf("create org: %d %s", r.Status, r.Body)
	}
	r = s.Do("POST", "api/v1/orgs/"+org+"/teams", Token(owner.Token), JSON(map[string]any{
		"name": "readers", "permission": "read", "units": []string{"repo.code"}, "includes_all_repositories": true}))
	if r.Status != 201 {
		t.Fatalf("create team: %d %s", r.Status, r.Body)
	}
	var team struct{ ID int64 }
	r.Decode(t, &team)
	r = s.Do("PUT", fmt.Sprintf("api/v1/teams/%d/members/%s", team.ID, reader.Name), Token(owner.Token))
	if r.Status != 204 {
		t.Fatalf("add team member: %d %s", r.Status, r.Body)
	}
}

// gdTime parses an RFC 3339 time.
func gdTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// gdExpect checks a status.
func gdExpect(t testing.TB, r *Response, want int, what string) {
	t.Helper()
	if r.Status != want {
		t.Errorf("%s: status %d, want %d: %s", what, r.Status, want, r.Body)
	}
}

func TestGitRefs(t *testing.T) {
	s, g := gdSetup(t, false)
	type ref struct {
		Ref    string
		URL    string
		Object struct{ Type, SHA, URL string }
	}
	var all []ref
	r := s.Do("GET", g.api()+"git/refs")
	gdExpect(t, r, 200, "all refs")
	r.Decode(t, &all)
	want := strings.Split(g.git(t, "for-each-ref", "--format=%(refname) %(objecttype) %(objectname)"), "\n")
	var got []string
	for _, x := range all {
		got = append(got, x.Ref+" "+x.Object.Type+" "+x.Object.SHA)
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("refs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, x := range all {
		if x.Ref == "refs/tags/v2.0" && (x.Object.Type != "tag" || !strings.HasSuffix(x.Object.URL, "/git/tags/"+x.Object.SHA)) {
			t.Errorf("annotated tag ref: %+v", x)
		}
		if x.Ref == "refs/heads/feature/x" && x.URL != s.URL+g.api()+"git/refs/heads/feature/x" {
			t.Errorf("ref url %q", x.URL)
		}
	}

	// A prefix gives a list; an exact single match gives an object.
	var heads []ref
	r = s.Do("GET", g.api()+"git/refs/heads/b0")
	gdExpect(t, r, 200, "prefix")
	r.Decode(t, &heads)
	if len(heads) != 5 {
		t.Errorf("refs/heads/b0: %d refs", len(heads))
	}
	var one ref
	r = s.Do("GET", g.api()+"git/refs/heads/feature/x")
	gdExpect(t, r, 200, "exact")
	r.Decode(t, &one)
	if one.Ref != "refs/heads/feature/x" || one.Object.SHA != g.c["c4"] {
		t.Errorf("exact ref: %+v", one)
	}
	sdkRef, _, err := g.s.Client(g.owner.Token).GetRepoRef("owner", "demo", "tags/v1.0")
	if err != nil || sdkRef.Object.SHA != g.c["c1"] {
		t.Errorf("SDK GetRepoRef: %+v %v", sdkRef, err)
	}
	gdExpect(t, s.Do("GET", g.api()+"git/refs/heads/nope"), 404, "unknown ref")
	gdExpect(t, s.Do("GET", g.api()+"git/refs/heads/*"), 404, "glob is not a pattern")
	gdExpect(t, s.Do("GET", g.api()+"git/refs/--output=x"), 404, "option-like ref")
}

func TestGitTreesAndBlobs(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client("")

	// Root of main, by branch name and by commit.
	tree, _, err := c.GetTrees("owner", "demo", gitea.ListTreeOptions{Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if want := g.git(t, "rev-parse", "main^{tree}"); tree.SHA != want {
		t.Errorf("tree sha %s, want %s", tree.SHA, want)
	}
	var paths []string
	for _, e := range tree.Entries {
		paths = append(paths, e.Type+" "+e.Mode+" "+e.Path)
	}
	if got := strings.Join(paths, ","); got != "tree 040000 lib,blob 100644 main.go,tree 040000 web" {
		t.Errorf("root entries: %s", got)
	}
	byCommit, _, err := c.GetTrees("owner", "demo", gitea.ListTreeOptions{Ref: g.c["c3"]})
	if err != nil || byCommit.SHA != tree.SHA {
		t.Errorf("tree by commit: %+v %v", byCommit, err)
	}

	// Recursive, paged.
	lsTree := strings.Split(g.git(t, "ls-tree", "-r", "-t", "-l", "main"), "\n")
	r := s.Do("GET", g.api()+"git/trees/main?recursive=true&per_page=2&page=2")
	gdExpect(t, r, 200, "recursive page")
	var page struct {
		SHA  string
		Tree []struct {
			Path, Mode, Type, SHA, URL string
			Size                       int64
		}
		Truncated  bool
		Page       int
		TotalCount int `json:"total_count"`
	}
	r.Decode(t, &page)
	if page.TotalCount != len(lsTree) || page.Page != 2 || !page.Truncated || len(page.Tree) != 2 {
		t.Fatalf("page: total %d (want %d) page %d truncated %v entries %d", page.TotalCount, len(lsTree), page.Page, page.Truncated, len(page.Tree))
	}
	for i, e := range page.Tree {
		f := strings.Fields(lsTree[2+i])
		size := f[3]
		if size == "-" {
			size = "0"
		}
		if e.Mode != f[0] || e.Type != f[1] || e.SHA != f[2] || fmt.Sprint(e.Size) != size || e.Path != f[4] {
			t.Errorf("entry %d: %+v, git says %v", i, e, f)
		}
	}
	r = s.Do("GET", g.api()+"git/trees/main?recursive=true&per_page=2&page=99")
	r.Decode(t, &page)
	if len(page.Tree) != 0 || page.Truncated {
		t.Errorf("page past the end: %+v", page)
	}
	for _, bad := range []string{"nope", "0000000000000000000000000000000000000000", "--output=x", "main~1", "main:lib"} {
		gdExpect(t, s.Do("GET", g.api()+"git/trees/"+url.PathEscape(bad)), 400, "tree "+bad)
	}

	// Blob content and size.
	blobSHA := g.git(t, "rev-parse", "main:main.go")
	blob, _, err := c.GetBlob("owner", "demo", blobSHA)
	if err != nil {
		t.Fatal(err)
	}
	content, _ := base64.StdEncoding.DecodeString(blob.Content)
	want := g.git(t, "cat-file", "blob", blobSHA) + "\n"
	if string(content) != want || blob.Size != int64(len(want)) || blob.Encoding != "base64" || blob.SHA != blobSHA {
		t.Errorf("blob: %+v content %q", blob, content)
	}
	short, _, err := c.GetBlob("owner", "demo", blobSHA[:10])
	if err != nil || short.SHA != blobSHA {
		t.Errorf("blob by short name: %+v %v", short, err)
	}
	for _, bad := range []string{tree.SHA, g.c["c1"], "nope", "--output=x", "ffffffffffffffffffffffffffffffffffffffff"} {
		gdExpect(t, s.Do("GET", g.api()+"git/blobs/"+url.PathEscape(bad)), 400, "blob "+bad)
	}

	// Annotated tag object.
	tagSHA := g.git(t, "rev-parse", "refs/tags/v2.0")
	at, _, err := c.GetAnnotatedTag("owner", "demo", tagSHA)
	if err != nil {
		t.Fatal(err)
	}
	if at.Tag != "v2.0" || at.SHA != tagSHA || at.Message != "release two\n" || at.Object.SHA != g.c["c3"] || at.Object.Type != "commit" ||
		at.Tagger.Name != "Test Committer" || at.Tagger.Date != "2024-02-01T00:00:00Z" {
		t.Errorf("annotated tag: %+v %+v %+v", at, at.Object, at.Tagger)
	}
	gdExpect(t, s.Do("GET", g.api()+"git/tags/"+g.c["c1"]), 400, "commit as tag")
	gdExpect(t, s.Do("GET", g.api()+"git/tags/--output=x"), 400, "option-like tag")
}

func TestGitDataEmptyAndPermissions(t *testing.T) {
	s := StartServer(t)
	owner := s.CreateUser("owner")
	other := s.CreateUser("other")
	gdCreateRepo(t, s, owner, "", "secret", true)
	gdPrepare(t, s, owner, "owner", "secret")
	gdCreateRepo(t, s, owner, "", "empty", false)

	for _, p := range []string{"branches", "branches/main", "tags", "tags/v1.0", "commits", "git/refs", "git/trees/main",
		"git/commits/main", "git/commits/main.diff", "compare/v1.0...main", "archive/main.zip", "languages"} {
		for _, who := range []struct{ name, tok string }{{"signed out", ""}, {"other", other.Token}} {
			gdExpect(t, s.Do("GET", "api/v1/repos/owner/secret/"+p, Token(who.tok)), 404, who.name+" GET "+p)
		}
		gdExpect(t, s.Do("GET", "api/v1/repos/owner/secret/"+p, Token(owner.Token)), 200, "owner GET "+p)
	}
	gdExpect(t, s.Do("POST", "api/v1/repos/owner/secret/branches", Token(other.Token), JSON(map[string]any{"new_branch_name": "x"})), 404, "other creates a branch")

	// An empty repository.
	var list []any
	r := s.Do("GET", "api/v1/repos/owner/empty/branches", Token(owner.Token))
	gdExpect(t, r, 200, "empty branches")
	if r.Decode(t, &list); len(list) != 0 || r.Header.Get("X-Total-Count") != "0" {
		t.Errorf("empty branches: %s %v", r.Body, r.Header)
	}
	gdExpect(t, s.Do("GET", "api/v1/repos/owner/empty/tags", Token(owner.Token)), 200, "empty tags")
	gdExpect(t, s.Do("GET", "api/v1/repos/owner/empty/commits", Token(owner.Token)), 409, "empty commits")
	gdExpect(t, s.Do("GET", "api/v1/repos/owner/empty/git/refs", Token(owner.Token)), 404, "empty refs")
	gdExpect(t, s.Do("GET", "api/v1/repos/owner/empty/archive/main.zip", Token(owner.Token)), 404, "empty archive")
	gdExpect(t, s.Do("POST", "api/v1/repos/owner/empty/branches", Token(owner.Token), JSON(map[string]any{"new_branch_name": "x"})), 404, "branch in empty")
	r = s.Do("GET", "api/v1/repos/owner/empty/languages", Token(owner.Token))
	if r.Status != 200 || strings.TrimSpace(string(r.Body)) != "{}" {
		t.Errorf("empty languages: %d %s", r.Status, r.Body)
	}
	gdExpect(t, s.Do("POST", "api/v1/repos/owner/empty/tags", Token(owner.Token), JSON(map[string]any{"tag_name": "v1"})), 404, "tag in empty")
}
