package e2e

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// mustStatusPage fails unless p has status want.
func mustStatusPage(t *testing.T, p *Page, want int, what string) {
	t.Helper()
	if p.Status != want {
		t.Fatalf("%s: status %d, want %d: %.2000s", what, p.Status, want, p.Body)
	}
}

// TestWebOrgSettings: an owner changes the organization's settings and
// avatar through the forms and the API shows them; bad input is refused;
// a member who is not an owner gets 403 on the settings and team forms,
// an outsider 403 on a visible organization's member-only pages and 404
// on everything of a private organization; deleting needs the typed name
// and an organization without repositories.
func TestWebOrgSettings(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	alice := s.CreateUser("oalice")
	bob := s.CreateUser("obob")
	carol := s.CreateUser("ocarol")
	k.createOrg(alice, "worg", "public")
	devs := k.createTeam(alice, "worg", map[string]any{"name": "devs", "permission": "read", "units": []string{"repo.code"}})
	k.addToTeam(alice, devs.ID, bob.Name)
	k.createOrg(alice, "hidden", "private")
	mustStatus(t, s.Do("POST", "api/v1/orgs/hidden/repos", Token(alice.Token), JSON(map[string]any{"name": "vault", "private": true})), http.StatusCreated, "repo")

	wa := s.Web(t)
	wa.SignIn(alice.Name, alice.Password)
	wb := s.Web(t)
	wb.SignIn(bob.Name, bob.Password)
	wc := s.Web(t)
	wc.SignIn(carol.Name, carol.Password)

	t.Run("owner edits the settings", func(t *testing.T) {
		wa.Get("/org/worg/settings").MustContain(t, http.StatusOK, `action="/org/worg/settings"`, `name="visibility" value="public" checked`,
			`href="/org/worg/members"`, `href="/org/worg/teams"`)
		p := wa.Post("/org/worg/settings", url.Values{"full_name": {"Web <Org>"}, "email": {"team@example.org"}, "description": {"We build things"},
			"website": {"https://example.org"}, "location": {"Paris"}, "visibility": {"limited"}, "repo_admin_change_team_access": {"on"}})
		mustRedirect(t, p, "/org/worg/settings")
		var o gitea.Organization
		apiJSON(t, s, "orgs/worg", alice.Token, &o)
		if o.FullName != "Web <Org>" || o.Description != "We build things" || o.Website != "https://example.org" || o.Location != "Paris" ||
			o.Visibility != "limited" || !o.RepoAdminChangeTeamAccess || o.Email != "team@example.org" {
			t.Fatalf("API after the form: %+v", o)
		}
		wa.Get("/org/worg/settings").MustContain(t, http.StatusOK, "The organization&#39;s settings have been updated.", `value="Web &lt;Org&gt;"`,
			`name="visibility" value="limited" checked`, `name="repo_admin_change_team_access" value="on" checked`)

		p = wa.Post("/org/worg/settings", url.Values{"full_name": {"Changed"}, "website": {"javascript:alert(1)"}, "visibility": {"public"}})
		p.MustContain(t, http.StatusUnprocessableEntity, "website", `value="Changed"`)
		apiJSON(t, s, "orgs/worg", alice.Token, &o)
		if o.FullName != "Web <Org>" || o.Visibility != "limited" {
			t.Fatalf("a refused form changed the organization: %+v", o)
		}
	})

	t.Run("owner changes the avatar", func(t *testing.T) {
		img, _ := base64.StdEncoding.DecodeString(pngOf(t, 64, 64))
		wa.Get("/org/worg/settings")
		mustRedirect(t, peopleUpload(t, wa, "/org/worg/settings/avatar", "avatar", "org.png", img), "/org/worg/settings")
		var o gitea.Organization
		apiJSON(t, s, "orgs/worg", alice.Token, &o)
		if !strings.Contains(o.AvatarURL, "/avatars/custom/") {
			t.Fatalf("avatar not stored: %q", o.AvatarURL)
		}
		wa.Get("/org/worg/settings").MustContain(t, http.StatusOK, "Remove the uploaded avatar")
		mustRedirect(t, wa.Post("/org/worg/settings/avatar/delete", nil), "/org/worg/settings")
		apiJSON(t, s, "orgs/worg", alice.Token, &o)
		if strings.Contains(o.AvatarURL, "/avatars/custom/") {
			t.Fatalf("avatar not removed: %q", o.AvatarURL)
		}
	})

	t.Run("a member who is not an owner gets 403", func(t *testing.T) {
		wb.Get("/org/worg/members").MustContain(t, http.StatusOK, "obob", "oalice", "Owner")
		wb.Get("/org/worg/teams").MustContain(t, http.StatusOK, "devs", `href="/org/worg/teams/devs"`)
		wb.Get("/org/worg/teams/devs").MustContain(t, http.StatusOK, "devs", "obob", "Leave the team")
		for _, path := range []string{"/org/worg/settings", "/org/worg/teams/new", "/org/worg/teams/devs/edit", "/org/worg/teams/owners"} {
			mustStatusPage(t, wb.Get(path), http.StatusForbidden, "bob GET "+path)
		}
		wb.Get("/org/worg/members")
		for path, form := range map[string]url.Values{
			"/org/worg/settings":                   {"full_name": {"Hijacked"}, "visibility": {"public"}},
			"/org/worg/teams/new":                  {"team_name": {"mine"}, "permission": {"admin"}},
			"/org/worg/teams/devs/edit":            {"team_name": {"devs"}, "permission": {"admin"}},
			"/org/worg/teams/devs/action/add":      {"uname": {"ocarol"}},
			"/org/worg/members/action/remove":      {"uid": {strconv.FormatInt(alice.ID, 10)}},
			"/org/worg/settings/delete":            {"org_name": {"worg"}},
			"/org/worg/teams/devs/action/repo/add": {"repo_name": {"x"}},
		} {
			mustStatusPage(t, wb.Post(path, form), http.StatusForbidden, "bob POST "+path)
		}
		var o gitea.Organization
		apiJSON(t, s, "orgs/worg", alice.Token, &o)
		if o.FullName != "Web <Org>" || o.Visibility != "limited" {
			t.Fatalf("bob changed the organization: %+v", o)
		}
		if tm := k.getTeam(alice.Token, devs.ID); tm.Permission != "read" {
			t.Fatalf("bob changed the team: %+v", tm)
		}
		if r := s.Do("GET", "api/v1/orgs/worg/members/oalice", Token(alice.Token)); r.Status != http.StatusNoContent {
			t.Fatalf("bob removed alice: %d", r.Status)
		}
	})

	t.Run("outsiders", func(t *testing.T) {
		// A limited organization: a signed-in outsider sees it (403 on member pages), a signed-out visitor does not.
		wc.Get("/org/worg/members").MustContain(t, http.StatusOK, "No members to show.")
		for _, path := range []string{"/org/worg/settings", "/org/worg/teams", "/org/worg/teams/devs"} {
			mustStatusPage(t, wc.Get(path), http.StatusForbidden, "carol GET "+path)
		}
		mustStatusPage(t, s.Web(t).Get("/org/worg/members"), http.StatusNotFound, "signed out, limited organization")
		// A private organization is not found by outsiders, signed in or out.
		anon := s.Web(t)
		for _, path := range []string{"/org/hidden/members", "/org/hidden/teams", "/org/hidden/settings", "/org/hidden/teams/owners",
			"/org/hidden/teams/owners/repositories", "/org/hidden/teams/new", "/org/hidden/teams/owners/edit"} {
			for who, w := range map[string]*Web{"carol": wc, "signed out": anon} {
				p := w.Get(path)
				mustStatusPage(t, p, http.StatusNotFound, who+" GET "+path)
				if strings.Contains(p.Body, "vault") {
					t.Fatalf("%s GET %s leaks the repository", who, path)
				}
			}
		}
		wc.Get("/org/worg/members")
		mustStatusPage(t, wc.Post("/org/hidden/settings", url.Values{"full_name": {"x"}, "visibility": {"public"}}), http.StatusNotFound, "carol POST settings")
		mustStatusPage(t, wc.Post("/org/hidden/members/action/leave", nil), http.StatusNotFound, "carol POST leave")
		wa.Get("/org/hidden/members").MustContain(t, http.StatusOK, "oalice", "Owner")
		wa.Get("/org/hidden/teams/owners/repositories").MustContain(t, http.StatusOK, "hidden/vault")
	})

	t.Run("the members page's queries do not grow with its rows", func(t *testing.T) {
		two := wa.Get("/org/worg/members")
		dan := s.CreateUser("odan")
		k.addToTeam(alice, devs.ID, dan.Name)
		three := wa.Get("/org/worg/members")
		three.MustContain(t, http.StatusOK, "oalice", "obob", "odan")
		if q2, q3 := two.Header.Get("X-Cairn-Query-Count"), three.Header.Get("X-Cairn-Query-Count"); q2 == "" || q2 != q3 {
			t.Fatalf("members page queries: %q with two members, %q with three", q2, q3)
		}
	})

	t.Run("delete", func(t *testing.T) {
		wa.Get("/org/hidden/settings")
		wa.Post("/org/hidden/settings/delete", url.Values{"org_name": {"hidden"}}).MustContain(t, http.StatusUnprocessableEntity, "still has ownership of repositories")
		k.createOrg(alice, "gone", "public")
		wa.Get("/org/gone/settings")
		wa.Post("/org/gone/settings/delete", url.Values{"org_name": {"GONE-not"}}).MustContain(t, http.StatusUnprocessableEntity, "to confirm")
		if r := s.Do("GET", "api/v1/orgs/gone", Token(alice.Token)); r.Status != http.StatusOK {
			t.Fatalf("refused deletion deleted: %d", r.Status)
		}
		mustRedirect(t, wa.Post("/org/gone/settings/delete", url.Values{"org_name": {"gone"}}), "/")
		if r := s.Do("GET", "api/v1/orgs/gone", Token(alice.Token)); r.Status != http.StatusNotFound {
			t.Fatalf("deleted organization still answers: %d", r.Status)
		}
		if r := s.Do("GET", "api/v1/orgs/hidden", Token(alice.Token)); r.Status != http.StatusOK {
			t.Fatalf("organization with repositories deleted: %d", r.Status)
		}
	})
}

