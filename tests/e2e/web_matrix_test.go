package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The web permission matrix: every GET page of a repository, requested by
// every kind of visitor on repositories of every visibility, answers what the
// permission rules say (not what the code happens to do); write forms posted
// without permission change nothing; a disabled unit's pages are missing
// for everyone; REQUIRE_SIGNIN_VIEW closes every page to signed-out
// visitors; and the lists (explore, profiles, dashboard) never show a
// repository to someone who may not see it.
//
// The rules the expectations come from:
//   - the owner (also owner of both organizations) and the site administrator
//     own every repository;
//   - collaborators get their level (read, write or admin) on the repository,
//     whatever the visibility of its owner;
//   - everyone else reads a public repository whose owner they may see: a
//     public owner is seen by all, a limited organization by signed-in users
//     who are not restricted, a private organization by its members only;
//   - a restricted user sees only what is explicitly given to them.

// wxRoles are the visitors, in the order they run.
var wxRoles = []string{"signed out", "user", "restricted", "reader", "restricted reader", "writer", "repo admin", "owner", "site admin"}

// wxLevel is a visitor's access to one repository.
type wxLevel int

const (
	wxNone wxLevel = iota
	wxRead
	wxWrite
	wxAdmin
	wxOwner
)

// wxNeed is what a page or form asks of its visitor.
type wxNeed int

const (
	wxNeedRead     wxNeed = iota // anyone who sees the repository
	wxNeedAccount                // a signed-in visitor who sees it
	wxNeedWrite                  // a writer of the page's unit
	wxNeedAdmin                  // an administrator of the repository
	wxNeedOwner                  // its owner (deleting, archiving it)
	wxNeedWriteSee               // a writer; hidden (404) from everyone else, like a draft
)

// wxOutcome is the answer a visitor should get.
type wxOutcome string

const (
	wxOK        wxOutcome = "200"
	wxSignIn    wxOutcome = "sign-in redirect"
	wxForbidden wxOutcome = "403"
	wxNotFound  wxOutcome = "404"
	wxMoved     wxOutcome = "redirect"
)

// wxExpect derives the outcome of a page from the visitor's level.
func wxExpect(role string, lv wxLevel, need wxNeed) wxOutcome {
	switch {
	case lv == wxNone:
		return wxNotFound // even for signed-out visitors: the repository does not exist for them
	case need == wxNeedWriteSee:
		if lv >= wxWrite {
			return wxOK
		}
		return wxNotFound
	case need == wxNeedRead:
		return wxOK
	case role == "signed out":
		return wxSignIn
	case need == wxNeedAccount,
		need == wxNeedWrite && lv >= wxWrite,
		need == wxNeedAdmin && lv >= wxAdmin,
		need == wxNeedOwner && lv >= wxOwner:
		return wxOK
	}
	return wxForbidden
}

// wxRepo is one repository of the matrix and the ids its pages need.
type wxRepo struct {
	owner, name string
	ownerVis    string // visibility of the owner: public, limited, private
	private     bool
	sha         string // head of main
	milestone   int64
	release     int64 // v1's
	tagRule     int64
	hook        int64
}

func (r *wxRepo) full() string { return r.owner + "/" + r.name }

// wxPage is one GET page of a repository.
type wxPage struct {
	path string // below /owner/repo; {sha}, {milestone}, {tagRule}, {hook} are replaced
	need wxNeed
	want string // what the page shows when it answers 200 ("" : the repository's name)
	// moved: an older address that redirects where want says instead of answering 200.
	moved bool
}

const (
	wxNotes      = "matrix notes line\n"
	wxIssueTitle = "matrix issue title"
	wxPullTitle  = "matrix pull title"
	wxRelTitle   = "matrix release title"
	wxAsset      = "matrix asset content\n"
	wxDraftTitle = "matrix draft title"
)

