package v1

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoIssueHelperRoutes registers the repository-scoped helpers of the issue
// tracker: who can be assigned, whether another pin is allowed, and the
// issue templates and configuration of the default branch.
func (a *API) repoIssueHelperRoutes(r chi.Router) {
	r.With(a.signedIn).Get("/assignees", a.listAssignees)
	r.Get("/new_pin_allowed", a.newPinAllowed)
	r.Get("/issue_templates", a.listIssueTemplates)
	r.Get("/issue_config", a.getIssueConfig)
	r.Get("/issue_config/validate", a.validateIssueConfig)
}

// listAssignees serves GET /repos/{owner}/{repo}/assignees: the active
// accounts that may write the repository's issues through a right of their
// own — collaborators with write access or more, members of the
// organization's teams that reach the repository with write access to
// issues — sorted by name, then the owning user, as Gitea lists them.
// Site administrators are not listed for that alone. Three queries.
func (a *API) listAssignees(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !rc.Perm.HasAccess() {
		a.notFound(w, r)
		return
	}
	ctx := r.Context()
	list, err := a.usersWithUnit(ctx, rc, repo.UnitIssues, access.ModeWrite)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toUsers(list, doer(r)))
}

// newPinAllowed serves GET /repos/{owner}/{repo}/new_pin_allowed: whether
// one more issue, and one more pull request, may be pinned.
func (a *API) newPinAllowed(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	max := a.Config.RepositoryIssue.MaxPinned
	var out types.NewIssuePinsAllowed
	var err error
	if out.Issues, err = a.Issues.PinAllowed(r.Context(), rc.Repo.ID, false, max); err == nil {
		out.PullRequests, err = a.Issues.PinAllowed(r.Context(), rc.Repo.ID, true, max)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// usersWithUnit lists the active individual accounts that reach unit of the
// repository at level min or above as collaborators or through a team
// (owner teams reach everything), plus the owning user, ordered by name.
func (a *API) usersWithUnit(ctx context.Context, rc *repoContext, unit string, min access.Mode) ([]*user.User, error) {
	where := "u.id IN (SELECT c.user_id FROM collaboration c WHERE c.repo_id = ? AND c.mode >= ?)"
	args := []any{rc.Repo.ID, int(min)}
	if rc.Owner.IsOrganization() {
		teams, err := a.Orgs.ListRepoTeams(ctx, rc.Owner.ID, rc.Repo.ID)
		if err != nil {
			return nil, err
		}
		var ids []int64
		for _, t := range teams {
			if t.Authorize == access.ModeOwner || t.UnitMode(unit) >= min {
				ids = append(ids, t.ID)
			}
		}
		if len(ids) > 0 {
			where += " OR u.id IN (SELECT tu.uid FROM team_user tu WHERE tu.team_id IN " + db.In(len(ids)) + ")"
			args = append(args, db.Int64Args(ids)...)
		}
	}
	list, err := a.Users.Store.List(ctx, "WHERE ("+where+") AND u.type = ? AND u.is_active = ? ORDER BY u.lower_name, u.id",
		append(args, int(user.TypeIndividual), true)...)
	if err != nil {
		return nil, err
	}
	if !rc.Owner.IsOrganization() && rc.Owner.IsActive {
		listed := false
		for _, u := range list {
			listed = listed || u.ID == rc.Owner.ID
		}
		if !listed {
			list = append(list, rc.Owner)
		}
	}
	return list, nil
}
