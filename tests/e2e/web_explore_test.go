package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// peopleLack fails the test if page p holds any of subs.
func peopleLack(t testing.TB, p *Page, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(p.Body, s) {
			t.Fatalf("page holds %q: %.3000s", s, p.Body)
		}
	}
}

// TestWebExplore covers the explore pages, profiles and the dashboard:
// what each kind of visitor sees of public and private repositories,
// users and organizations.
func TestWebExplore(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	owner := s.CreateUser("exowner")
	stranger := s.CreateUser("exstranger")
	hidden := s.CreateUser("exhidden", "private")
	s.CreateUser("exlimited", "limited")
	k.repo(owner, "pubrepo", false, true)
	k.repo(owner, "secretrepo", true, false)
	k.repo(hidden, "hiddenrepo", false, false)
	k.want(k.do("POST", "orgs", owner.Token, map[string]any{"username": "exsecretorg", "visibility": "private"}), 201, "", "private org")
	k.want(k.do("POST", "orgs", owner.Token, map[string]any{"username": "expuborg", "full_name": "Public Org"}), 201, "", "public org")
	k.want(k.do("POST", "orgs/exsecretorg/repos", owner.Token, map[string]any{"name": "orgrepo"}), 201, "", "org repo")

	anon := s.Web(t)
	ws := s.Web(t)
	ws.SignIn(stranger.Name, stranger.Password)
	wo := s.Web(t)
	wo.SignIn(owner.Name, owner.Password)
	wa := s.Web(t)
	wa.SignIn(adminName, adminPassword)

	t.Run("explore repositories", func(t *testing.T) {
		for _, w := range []*Web{anon, ws} {
			p := w.Get("/explore/repos")
			p.MustContain(t, http.StatusOK, "exowner/pubrepo")
			// Private repositories, those of private users and of private
			// organizations stay hidden.
			peopleLack(t, p, "secretrepo", "hiddenrepo", "orgrepo")
		}
		wo.Get("/explore/repos").MustContain(t, http.StatusOK, "exowner/pubrepo", "exowner/secretrepo", "exsecretorg/orgrepo")
		wa.Get("/explore/repos").MustContain(t, http.StatusOK, "exowner/secretrepo", "exhidden/hiddenrepo")
		p := anon.Get("/explore/repos?q=pub&sort=alphabetically")
		p.MustContain(t, http.StatusOK, "exowner/pubrepo", `value="alphabetically" selected`)
		anon.Get("/explore/repos?q=secret").MustContain(t, http.StatusOK, "No repository matches")
		// Searching for a private repository by name does not reveal it.
		peopleLack(t, ws.Get("/explore/repos?q=secretrepo"), "exowner/secretrepo")
		wo.Get("/explore/repos?q=secretrepo").MustContain(t, http.StatusOK, "exowner/secretrepo")
		if p := anon.Get("/explore"); p.Status != http.StatusSeeOther || p.Location != "/explore/repos" {
			t.Fatalf("/explore: %d %q", p.Status, p.Location)
		}
	})

	t.Run("explore users and organizations", func(t *testing.T) {
		p := anon.Get("/explore/users")
		p.MustContain(t, http.StatusOK, `href="/exowner"`, `href="/exstranger"`)
		peopleLack(t, p, "exhidden", "exlimited")
		p = ws.Get("/explore/users")
		p.MustContain(t, http.StatusOK, `href="/exlimited"`)
		peopleLack(t, p, "exhidden")
		wa.Get("/explore/users?q=exhid").MustContain(t, http.StatusOK, `href="/exhidden"`)
		anon.Get("/explore/users?q=exown").MustContain(t, http.StatusOK, `href="/exowner"`)

		p = anon.Get("/explore/organizations")
		p.MustContain(t, http.StatusOK, `href="/expuborg"`, "Public Org")
		peopleLack(t, p, "exsecretorg")
		peopleLack(t, ws.Get("/explore/organizations"), "exsecretorg")
		wo.Get("/explore/organizations").MustContain(t, http.StatusOK, `href="/exsecretorg"`)
	})

	t.Run("profiles", func(t *testing.T) {
		p := anon.Get("/exowner")
		p.MustContain(t, http.StatusOK, "exowner", "pubrepo", "0 followers")
		peopleLack(t, p, "secretrepo", "exsecretorg")
		p = wo.Get("/exowner")
		p.MustContain(t, http.StatusOK, "pubrepo", "secretrepo", `href="/exsecretorg"`, "Edit profile")
		// A private user is missing to strangers, there to himself and admins.
		anon.Get("/exhidden").MustContain(t, http.StatusNotFound)
		ws.Get("/exhidden").MustContain(t, http.StatusNotFound)
		wh := s.Web(t)
		wh.SignIn(hidden.Name, hidden.Password)
		wh.Get("/exhidden").MustContain(t, http.StatusOK, "hiddenrepo")
		wa.Get("/exhidden").MustContain(t, http.StatusOK, "hiddenrepo")
		// A limited user is seen by signed-in users only.
		anon.Get("/exlimited").MustContain(t, http.StatusNotFound)
		ws.Get("/exlimited").MustContain(t, http.StatusOK, "exlimited")
		anon.Get("/no-such-account").MustContain(t, http.StatusNotFound)

		// Organizations: private ones are missing to outsiders; members see
		// private repositories and the teams.
		anon.Get("/exsecretorg").MustContain(t, http.StatusNotFound)
		ws.Get("/exsecretorg").MustContain(t, http.StatusNotFound)
		wo.Get("/exsecretorg").MustContain(t, http.StatusOK, "orgrepo", "Owners", `href="/exowner"`, "New repository")
		p = anon.Get("/expuborg")
		p.MustContain(t, http.StatusOK, "Public Org", "Members")
		peopleLack(t, p, "Owners", "New repository")

		// Following through the profile, and the followers tab.
		ws.Get("/exowner")
		ws.Post("/exowner", url.Values{"action": {"follow"}}).MustContain(t, http.StatusSeeOther)
		anon.Get("/exowner?tab=followers").MustContain(t, http.StatusOK, `href="/exstranger"`, "1 followers")
		anon.Get("/exstranger?tab=following").MustContain(t, http.StatusOK, `href="/exowner"`)
		ws.Get("/exowner").MustContain(t, http.StatusOK, "Unfollow")
		if p := anon.Post("/exowner", url.Values{"action": {"follow"}}); p.Status == http.StatusSeeOther && p.Location == "/exowner" {
			t.Fatal("signed-out visitor followed")
		}
	})

	t.Run("dashboard lists repositories a collaborator may access", func(t *testing.T) {
		peopleLack(t, ws.Get("/"), "exowner/secretrepo")
		k.want(k.do("PUT", "repos/exowner/secretrepo/collaborators/exstranger", owner.Token, map[string]any{"permission": "write"}), 204, "", "add collaborator")
		k.want(k.do("POST", "repos/exowner/secretrepo/issues", owner.Token, map[string]any{"title": "fix it", "assignees": []string{"exstranger"}}), 201, "", "assigned issue")
		p := ws.Get("/")
		p.MustContain(t, http.StatusOK, "Dashboard", "exowner/secretrepo", `id="assigned-issues">1<`, `id="assigned-pulls">0<`)
		peopleLack(t, p, "exsecretorg")
		// The owner sees their repositories and organizations.
		wo.Get("/").MustContain(t, http.StatusOK, "exowner/pubrepo", "exowner/secretrepo", "exsecretorg/orgrepo", `href="/exsecretorg"`)
		// Without access the repository and the count go away.
		k.want(k.do("DELETE", "repos/exowner/secretrepo/collaborators/exstranger", owner.Token, nil), 204, "", "remove collaborator")
		p = ws.Get("/")
		p.MustContain(t, http.StatusOK, `id="assigned-issues">0<`)
		peopleLack(t, p, "exowner/secretrepo")
	})
}