// wxPages are the repository's GET pages (the editor's pages are the
// editor's tests').
var wxPages = []wxPage{
	{path: "", need: wxNeedRead, want: "notes.txt"},
	{path: "src/branch/main", need: wxNeedRead, want: "notes.txt"},
	{path: "src/branch/main/notes.txt", need: wxNeedRead, want: "matrix notes line"},
	{path: "raw/branch/main/notes.txt", need: wxNeedRead, want: wxNotes},
	{path: "blame/branch/main/notes.txt", need: wxNeedRead, want: "matrix notes line"},
	{path: "src/tag/v1/notes.txt", need: wxNeedRead, want: "matrix notes line"},
	{path: "src/commit/{sha}/notes.txt", need: wxNeedRead, want: "matrix notes line"},
	{path: "raw/tag/v1/notes.txt", need: wxNeedRead, want: wxNotes},
	{path: "raw/commit/{sha}/notes.txt", need: wxNeedRead, want: wxNotes},
	{path: "media/branch/main/notes.txt", need: wxNeedRead, want: wxNotes},
	{path: "src/main/notes.txt", need: wxNeedRead, moved: true, want: "/src/branch/main/notes.txt"},
	{path: "raw/v1/notes.txt", need: wxNeedRead, moved: true, want: "/raw/tag/v1/notes.txt"},
	{path: "commits/branch/main", need: wxNeedRead},
	{path: "commits/tag/v1", need: wxNeedRead},
	{path: "commits/branch/main/notes.txt", need: wxNeedRead},
	{path: "commit/{sha}", need: wxNeedRead, want: "notes.txt"},
	{path: "branches", need: wxNeedRead, want: "feat"},
	{path: "tags", need: wxNeedRead, want: "v1"},
	{path: "compare/main...feat", need: wxNeedRead, want: "feat.txt"},
	{path: "archive/main.zip", need: wxNeedRead, want: "PK\x03\x04"},
	{path: "archive/v1.tar.gz", need: wxNeedRead, want: "\x1f\x8b"},
	{path: "issues", need: wxNeedRead, want: wxIssueTitle},
	{path: "issues/1", need: wxNeedRead, want: wxIssueTitle},
	{path: "pulls", need: wxNeedRead, want: wxPullTitle},
	{path: "pulls/2", need: wxNeedRead, want: wxPullTitle},
	{path: "pulls/2/files", need: wxNeedRead, want: "feat.txt"},
	{path: "pulls/2/commits", need: wxNeedRead, want: "change feat"},
	{path: "releases", need: wxNeedRead, want: wxRelTitle},
	{path: "releases/tag/v1", need: wxNeedRead, want: wxRelTitle},
	{path: "releases/download/v1/asset.txt", need: wxNeedRead, want: wxAsset},
	{path: "releases/tag/draft1", need: wxNeedWriteSee, want: wxDraftTitle},
	{path: "releases/edit/draft1", need: wxNeedWrite, want: wxDraftTitle},
	{path: "labels", need: wxNeedRead, want: "matrix-label"},
	{path: "milestones", need: wxNeedRead, want: "matrix milestone"},
	{path: "issues/new", need: wxNeedAccount},
	{path: "issues/new/choose", need: wxNeedAccount},
	{path: "pulls/new/feat", need: wxNeedAccount, want: "feat"},
	{path: "releases/new", need: wxNeedWrite},
	{path: "releases/edit/v1", need: wxNeedWrite, want: wxRelTitle},
	{path: "milestones/new", need: wxNeedWrite},
	{path: "milestones/{milestone}/edit", need: wxNeedWrite, want: "matrix milestone"},
	{path: "settings", need: wxNeedAdmin},
	{path: "settings/collaboration", need: wxNeedAdmin, want: "wxreader"},
	{path: "settings/branches", need: wxNeedAdmin, want: "protected-*"},
	{path: "settings/branches/edit", need: wxNeedAdmin},
	{path: "settings/branches/edit?rule_name=protected-*", need: wxNeedAdmin, want: "protected-*"},
	{path: "settings/tags", need: wxNeedAdmin, want: "locked-*"},
	{path: "settings/tags/{tagRule}", need: wxNeedAdmin, want: "locked-*"},
	{path: "settings/hooks", need: wxNeedAdmin, want: "hooks.example.com"},
	{path: "settings/hooks/gitea/new", need: wxNeedAdmin},
	{path: "settings/hooks/{hook}", need: wxNeedAdmin, want: "hooks.example.com"},
	{path: "settings/keys", need: wxNeedAdmin},
}

// expect is the outcome of the page for role at level lv.
func (pg wxPage) expect(role string, lv wxLevel) wxOutcome {
	want := wxExpect(role, lv, pg.need)
	if want == wxOK && pg.moved {
		return wxMoved
	}
	return want
}

// wxKit holds the server, the accounts and the repositories of a matrix.
type wxKit struct {
	t     *testing.T
	s     *Server
	users map[string]*User // by role; "site admin" is root
	repos []*wxRepo
}

// wxSetup starts a server (with opts) and creates the accounts of every
// role, the organizations and the matrix's repositories.
func wxSetup(t *testing.T, opts ...ServerOption) *wxKit {
	s := StartServer(t, opts...)
	k := &wxKit{t: t, s: s, users: map[string]*User{
		"owner":             s.CreateUser("wxowner"),
		"user":              s.CreateUser("wxuser"),
		"restricted":        s.CreateUser("wxrestricted", "restricted"),
		"reader":            s.CreateUser("wxreader"),
		"restricted reader": s.CreateUser("wxrreader", "restricted"),
		"writer":            s.CreateUser("wxwriter"),
		"repo admin":        s.CreateUser("wxradmin"),
		"site admin":        {Name: adminName, Password: adminPassword, Token: s.AdminTok},
	}}
	for _, o := range []struct{ name, vis string }{{"limorg", "limited"}, {"hidorg", "private"}} {
		k.must(k.api("POST", "orgs", map[string]any{"username": o.name, "visibility": o.vis}), 201, "create org "+o.name)
	}
	k.repos = []*wxRepo{
		{owner: "wxowner", name: "sunrepo", ownerVis: "public"},
		{owner: "wxowner", name: "privrepo", ownerVis: "public", private: true},
		{owner: "limorg", name: "limrepo", ownerVis: "limited"},
		{owner: "hidorg", name: "hidrepo", ownerVis: "private"},
	}
	for _, r := range k.repos {
		k.seed(r)
		k.must(k.api("PUT", "user/starred/"+r.full(), nil), 204, "star "+r.full())
	}
	return k
}

