package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// teamRepoKit is an organization "acme" with a private repository "app", a
// second repository "site", a team "devs" (write on code and issues) with
// member dev, and a team "all" that includes every repository.
type teamRepoKit struct {
	s                    *Server
	owner, dev, stranger *User
	devs, all            int64
}

func newTeamRepoKit(t *testing.T) *teamRepoKit {
	t.Helper()
	s := StartServer(t)
	k := &teamRepoKit{s: s, owner: s.CreateUser("owner"), dev: s.CreateUser("dev"), stranger: s.CreateUser("stranger")}
	mustStatus(t, s.Do("POST", "api/v1/orgs", Token(k.owner.Token), JSON(map[string]any{"username": "acme"})), http.StatusCreated, "org")
	for _, name := range []string{"app", "site"} {
		mustStatus(t, s.Do("POST", "api/v1/orgs/acme/repos", Token(k.owner.Token), JSON(map[string]any{"name": name, "private": true})), http.StatusCreated, "repo "+name)
	}
	team := func(name string, all bool) int64 {
		resp := s.Do("POST", "api/v1/orgs/acme/teams", Token(k.owner.Token), JSON(map[string]any{"name": name, "permission": "write",
			"units": []string{"repo.code", "repo.issues"}, "includes_all_repositories": all}))
		mustStatus(t, resp, http.StatusCreated, "team "+name)
		var tm struct {
			ID int64 `json:"id"`
		}
		resp.Decode(t, &tm)
		return tm.ID
	}
	k.devs, k.all = team("devs", false), team("all", true)
	mustStatus(t, s.Do("PUT", fmt.Sprintf("api/v1/teams/%d/members/dev", k.devs), Token(k.owner.Token)), http.StatusNoContent, "member")
	return k
}

func repoNames(t *testing.T, r *Response) string {
	t.Helper()
	var list []struct {
		FullName string `json:"full_name"`
	}
	r.Decode(t, &list)
	var names []string
	for _, x := range list {
		names = append(names, x.FullName)
	}
	return strings.Join(names, ",")
}

