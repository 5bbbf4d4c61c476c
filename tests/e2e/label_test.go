package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// lblWorld is an organization "acme" with a public and a private repository
// (pub, priv), each with issue #1, and one user per role: a stranger, a
// restricted user, team members with read, write and admin access to every
// repository, the organization owner and the site administrator.
type lblWorld struct {
	t     *testing.T
	s     *Server
	users map[string]*User // by role; "anon" has an empty token
}

// lblRoles are the callers of the permission matrices, in order.
var lblRoles = []string{"anon", "stranger", "restricted", "reader", "writer", "admin", "owner", "siteadmin"}

func lblSetup(t *testing.T) *lblWorld {
	t.Helper()
	s := StartServer(t)
	w := &lblWorld{t: t, s: s, users: map[string]*User{"anon": {}}}
	k := newOrgKit(t, s)
	w.users["owner"] = s.CreateUser("owner")
	w.users["stranger"] = s.CreateUser("stranger")
	w.users["restricted"] = s.CreateUser("shut", "restricted")
	w.users["siteadmin"] = &User{Name: "root", Token: s.AdminTok}
	k.createOrg(w.users["owner"], "acme", "public")
	k.createOrg(w.users["owner"], "hush", "private")
	for _, role := range []string{"reader", "writer", "admin"} {
		w.users[role] = s.CreateUser("team" + role)
		perm := map[string]string{"reader": "read", "writer": "write", "admin": "admin"}[role]
		tm := k.createTeam(w.users["owner"], "acme", map[string]any{"name": role + "s", "permission": perm,
			"units": []string{"repo.code", "repo.issues", "repo.pulls"}, "includes_all_repositories": true})
		k.addToTeam(w.users["owner"], tm.ID, w.users[role].Name)
	}
	for _, rp := range []struct {
		name    string
		private bool
	}{{"pub", false}, {"priv", true}} {
		w.expect(w.do("POST", "orgs/acme/repos", "owner", map[string]any{"name": rp.name, "private": rp.private}), 201, "create "+rp.name)
		w.expect(w.do("POST", "repos/acme/"+rp.name+"/issues", "owner", map[string]any{"title": "first"}), 201, "create issue in "+rp.name)
	}
	return w
}

// do sends an API request as role (path relative to /api/v1/).
func (w *lblWorld) do(method, path, role string, body any) *Response {
	w.t.Helper()
	opts := []RequestOption{Token(w.users[role].Token)}
	if body != nil {
		opts = append(opts, JSON(body))
	}
	return w.s.Do(method, "api/v1/"+path, opts...)
}

func (w *lblWorld) expect(resp *Response, want int, what string) {
	w.t.Helper()
	if resp.Status != want {
		w.t.Fatalf("%s: status %d, want %d: %s", what, resp.Status, want, resp.Body)
	}
}

// label creates a label as the owner and returns it.
func (w *lblWorld) label(repo, name, color string, exclusive bool) *gitea.Label {
	w.t.Helper()
	resp := w.do("POST", "repos/acme/"+repo+"/labels", "owner", map[string]any{"name": name, "color": color, "exclusive": exclusive})
	w.expect(resp, 201, "create label "+name)
	var l gitea.Label
	resp.Decode(w.t, &l)
	return &l
}

// labelNames reads the labels of issue #1 of repo.
func (w *lblWorld) issueLabels(repo string) []string {
	w.t.Helper()
	resp := w.do("GET", "repos/acme/"+repo+"/issues/1/labels", "owner", nil)
	w.expect(resp, 200, "issue labels")
	return lblNames(w.t, resp)
}

func lblNames(t *testing.T, resp *Response) []string {
	t.Helper()
	var list []struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	}
	resp.Decode(t, &list)
	out := []string{}
	for _, x := range list {
		out = append(out, x.Name+x.Title)
	}
	return out
}