// in is k reporting to t (a subtest) instead.
func (k *wxKit) in(t *testing.T) *wxKit {
	c := *k
	c.t = t
	return &c
}

// api calls api/v1/path as the owner.
func (k *wxKit) api(method, path string, body any) *Response {
	k.t.Helper()
	return k.s.API(method, path, k.users["owner"].Token, body)
}

// must stops the test unless resp has status want (setup only).
func (k *wxKit) must(resp *Response, want int, what string) *Response {
	k.t.Helper()
	if resp.Status != want {
		k.t.Fatalf("setup: %s: status %d, want %d: %s", what, resp.Status, want, resp.Body)
	}
	return resp
}

// id reads the "id" of a created object.
func (k *wxKit) id(resp *Response) int64 {
	k.t.Helper()
	var v struct {
		ID int64 `json:"id"`
	}
	resp.Decode(k.t, &v)
	return v.ID
}

// seed creates r with everything its pages show: a file on main, a branch
// "feat" with issue #1 and pull request #2, release v1, a label, a
// milestone, a branch rule, a tag rule, an inactive webhook, and its read,
// restricted read, write and admin collaborators.
func (k *wxKit) seed(r *wxRepo) {
	t := k.t
	path := "user/repos"
	if r.owner != "wxowner" {
		path = "orgs/" + r.owner + "/repos"
	}
	k.must(k.api("POST", path, map[string]any{"name": r.name, "private": r.private, "auto_init": true}), 201, "create "+r.full())
	full, tok := r.full(), k.users["owner"].Token
	prCommit(t, k.s, tok, full, "main", "", map[string]string{"notes.txt": wxNotes})
	prCommit(t, k.s, tok, full, "feat", "main", map[string]string{"feat.txt": "feat\n"})
	k.must(k.api("POST", "repos/"+full+"/issues", map[string]any{"title": wxIssueTitle}), 201, "issue in "+full)
	k.must(k.api("POST", "repos/"+full+"/pulls", map[string]any{"head": "feat", "base": "main", "title": wxPullTitle}), 201, "pull in "+full)
	r.release = k.id(k.must(k.api("POST", "repos/"+full+"/releases", map[string]any{"tag_name": "v1", "name": wxRelTitle}), 201, "release in "+full))
	k.must(k.s.Upload(fmt.Sprintf("api/v1/repos/%s/releases/%d/assets?name=asset.txt", full, r.release), tok, "attachment", "asset.txt", []byte(wxAsset), 0), 201, "asset in "+full)
	k.must(k.api("POST", "repos/"+full+"/releases", map[string]any{"tag_name": "draft1", "name": wxDraftTitle, "draft": true}), 201, "draft in "+full)
	k.must(k.api("POST", "repos/"+full+"/labels", map[string]any{"name": "matrix-label", "color": "#aa0000"}), 201, "label in "+full)
	r.milestone = k.id(k.must(k.api("POST", "repos/"+full+"/milestones", map[string]any{"title": "matrix milestone"}), 201, "milestone in "+full))
	k.must(k.api("POST", "repos/"+full+"/branch_protections", map[string]any{"rule_name": "protected-*"}), 201, "branch rule in "+full)
	r.tagRule = k.id(k.must(k.api("POST", "repos/"+full+"/tag_protections", map[string]any{"name_pattern": "locked-*"}), 201, "tag rule in "+full))
	r.hook = k.id(k.must(k.api("POST", "repos/"+full+"/hooks", map[string]any{"type": "gitea", "active": false, "events": []string{"push"},
		"config": map[string]string{"url": "https://hooks.example.com/matrix", "content_type": "json"}}), 201, "hook in "+full))
	r.sha = prBranchSHA(t, k.s, tok, full, "main")
	for role, mode := range map[string]string{"reader": "read", "restricted reader": "read", "writer": "write", "repo admin": "admin"} {
		k.must(k.api("PUT", "repos/"+full+"/collaborators/"+k.users[role].Name, map[string]any{"permission": mode}), 204, role+" on "+full)
	}
}

// level is role's access to r, by the rules at the top of this file.
func (k *wxKit) level(role string, r *wxRepo) wxLevel {
	switch role {
	case "owner", "site admin":
		return wxOwner
	case "repo admin":
		return wxAdmin
	case "writer":
		return wxWrite
	case "reader", "restricted reader":
		return wxRead
	case "restricted":
		return wxNone
	}
	if !r.private && (r.ownerVis == "public" || r.ownerVis == "limited" && role == "user") {
		return wxRead
	}
	return wxNone
}