// TestWebOrgTeams: a team created through the form with a member and a
// repository gives the member access to a private repository of the
// organization (through the API); editing and taking the repository away
// work through the forms; members show or hide their membership; removing
// a member through the form removes them from the organization and its
// teams.
func TestWebOrgTeams(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	alice := s.CreateUser("talice")
	bob := s.CreateUser("tbob")
	k.createOrg(alice, "tforg", "public")
	mustStatus(t, s.Do("POST", "api/v1/orgs/tforg/repos", Token(alice.Token), JSON(map[string]any{"name": "vault", "private": true})), http.StatusCreated, "repo")
	if r := s.Do("GET", "api/v1/repos/tforg/vault", Token(bob.Token)); r.Status != http.StatusNotFound {
		t.Fatalf("bob reads the vault before joining: %d", r.Status)
	}
	wa := s.Web(t)
	wa.SignIn(alice.Name, alice.Password)

	wa.Get("/org/tforg/teams/new").MustContain(t, http.StatusOK, `name="team_name"`, `name="unit_repo.code"`, `name="repo_access"`)
	p := wa.Post("/org/tforg/teams/new", url.Values{"team_name": {"bad name!"}, "permission": {"units"}, "unit_repo.code": {"read"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "team name", `value="bad name!"`)
	p = wa.Post("/org/tforg/teams/new", url.Values{"team_name": {"nothing"}, "permission": {"units"}})
	p.MustContain(t, http.StatusUnprocessableEntity, "at least one unit")
	p = wa.Post("/org/tforg/teams/new", url.Values{"team_name": {"readers"}, "description": {"Read the vault"}, "permission": {"units"},
		"unit_repo.code": {"read"}, "unit_repo.issues": {"write"}, "repo_access": {"specific"}})
	mustRedirect(t, p, "/org/tforg/teams/readers")
	team := k.teamByName(alice, "tforg", "readers")
	if team.Description != "Read the vault" || team.IncludesAllRepositories || team.CanCreateOrgRepo ||
		team.UnitsMap["repo.code"] != "read" || team.UnitsMap["repo.issues"] != "write" || team.UnitsMap["repo.pulls"] != "none" {
		t.Fatalf("created team = %+v", team)
	}

	wa.Get("/org/tforg/teams/readers").MustContain(t, http.StatusOK, "The team readers has been created.", "This team has no members.")
	p = wa.Post("/org/tforg/teams/readers/action/add", url.Values{"uname": {"nobody-here"}})
	mustRedirect(t, p, "/org/tforg/teams/readers")
	wa.Get("/org/tforg/teams/readers").MustContain(t, http.StatusOK, "There is no user named")
	mustRedirect(t, wa.Post("/org/tforg/teams/readers/action/add", url.Values{"uname": {"tbob"}}), "/org/tforg/teams/readers")
	mustRedirect(t, wa.Post("/org/tforg/teams/readers/action/repo/add", url.Values{"repo_name": {"vault"}}), "/org/tforg/teams/readers/repositories")
	wa.Get("/org/tforg/teams/readers").MustContain(t, http.StatusOK, `href="/tbob"`, "Remove tbob")
	wa.Get("/org/tforg/teams/readers/repositories").MustContain(t, http.StatusOK, `href="/tforg/vault"`, "Remove vault")

	t.Run("the member reads the private repository", func(t *testing.T) {
		var rp gitea.Repository
		apiJSON(t, s, "repos/tforg/vault", bob.Token, &rp)
		if rp.Permissions == nil || !rp.Permissions.Pull || rp.Permissions.Push {
			t.Fatalf("bob's permissions = %+v", rp.Permissions)
		}
		wb := s.Web(t)
		wb.SignIn(bob.Name, bob.Password)
		wb.Get("/org/tforg/teams/readers/repositories").MustContain(t, http.StatusOK, "tforg/vault")
		mustStatusPage(t, wb.Get("/org/tforg/teams/readers/edit"), http.StatusForbidden, "bob edits the team")
		// Bob shows his own membership.
		wb.Get("/org/tforg/members").MustContain(t, http.StatusOK, "Private membership", "Show my membership")
		mustRedirect(t, wb.Post("/org/tforg/members/action/public", url.Values{"uid": {strconv.FormatInt(bob.ID, 10)}}), "/org/tforg/members")
		if r := s.Do("GET", "api/v1/orgs/tforg/public_members/tbob", Token(alice.Token)); r.Status != http.StatusNoContent {
			t.Fatalf("public membership after the form: %d", r.Status)
		}
		s.Web(t).Get("/org/tforg/members").MustContain(t, http.StatusOK, "tbob")
	})

	t.Run("edit the team", func(t *testing.T) {
		wa.Get("/org/tforg/teams/readers/edit").MustContain(t, http.StatusOK, `value="Read the vault"`, `name="unit_repo.issues" value="write" checked`)
		p := wa.Post("/org/tforg/teams/readers/edit", url.Values{"team_name": {"writers"}, "description": {"Now writing"}, "permission": {"units"},
			"unit_repo.code": {"write"}, "unit_repo.issues": {"write"}, "can_create_org_repo": {"on"}, "repo_access": {"specific"}})
		mustRedirect(t, p, "/org/tforg/teams/writers")
		tm := k.getTeam(alice.Token, team.ID)
		if tm.Name != "writers" || tm.Description != "Now writing" || tm.Permission != "write" || !tm.CanCreateOrgRepo || tm.UnitsMap["repo.code"] != "write" {
			t.Fatalf("edited team = %+v", tm)
		}
		var rp gitea.Repository
		apiJSON(t, s, "repos/tforg/vault", bob.Token, &rp)
		if rp.Permissions == nil || !rp.Permissions.Push {
			t.Fatalf("bob's permissions after the edit = %+v", rp.Permissions)
		}
		// The Owners team keeps its name and access.
		wa.Get("/org/tforg/teams/owners/edit")
		mustRedirect(t, wa.Post("/org/tforg/teams/owners/edit", url.Values{"team_name": {"bosses"}, "description": {"The bosses"}, "permission": {"units"},
			"unit_repo.code": {"read"}}), "/org/tforg/teams/owners")
		if ow := k.teamByName(alice, "tforg", "Owners"); ow.Permission != "owner" || ow.Description != "The bosses" {
			t.Fatalf("owners team = %+v", ow)
		}
	})

	t.Run("take the repository away", func(t *testing.T) {
		wa.Get("/org/tforg/teams/writers/repositories")
		var rp gitea.Repository
		apiJSON(t, s, "repos/tforg/vault", alice.Token, &rp)
		mustRedirect(t, wa.Post("/org/tforg/teams/writers/action/repo/remove", url.Values{"repoid": {strconv.FormatInt(rp.ID, 10)}}),
			"/org/tforg/teams/writers/repositories")
		if r := s.Do("GET", "api/v1/repos/tforg/vault", Token(bob.Token)); r.Status != http.StatusNotFound {
			t.Fatalf("bob still reads the vault: %d", r.Status)
		}
		mustRedirect(t, wa.Post("/org/tforg/teams/writers/action/repo/add", url.Values{"repo_name": {"vault"}}), "/org/tforg/teams/writers/repositories")
	})

	t.Run("remove the member", func(t *testing.T) {
		wa.Get("/org/tforg/members").MustContain(t, http.StatusOK, "Remove tbob", "Public membership")
		// The last owner cannot be removed (nor leave).
		p := wa.Post("/org/tforg/members/action/leave", nil)
		mustRedirect(t, p, "/org/tforg/members")
		wa.Get("/org/tforg/members").MustContain(t, http.StatusOK, "last member of owner team")
		mustRedirect(t, wa.Post("/org/tforg/members/action/remove", url.Values{"uid": {strconv.FormatInt(bob.ID, 10)}}), "/org/tforg/members")
		if r := s.Do("GET", "api/v1/orgs/tforg/members/tbob", Token(alice.Token)); r.Status != http.StatusNotFound {
			t.Fatalf("bob still a member: %d", r.Status)
		}
		if r := s.Do("GET", "api/v1/repos/tforg/vault", Token(bob.Token)); r.Status != http.StatusNotFound {
			t.Fatalf("removed member still reads the vault: %d", r.Status)
		}
		if tm := k.getTeam(alice.Token, team.ID); tm.Name != "writers" {
			t.Fatalf("team = %+v", tm)
		}
		if p := wa.Get("/org/tforg/teams/writers"); p.Status != http.StatusOK || strings.Contains(p.Body, `href="/tbob"`) {
			t.Fatalf("bob still listed in the team: %d", p.Status)
		}
	})

	t.Run("delete the team", func(t *testing.T) {
		wa.Get("/org/tforg/teams/writers/edit")
		mustRedirect(t, wa.Post("/org/tforg/teams/writers/delete", nil), "/org/tforg/teams")
		if r := s.Do("GET", "api/v1/teams/"+strconv.FormatInt(team.ID, 10), Token(alice.Token)); r.Status != http.StatusNotFound {
			t.Fatalf("deleted team answers: %d", r.Status)
		}
		wa.Get("/org/tforg/teams/owners/edit")
		mustRedirect(t, wa.Post("/org/tforg/teams/owners/delete", nil), "/org/tforg/teams/owners")
		k.teamByName(alice, "tforg", "Owners")
	})
}