func TestLabelCRUDSDK(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	w := &lblWorld{t: t, s: s, users: map[string]*User{"alice": alice}}
	w.expect(w.do("POST", "user/repos", "alice", map[string]any{"name": "proj"}), 201, "create repo")
	c := s.Client(alice.Token)

	l, _, err := c.CreateLabel("alice", "proj", gitea.CreateLabelOption{Name: "bug", Color: "#A1B2C3", Description: "Broken"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "bug" || l.Color != "a1b2c3" || l.Description != "Broken" || l.Exclusive || l.IsArchived ||
		l.URL != s.URL+fmt.Sprintf("api/v1/repos/alice/proj/labels/%d", l.ID) {
		t.Fatalf("created = %+v", l)
	}
	got, _, err := c.GetRepoLabel("alice", "proj", l.ID)
	if err != nil || got.Color != "a1b2c3" || got.Name != "bug" {
		t.Fatalf("get = %+v, %v", got, err)
	}
	// {id} may be a name, as Gitea allows.
	w.expect(w.do("GET", "repos/alice/proj/labels/bug", "alice", nil), 200, "get by name")

	name, color, archived, exclusive := "kind/bug", "00FF00", true, true
	ed, _, err := c.EditLabel("alice", "proj", l.ID, gitea.EditLabelOption{Name: &name, Color: &color, IsArchived: &archived, Exclusive: &exclusive})
	if err != nil {
		t.Fatal(err)
	}
	if ed.Name != "kind/bug" || ed.Color != "00ff00" || !ed.IsArchived || !ed.Exclusive || ed.Description != "Broken" {
		t.Fatalf("edited = %+v", ed)
	}
	// An edit that does not mention is_archived leaves it archived.
	desc := "Does not work"
	ed, _, err = c.EditLabel("alice", "proj", l.ID, gitea.EditLabelOption{Description: &desc})
	if err != nil || !ed.IsArchived || ed.Description != desc || ed.Name != "kind/bug" {
		t.Fatalf("partial edit = %+v, %v", ed, err)
	}

	for i := 0; i < 3; i++ {
		if _, _, err := c.CreateLabel("alice", "proj", gitea.CreateLabelOption{Name: fmt.Sprintf("l%d", i), Color: "#000000", IsArchived: i == 0}); err != nil {
			t.Fatal(err)
		}
	}
	all, resp, err := c.ListRepoLabels("alice", "proj", gitea.ListLabelsOptions{})
	if err != nil || len(all) != 4 || resp.Header.Get("X-Total-Count") != "4" {
		t.Fatalf("list: %d labels, total %q, %v", len(all), resp.Header.Get("X-Total-Count"), err)
	}
	if names := []string{all[0].Name, all[1].Name, all[2].Name, all[3].Name}; !slices.Equal(names, []string{"kind/bug", "l0", "l1", "l2"}) {
		t.Fatalf("list order = %v", names)
	}
	if !all[1].IsArchived {
		t.Fatal("l0 created archived but is not")
	}
	pg, resp, err := c.ListRepoLabels("alice", "proj", gitea.ListLabelsOptions{ListOptions: gitea.ListOptions{Page: 2, PageSize: 3}})
	if err != nil || len(pg) != 1 || pg[0].Name != "l2" || resp.Header.Get("X-Total-Count") != "4" {
		t.Fatalf("page 2: %v %v", pg, err)
	}
	// A list runs a fixed number of queries.
	q1 := w.do("GET", "repos/alice/proj/labels?limit=1", "alice", nil).Header.Get("X-Cairn-Query-Count")
	q4 := w.do("GET", "repos/alice/proj/labels?limit=4", "alice", nil).Header.Get("X-Cairn-Query-Count")
	if q1 == "" || q1 != q4 {
		t.Fatalf("query count grows with the page: %q vs %q", q1, q4)
	}

	if _, err := c.DeleteLabel("alice", "proj", l.ID); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := c.GetRepoLabel("alice", "proj", l.ID); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted label answers: %v", err)
	}
	if resp, _ := c.DeleteLabel("alice", "proj", l.ID); resp == nil || resp.StatusCode != 404 {
		t.Fatalf("deleting it again: %v", resp)
	}
}

// TestLabelColorPattern: one pattern on every operation that takes a color.
func TestLabelColorPattern(t *testing.T) {
	w := lblSetup(t)
	l := w.label("pub", "bug", "#A1B2C3", false)
	if l.Color != "a1b2c3" {
		t.Fatalf("color stored as %q", l.Color)
	}
	w.expect(w.do("POST", "orgs/acme/labels", "owner", map[string]any{"name": "org", "color": "ABCDEF"}), 201, "org label")
	count := func() (int, int) {
		r1 := w.do("GET", "repos/acme/pub/labels", "owner", nil)
		r2 := w.do("GET", "orgs/acme/labels", "owner", nil)
		return len(lblNames(t, r1)), len(lblNames(t, r2))
	}
	for _, bad := range []string{"#FFF", "red", "12345g", "", "#1234567", "#ab cd1"} {
		for _, path := range []string{"repos/acme/pub/labels", "orgs/acme/labels"} {
			resp := w.do("POST", path, "owner", map[string]any{"name": "x", "color": bad})
			w.expect(resp, http.StatusUnprocessableEntity, "create "+path+" color "+bad)
		}
		w.expect(w.do("PATCH", fmt.Sprintf("repos/acme/pub/labels/%d", l.ID), "owner", map[string]any{"color": bad}),
			http.StatusUnprocessableEntity, "edit color "+bad)
		w.expect(w.do("PATCH", "orgs/acme/labels/org", "owner", map[string]any{"color": bad}),
			http.StatusUnprocessableEntity, "edit org color "+bad)
	}
	if r, o := count(); r != 1 || o != 1 {
		t.Fatalf("refused colors left %d repo and %d org labels", r, o)
	}
	resp := w.do("GET", fmt.Sprintf("repos/acme/pub/labels/%d", l.ID), "owner", nil)
	var got gitea.Label
	resp.Decode(t, &got)
	if got.Color != "a1b2c3" {
		t.Fatalf("refused edit changed the color to %q", got.Color)
	}
	resp = w.do("PATCH", "orgs/acme/labels/org", "owner", map[string]any{"color": "#0A0B0C"})
	w.expect(resp, 200, "edit org color")
	resp.Decode(t, &got)
	if got.Color != "0a0b0c" {
		t.Fatalf("org color = %q", got.Color)
	}
}

// TestLabelBadInput: each kind of bad input is refused and changes nothing.
func TestLabelBadInput(t *testing.T) {
	w := lblSetup(t)
	bug := w.label("pub", "bug", "ee0000", false)
	foreign := w.label("priv", "elsewhere", "00ee00", false)
	w.expect(w.do("POST", "repos/acme/pub/issues/1/labels", "owner", map[string]any{"labels": []int64{bug.ID}}), 200, "add bug")
	cases := []struct {
		method, path string
		body         any
		raw          string
		want         int
	}{
		// Malformed JSON and wrong types.
		{"POST", "repos/acme/pub/labels", nil, `{"name": "x", "color": `, 422},
		{"POST", "repos/acme/pub/labels", nil, `{"name": 5, "color": "000000"}`, 422},
		{"PATCH", fmt.Sprintf("repos/acme/pub/labels/%d", bug.ID), nil, `{"name": [1]}`, 422},
		{"POST", "repos/acme/pub/issues/1/labels", nil, `{"labels": 7}`, 422},
		{"PUT", "repos/acme/pub/issues/1/labels", nil, `{"labels": [`, 422},
		// Required and bounded fields.
		{"POST", "repos/acme/pub/labels", map[string]any{"color": "000000"}, "", 422},
		{"POST", "repos/acme/pub/labels", map[string]any{"name": "  ", "color": "000000"}, "", 422},
		{"POST", "repos/acme/pub/labels", map[string]any{"name": strings.Repeat("n", 51), "color": "000000"}, "", 422},
		{"POST", "repos/acme/pub/labels", map[string]any{"name": "x", "color": "000000", "description": strings.Repeat("d", 201)}, "", 422},
		{"PATCH", fmt.Sprintf("repos/acme/pub/labels/%d", bug.ID), map[string]any{"name": ""}, "", 422},
		// Labels of another repository, unknown labels, mixed ids and names.
		{"POST", "repos/acme/pub/issues/1/labels", map[string]any{"labels": []int64{foreign.ID}}, "", 422},
		{"PUT", "repos/acme/pub/issues/1/labels", map[string]any{"labels": []int64{foreign.ID}}, "", 422},
		{"PUT", "repos/acme/pub/issues/1/labels", map[string]any{"labels": []string{"elsewhere"}}, "", 422},
		{"POST", "repos/acme/pub/issues/1/labels", map[string]any{"labels": []int64{999999}}, "", 422},
		{"POST", "repos/acme/pub/issues/1/labels", map[string]any{"labels": []any{bug.ID, "bug"}}, "", 400},
		{"POST", "repos/acme/pub/issues/1/labels", map[string]any{"labels": []any{true}}, "", 400},
		{"DELETE", fmt.Sprintf("repos/acme/pub/issues/1/labels/%d", foreign.ID), nil, "", 422},
		{"DELETE", "repos/acme/pub/issues/1/labels/999999", nil, "", 422},
		// Unknown ids.
		{"GET", "repos/acme/pub/labels/999999", nil, "", 404},
		{"PATCH", "repos/acme/pub/labels/999999", map[string]any{"name": "y"}, "", 404},
		{"DELETE", "repos/acme/pub/labels/999999", nil, "", 404},
		{"GET", fmt.Sprintf("repos/acme/pub/labels/%d", foreign.ID), nil, "", 404},
		{"PATCH", fmt.Sprintf("repos/acme/pub/labels/%d", foreign.ID), map[string]any{"name": "y"}, "", 404},
		{"DELETE", fmt.Sprintf("repos/acme/pub/labels/%d", foreign.ID), nil, "", 404},
		{"GET", "repos/acme/pub/issues/99/labels", nil, "", 404},
		{"POST", "repos/acme/pub/issues/99/labels", map[string]any{"labels": []int64{bug.ID}}, "", 404},
		{"DELETE", "repos/acme/pub/issues/99/labels", nil, "", 404},
		{"GET", "orgs/acme/labels/999999", nil, "", 404},
		{"GET", fmt.Sprintf("orgs/acme/labels/%d", bug.ID), nil, "", 404},
		{"DELETE", fmt.Sprintf("orgs/acme/labels/%d", bug.ID), nil, "", 404},
		{"GET", "orgs/nosuchorg/labels", nil, "", 404},
	}
	for _, c := range cases {
		opts := []RequestOption{Token(w.users["owner"].Token)}
		if c.raw != "" {
			opts = append(opts, RawBody(c.raw))
		} else if c.body != nil {
			opts = append(opts, JSON(c.body))
		}
		resp := w.s.Do(c.method, "api/v1/"+c.path, opts...)
		if resp.Status != c.want {
			t.Errorf("%s %s %v%s: status %d, want %d: %s", c.method, c.path, c.body, c.raw, resp.Status, c.want, resp.Body)
			continue
		}
		var e struct {
			Message string `json:"message"`
		}
		resp.Decode(t, &e)
		if e.Message == "" {
			t.Errorf("%s %s: error without a message: %s", c.method, c.path, resp.Body)
		}
	}
	// Nothing changed.
	if got := w.issueLabels("pub"); !slices.Equal(got, []string{"bug"}) {
		t.Fatalf("issue labels = %v", got)
	}
	resp := w.do("GET", fmt.Sprintf("repos/acme/pub/labels/%d", bug.ID), "owner", nil)
	var l gitea.Label
	resp.Decode(t, &l)
	if l.Name != "bug" || l.Color != "ee0000" {
		t.Fatalf("bug = %+v", l)
	}
	if got := lblNames(t, w.do("GET", "repos/acme/pub/labels", "owner", nil)); !slices.Equal(got, []string{"bug"}) {
		t.Fatalf("repo labels = %v", got)
	}
	if got := lblNames(t, w.do("GET", "repos/acme/priv/labels", "owner", nil)); !slices.Equal(got, []string{"elsewhere"}) {
		t.Fatalf("other repo's labels = %v", got)
	}
}

// TestLabelIssueLabels: add, replace, remove and clear through the SDK, by id
// and by name, with exclusive scopes, organization labels, and the issues found by label.
func TestLabelIssueLabels(t *testing.T) {
	w := lblSetup(t)
	c := w.s.Client(w.users["writer"].Token)
	bug := w.label("pub", "bug", "ee0000", false)
	docs := w.label("pub", "docs", "0000ee", false)
	high := w.label("pub", "prio/high", "ff0000", true)
	low := w.label("pub", "prio/low", "00ff00", true)
	resp := w.do("POST", "orgs/acme/labels", "owner", map[string]any{"name": "org-wide", "color": "#123456"})
	w.expect(resp, 201, "org label")
	var orgLabel gitea.Label
	resp.Decode(t, &orgLabel)
	if orgLabel.URL != w.s.URL+fmt.Sprintf("api/v1/orgs/acme/labels/%d", orgLabel.ID) {
		t.Fatalf("org label url = %q", orgLabel.URL)
	}

	names := func(list []*gitea.Label) []string {
		out := []string{}
		for _, l := range list {
			out = append(out, l.Name)
		}
		return out
	}
	got, _, err := c.AddIssueLabels("acme", "pub", 1, gitea.IssueLabelsOption{Labels: []int64{high.ID, bug.ID, orgLabel.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(got), []string{"bug", "org-wide", "prio/high"}) {
		t.Fatalf("after add = %v", names(got))
	}
	// An exclusive label replaces the other label of its scope.
	got, _, err = c.AddIssueLabels("acme", "pub", 1, gitea.IssueLabelsOption{Labels: []int64{low.ID}})
	if err != nil || !slices.Equal(names(got), []string{"bug", "org-wide", "prio/low"}) {
		t.Fatalf("after exclusive add = %v, %v", names(got), err)
	}
	// Names work too (raw HTTP: the SDK only sends ids).
	resp = w.do("POST", "repos/acme/pub/issues/1/labels", "writer", map[string]any{"labels": []string{"Docs"}})
	w.expect(resp, 200, "add by name")
	if got := lblNames(t, resp); !slices.Equal(got, []string{"bug", "docs", "org-wide", "prio/low"}) {
		t.Fatalf("after add by name = %v", got)
	}
	// The issue shows them.
	is, _, err := c.GetIssue("acme", "pub", 1)
	if err != nil || !slices.Equal(names(is.Labels), []string{"bug", "docs", "org-wide", "prio/low"}) {
		t.Fatalf("issue labels = %v, %v", is, err)
	}
	// The issue is found by its labels, closed or not.
	w.expect(w.do("PATCH", "repos/acme/pub/issues/1", "writer", map[string]any{"state": "closed"}), 201, "close issue")
	if n, cl := lblCarriers(t, w, bug.ID); n != 1 || cl != 1 {
		t.Fatalf("issues with bug = %d/%d", n, cl)
	}
	if n, _ := lblCarriers(t, w, high.ID); n != 0 {
		t.Fatalf("issues with prio/high = %d", n)
	}
	// Replace: of one scope only the last by name stays.
	got, _, err = c.ReplaceIssueLabels("acme", "pub", 1, gitea.IssueLabelsOption{Labels: []int64{low.ID, high.ID, docs.ID}})
	if err != nil || !slices.Equal(names(got), []string{"docs", "prio/low"}) {
		t.Fatalf("after replace = %v, %v", names(got), err)
	}
	if n, cl := lblCarriers(t, w, bug.ID); n != 0 || cl != 0 {
		t.Fatalf("issues with bug after replace = %d/%d", n, cl)
	}
	// Remove one; removing one the issue does not carry is no error.
	if _, err := c.DeleteIssueLabel("acme", "pub", 1, docs.ID); err != nil {
		t.Fatal(err)
	}
	if resp, err := c.DeleteIssueLabel("acme", "pub", 1, bug.ID); err != nil || resp.StatusCode != 204 {
		t.Fatalf("removing a label not on the issue: %v", err)
	}
	got, _, err = c.GetIssueLabels("acme", "pub", 1, gitea.ListLabelsOptions{})
	if err != nil || !slices.Equal(names(got), []string{"prio/low"}) {
		t.Fatalf("after remove = %v, %v", names(got), err)
	}
	if _, err := c.ClearIssueLabels("acme", "pub", 1); err != nil {
		t.Fatal(err)
	}
	if got := w.issueLabels("pub"); len(got) != 0 {
		t.Fatalf("after clear = %v", got)
	}
	if n, _ := lblCarriers(t, w, low.ID); n != 0 {
		t.Fatalf("issues with prio/low after clear = %d", n)
	}
	// Deleting an organization label takes it off issues.
	w.expect(w.do("PUT", "repos/acme/pub/issues/1/labels", "writer", map[string]any{"labels": []int64{orgLabel.ID, bug.ID}}), 200, "replace")
	w.expect(w.do("DELETE", fmt.Sprintf("orgs/acme/labels/%d", orgLabel.ID), "owner", nil), 204, "delete org label")
	if got := w.issueLabels("pub"); !slices.Equal(got, []string{"bug"}) {
		t.Fatalf("after deleting the org label = %v", got)
	}
}

// lblCarriers counts the issues of acme/pub carrying label id, and the
// closed ones among them (the API shows no label counters; the issue list
// filtered by label shows what they count).
func lblCarriers(t *testing.T, w *lblWorld, id int64) (int, int) {
	t.Helper()
	open := w.do("GET", fmt.Sprintf("repos/acme/pub/issues?state=open&labels=%d", id), "owner", nil)
	all := w.do("GET", fmt.Sprintf("repos/acme/pub/issues?state=all&labels=%d", id), "owner", nil)
	w.expect(all, 200, "issues by label")
	n, o := len(lblNames(t, all)), len(lblNames(t, open))
	return n, n - o
}

// TestLabelTimelineEvent: an API label change records a timeline event.
func TestLabelTimelineEvent(t *testing.T) {
	w := lblSetup(t)
	bug := w.label("pub", "bug", "ee0000", false)
	w.expect(w.do("POST", "repos/acme/pub/issues/1/labels", "writer", map[string]any{"labels": []int64{bug.ID}}), 200, "add")
	w.expect(w.do("DELETE", fmt.Sprintf("repos/acme/pub/issues/1/labels/%d", bug.ID), "writer", nil), 204, "remove")
	resp := w.do("GET", "repos/acme/pub/issues/1/timeline", "writer", nil)
	if resp.Status == 404 {
		t.Skip("no /timeline route yet: label events are checked by the issue package's tests (TestLabelIssueChangesRecordEvents)")
	}
	w.expect(resp, 200, "timeline")
	var events []struct {
		Type  string       `json:"type"`
		Body  string       `json:"body"`
		User  *gitea.User  `json:"user"`
		Label *gitea.Label `json:"label"`
	}
	resp.Decode(t, &events)
	var seen []string
	for _, e := range events {
		if e.Type != "label" {
			continue
		}
		if e.Label == nil || e.Label.ID != bug.ID || e.User == nil || e.User.UserName != w.users["writer"].Name {
			t.Fatalf("label event = %+v", e)
		}
		seen = append(seen, e.Body)
	}
	if !slices.Equal(seen, []string{"1", ""}) {
		t.Fatalf("label events (bodies) = %q", seen)
	}
}

// TestLabelTemplateAtCreation: issue_labels applies a template; an unknown
// one is a 422 and leaves no repository behind.
func TestLabelTemplateAtCreation(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	w := &lblWorld{t: t, s: s, users: map[string]*User{"alice": alice}}
	tmpl, _, err := s.Client(alice.Token).GetLabelTemplate("Default")
	if err != nil || len(tmpl) == 0 {
		t.Fatalf("template: %v %v", tmpl, err)
	}
	w.expect(w.do("POST", "user/repos", "alice", map[string]any{"name": "labelled", "issue_labels": "Default"}), 201, "create")
	list, _, err := s.Client(alice.Token).ListRepoLabels("alice", "labelled", gitea.ListLabelsOptions{ListOptions: gitea.ListOptions{PageSize: 50}})
	if err != nil || len(list) != len(tmpl) {
		t.Fatalf("labels: %d of %d, %v", len(list), len(tmpl), err)
	}
	byName := map[string]*gitea.Label{}
	for _, l := range list {
		byName[l.Name] = l
	}
	for _, want := range tmpl {
		got := byName[want.Name]
		if got == nil || got.Color != strings.ToLower(strings.TrimPrefix(want.Color, "#")) || got.Description != want.Description ||
			got.Exclusive != want.Exclusive || len(got.Color) != 6 {
			t.Fatalf("label %q = %+v, template %+v", want.Name, got, want)
		}
	}
	resp := w.do("POST", "user/repos", "alice", map[string]any{"name": "bad", "issue_labels": "NoSuchTemplate"})
	w.expect(resp, 422, "unknown template")
	w.expect(w.do("GET", "repos/alice/bad", "alice", nil), 404, "repository left behind")
	// The name is free again.
	w.expect(w.do("POST", "user/repos", "alice", map[string]any{"name": "bad"}), 201, "create after failure")
	if got := lblNames(t, w.do("GET", "repos/alice/bad/labels", "alice", nil)); len(got) != 0 {
		t.Fatalf("labels left behind: %v", got)
	}
}

// lblMatrixStatus is what role gets on a repository route: kind is "read"
// (any reader), "write" (issue writers) or "issuewrite" (writers of the issue).
func lblMatrixStatus(role string, private bool, kind string, ok int) int {
	switch {
	case role == "restricted" || (private && (role == "anon" || role == "stranger")):
		return 404
	case kind == "read":
		return ok
	case role == "anon":
		return 401
	case role == "stranger" || role == "reader":
		return 403
	}
	return ok
}

// TestLabelPermissionMatrix: every label route for every role on a public
// and a private repository.
func TestLabelPermissionMatrix(t *testing.T) {
	w := lblSetup(t)
	for _, rp := range []string{"pub", "priv"} {
		private := rp == "priv"
		base := "repos/acme/" + rp
		for _, role := range lblRoles {
			l := w.label(rp, "m-"+role, "123456", false)
			lid := fmt.Sprint(l.ID)
			w.expect(w.do("PUT", base+"/issues/1/labels", "owner", map[string]any{"labels": []int64{l.ID}}), 200, "setup")
			routes := []struct {
				method, path string
				body         any
				kind         string
				ok           int
			}{
				{"GET", base + "/labels", nil, "read", 200},
				{"GET", base + "/labels/" + lid, nil, "read", 200},
				{"GET", base + "/issues/1/labels", nil, "read", 200},
				{"POST", base + "/labels", map[string]any{"name": "new-" + role, "color": "abcdef"}, "write", 201},
				{"PATCH", base + "/labels/" + lid, map[string]any{"description": "by " + role}, "write", 200},
				{"POST", base + "/issues/1/labels", map[string]any{"labels": []int64{l.ID}}, "write", 200},
				{"PUT", base + "/issues/1/labels", map[string]any{"labels": []int64{l.ID}}, "write", 200},
				{"DELETE", base + "/issues/1/labels/" + lid, nil, "write", 204},
				{"DELETE", base + "/issues/1/labels", nil, "write", 204},
				{"DELETE", base + "/labels/" + lid, nil, "write", 204},
			}
			for _, rt := range routes {
				want := lblMatrixStatus(role, private, rt.kind, rt.ok)
				resp := w.do(rt.method, rt.path, role, rt.body)
				if resp.Status != want {
					t.Errorf("%s %s %s: %d, want %d: %s", role, rt.method, rt.path, resp.Status, want, resp.Body)
				}
			}
			// Refused writes changed nothing.
			if lblMatrixStatus(role, private, "write", 1) != 1 {
				if got := w.issueLabels(rp); !slices.Equal(got, []string{l.Name}) {
					t.Errorf("%s on %s: issue labels = %v after refused writes", role, rp, got)
				}
				resp := w.do("GET", base+"/labels/"+lid, "owner", nil)
				var got gitea.Label
				resp.Decode(t, &got)
				if resp.Status != 200 || got.Description != "" {
					t.Errorf("%s on %s: label = %d %+v after refused writes", role, rp, resp.Status, got)
				}
				w.expect(w.do("DELETE", base+"/labels/"+lid, "owner", nil), 204, "cleanup")
			}
		}
	}
	// Public-only tokens see public repositories only.
	pubTok := w.s.CreateToken(w.users["reader"].Name, w.users["reader"].Password, "pubonly", "public-only", "read:issue", "read:repository")
	w.users["pubonly"] = &User{Token: pubTok}
	w.expect(w.do("GET", "repos/acme/pub/labels", "pubonly", nil), 200, "public-only token on a public repo")
	w.expect(w.do("GET", "repos/acme/priv/labels", "pubonly", nil), 403, "public-only token on a private repo")
	// A token without the issue scope is refused.
	repoTok := w.s.CreateToken(w.users["writer"].Name, w.users["writer"].Password, "repoonly", "write:repository")
	w.users["repoonly"] = &User{Token: repoTok}
	w.expect(w.do("POST", "repos/acme/pub/labels", "repoonly", map[string]any{"name": "x", "color": "000000"}), 403, "token without issue scope")
}

// TestLabelOrgPermissionMatrix: organization label routes for every role on
// a public and a private organization.
func TestLabelOrgPermissionMatrix(t *testing.T) {
	w := lblSetup(t)
	// Make the reader a member of the private organization too.
	k := newOrgKit(t, w.s)
	tm := k.createTeam(w.users["owner"], "hush", map[string]any{"name": "readers", "permission": "read", "units": []string{"repo.issues"}})
	k.addToTeam(w.users["owner"], tm.ID, w.users["reader"].Name)
	for _, org := range []string{"acme", "hush"} {
		private := org == "hush"
		for _, role := range lblRoles {
			resp := w.do("POST", "orgs/"+org+"/labels", "owner", map[string]any{"name": "m-" + role, "color": "123456"})
			w.expect(resp, 201, "setup")
			var l gitea.Label
			resp.Decode(t, &l)
			lid := fmt.Sprint(l.ID)
			member := role == "owner" || role == "siteadmin" || role == "reader" || (!private && (role == "writer" || role == "admin"))
			canSee := member || (!private && role != "restricted")
			for _, rt := range []struct {
				method, path string
				body         any
				write        bool
				ok           int
			}{
				{"GET", "orgs/" + org + "/labels", nil, false, 200},
				{"GET", "orgs/" + org + "/labels/" + lid, nil, false, 200},
				{"POST", "orgs/" + org + "/labels", map[string]any{"name": "new-" + role, "color": "abcdef"}, true, 201},
				{"PATCH", "orgs/" + org + "/labels/" + lid, map[string]any{"description": "by " + role}, true, 200},
				{"DELETE", "orgs/" + org + "/labels/" + lid, nil, true, 204},
			} {
				want := rt.ok
				switch {
				case role == "anon" && (rt.write || rt.path != "orgs/"+org+"/labels"):
					want = 401 // Gitea 1.23 needs a token for one label and for changes
				case !canSee:
					want = 404
				case rt.write && role != "owner" && role != "siteadmin":
					want = 403
				}
				resp := w.do(rt.method, rt.path, role, rt.body)
				if resp.Status != want {
					t.Errorf("%s %s %s: %d, want %d: %s", role, rt.method, rt.path, resp.Status, want, resp.Body)
				}
			}
			if role != "owner" && role != "siteadmin" {
				resp := w.do("GET", "orgs/"+org+"/labels/"+lid, "owner", nil)
				var got gitea.Label
				resp.Decode(t, &got)
				if resp.Status != 200 || got.Description != "" {
					t.Errorf("%s on %s: label = %d %+v after refused writes", role, org, resp.Status, got)
				}
				w.expect(w.do("DELETE", "orgs/"+org+"/labels/"+lid, "owner", nil), 204, "cleanup")
			}
		}
	}
	// The SDK's organization label calls work.
	c := w.s.Client(w.users["owner"].Token)
	l, _, err := c.CreateOrgLabel("acme", gitea.CreateOrgLabelOption{Name: "team/x", Color: "#ABCDEF", Exclusive: true})
	if err != nil || l.Color != "abcdef" || !l.Exclusive {
		t.Fatalf("create org label: %+v %v", l, err)
	}
	if got, _, err := c.GetOrgLabel("acme", l.ID); err != nil || got.Name != "team/x" {
		t.Fatalf("get org label: %+v %v", got, err)
	}
	list, _, err := c.ListOrgLabels("acme", gitea.ListOrgLabelsOptions{})
	if err != nil || !slices.ContainsFunc(list, func(x *gitea.Label) bool { return x.ID == l.ID }) {
		t.Fatalf("list org labels: %v %v", list, err)
	}
	if _, err := c.DeleteOrgLabel("acme", l.ID); err != nil {
		t.Fatal(err)
	}
}
