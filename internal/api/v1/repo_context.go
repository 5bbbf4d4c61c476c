package v1

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoContext is the repository a /repos/{owner}/{repo} request acts on.
type repoContext struct {
	Owner *user.User
	Repo  *repo.Repository
	Perm  access.RepoPerm
}

type repoKey struct{}

func currentRepo(r *http.Request) *repoContext {
	rc, _ := r.Context().Value(repoKey{}).(*repoContext)
	return rc
}

// loadRepo loads owner/name and the caller's permission; a repository the
// caller cannot see answers exactly like one that does not exist.
func (a *API) loadRepo(ctx context.Context, r *http.Request, ownerName, name string) (*repoContext, error) {
	rp, owner, err := a.Repos.GetWithOwner(ctx, ownerName, name)
	if err != nil {
		return nil, err
	}
	return a.repoContextFor(ctx, r, rp, owner, repo.ErrNotExist(ownerName, name))
}

// loadRepoByID is loadRepo for a repository id: a repository the caller
// cannot see answers repo.ErrIDNotExist, naming neither owner nor name.
func (a *API) loadRepoByID(ctx context.Context, r *http.Request, id int64) (*repoContext, error) {
	rp, err := a.Repos.GetByID(ctx, id)
	if err != nil {
		return nil, err
	}
	owner, err := a.Users.Store.GetByID(ctx, rp.OwnerID)
	if errs.IsNotFound(err) {
		err = repo.ErrIDNotExist(id)
	}
	if err != nil {
		return nil, err
	}
	return a.repoContextFor(ctx, r, rp, owner, repo.ErrIDNotExist(id))
}

// repoContextFor computes the caller's permission on rp, answering hidden
// when the caller may not see it.
func (a *API) repoContextFor(ctx context.Context, r *http.Request, rp *repo.Repository, owner *user.User, hidden error) (*repoContext, error) {
	perm, err := a.Access.RepoPermission(ctx, doer(r), rp, owner)
	if err != nil {
		return nil, err
	}
	if !perm.HasAccess() {
		return nil, hidden
	}
	if id := identity(r); id != nil && id.Token != nil && id.Token.Scope.PublicOnly && rp.IsPrivate {
		return nil, errs.Forbidden("token scope is limited to public repos")
	}
	return &repoContext{Owner: owner, Repo: rp, Perm: perm}, nil
}

// repoAssignment loads {owner}/{repo} for every route below it.
func (a *API) repoAssignment(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc, err := a.loadRepo(r.Context(), r, chi.URLParam(r, "owner"), chi.URLParam(r, "repo"))
		if err != nil {
			a.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), repoKey{}, rc)))
	})
}

// reqRepoAdmin lets through signed-in repository administrators (Gitea's
// reqToken, then reqAdmin).
func (a *API) reqRepoAdmin(next http.Handler) http.Handler {
	return a.signedIn(a.reqRepoAdminBeforeToken(next))
}

// reqRepoAdminBeforeToken lets through repository administrators without
// asking for a signed-in caller first, where Gitea puts reqAdmin before
// reqToken: a signed-out caller, never an administrator, then gets 403 on a
// public repository, not 401.
func (a *API) reqRepoAdminBeforeToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !currentRepo(r).Perm.IsAdmin() {
			a.errorJSON(w, http.StatusForbidden, "user should be an owner or a collaborator with admin write of a repository")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// reqRepoOwner lets through the owner, organization owners and site admins.
func (a *API) reqRepoOwner(next http.Handler) http.Handler {
	return a.signedIn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !currentRepo(r).Perm.IsOwner() {
			a.errorJSON(w, http.StatusForbidden, "user should be the owner of the repo")
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// reqUnitRead answers 404 when unit is disabled or the caller cannot read it.
func (a *API) reqUnitRead(unit string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc := currentRepo(r)
			if !rc.Repo.HasUnit(unit) || !rc.Perm.CanRead(unit) {
				a.notFound(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// reqUnitWrite needs write access to unit: 404 when the unit is disabled or
// unreadable, 403 when readable only.
func (a *API) reqUnitWrite(unit string) func(http.Handler) http.Handler {
	check := a.reqUnitWriteBeforeToken(unit)
	return func(next http.Handler) http.Handler { return a.signedIn(check(next)) }
}

// reqUnitWriteBeforeToken checks write access to unit without asking for a
// signed-in caller first, where Gitea puts reqRepoWriter before reqToken: a
// signed-out caller, who never has write access, then gets 403 on a public
// repository (404 on a private one), not 401.
func (a *API) reqUnitWriteBeforeToken(unit string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc := currentRepo(r)
			if !rc.Repo.HasUnit(unit) || !rc.Perm.CanRead(unit) {
				a.notFound(w, r)
				return
			}
			if !rc.Perm.CanWrite(unit) {
				msg := "user should have a permission to write to a repo"
				if rc.Repo.IsArchived {
					msg = "repo is archived"
				}
				a.errorJSON(w, http.StatusForbidden, msg)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
