package v1

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoRelationRoutes registers the /repos/{owner}/{repo} routes of
// collaborators, stars and watches, topics, forks, transfers and mirrors.
func (a *API) repoRelationRoutes(r chi.Router) {
	a.collaboratorRoutes(r)
	a.repoStarWatchRoutes(r)
	a.topicRoutes(r)
	a.forkRoutes(r)
	a.transferRoutes(r)
	a.mirrorRoutes(r)
}

// collaboratorRoutes: Gitea puts the whole group behind reqToken; listing
// and checking need any access to the repository (already given by
// repoAssignment), changes need repository admin.
func (a *API) collaboratorRoutes(r chi.Router) {
	r.With(a.signedIn).Get("/collaborators", a.listCollaborators)
	r.With(a.signedIn).Get("/collaborators/{collaborator}", a.checkCollaborator)
	r.With(a.reqRepoAdmin).Put("/collaborators/{collaborator}", a.addCollaborator)
	r.With(a.reqRepoAdmin).Delete("/collaborators/{collaborator}", a.deleteCollaborator)
	r.With(a.signedIn).Get("/collaborators/{collaborator}/permission", a.getCollaboratorPermission)
}

// decodeOptional decodes a JSON body when there is one.
func decodeOptional(r *http.Request, v any) error {
	if r.ContentLength == 0 {
		return nil
	}
	if err := decode(r, v); err != nil && !strings.Contains(err.Error(), "request body is empty") {
		return err
	}
	return nil
}

// collaboratorUser loads the individual named by {collaborator}: an unknown
// name answers 422, as Gitea does, and so does a user the caller may not see
// unless a repository administrator asks about a collaborator.
func (a *API) collaboratorUser(w http.ResponseWriter, r *http.Request, status int) (*user.User, bool) {
	name := chi.URLParam(r, "collaborator")
	rc := currentRepo(r)
	var known []relation
	if rc.Perm.IsAdmin() {
		known = append(known, func(ctx context.Context, u *user.User) (bool, error) {
			return a.Repos.IsCollaborator(ctx, rc.Repo.ID, u.ID)
		})
	}
	u, err := a.visibleIndividual(r, name, known...)
	if err != nil {
		if errs.IsNotFound(err) {
			a.fail(w, r, user.ErrNameNotExist(name).WithStatus(status))
		} else {
			a.fail(w, r, err)
		}
		return nil, false
	}
	return u, true
}

// listCollaborators serves GET /repos/{owner}/{repo}/collaborators.
func (a *API) listCollaborators(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	pg := a.paging(r)
	cond, args := access.UserCond(viewer(r))
	list, total, err := a.Repos.ListCollaborators(r.Context(), rc.Repo.ID, cond, args, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, a.toUsers(list, doer(r)))
}

// checkCollaborator serves GET /repos/{owner}/{repo}/collaborators/{collaborator}: 204 or 404.
func (a *API) checkCollaborator(w http.ResponseWriter, r *http.Request) {
	u, ok := a.collaboratorUser(w, r, http.StatusUnprocessableEntity)
	if !ok {
		return
	}
	is, err := a.Repos.IsCollaborator(r.Context(), currentRepo(r).Repo.ID, u.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !is {
		a.notFound(w, r)
		return
	}
	empty(w, http.StatusNoContent)
}

// addCollaborator serves PUT /repos/{owner}/{repo}/collaborators/{collaborator}.
func (a *API) addCollaborator(w http.ResponseWriter, r *http.Request) {
	var o types.AddCollaboratorOption
	if err := decodeOptional(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	mode := repo.CollabWrite
	if o.Permission != nil {
		m, ok := repo.ParseCollabMode(*o.Permission)
		if !ok {
			a.fail(w, r, errs.InvalidField("permission", "[Permission]: In (read, write, admin)"))
			return
		}
		mode = m
	}
	u, ok := a.collaboratorUser(w, r, http.StatusUnprocessableEntity)
	if !ok {
		return
	}
	if err := a.Repos.AddCollaborator(r.Context(), currentRepo(r).Repo, u, mode); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// deleteCollaborator serves DELETE /repos/{owner}/{repo}/collaborators/{collaborator}.
func (a *API) deleteCollaborator(w http.ResponseWriter, r *http.Request) {
	u, ok := a.collaboratorUser(w, r, http.StatusUnprocessableEntity)
	if !ok {
		return
	}
	if err := a.Repos.RemoveCollaborator(r.Context(), currentRepo(r).Repo, u); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// getCollaboratorPermission serves GET .../collaborators/{collaborator}/permission:
// site admins and repository admins may ask about anyone, others only about
// themselves.
func (a *API) getCollaboratorPermission(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	d := doer(r)
	name := chi.URLParam(r, "collaborator")
	if !d.IsAdmin && !strings.EqualFold(d.LowerName, name) && !rc.Perm.IsAdmin() {
		a.errorJSON(w, http.StatusForbidden, "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own")
		return
	}
	u, ok := a.collaboratorUser(w, r, http.StatusNotFound)
	if !ok {
		return
	}
	perm, err := a.Access.RepoPermission(r.Context(), u, rc.Repo, rc.Owner)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	mode := perm.Mode
	if !perm.HasAccess() {
		mode = access.ModeNone
	}
	writeJSON(w, http.StatusOK, types.RepoCollaboratorPermission{
		Permission: mode.String(), RoleName: mode.String(), User: a.toUser(u, d),
	})
}