// webs returns a browser for every role, signed in as its account (the
// "signed out" one has none).
func (k *wxKit) webs(t *testing.T) map[string]*Web {
	out := map[string]*Web{}
	for _, role := range wxRoles {
		w := k.s.Web(t)
		if u := k.users[role]; u != nil {
			w.SignIn(u.Name, u.Password)
		}
		out[role] = w
	}
	return out
}

// pagePath is the address of page pg of r.
func (r *wxRepo) pagePath(pg string) string {
	p := strings.NewReplacer("{sha}", r.sha, "{milestone}", strconv.FormatInt(r.milestone, 10),
		"{tagRule}", strconv.FormatInt(r.tagRule, 10), "{hook}", strconv.FormatInt(r.hook, 10)).Replace(pg)
	return strings.TrimSuffix("/"+r.full()+"/"+p, "/")
}

var wxRedirectLink = regexp.MustCompile(`redirect_to=[^"]*`)

// wxFresh loads a page holding a CSRF token of w's visitor (the sign-in
// form, or the sign-out form of the dashboard).
func wxFresh(w *Web, role string) {
	if role == "signed out" {
		w.Get("/user/login")
	} else {
		w.Get("/")
	}
}

// wxCheck reports (as an error of t) a page that is not the outcome want;
// hidden is a name a refused page must not show, shown a text a 200 must.
func wxCheck(t *testing.T, what string, p *Page, want wxOutcome, hidden, shown string) {
	t.Helper()
	got := wxOutcome(strconv.Itoa(p.Status))
	switch {
	case p.Status == http.StatusSeeOther && strings.HasPrefix(p.Location, "/user/login"):
		got = wxSignIn
	case p.Status >= 300 && p.Status < 400:
		got = wxMoved
	}
	if got != want {
		t.Errorf("%s: got %s (%d %s), want %s: %.300s", what, got, p.Status, p.Location, want, p.Body)
		return
	}
	switch want {
	case wxOK:
		if !strings.Contains(p.Body, shown) {
			t.Errorf("%s: the page lacks %q: %.500s", what, shown, p.Body)
		}
	case wxMoved:
		if !strings.Contains(p.Location, shown) {
			t.Errorf("%s: redirects to %q, not to %q", what, p.Location, shown)
		}
	case wxNotFound:
		// The sign-in link returns to the address asked for: not a leak.
		if body := wxRedirectLink.ReplaceAllString(p.Body, ""); hidden != "" && strings.Contains(body, hidden) {
			t.Errorf("%s: the 404 page shows %q", what, hidden)
		}
	}
}

// TestWebMatrix runs the matrix on one server.
func TestWebMatrix(t *testing.T) {
	k := wxSetup(t)
	k.s.CreateUser("wxextra") // the collaborator the settings form adds

	t.Run("pages", func(t *testing.T) {
		webs := k.webs(t)
		for _, role := range wxRoles {
			for _, r := range k.repos {
				lv := k.level(role, r)
				for _, pg := range wxPages {
					shown := pg.want
					if shown == "" {
						shown = r.name
					}
					path := r.pagePath(pg.path)
					wxCheck(t, role+" GET "+path, webs[role].Get(path), pg.expect(role, lv), r.name, shown)
				}
			}
		}
	})

	t.Run("site administration", func(t *testing.T) { k.in(t).siteAdmin(t) })
	t.Run("lists", func(t *testing.T) { k.in(t).lists(t) })
	t.Run("forms", func(t *testing.T) { k.in(t).forms(t) })
	t.Run("disabled units", func(t *testing.T) { k.in(t).disabledUnits(t) })
}

// siteAdmin checks that the sign-in source pages and their forms exist for
// the site administrator alone: every other role gets 404 and changes
// nothing.
func (k *wxKit) siteAdmin(t *testing.T) {
	// Inactive, so no sign-in of the other subtests asks its (absent) server;
	// deleted at the end.
	id := addLDAPSource(t, k.s, "add-ldap", "--name", "wxsource", "--not-active", "--security-protocol", "Unencrypted", "--host", "ldap.example.org",
		"--port", "389", "--user-search-base", "ou=people,dc=example,dc=org", "--user-filter", "(uid=%s)", "--email-attribute", "mail")
	defer func() {
		if out, err := k.s.Cairn("admin", "auth", "delete", "--id", strconv.FormatInt(id, 10)); err != nil {
			t.Errorf("delete the source: %v\n%s", err, out)
		}
	}()
	edit := "/-/admin/auths/" + strconv.FormatInt(id, 10)
	form := url.Values{"type": {"2"}, "name": {"wxchanged"}, "security_protocol": {"0"}, "host": {"ldap.example.org"}, "port": {"389"},
		"user_base": {"ou=people,dc=example,dc=org"}, "filter": {"(uid=%s)"}, "attribute_mail": {"mail"}}
	webs := k.webs(t)
	for _, role := range wxRoles {
		w := webs[role]
		want := wxOutcome("404")
		if role == "site admin" {
			want = wxOK
		}
		for path, shown := range map[string]string{"/-/admin/auths": "wxsource", "/-/admin/auths/new": "bind_dn",
			"/-/admin/auths/new?type=5": "user_dn", edit: "wxsource"} {
			wxCheck(t, role+" GET "+path, w.Get(path), want, "wxsource", shown)
		}
		if role == "site admin" {
			continue
		}
		for _, path := range []string{"/-/admin/auths/new", edit, edit + "/delete"} {
			wxFresh(w, role)
			wxCheck(t, role+" POST "+path, w.Post(path, withForm(form, nil)), "404", "wxsource", "")
		}
	}
	out, err := k.s.Cairn("admin", "auth", "list")
	if err != nil || strings.Contains(out, "wxchanged") || !strings.Contains(out, "wxsource") {
		t.Errorf("a refused form changed the sources: %v\n%s", err, out)
	}
}