// TestTeamRepositories: giving a repository to a team through /teams/{id}/repos
// and /repos/{owner}/{repo}/teams, what each side lists, who may change it,
// and the access it brings.
func TestTeamRepositories(t *testing.T) {
	k := newTeamRepoKit(t)
	s := k.s
	devsRepos := fmt.Sprintf("api/v1/teams/%d/repos", k.devs)

	// Before: the member cannot see the private repository.
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/app", Token(k.dev.Token)), http.StatusNotFound, "dev reads app before")
	if got := repoNames(t, s.Do("GET", devsRepos, Token(k.dev.Token))); got != "" {
		t.Fatalf("devs repositories before = %q", got)
	}
	mustStatus(t, s.Do("GET", devsRepos+"/acme/app", Token(k.dev.Token)), http.StatusNotFound, "team repo before")
	// A team member cannot give a repository without admin rights on it: one
	// it cannot see stays hidden (404), a public one is refused (403).
	mustStatus(t, s.Do("PUT", devsRepos+"/acme/app", Token(k.dev.Token)), http.StatusNotFound, "member adds a hidden repository")
	mustStatus(t, s.Do("POST", "api/v1/orgs/acme/repos", Token(k.owner.Token), JSON(map[string]any{"name": "docs"})), http.StatusCreated, "public repo")
	r := s.Do("PUT", devsRepos+"/acme/docs", Token(k.dev.Token))
	mustStatus(t, r, http.StatusForbidden, "member adds a repository")
	if !strings.Contains(string(r.Body), "admin-level access") {
		t.Fatalf("refusal message: %s", r.Body)
	}
	// Someone outside the organization does not see the team at all.
	mustStatus(t, s.Do("PUT", devsRepos+"/acme/app", Token(k.stranger.Token)), http.StatusNotFound, "stranger adds a repository")
	mustStatus(t, s.Do("PUT", devsRepos+"/acme/nothing", Token(k.owner.Token)), http.StatusNotFound, "unknown repository")

	// The owner gives it (twice: the second changes nothing).
	mustStatus(t, s.Do("PUT", devsRepos+"/acme/app", Token(k.owner.Token)), http.StatusNoContent, "owner adds app")
	mustStatus(t, s.Do("PUT", devsRepos+"/acme/app", Token(k.owner.Token)), http.StatusNoContent, "owner adds app again")
	r = s.Do("GET", devsRepos, Token(k.dev.Token))
	mustStatus(t, r, http.StatusOK, "list devs repositories")
	if got := repoNames(t, r); got != "acme/app" || r.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("devs repositories = %q (total %s)", got, r.Header.Get("X-Total-Count"))
	}
	mustStatus(t, s.Do("GET", devsRepos+"/acme/app", Token(k.dev.Token)), http.StatusOK, "team repo")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/app", Token(k.dev.Token)), http.StatusOK, "dev reads app")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/site", Token(k.dev.Token)), http.StatusNotFound, "dev reads site")
	// The team that includes every repository lists them all.
	if got := repoNames(t, s.Do("GET", fmt.Sprintf("api/v1/teams/%d/repos", k.all), Token(k.owner.Token))); got != "acme/app,acme/docs,acme/site" {
		t.Fatalf("all-repositories team lists %q", got)
	}

	// The repository's side.
	var teams []struct {
		Name string `json:"name"`
	}
	r = s.Do("GET", "api/v1/repos/acme/app/teams", Token(k.dev.Token))
	mustStatus(t, r, http.StatusOK, "repo teams")
	r.Decode(t, &teams)
	if len(teams) != 3 || teams[0].Name != "Owners" || teams[1].Name != "all" || teams[2].Name != "devs" {
		t.Fatalf("teams of app = %+v", teams)
	}
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/app/teams/devs", Token(k.dev.Token)), http.StatusOK, "check devs")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/site/teams/devs", Token(k.owner.Token)), http.StatusNotFound, "devs lacks site")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/app/teams/ghosts", Token(k.owner.Token)), http.StatusNotFound, "unknown team")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/app/teams", Token(k.stranger.Token)), http.StatusNotFound, "stranger lists teams")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/docs/teams"), http.StatusUnauthorized, "signed out lists teams")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/app/teams"), http.StatusNotFound, "signed out lists teams of a private repository")
	wantMsg := func(r *Response, status int, msg, what string) {
		t.Helper()
		mustStatus(t, r, status, what)
		if !strings.Contains(string(r.Body), msg) {
			t.Fatalf("%s: %s", what, r.Body)
		}
	}
	wantMsg(s.Do("PUT", "api/v1/repos/acme/app/teams/devs", Token(k.owner.Token)), http.StatusUnprocessableEntity, "already added", "add twice")
	wantMsg(s.Do("DELETE", "api/v1/repos/acme/site/teams/devs", Token(k.owner.Token)), http.StatusUnprocessableEntity, "was not added", "remove absent")
	wantMsg(s.Do("PUT", "api/v1/repos/acme/site/teams/devs", Token(k.dev.Token)), http.StatusNotFound, "", "member without access adds site")
	wantMsg(s.Do("DELETE", "api/v1/repos/acme/app/teams/devs", Token(k.dev.Token)), http.StatusForbidden, "nor repo admin nor owner", "writer removes")
	mustStatus(t, s.Do("PUT", "api/v1/repos/acme/site/teams/devs", Token(k.owner.Token)), http.StatusNoContent, "owner adds site")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/site", Token(k.dev.Token)), http.StatusOK, "dev reads site")
	mustStatus(t, s.Do("DELETE", "api/v1/repos/acme/app/teams/devs", Token(k.owner.Token)), http.StatusNoContent, "owner removes app")
	mustStatus(t, s.Do("GET", "api/v1/repos/acme/app", Token(k.dev.Token)), http.StatusNotFound, "dev reads app after")
	mustStatus(t, s.Do("DELETE", devsRepos+"/acme/site", Token(k.owner.Token)), http.StatusNoContent, "owner removes site through the team")
	if got := repoNames(t, s.Do("GET", devsRepos, Token(k.dev.Token))); got != "" {
		t.Fatalf("devs repositories after = %q", got)
	}

	// A repository no organization owns has no teams.
	createRepo(t, s, k.dev, "mine", false)
	wantMsg(s.Do("GET", "api/v1/repos/dev/mine/teams", Token(k.dev.Token)), http.StatusMethodNotAllowed, "not owned by an organization", "user repository teams")
	wantMsg(s.Do("PUT", "api/v1/repos/dev/mine/teams/devs", Token(k.dev.Token)), http.StatusMethodNotAllowed, "not owned by an organization", "user repository add team")
}
