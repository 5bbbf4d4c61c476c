package v1

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// dependencyRoutes registers /dependencies (what an issue depends on) and
// /blocks (what it blocks). The other issue may live in any repository the
// caller can see.
func (a *API) dependencyRoutes(r chi.Router) {
	r.Get("/issues/{index}/dependencies", a.listIssueDependencies)
	r.With(a.signedIn).Post("/issues/{index}/dependencies", a.createIssueDependency)
	r.With(a.signedIn).Delete("/issues/{index}/dependencies", a.removeIssueDependency)
	r.Get("/issues/{index}/blocks", a.listIssueBlocks)
	r.With(a.signedIn).Post("/issues/{index}/blocks", a.createIssueBlocking)
	r.With(a.signedIn).Delete("/issues/{index}/blocks", a.removeIssueBlocking)
}

// listDependencies answers one side of an issue's dependencies, leaving out
// issues the caller cannot read, in a fixed number of queries.
func (a *API) listDependencies(w http.ResponseWriter, r *http.Request, rc *repoContext, is *issue.Issue, blocks bool) {
	ctx := r.Context()
	v := viewer(r)
	pg := a.paging(r)
	cond, args := access.RepoCond(v)
	list, total, err := a.Issues.ListDependencies(ctx, issue.DependencyList{IssueID: is.ID, Blocks: blocks, RepoID: rc.Repo.ID,
		RepoCond: cond, RepoArgs: args, Limit: pg.Limit, Offset: pg.Offset()})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// Team unit restrictions are not in the SQL condition: check them in one batch.
	var repoIDs []int64
	for _, x := range list {
		repoIDs = append(repoIDs, x.RepoID)
	}
	repos := map[int64]*repo.Repository{}
	if len(repoIDs) > 0 {
		rl, err := a.Repos.List(ctx, "WHERE r.id IN "+db.In(len(repoIDs)), db.Int64Args(repoIDs)...)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		var ownerIDs []int64
		for _, rp := range rl {
			repos[rp.ID] = rp
			ownerIDs = append(ownerIDs, rp.OwnerID)
		}
		owners, err := a.Users.Store.GetByIDs(ctx, ownerIDs)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		perms, err := a.Access.RepoPermissions(ctx, v, rl, owners)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		kept := list[:0]
		for _, x := range list {
			rp := repos[x.RepoID]
			if rp == nil {
				continue
			}
			unit := issueUnit(x)
			if p, ok := perms[rp.ID]; ok && rp.HasUnit(unit) && p.CanRead(unit) {
				kept = append(kept, x)
			}
		}
		list = kept
	}
	out, err := a.toIssues(ctx, list, repos, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// listIssueDependencies serves GET /repos/{owner}/{repo}/issues/{index}/dependencies
// (404 when the repository has dependencies disabled, as in Gitea).
func (a *API) listIssueDependencies(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	if !rc.Repo.Settings.EnableIssueDependencies {
		a.fail(w, r, errs.NotFound("issue dependencies are disabled in this repository"))
		return
	}
	a.listDependencies(w, r, rc, is, false)
}

// listIssueBlocks serves GET /repos/{owner}/{repo}/issues/{index}/blocks.
func (a *API) listIssueBlocks(w http.ResponseWriter, r *http.Request) {
	if rc, is, ok := a.loadIssue(w, r); ok {
		a.listDependencies(w, r, rc, is, true)
	}
}

// loadIssueMeta loads the issue named by an IssueMeta body: a repository the
// caller can see (404 otherwise; owner and repo default to the current
// repository) and an issue of it.
func (a *API) loadIssueMeta(w http.ResponseWriter, r *http.Request, rc *repoContext) (*repoContext, *issue.Issue, bool) {
	var o types.IssueMeta
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return nil, nil, false
	}
	orc := rc
	if (o.Owner != "" || o.Name != "") && !(strings.EqualFold(o.Owner, rc.Owner.Name) && strings.EqualFold(o.Name, rc.Repo.Name)) {
		var err error
		if orc, err = a.loadRepo(r.Context(), r, o.Owner, o.Name); err != nil {
			if errs.IsNotFound(err) {
				err = repo.ErrNotExist(o.Owner, o.Name)
			}
			a.fail(w, r, err)
			return nil, nil, false
		}
	}
	is, err := a.Issues.GetByIndex(r.Context(), orc.Repo.ID, o.Index)
	if err == nil {
		unit := issueUnit(is)
		if !orc.Repo.HasUnit(unit) || !orc.Perm.CanRead(unit) {
			err = issue.ErrIndexNotExist(orc.Repo.ID, o.Index)
		}
	}
	if err != nil {
		a.fail(w, r, err)
		return nil, nil, false
	}
	return orc, is, true
}

// changeDependency makes target depend on dep (add) or removes that. As in
// Gitea, it answers 404 when the target's repository is archived or has
// dependencies disabled, or when the caller cannot write the target.
func (a *API) changeDependency(w http.ResponseWriter, r *http.Request, trc *repoContext, target *issue.Issue, dep *issue.Issue, add bool) bool {
	if trc.Repo.IsArchived || !trc.Repo.Settings.EnableIssueDependencies {
		a.fail(w, r, errs.NotFound("issue dependencies are disabled in repository %s", trc.Repo.FullName()))
		return false
	}
	if !canWriteIssue(trc, target) {
		a.fail(w, r, errs.NotFound("issue does not exist [repo: %s, index: %d]", trc.Repo.FullName(), target.Index))
		return false
	}
	var err error
	if add {
		err = a.Issues.AddDependency(r.Context(), doer(r), target, dep)
	} else {
		err = a.Issues.RemoveDependency(r.Context(), doer(r), target, dep)
	}
	if err != nil {
		a.fail(w, r, err)
		return false
	}
	return true
}

// writeIssueIn answers an issue of repository rp (201, as Gitea answers every dependency change).
func (a *API) writeIssueIn(w http.ResponseWriter, r *http.Request, rp *repo.Repository, is *issue.Issue, v *user.User) {
	out, err := a.toIssueOne(r.Context(), is, rp, v)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, out)
}

