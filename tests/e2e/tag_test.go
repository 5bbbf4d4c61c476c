package e2e

import (
	"fmt"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestTagListAndGet(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client("")

	tags, resp, err := c.ListRepoTags("owner", "demo", gitea.ListRepoTagsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 2 || resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("tags: %d, X-Total-Count %q", len(tags), resp.Header.Get("X-Total-Count"))
	}
	byName := map[string]*gitea.Tag{}
	for _, tg := range tags {
		byName[tg.Name] = tg
	}
	// Newest first: v2.0 (tagged 2024-02-01) before v1.0 (commit of 2024-01-02).
	if tags[0].Name != "v2.0" {
		t.Errorf("order: %s first", tags[0].Name)
	}
	v1, v2 := byName["v1.0"], byName["v2.0"]
	if v1 == nil || v2 == nil {
		t.Fatalf("tags: %+v", tags)
	}
	// Lightweight: the commit's message and date, its id is the commit.
	if v1.ID != g.c["c1"] || v1.Commit.SHA != g.c["c1"] || v1.Message != "first commit\n\nwith a body" ||
		!v1.Commit.Created.Equal(gdTime(t, "2024-01-02T03:04:05+02:00")) {
		t.Errorf("v1.0: %+v %+v", v1, v1.Commit)
	}
	// Annotated: the tag object's id, message and date, the commit it tags.
	tagObj := g.git(t, "rev-parse", "refs/tags/v2.0")
	if v2.ID != tagObj || v2.Commit.SHA != g.c["c3"] || v2.Message != "release two" ||
		!v2.Commit.Created.Equal(gdTime(t, "2024-02-01T00:00:00Z")) || v2.ZipballURL != s.URL+"owner/demo/archive/v2.0.zip" ||
		v2.TarballURL != s.URL+"owner/demo/archive/v2.0.tar.gz" || !strings.HasSuffix(v2.Commit.URL, "/git/commits/"+g.c["c3"]) {
		t.Errorf("v2.0: %+v %+v", v2, v2.Commit)
	}

	one, _, err := c.GetTag("owner", "demo", "v2.0")
	if err != nil || one.ID != tagObj {
		t.Errorf("GetTag: %+v %v", one, err)
	}
	r := s.Do("GET", g.api()+"tags?limit=1&page=2")
	var page []struct{ Name string }
	r.Decode(t, &page)
	if len(page) != 1 || page[0].Name != "v1.0" || r.Header.Get("X-Total-Count") != "2" {
		t.Errorf("page 2: %s %v", r.Body, r.Header)
	}
	gdExpect(t, s.Do("GET", g.api()+"tags/nope"), 404, "unknown tag")
	gdExpect(t, s.Do("GET", g.api()+"tags/--output=x"), 404, "option-like tag")
	gdExpect(t, s.Do("GET", g.api()+"tags/..%2F..%2Fconfig"), 404, "traversal")
}

func TestTagCreateDelete(t *testing.T) {
	s, g := gdSetup(t, false)
	c := s.Client(g.owner.Token)

	// Lightweight at the default branch.
	tg, resp, err := c.CreateTag("owner", "demo", gitea.CreateTagOption{TagName: "light"})
	if err != nil || resp.StatusCode != 201 || tg.ID != g.c["c3"] || tg.Commit.SHA != g.c["c3"] {
		t.Fatalf("lightweight: %+v %v", tg, err)
	}
	// Annotated, with a slash, at a commit: the caller is the tagger.
	tg, _, err = c.CreateTag("owner", "demo", gitea.CreateTagOption{TagName: "rel/2", Message: "second\nrelease", Target: g.c["c2"]})
	if err != nil || tg.Commit.SHA != g.c["c2"] || tg.ID == g.c["c2"] || tg.Message != "second\nrelease" {
		t.Fatalf("annotated: %+v %v", tg, err)
	}
	g.git(t, "fetch", "-q", "--tags", g.remote())
	if got := g.git(t, "cat-file", "-t", "refs/tags/rel/2"); got != "tag" {
		t.Errorf("rel/2 is a %s", got)
	}
	if got := g.git(t, "for-each-ref", "--format=%(taggername) %(taggeremail) %(*objectname)", "refs/tags/rel/2"); got != "owner <owner@example.com> "+g.c["c2"] {
		t.Errorf("tagger: %s", got)
	}
	if got := g.git(t, "rev-parse", "refs/tags/light"); got != g.c["c3"] {
		t.Errorf("light at %s", got)
	}
	// From a tag and a branch name.
	gdExpect(t, s.Do("POST", g.api()+"tags", Token(g.owner.Token), JSON(map[string]any{"tag_name": "again", "target": "v2.0"})), 201, "target a tag")
	gdExpect(t, s.Do("POST", g.api()+"tags", Token(g.owner.Token), JSON(map[string]any{"tag_name": "feat", "target": "feature/x"})), 201, "target a branch")
	one, _, err := c.GetTag("owner", "demo", "feat")
	if err != nil || one.Commit.SHA != g.c["c4"] {
		t.Errorf("feat: %+v %v", one, err)
	}

	for _, tc := range []struct {
		body map[string]any
		want int
		what string
	}{
		{map[string]any{"tag_name": "v1.0"}, 409, "existing tag"},
		{map[string]any{"tag_name": "x", "target": "nope"}, 404, "missing target"},
		{map[string]any{"tag_name": "x", "target": "--output=/tmp/x"}, 404, "option-like target"},
		{map[string]any{"tag_name": "x", "target": "main~1"}, 404, "revision syntax target"},
		{map[string]any{"tag_name": "--output=x"}, 422, "option-like name"},
		{map[string]any{"tag_name": "a b"}, 422, "invalid name"},
		{map[string]any{}, 422, "no name"},
		{map[string]any{"tag_name": strings.Repeat("t", 101)}, 422, "long name"},
	} {
		gdExpect(t, s.Do("POST", g.api()+"tags", Token(g.owner.Token), JSON(tc.body)), tc.want, tc.what)
	}

	// Delete.
	if _, err := c.DeleteTag("owner", "demo", "rel/2"); err != nil {
		t.Fatalf("delete rel/2: %v", err)
	}
	if _, found := gdRemoteRefs(t, g)["refs/tags/rel/2"]; found {
		t.Error("rel/2 still exists")
	}
	gdExpect(t, s.Do("DELETE", g.api()+"tags/rel/2", Token(g.owner.Token)), 404, "delete twice")
	gdExpect(t, s.Do("DELETE", g.api()+"tags/--output=x", Token(g.owner.Token)), 404, "delete option-like")

	// Readers and strangers.
	other := s.CreateUser("other")
	gdExpect(t, s.Do("POST", g.api()+"tags", Token(other.Token), JSON(map[string]any{"tag_name": "x"})), 403, "non-collaborator creates")
	gdExpect(t, s.Do("DELETE", g.api()+"tags/v1.0", Token(other.Token)), 403, "non-collaborator deletes")
	gdExpect(t, s.Do("DELETE", g.api()+"tags/v1.0"), 401, "signed-out deletes")
	gdExpect(t, s.Do("GET", g.api()+"tags/v1.0", Token(other.Token)), 200, "non-collaborator reads")
}

func TestTagPrivateRepo(t *testing.T) {
	s := StartServer(t)
	owner := s.CreateUser("owner")
	reader := s.CreateUser("reader")
	gdOrgReader(t, s, owner, reader, "acme")
	gdCreateRepo(t, s, owner, "acme", "lib", true)
	gdPrepare(t, s, owner, "acme", "lib")
	api := "api/v1/repos/acme/lib/"
	gdExpect(t, s.Do("GET", api+"tags"), 404, "signed-out list")
	gdExpect(t, s.Do("GET", api+"tags", Token(reader.Token)), 200, "reader list")
	gdExpect(t, s.Do("POST", api+"tags", Token(reader.Token), JSON(map[string]any{"tag_name": "x"})), 403, "reader creates")
	gdExpect(t, s.Do("DELETE", api+"tags/v1.0", Token(reader.Token)), 403, "reader deletes")
	for i := 0; i < 3; i++ {
		gdExpect(t, s.Do("POST", api+"tags", Token(owner.Token), JSON(map[string]any{"tag_name": fmt.Sprintf("t%d", i)})), 201, "owner creates")
	}
	r := s.Do("GET", api+"tags?limit=2", Token(reader.Token))
	if r.Header.Get("X-Total-Count") != "5" {
		t.Errorf("X-Total-Count %q", r.Header.Get("X-Total-Count"))
	}
}
