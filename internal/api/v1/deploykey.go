package v1

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/repo"
)

// deployKeyRoutes registers /repos/{owner}/{repo}/keys: a repository's
// deploy keys, for its administrators only.
func (a *API) deployKeyRoutes(r chi.Router) {
	r.With(a.reqRepoAdmin).Get("/keys", a.listDeployKeys)
	r.With(a.reqRepoAdmin).Post("/keys", a.createDeployKey)
	r.With(a.reqRepoAdmin).Get("/keys/{id}", a.getDeployKey)
	r.With(a.reqRepoAdmin).Delete("/keys/{id}", a.deleteDeployKey)
}

// deployKeysLink is the API address of the current repository's keys, ending in "/".
func (a *API) deployKeysLink(rc *repoContext) string {
	return a.rootURL + "api/v1/repos/" + url.PathEscape(rc.Owner.Name) + "/" + url.PathEscape(rc.Repo.Name) + "/keys/"
}

// toDeployKey renders k with rp as its repository (nil leaves it out).
func (a *API) toDeployKey(rc *repoContext, k *repo.DeployKey, rp *types.Repository) *types.DeployKey {
	return &types.DeployKey{
		ID: k.ID, KeyID: k.KeyID, Key: k.Content, URL: a.deployKeysLink(rc) + itoa(k.ID), Title: k.Name,
		Fingerprint: k.Fingerprint, Created: k.Created, ReadOnly: k.ReadOnly, Repository: rp,
	}
}

// deployKeyRepo is the repository rendered into deploy keys for the caller,
// or nil when the caller is neither a site administrator nor the owner.
func (a *API) deployKeyRepo(r *http.Request, rc *repoContext) (*types.Repository, error) {
	d := doer(r)
	if d == nil || !(d.IsAdmin || d.ID == rc.Owner.ID) {
		return nil, nil
	}
	return a.toRepoOne(r.Context(), d, rc.Repo)
}

// listDeployKeys serves GET /repos/{owner}/{repo}/keys (?key_id=, ?fingerprint=, paginated).
func (a *API) listDeployKeys(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	pg := a.paging(r)
	q := r.URL.Query()
	keyID, _ := strconv.ParseInt(q.Get("key_id"), 10, 64)
	list, total, err := a.Repos.ListDeployKeys(r.Context(), rc.Repo.ID, repo.DeployKeyListOptions{
		KeyID: keyID, Fingerprint: q.Get("fingerprint"), Limit: pg.Limit, Offset: pg.Offset(),
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var rp *types.Repository
	if len(list) > 0 {
		if rp, err = a.deployKeyRepo(r, rc); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	out := make([]*types.DeployKey, 0, len(list))
	for _, k := range list {
		out = append(out, a.toDeployKey(rc, k, rp))
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// getDeployKey serves GET /repos/{owner}/{repo}/keys/{id}.
func (a *API) getDeployKey(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	k, err := a.Repos.GetDeployKey(r.Context(), rc.Repo.ID, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rp, err := a.deployKeyRepo(r, rc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toDeployKey(rc, k, rp))
}

// createDeployKey serves POST /repos/{owner}/{repo}/keys (201; read_only
// defaults to false, a read-write key, as in Gitea).
func (a *API) createDeployKey(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var o types.CreateKeyOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := firstErr(required("title", o.Title), required("key", o.Key), maxLen("title", o.Title, 50)); err != nil {
		a.fail(w, r, err)
		return
	}
	k, err := a.Repos.AddDeployKey(r.Context(), rc.Repo.ID, o.Title, o.Key, o.ReadOnly)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, a.toDeployKey(rc, k, nil))
}

// deleteDeployKey serves DELETE /repos/{owner}/{repo}/keys/{id} (204; 404
// when the repository has no such key).
func (a *API) deleteDeployKey(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	if err := a.Repos.DeleteDeployKey(r.Context(), rc.Repo.ID, id); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}
