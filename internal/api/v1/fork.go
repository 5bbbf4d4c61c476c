package v1

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// forkRoutes: forks are listed to anyone who sees the repository (only the
// forks they may see); forking needs read access to the code.
func (a *API) forkRoutes(r chi.Router) {
	r.Get("/forks", a.listForks)
	r.With(a.signedIn, a.reqUnitRead(repo.UnitCode)).Post("/forks", a.createFork)
	r.With(a.reqUnitWrite(repo.UnitCode)).Post("/merge-upstream", a.mergeUpstream)
}

// mergeUpstream serves POST /repos/{owner}/{repo}/merge-upstream: a writer of
// a fork brings one of its branches (the default branch when none is named)
// up to date with the repository it was forked from, which the caller must
// be able to read.
func (a *API) mergeUpstream(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var in types.MergeUpstreamRequest
	if r.ContentLength != 0 {
		if err := decode(r, &in); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	if !rc.Repo.IsFork || rc.Repo.ForkID == 0 {
		a.fail(w, r, errs.BadRequest("the repository is not a fork"))
		return
	}
	ctx := r.Context()
	parent, err := a.Repos.GetByID(ctx, rc.Repo.ForkID)
	if errs.IsNotFound(err) {
		err = errs.NotFound("the repository this one was forked from no longer exists")
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// The caller must see the upstream and read its code, as for any route of it.
	up, err := a.loadRepo(ctx, r, parent.OwnerName, parent.Name)
	if errs.IsNotFound(err) || (err == nil && (!up.Repo.HasUnit(repo.UnitCode) || !up.Perm.CanRead(repo.UnitCode))) {
		// Hidden from the caller: named neither here nor by loadRepo's error.
		err = errs.NotFound("the repository this one was forked from no longer exists")
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	branch := strings.TrimSpace(in.Branch)
	if branch == "" {
		branch = rc.Repo.DefaultBranch
	}
	style, err := a.Repos.MergeUpstream(ctx, doer(r), rc.Repo, up.Repo, branch)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, types.MergeUpstreamResponse{MergeStyle: style})
}

// templateAssignment loads {template_owner}/{template_repo} as the current
// repository, like repoAssignment.
func (a *API) templateAssignment(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc, err := a.loadRepo(r.Context(), r, chi.URLParam(r, "template_owner"), chi.URLParam(r, "template_repo"))
		if err != nil {
			a.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), repoKey{}, rc)))
	})
}

// listForks serves GET /repos/{owner}/{repo}/forks.
func (a *API) listForks(w http.ResponseWriter, r *http.Request) {
	a.listReposWhere(w, r, "r.fork_id = ? AND r.is_fork = ?", []any{currentRepo(r).Repo.ID, true}, "r.created_unix, r.id", false)
}

// orgForNewRepo resolves the organization named in a request as the owner
// of a repository the caller creates there: unknown or invisible answers
// 422, and the caller needs the right to create repositories in it.
func (a *API) orgForNewRepo(w http.ResponseWriter, r *http.Request, name string) (*user.User, bool) {
	ctx := r.Context()
	o, err := a.visibleOrg(r, name)
	if err != nil {
		if errs.IsNotFound(err) {
			err = errs.Invalid("organization does not exist [name: %s]", name)
		}
		a.fail(w, r, err)
		return nil, false
	}
	role, err := a.Access.RoleInOrg(ctx, doer(r), o)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	if !role.Member && !role.CanCreateRepo {
		a.errorJSON(w, http.StatusForbidden, "User is no Member of Organisation '"+o.Name+"'")
		return nil, false
	}
	if !role.CanCreateRepo {
		a.errorJSON(w, http.StatusForbidden, "User is not allowed to create repositories in organisation '"+o.Name+"'")
		return nil, false
	}
	return o, true
}

// createFork serves POST /repos/{owner}/{repo}/forks: 202 with the fork.
func (a *API) createFork(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var o types.CreateForkOption
	if err := decodeOptional(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	owner := doer(r)
	if o.Organization != nil && *o.Organization != "" {
		var ok bool
		if owner, ok = a.orgForNewRepo(w, r, *o.Organization); !ok {
			return
		}
	}
	var opts repo.ForkOptions
	if o.Name != nil {
		if err := firstErr(required("name", *o.Name), maxLen("name", *o.Name, repo.MaxNameLength)); err != nil {
			a.fail(w, r, err)
			return
		}
		opts.Name = *o.Name
	}
	fork, err := a.Repos.Fork(r.Context(), doer(r), owner, rc.Repo, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRepo(w, r, http.StatusAccepted, fork)
}

// generateRepo serves POST /repos/{template_owner}/{template_repo}/generate:
// 201 with the new repository.
func (a *API) generateRepo(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !rc.Repo.IsTemplate {
		a.fail(w, r, errs.Invalid("this is not a template repo"))
		return
	}
	var o types.GenerateRepoOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := firstErr(required("owner", o.Owner), required("name", o.Name), maxLen("name", o.Name, repo.MaxNameLength),
		maxLen("description", o.Description, 2048)); err != nil {
		a.fail(w, r, err)
		return
	}
	if !(o.GitContent || o.Topics || o.GitHooks || o.Webhooks || o.Avatar || o.Labels || o.ProtectedBranch) {
		a.fail(w, r, errs.Invalid("must select at least one template item"))
		return
	}
	d := doer(r)
	owner := d
	if !strings.EqualFold(o.Owner, d.Name) {
		u, err := a.visibleAccount(r, o.Owner)
		if err != nil {
			if errs.IsNotFound(err) {
				err = errs.NotFound("request owner `%s` does not exist", o.Owner)
			}
			a.fail(w, r, err)
			return
		}
		switch {
		case d.IsAdmin:
		case !u.IsOrganization():
			a.errorJSON(w, http.StatusForbidden, "Only admin can generate repository for other user.")
			return
		default:
			role, err := a.Access.RoleInOrg(r.Context(), d, u)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			if !role.CanCreateRepo {
				a.errorJSON(w, http.StatusForbidden, "Given user is not allowed to create repository in organization.")
				return
			}
		}
		owner = u
	}
	out, err := a.Repos.Generate(r.Context(), d, owner, rc.Repo, repo.GenerateOptions{
		Name: o.Name, Description: o.Description, Private: o.Private, DefaultBranch: o.DefaultBranch,
		GitContent: o.GitContent, Topics: o.Topics, Labels: o.Labels,
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeRepo(w, r, http.StatusCreated, out)
}