// dependencyChange serves the four changes. blocks: the path issue is the
// dependency and the body names the target; otherwise the reverse.
func (a *API) dependencyChange(blocks, add bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rc, is, ok := a.loadIssue(w, r)
		if !ok {
			return
		}
		orc, other, ok := a.loadIssueMeta(w, r, rc)
		if !ok {
			return
		}
		if blocks {
			if a.changeDependency(w, r, orc, other, is, add) {
				a.writeIssueIn(w, r, rc.Repo, is, doer(r))
			}
			return
		}
		if a.changeDependency(w, r, rc, is, other, add) {
			a.writeIssueIn(w, r, rc.Repo, is, doer(r))
		}
	}
}

// createIssueDependency serves POST .../issues/{index}/dependencies: the path
// issue depends on the body's.
func (a *API) createIssueDependency(w http.ResponseWriter, r *http.Request) {
	a.dependencyChange(false, true)(w, r)
}

// removeIssueDependency serves DELETE .../issues/{index}/dependencies.
func (a *API) removeIssueDependency(w http.ResponseWriter, r *http.Request) {
	a.dependencyChange(false, false)(w, r)
}

// createIssueBlocking serves POST .../issues/{index}/blocks: the body's issue
// depends on the path issue.
func (a *API) createIssueBlocking(w http.ResponseWriter, r *http.Request) {
	a.dependencyChange(true, true)(w, r)
}

// removeIssueBlocking serves DELETE .../issues/{index}/blocks.
func (a *API) removeIssueBlocking(w http.ResponseWriter, r *http.Request) {
	a.dependencyChange(true, false)(w, r)
}