// lists checks that the explore pages, profiles and dashboards list each
// repository exactly to those who may see it.
func (k *wxKit) lists(t *testing.T) {
	webs := k.webs(t)
	orgSeen := func(role, vis string) bool {
		switch {
		case role == "owner" || role == "site admin" || vis == "public":
			return true // the owner is the organizations' member
		case vis == "limited":
			return role != "signed out" && role != "restricted" && role != "restricted reader"
		}
		return false
	}
	for _, role := range wxRoles {
		w := webs[role]
		// Every repository of each list is checked both ways: shown to
		// those who see it, absent for the others.
		lists := []struct {
			path  string
			repos func(r *wxRepo) bool
		}{
			{"/explore/repos", func(*wxRepo) bool { return true }},
			{"/explore/repos?q=repo", func(*wxRepo) bool { return true }},
			{"/wxowner", func(r *wxRepo) bool { return r.owner == "wxowner" }},
			{"/wxowner?tab=stars", func(*wxRepo) bool { return true }},
			{"/limorg", func(r *wxRepo) bool { return r.owner == "limorg" }},
			{"/hidorg", func(r *wxRepo) bool { return r.owner == "hidorg" }},
		}
		for _, l := range lists {
			p := w.Get(l.path)
			want := http.StatusOK
			if o := strings.TrimPrefix(l.path, "/"); (o == "limorg" && !orgSeen(role, "limited")) || (o == "hidorg" && !orgSeen(role, "private")) {
				want = http.StatusNotFound
			}
			if p.Status != want {
				t.Errorf("%s GET %s: status %d, want %d", role, l.path, p.Status, want)
				continue
			}
			for _, r := range k.repos {
				listed := strings.Contains(p.Body, "/"+r.full()+`"`)
				if seen := k.level(role, r) != wxNone && want == http.StatusOK && l.repos(r); listed != seen {
					t.Errorf("%s GET %s: lists %s = %v, want %v", role, l.path, r.full(), listed, seen)
				}
				if k.level(role, r) == wxNone && strings.Contains(p.Body, r.name) {
					t.Errorf("%s GET %s: shows the name of %s", role, l.path, r.full())
				}
			}
		}
		// The organizations' list and the dashboard.
		orgs := w.Get("/explore/organizations")
		for _, o := range []struct{ name, vis string }{{"limorg", "limited"}, {"hidorg", "private"}} {
			if listed := strings.Contains(orgs.Body, "/"+o.name+`"`); listed != orgSeen(role, o.vis) {
				t.Errorf("%s GET /explore/organizations: lists %s = %v", role, o.name, listed)
			}
		}
		if role != "signed out" {
			for _, path := range []string{"/", "/issues", "/pulls", "/issues?state=closed", "/pulls?state=closed"} {
				p := w.Get(path)
				for _, r := range k.repos {
					if p.Status != http.StatusOK || k.level(role, r) == wxNone && strings.Contains(p.Body, r.name) {
						t.Errorf("%s GET %s: status %d, or shows %s", role, path, p.Status, r.full())
					}
				}
			}
		}
		// Drafts are listed to the writers of the releases only.
		for _, r := range k.repos {
			if lv := k.level(role, r); lv != wxNone {
				p := w.Get(r.pagePath("releases"))
				if shown := strings.Contains(p.Body, wxDraftTitle); shown != (lv >= wxWrite) {
					t.Errorf("%s GET %s: shows the draft = %v", role, r.pagePath("releases"), shown)
				}
			}
		}
	}
}

// wxForm is a write form of the matrix: who may send it, and how its
// effect is read back through the API.
type wxForm struct {
	name  string
	path  string // below /owner/repo
	need  wxNeed
	form  func(r *wxRepo, n int) url.Values
	prep  func(r *wxRepo)        // puts r in the state the form changes (optional)
	state func(r *wxRepo) string // the observable state, read as the site administrator
	// refusedOnly: only the refusals are tried (what the form does cannot
	// be undone between tries, or would change the matrix).
	refusedOnly bool
}

