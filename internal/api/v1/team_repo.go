package v1

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoTeamRoutes registers /repos/{owner}/{repo}/teams: the teams of the
// owning organization that reach the repository. Signed-in callers only.
func (a *API) repoTeamRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.signedIn)
		r.Get("/teams", a.listRepoTeams)
		r.Get("/teams/{team}", a.checkRepoTeam)
		r.Put("/teams/{team}", a.addRepoTeam)
		r.Delete("/teams/{team}", a.removeRepoTeam)
	})
}

// teamRepoNamed loads the repository {repo} of team t's organization (the
// {org} segment is not consulted, as in Gitea) when the caller may see it.
func (a *API) teamRepoNamed(w http.ResponseWriter, r *http.Request, tc *teamCtx) (*repoContext, bool) {
	rc, err := a.loadRepo(r.Context(), r, tc.org.Name, chi.URLParam(r, "repo"))
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return rc, true
}

// listTeamRepos serves GET /teams/{id}/repos: the repositories the team
// reaches (every repository of the organization for a team that includes
// them all), paginated. Only team members and organization owners get here,
// and each of them sees every such repository.
func (a *API) listTeamRepos(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeam(w, r)
	if !ok {
		return
	}
	where := "r.owner_id = ?"
	args := []any{tc.org.ID}
	if !tc.team.IncludesAllRepositories {
		where += " AND r.id IN (SELECT tr.repo_id FROM team_repo tr WHERE tr.team_id = ?)"
		args = append(args, tc.team.ID)
	}
	a.listReposWhere(w, r, where, args, "r.lower_name, r.id", false)
}

// getTeamRepo serves GET /teams/{id}/repos/{org}/{repo}: the repository when
// the team reaches it, else 404.
func (a *API) getTeamRepo(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeam(w, r)
	if !ok {
		return
	}
	rc, ok := a.teamRepoNamed(w, r, tc)
	if !ok {
		return
	}
	if err := a.teamReaches(r.Context(), tc.team, rc.Repo); err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toRepoOne(r.Context(), doer(r), rc.Repo)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// addTeamRepo serves PUT /teams/{id}/repos/{org}/{repo}: a member of the
// team (or an owner of the organization) with admin access to the repository
// gives it to the team.
func (a *API) addTeamRepo(w http.ResponseWriter, r *http.Request) {
	a.changeTeamRepo(w, r, true)
}

// removeTeamRepo serves DELETE /teams/{id}/repos/{org}/{repo}, with the same
// rights as addTeamRepo.
func (a *API) removeTeamRepo(w http.ResponseWriter, r *http.Request) {
	a.changeTeamRepo(w, r, false)
}

func (a *API) changeTeamRepo(w http.ResponseWriter, r *http.Request, add bool) {
	tc, ok := a.loadTeam(w, r)
	if !ok {
		return
	}
	rc, ok := a.teamRepoNamed(w, r, tc)
	if !ok {
		return
	}
	if !rc.Perm.IsAdmin() {
		a.errorJSON(w, http.StatusForbidden, "Must have admin-level access to the repository")
		return
	}
	var err error
	if add {
		err = a.Orgs.AddTeamRepo(r.Context(), tc.team, rc.Repo.ID)
	} else {
		err = a.Orgs.RemoveTeamRepo(r.Context(), tc.team, rc.Repo.ID)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// orgOwnedRepo refuses, with Gitea's 405, a repository that no organization
// owns.
func (a *API) orgOwnedRepo(w http.ResponseWriter, rc *repoContext) bool {
	if !rc.Owner.IsOrganization() {
		a.errorJSON(w, http.StatusMethodNotAllowed, "repo is not owned by an organization")
		return false
	}
	return true
}

// repoTeamNamed loads the team {team} of the organization owning the
// current repository.
func (a *API) repoTeamNamed(w http.ResponseWriter, r *http.Request, rc *repoContext) (*org.Team, bool) {
	t, err := a.Orgs.GetTeamByName(r.Context(), rc.Owner, chi.URLParam(r, "team"))
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return t, true
}

// readableOrgRepo is the current repository when the caller can read it and
// an organization owns it (404 and Gitea's 405 otherwise).
func (a *API) readableOrgRepo(w http.ResponseWriter, r *http.Request) (*repoContext, bool) {
	rc := currentRepo(r)
	if !rc.Perm.HasAccess() {
		a.notFound(w, r)
		return nil, false
	}
	return rc, a.orgOwnedRepo(w, rc)
}

// listRepoTeams serves GET /repos/{owner}/{repo}/teams (readers).
func (a *API) listRepoTeams(w http.ResponseWriter, r *http.Request) {
	rc, ok := a.readableOrgRepo(w, r)
	if !ok {
		return
	}
	list, err := a.Orgs.ListRepoTeams(r.Context(), rc.Owner.ID, rc.Repo.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toTeams(list, map[int64]*user.User{rc.Owner.ID: rc.Owner}, doer(r)))
}

// checkRepoTeam serves GET /repos/{owner}/{repo}/teams/{team} (readers): the
// team when it reaches the repository, else 404. Readers need not see the
// organization's other teams, so a team that does not reach the repository
// answers exactly like one that does not exist.
func (a *API) checkRepoTeam(w http.ResponseWriter, r *http.Request) {
	rc, ok := a.readableOrgRepo(w, r)
	if !ok {
		return
	}
	t, ok := a.repoTeamNamed(w, r, rc)
	if !ok {
		return
	}
	if err := a.teamReaches(r.Context(), t, rc.Repo); err != nil {
		if errs.IsNotFound(err) {
			err = org.ErrTeamNameNotExist(rc.Owner, chi.URLParam(r, "team"))
		}
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toTeam(t, rc.Owner, doer(r)))
}

// addRepoTeam serves PUT /repos/{owner}/{repo}/teams/{team}.
func (a *API) addRepoTeam(w http.ResponseWriter, r *http.Request) {
	a.changeRepoTeam(w, r, true)
}

// removeRepoTeam serves DELETE /repos/{owner}/{repo}/teams/{team}.
func (a *API) removeRepoTeam(w http.ResponseWriter, r *http.Request) {
	a.changeRepoTeam(w, r, false)
}

// changeRepoTeam gives the repository to a team or takes it away. As in
// Gitea: repository administrators may, owners of the organization may, and
// when the organization lets repository administrators change team access
// (repo_admin_change_team_access) plain repository administrators may too.
func (a *API) changeRepoTeam(w http.ResponseWriter, r *http.Request, add bool) {
	rc := currentRepo(r)
	if !rc.Perm.IsAdmin() {
		a.errorJSON(w, http.StatusForbidden, "user is nor repo admin nor owner")
		return
	}
	if !a.orgOwnedRepo(w, rc) {
		return
	}
	if !rc.Owner.RepoAdminChangeTeamAccess && !rc.Perm.IsOwner() {
		a.errorJSON(w, http.StatusForbidden, "user is nor repo admin nor owner")
		return
	}
	t, ok := a.repoTeamNamed(w, r, rc)
	if !ok {
		return
	}
	if err := a.Orgs.ChangeRepoTeam(r.Context(), t, rc.Repo.ID, add); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// teamReaches is nil when team t reaches repository rp, errs.NotFound otherwise.
func (a *API) teamReaches(ctx context.Context, t *org.Team, rp *repo.Repository) error {
	has, err := a.Orgs.TeamHasRepo(ctx, t, rp.ID)
	if err == nil && !has {
		err = errs.NotFound("team %s does not have repository %s", t.Name, rp.Name)
	}
	return err
}
