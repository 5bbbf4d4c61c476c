package v1

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
)

// statusRoutes registers commit statuses: CI systems report them (write
// access to the code), readers of the code list them.
func (a *API) statusRoutes(r chi.Router) {
	read, write := a.reqUnitRead(repo.UnitCode), a.reqUnitWrite(repo.UnitCode)
	r.With(read).Get("/statuses/{sha}", a.listStatuses)
	r.With(write).Post("/statuses/{sha}", a.createStatus)
	r.With(read).Get("/commits/{ref}/statuses", a.listStatuses)
	r.With(read).Get("/commits/{ref}/status", a.combinedStatus)
}

// statusCommit resolves the {sha} or {ref} of a status route to a commit id;
// "" when it names no commit.
func (a *API) statusCommit(r *http.Request, rc *repoContext) (string, string, error) {
	rev := chi.URLParam(r, "sha")
	if rev == "" {
		rev = chi.URLParam(r, "ref")
	}
	if !validRevision(rev) {
		return rev, "", errs.Invalid("no valid ref or sha: %s", rev)
	}
	sha, err := a.Repos.Git.ResolveCommit(r.Context(), a.Repos.Path(rc.Repo), rev)
	if errors.Is(err, git.ErrNotFound) {
		return rev, "", nil
	}
	return rev, sha, err
}

// toStatuses renders statuses with their creators (one query).
func (a *API) toStatuses(r *http.Request, rc *repoContext, list []*repo.CommitStatus) ([]*types.CommitStatus, error) {
	ids := make([]int64, 0, len(list))
	for _, c := range list {
		ids = append(ids, c.CreatorID)
	}
	users, err := a.Users.Store.GetByIDs(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	out := make([]*types.CommitStatus, 0, len(list))
	for _, c := range list {
		out = append(out, &types.CommitStatus{
			ID: c.ID, State: c.State, TargetURL: c.TargetURL, Description: c.Description, Context: c.Context,
			URL: a.repoAPIURL(rc) + "/statuses/" + url.PathEscape(c.SHA), Creator: a.toUser(users[c.CreatorID], doer(r)),
			Created: c.Created, Updated: c.Updated,
		})
	}
	return out, nil
}

// createStatus serves POST /statuses/{sha}: 201 with the status.
func (a *API) createStatus(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var in types.CreateStatusOption
	if err := decode(r, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	rev, sha, err := a.statusCommit(r, rc)
	if err == nil && sha == "" {
		err = errs.NotFound("commit %s does not exist", rev)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	c, err := a.Repos.CreateStatus(r.Context(), rc.Repo, doer(r), sha, repo.CreateStatusOptions{
		State: strings.TrimSpace(in.State), TargetURL: in.TargetURL, Description: in.Description, Context: in.Context,
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toStatuses(r, rc, []*repo.CommitStatus{c})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, out[0])
}

// listStatuses serves GET /statuses/{sha} and /commits/{ref}/statuses:
// every status of the commit, newest first unless ?sort= says otherwise,
// optionally only those in ?state=; an unknown commit has none.
func (a *API) listStatuses(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	_, sha, err := a.statusCommit(r, rc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	pg := a.paging(r)
	out := []*types.CommitStatus{}
	var total int64
	if sha != "" {
		q := r.URL.Query()
		list, n, err := a.Repos.ListStatuses(r.Context(), rc.Repo, sha, q.Get("state"), q.Get("sort"), pg.Limit, pg.Offset())
		if err == nil {
			out, err = a.toStatuses(r, rc, list)
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		total = n
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// combinedStatus serves GET /commits/{ref}/status: the latest status of each
// context and the worst of their states (error, failure, warning, pending,
// success in that order); state is "" when the commit has no status.
func (a *API) combinedStatus(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	rev, sha, err := a.statusCommit(r, rc)
	if err == nil && sha == "" {
		err = errs.NotFound("ref %s does not exist", rev)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	ctx := r.Context()
	list, state, err := a.Repos.LatestStatuses(ctx, rc.Repo, sha)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	statuses, err := a.toStatuses(r, rc, list)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rp, err := a.toRepoOne(ctx, doer(r), rc.Repo)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	base := a.repoAPIURL(rc) + "/commits/" + url.PathEscape(sha)
	writeJSON(w, http.StatusOK, types.CombinedStatus{
		State: state, SHA: sha, TotalCount: int64(len(statuses)), Statuses: statuses, Repository: rp,
		CommitURL: base, URL: base + "/status",
	})
}