// forms posts each write form as every role on every repository: refused
// posts answer 404, 403 or the sign-in redirect and change nothing;
// allowed ones redirect and change the state.
func (k *wxKit) forms(t *testing.T) {
	admin := func(path string) *Response { return k.s.API("GET", path, k.s.AdminTok, nil) }
	count := func(path string) string {
		resp := admin(path)
		var list []map[string]any
		if resp.Status == 200 {
			resp.Decode(t, &list)
		}
		return fmt.Sprintf("%d:%d", resp.Status, len(list))
	}
	field := func(path, name string) string {
		var v map[string]any
		resp := admin(path)
		resp.Decode(t, &v)
		return fmt.Sprint(v[name])
	}
	forms := []wxForm{
		{name: "comment", path: "issues/1/comments", need: wxNeedAccount,
			form:  func(_ *wxRepo, n int) url.Values { return url.Values{"content": {fmt.Sprintf("matrix comment %d", n)}} },
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/issues/1/comments?limit=50") }},
		{name: "close issue", path: "issues/1/comments", need: wxNeedWrite,
			form: func(*wxRepo, int) url.Values { return url.Values{"status": {"close"}} },
			prep: func(r *wxRepo) {
				k.must(k.s.API("PATCH", "repos/"+r.full()+"/issues/1", k.s.AdminTok, map[string]any{"state": "open"}), 201, "reopen")
			},
			state: func(r *wxRepo) string { return field("repos/"+r.full()+"/issues/1", "state") }},
		{name: "new label", path: "labels/new", need: wxNeedWrite,
			form: func(_ *wxRepo, n int) url.Values {
				return url.Values{"name": {fmt.Sprintf("form-label-%d", n)}, "color": {"#00aa00"}}
			},
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/labels?limit=50") }},
		{name: "new milestone", path: "milestones/new", need: wxNeedWrite,
			form:  func(_ *wxRepo, n int) url.Values { return url.Values{"title": {fmt.Sprintf("form milestone %d", n)}} },
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/milestones?state=all&limit=50") }},
		{name: "new release", path: "releases/new", need: wxNeedWrite,
			form: func(_ *wxRepo, n int) url.Values {
				return url.Values{"tag_name": {fmt.Sprintf("form-%d", n)}, "title": {fmt.Sprintf("form release %d", n)}}
			},
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/releases?limit=50") }},
		{name: "settings update", path: "settings", need: wxNeedAdmin,
			form: func(r *wxRepo, n int) url.Values {
				v := url.Values{"action": {"update"}, "repo_name": {r.name}, "description": {fmt.Sprintf("changed %d", n)}}
				if r.private {
					v.Set("private", "on")
				}
				return v
			},
			state: func(r *wxRepo) string {
				return field("repos/"+r.full(), "description") + " " + field("repos/"+r.full(), "private")
			}},
		{name: "new issue", path: "issues/new", need: wxNeedAccount,
			form:  func(_ *wxRepo, n int) url.Values { return url.Values{"title": {fmt.Sprintf("form issue %d", n)}} },
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/issues?state=all&type=issues&limit=50") }},
		{name: "new pull request", path: "compare/main...feat", need: wxNeedAccount, refusedOnly: true, // one is open already
			form:  func(*wxRepo, int) url.Values { return url.Values{"title": {"form pull"}} },
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/pulls?state=all&limit=50") }},
		{name: "merge", path: "pulls/2/merge", need: wxNeedWrite, refusedOnly: true,
			form:  func(*wxRepo, int) url.Values { return url.Values{"do": {"merge"}} },
			state: func(r *wxRepo) string { return field("repos/"+r.full()+"/pulls/2", "merged") }},
		{name: "close milestone", path: "milestones/{milestone}/close", need: wxNeedWrite,
			form: func(*wxRepo, int) url.Values { return url.Values{} },
			prep: func(r *wxRepo) {
				k.must(k.s.API("PATCH", fmt.Sprintf("repos/%s/milestones/%d", r.full(), r.milestone), k.s.AdminTok, map[string]any{"state": "open"}), 200, "reopen milestone")
			},
			state: func(r *wxRepo) string {
				return field(fmt.Sprintf("repos/%s/milestones/%d", r.full(), r.milestone), "state")
			}},
		{name: "delete release", path: "releases/delete", need: wxNeedWrite, refusedOnly: true,
			form:  func(r *wxRepo, _ int) url.Values { return url.Values{"id": {strconv.FormatInt(r.release, 10)}} },
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/releases?limit=50") }},
		{name: "delete webhook", path: "settings/hooks/delete", need: wxNeedAdmin, refusedOnly: true,
			form:  func(r *wxRepo, _ int) url.Values { return url.Values{"id": {strconv.FormatInt(r.hook, 10)}} },
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/hooks") }},
		{name: "remove collaborator", path: "settings/collaboration/delete", need: wxNeedAdmin, refusedOnly: true,
			form:  func(*wxRepo, int) url.Values { return url.Values{"uid": {strconv.FormatInt(k.users["writer"].ID, 10)}} },
			state: func(r *wxRepo) string { return count("repos/" + r.full() + "/collaborators") }},
		{name: "delete repository", path: "settings", need: wxNeedOwner, refusedOnly: true,
			form:  func(r *wxRepo, _ int) url.Values { return url.Values{"action": {"delete"}, "repo_name": {r.full()}} },
			state: func(r *wxRepo) string { return strconv.Itoa(admin("repos/" + r.full()).Status) }},
		{name: "archive repository", path: "settings", need: wxNeedOwner, refusedOnly: true,
			form:  func(r *wxRepo, _ int) url.Values { return url.Values{"action": {"archive"}} },
			state: func(r *wxRepo) string { return field("repos/"+r.full(), "archived") }},
		{name: "add collaborator", path: "settings/collaboration", need: wxNeedAdmin,
			form: func(*wxRepo, int) url.Values { return url.Values{"collaborator": {"wxextra"}, "mode": {"write"}} },
			prep: func(r *wxRepo) {
				k.s.API("DELETE", "repos/"+r.full()+"/collaborators/wxextra", k.s.AdminTok, nil)
			},
			state: func(r *wxRepo) string {
				return strconv.Itoa(admin("repos/" + r.full() + "/collaborators/wxextra").Status)
			}},
	}
	webs := k.webs(t)
	n := 0
	for _, f := range forms {
		for _, role := range wxRoles {
			w := webs[role]
			for _, r := range k.repos {
				n++
				want := wxExpect(role, k.level(role, r), f.need)
				if want == wxOK && f.refusedOnly {
					continue
				}
				if f.prep != nil {
					f.prep(r)
				}
				before := f.state(r)
				wxFresh(w, role)
				path := r.pagePath(f.path)
				p := w.Post(path, f.form(r, n))
				what := fmt.Sprintf("%s: %s POST %s", f.name, role, path)
				after := f.state(r)
				if want == wxNotFound && role == "signed out" {
					// A form may send a signed-out visitor to sign in before
					// looking the repository up: that reveals nothing as long
					// as a missing repository gets the same answer.
					missing := w.Post(strings.Replace(path, "/"+r.name+"/", "/no-such-repo/", 1), f.form(r, n))
					if missing.Status == http.StatusSeeOther && strings.HasPrefix(missing.Location, "/user/login") {
						want = wxSignIn
					}
				}
				if want == wxOK {
					// An accepted form redirects to its page.
					if p.Status != http.StatusSeeOther || strings.HasPrefix(p.Location, "/user/login") {
						t.Errorf("%s: got %d %q, want a redirect to the page: %.300s", what, p.Status, p.Location, p.Body)
					} else if after == before {
						t.Errorf("%s: accepted but changed nothing (%s)", what, after)
					}
					continue
				}
				wxCheck(t, what, p, want, r.name, "")
				if after != before {
					t.Errorf("%s: refused (%d) but the state changed: %s -> %s", what, p.Status, before, after)
				}
			}
		}
	}
}

// disabledUnits turns units off on the repositories that have them: the
// units' pages and forms are missing for everyone, the owner and the site
// administrator included, while the other units still answer.
func (k *wxKit) disabledUnits(t *testing.T) {
	noIssues := &wxRepo{owner: "wxowner", name: "noissues", ownerVis: "public"}
	noBoth := &wxRepo{owner: "wxowner", name: "notracker", ownerVis: "public"}
	for _, r := range []*wxRepo{noIssues, noBoth} {
		k.seed(r)
	}
	k.must(k.api("PATCH", "repos/"+noIssues.full(), map[string]any{"has_issues": false}), 200, "issues off")
	k.must(k.api("PATCH", "repos/"+noBoth.full(), map[string]any{"has_issues": false, "has_pull_requests": false}), 200, "issues and pulls off")
	cases := []struct {
		r    *wxRepo
		off  []string // pages missing for everyone
		on   []string // pages still there for readers
		post string   // a form of the disabled unit
	}{
		{noIssues, []string{"issues", "issues/1", "issues/new"}, []string{"", "pulls", "pulls/2", "labels", "milestones"}, "issues/1/comments"},
		{noBoth, []string{"issues", "issues/1", "issues/new", "pulls", "pulls/2", "pulls/2/files", "pulls/new/feat", "labels", "milestones", "milestones/new"},
			[]string{"", "releases", "src/branch/main/notes.txt"}, "labels/new"},
	}
	webs := k.webs(t)
	for _, c := range cases {
		for _, role := range wxRoles {
			w := webs[role]
			lv := k.level(role, c.r)
			for _, pg := range c.off {
				path := c.r.pagePath(pg)
				wxCheck(t, role+" GET "+path+" (unit off)", w.Get(path), wxNotFound, wxIssueTitle, "")
			}
			for _, pg := range c.on {
				path := c.r.pagePath(pg)
				wxCheck(t, role+" GET "+path+" (unit on)", w.Get(path), wxExpect(role, lv, wxNeedRead), c.r.name, c.r.name)
			}
		}
	}
	// Posting a comment to the issue of the disabled unit: 404 even for the
	// owner, and the issue has no comment once the unit is back.
	w := webs["owner"]
	wxFresh(w, "owner")
	p := w.Post(noIssues.pagePath("issues/1/comments"), url.Values{"content": {"while off"}})
	wxCheck(t, "owner POST a comment (issues off)", p, wxNotFound, "", "")
	k.must(k.api("PATCH", "repos/"+noIssues.full(), map[string]any{"has_issues": true}), 200, "issues on")
	if c := k.api("GET", "repos/"+noIssues.full()+"/issues/1/comments", nil); c.Status != 200 || strings.Contains(string(c.Body), "while off") {
		t.Errorf("the comment posted while issues were off: %d %s", c.Status, c.Body)
	}
	wxFresh(w, "owner")
	p = w.Post(noIssues.pagePath("issues/1/comments"), url.Values{"content": {"back on"}})
	if p.Status != http.StatusSeeOther {
		t.Errorf("owner POST a comment (issues on): %d %.300s", p.Status, p.Body)
	}
	// A label form of a repository without issues and pull requests.
	before := k.api("GET", "repos/"+noBoth.full()+"/labels", nil).Body
	wxFresh(w, "owner")
	p = w.Post(noBoth.pagePath("labels/new"), url.Values{"name": {"while-off"}, "color": {"#00aa00"}})
	wxCheck(t, "owner POST a label (issues and pulls off)", p, wxNotFound, "", "")
	if after := k.api("GET", "repos/"+noBoth.full()+"/labels", nil).Body; string(after) != string(before) {
		t.Errorf("a label was created while issues and pulls were off: %s", after)
	}
}

// TestWebMatrixRequireSignin: with REQUIRE_SIGNIN_VIEW every page (and
// release download) sends signed-out visitors to sign in, public
// repositories and lists included, while the same pages answer a signed-in
// reader; the API answers them 401 and git over HTTP asks for credentials.
func TestWebMatrixRequireSignin(t *testing.T) {
	k := wxSetup(t, WithEnv("CAIRN_SERVICE_REQUIRE_SIGNIN_VIEW=true"))
	anon, user := k.s.Web(t), k.s.Web(t)
	user.SignIn(k.users["user"].Name, k.users["user"].Password)
	pub := k.repos[0]
	if pub.private || pub.ownerVis != "public" {
		t.Fatal("the first repository of the matrix is not public")
	}
	for _, pg := range wxPages {
		path := pub.pagePath(pg.path)
		wxCheck(t, "signed out GET "+path, anon.Get(path), wxSignIn, "", "")
	}
	for _, path := range []string{"/", "/explore/repos", "/explore/users", "/explore/organizations", "/wxowner", "/limorg", "/-/admin", "/-/admin/auths/new", "/-/admin/auths/1"} {
		wxCheck(t, "signed out GET "+path, anon.Get(path), wxSignIn, "", "")
	}
	for _, pg := range wxPages {
		shown := pg.want
		if shown == "" {
			shown = pub.name
		}
		path := pub.pagePath(pg.path)
		wxCheck(t, "user GET "+path, user.Get(path), pg.expect("user", wxRead), "", shown)
	}
	// The API and git over HTTP ask for credentials; with them, they answer.
	if r := k.s.Do("GET", "api/v1/repos/"+pub.full()); r.Status != http.StatusUnauthorized {
		t.Errorf("signed-out API call: %d %s", r.Status, r.Body)
	}
	if r := k.s.Do("GET", "api/v1/version"); r.Status != http.StatusUnauthorized {
		t.Errorf("signed-out /version: %d", r.Status)
	}
	if r := k.s.Do("GET", "api/v1/repos/"+pub.full(), Token(k.users["user"].Token)); r.Status != http.StatusOK {
		t.Errorf("API call with a token: %d %s", r.Status, r.Body)
	}
	if r := k.s.Do("GET", pub.full()+".git/info/refs?service=git-upload-pack"); r.Status != http.StatusUnauthorized {
		t.Errorf("anonymous clone of a public repository: %d", r.Status)
	}
	if r := k.s.Do("GET", pub.full()+".git/info/refs?service=git-upload-pack", Basic(k.users["user"].Name, k.users["user"].Password)); r.Status != http.StatusOK {
		t.Errorf("clone with credentials: %d", r.Status)
	}
	// A signed-out visitor's form is refused too, and changes nothing.
	wxFresh(anon, "signed out")
	p := anon.Post(pub.pagePath("issues/1/comments"), url.Values{"content": {"anonymous"}})
	wxCheck(t, "signed out POST a comment", p, wxSignIn, "", "")
	if c := k.api("GET", "repos/"+pub.full()+"/issues/1/comments", nil); strings.Contains(string(c.Body), "anonymous") {
		t.Errorf("a signed-out comment was saved: %s", c.Body)
	}
}
