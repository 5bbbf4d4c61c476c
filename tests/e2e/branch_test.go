package e2e

import (
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// gdRemoteRefs lists the references of the repository on the server as
// git sees them (name -> object).
func gdRemoteRefs(t testing.TB, g *gdRepo) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(g.git(t, "ls-remote", g.remote()), "\n") {
		if sha, ref, ok := strings.Cut(line, "\t"); ok {
			out[ref] = sha
		}
	}
	return out
}

func TestBranchList(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client(g.owner.Token)

	all, resp, err := c.ListRepoBranches("owner", "demo", gitea.ListRepoBranchesOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range all {
		names = append(names, b.Name)
		if want := g.git(t, "rev-parse", "refs/heads/"+b.Name); b.Commit.ID != want {
			t.Errorf("branch %s at %s, git says %s", b.Name, b.Commit.ID, want)
		}
	}
	if got := strings.Join(names, ","); got != "b01,b02,b03,b04,b05,feature/x,main" {
		t.Errorf("branches: %s", got)
	}
	if resp.Header.Get("X-Total-Count") != "7" {
		t.Errorf("X-Total-Count %q", resp.Header.Get("X-Total-Count"))
	}

	// The tip of main: its message, identities, account link and URLs.
	main := all[6]
	if main.Commit.Message != "third commit\n" || main.Commit.Author.Name != "Test Author" || main.Commit.Committer.Email != "committer@example.com" ||
		main.Commit.URL != s.URL+"owner/demo/commit/"+g.c["c3"] || main.Commit.Verification == nil || main.Commit.Verification.Verified {
		t.Errorf("main tip: %+v author %+v", main.Commit, main.Commit.Author)
	}
	if !main.UserCanPush || !main.UserCanMerge || main.Protected {
		t.Errorf("main flags: %+v", main)
	}
	b01 := all[0]
	if b01.Commit.Author.UserName != "owner" || b01.Commit.Author.Email != "owner@example.com" || b01.Commit.Committer.UserName != "" {
		t.Errorf("b01 tip identities: author %+v committer %+v", b01.Commit.Author, b01.Commit.Committer)
	}
	if !b01.Commit.Timestamp.Equal(gdTime(t, "2024-01-02T03:04:05+02:00")) {
		t.Errorf("b01 timestamp %v", b01.Commit.Timestamp)
	}

	// Pages and their headers.
	r := s.Do("GET", g.api()+"branches?page=2&limit=3")
	gdExpect(t, r, 200, "page 2")
	var page []struct{ Name string }
	r.Decode(t, &page)
	if len(page) != 3 || page[0].Name != "b04" || page[2].Name != "feature/x" {
		t.Errorf("page 2: %+v", page)
	}
	if r.Header.Get("X-Total-Count") != "7" || !strings.Contains(r.Header.Get("Link"), `rel="next"`) || !strings.Contains(r.Header.Get("Link"), "page=3") {
		t.Errorf("page headers: %v", r.Header)
	}
	// A fixed number of queries whatever the page size.
	small := s.Do("GET", g.api()+"branches?limit=1", Token(g.owner.Token)).Header.Get("X-Cairn-Query-Count")
	large := s.Do("GET", g.api()+"branches?limit=7", Token(g.owner.Token)).Header.Get("X-Cairn-Query-Count")
	if small == "" || small != large {
		t.Errorf("queries: %s for 1 branch, %s for 7", small, large)
	}
	r = s.Do("GET", g.api()+"branches?page=9&limit=3")
	if r.Decode(t, &page); len(page) != 0 {
		t.Errorf("page past the end: %+v", page)
	}

	// Signed out on a public repository: readable, not writable.
	anon, _, err := s.Client("").GetRepoBranch("owner", "demo", "feature/x")
	if err != nil || anon.Commit.ID != g.c["c4"] || anon.UserCanPush {
		t.Errorf("signed-out GetRepoBranch: %+v %v", anon, err)
	}
	gdExpect(t, s.Do("GET", g.api()+"branches/feature%2Fx"), 200, "escaped slash")
	gdExpect(t, s.Do("GET", g.api()+"branches/nope"), 404, "unknown branch")
	gdExpect(t, s.Do("GET", g.api()+"branches/--output=x"), 404, "option-like branch")
	gdExpect(t, s.Do("GET", g.api()+"branches/..%2F..%2Fconfig"), 404, "traversal")
	gdExpect(t, s.Do("POST", g.api()+"branches", JSON(map[string]any{"new_branch_name": "x"})), 401, "signed-out create")
}

func TestBranchCreateDeleteRename(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client(g.owner.Token)

	// From the default branch, from another branch, from a tag and a commit.
	b, resp, err := c.CreateBranch("owner", "demo", gitea.CreateBranchOption{BranchName: "from-default"})
	if err != nil || resp.StatusCode != 201 || b.Name != "from-default" || b.Commit.ID != g.c["c3"] {
		t.Fatalf("create from default: %+v %v", b, err)
	}
	b, _, err = c.CreateBranch("owner", "demo", gitea.CreateBranchOption{BranchName: "rel/1", OldBranchName: "feature/x"})
	if err != nil || b.Commit.ID != g.c["c4"] {
		t.Fatalf("create from feature/x: %+v %v", b, err)
	}
	for name, from := range map[string]string{"from-tag": "v2.0", "from-sha": g.c["c2"], "from-short": g.c["c1"][:8]} {
		r := s.Do("POST", g.api()+"branches", Token(g.owner.Token), JSON(map[string]any{"new_branch_name": name, "old_ref_name": from}))
		gdExpect(t, r, 201, "create "+name)
	}
	refs := gdRemoteRefs(t, g)
	for name, want := range map[string]string{"from-default": g.c["c3"], "rel/1": g.c["c4"], "from-tag": g.c["c3"], "from-sha": g.c["c2"], "from-short": g.c["c1"]} {
		if refs["refs/heads/"+name] != want {
			t.Errorf("git sees %s at %q, want %s", name, refs["refs/heads/"+name], want)
		}
	}

	// Refusals.
	for _, tc := range []struct {
		body map[string]any
		want int
		what string
	}{
		{map[string]any{"new_branch_name": "main"}, 409, "existing branch"},
		{map[string]any{"new_branch_name": "v1.0"}, 409, "name of a tag"},
		{map[string]any{"new_branch_name": "rel"}, 409, "prefix of an existing branch"},
		{map[string]any{"new_branch_name": "rel/1/sub"}, 409, "below an existing branch"},
		{map[string]any{"new_branch_name": "y", "old_branch_name": "nope"}, 404, "missing source branch"},
		{map[string]any{"new_branch_name": "y", "old_ref_name": "nope"}, 404, "missing source ref"},
		{map[string]any{}, 422, "no name"},
		{map[string]any{"new_branch_name": "--output=x"}, 422, "option-like name"},
		{map[string]any{"new_branch_name": "a..b"}, 422, "invalid name"},
		{map[string]any{"new_branch_name": "refs/heads/x"}, 422, "full ref name"},
		{map[string]any{"new_branch_name": strings.Repeat("a", 101)}, 422, "long name"},
		{map[string]any{"new_branch_name": "y", "old_ref_name": "--output=x"}, 422, "option-like source"},
		{map[string]any{"new_branch_name": "y", "old_ref_name": "main:README.md"}, 422, "revision syntax source"},
		{map[string]any{"new_branch_name": "y", "old_branch_name": "-x"}, 422, "option-like source branch"},
	} {
		gdExpect(t, s.Do("POST", g.api()+"branches", Token(g.owner.Token), JSON(tc.body)), tc.want, tc.what)
	}
	if _, _, err := g.s.Client(g.owner.Token).GetRepoBranch("owner", "demo", "y"); err == nil {
		t.Error("a refused creation left branch y")
	}

	// Delete.
	ok, _, err := c.DeleteRepoBranch("owner", "demo", "rel/1")
	if err != nil || !ok {
		t.Fatalf("delete rel/1: %v %v", ok, err)
	}
	if _, found := gdRemoteRefs(t, g)["refs/heads/rel/1"]; found {
		t.Error("rel/1 still exists")
	}
	gdExpect(t, s.Do("DELETE", g.api()+"branches/rel/1", Token(g.owner.Token)), 404, "delete twice")
	r := s.Do("DELETE", g.api()+"branches/main", Token(g.owner.Token))
	gdExpect(t, r, 403, "delete default branch")
	if !strings.Contains(string(r.Body), "default branch") {
		t.Errorf("delete default: %s", r.Body)
	}
	gdExpect(t, s.Do("DELETE", g.api()+"branches/--output=x", Token(g.owner.Token)), 404, "delete option-like")

	// Rename, then rename the default branch: the repository follows.
	r = s.Do("PATCH", g.api()+"branches/from-sha", Token(g.owner.Token), JSON(map[string]any{"name": "renamed/one"}))
	gdExpect(t, r, 204, "rename")
	refs = gdRemoteRefs(t, g)
	if refs["refs/heads/renamed/one"] != g.c["c2"] || refs["refs/heads/from-sha"] != "" {
		t.Errorf("after rename: %v", refs)
	}
	for _, tc := range []struct {
		from, to string
		want     int
	}{
		{"renamed/one", "main", 422}, {"renamed/one", "renamed/one", 422}, {"nope", "z", 404}, {"renamed/one", "-z", 422}, {"renamed/one", "", 422},
	} {
		gdExpect(t, s.Do("PATCH", g.api()+"branches/"+tc.from, Token(g.owner.Token), JSON(map[string]any{"name": tc.to})), tc.want, "rename "+tc.from+" to "+tc.to)
	}
	gdExpect(t, s.Do("PATCH", g.api()+"branches/main", Token(g.owner.Token), JSON(map[string]any{"name": "trunk"})), 204, "rename default")
	repo, _, err := c.GetRepo("owner", "demo")
	if err != nil || repo.DefaultBranch != "trunk" {
		t.Fatalf("default branch after rename: %+v %v", repo, err)
	}
	head := g.git(t, "ls-remote", "--symref", s.URL+"owner/demo.git", "HEAD")
	if !strings.Contains(head, "ref: refs/heads/trunk\tHEAD") {
		t.Errorf("HEAD after rename: %s", head)
	}
	gdExpect(t, s.Do("DELETE", g.api()+"branches/trunk", Token(g.owner.Token)), 403, "delete renamed default")
}

func TestBranchPermissions(t *testing.T) {
	s := StartServer(t)
	owner := s.CreateUser("owner")
	reader := s.CreateUser("reader")
	gdOrgReader(t, s, owner, reader, "acme")
	gdCreateRepo(t, s, owner, "acme", "lib", true)
	g := gdPrepare(t, s, owner, "acme", "lib")
	g.owner = owner
	api := "api/v1/repos/acme/lib/"

	// The reader reads, but may not change references.
	b, _, err := s.Client(reader.Token).GetRepoBranch("acme", "lib", "main")
	if err != nil || b.Commit.ID != g.c["c3"] || b.UserCanPush || b.UserCanMerge {
		t.Errorf("reader GetRepoBranch: %+v %v", b, err)
	}
	gdExpect(t, s.Do("POST", api+"branches", Token(reader.Token), JSON(map[string]any{"new_branch_name": "x"})), 403, "reader creates")
	gdExpect(t, s.Do("DELETE", api+"branches/b01", Token(reader.Token)), 403, "reader deletes")
	gdExpect(t, s.Do("PATCH", api+"branches/b01", Token(reader.Token), JSON(map[string]any{"name": "x"})), 403, "reader renames")
	if ok, _, _ := s.Client(reader.Token).DeleteRepoBranch("acme", "lib", "b01"); ok {
		t.Error("reader deleted a branch")
	}
	// Signed out: a private repository does not exist.
	gdExpect(t, s.Do("GET", api+"branches"), 404, "signed-out list")
	gdExpect(t, s.Do("GET", api+"branches/main"), 404, "signed-out get")
	gdExpect(t, s.Do("DELETE", api+"branches/b01"), 404, "signed-out delete")
	// The organization owner writes.
	gdExpect(t, s.Do("DELETE", api+"branches/b01", Token(owner.Token)), 204, "owner deletes")
	// A read-only token cannot write, even for the owner.
	ro := s.CreateToken(owner.Name, owner.Password, "ro", "read:repository", "read:organization")
	gdExpect(t, s.Do("POST", api+"branches", Token(ro), JSON(map[string]any{"new_branch_name": "x"})), 403, "read-only token")
	gdExpect(t, s.Do("GET", api+"branches", Token(ro)), 200, "read-only token reads")
}
