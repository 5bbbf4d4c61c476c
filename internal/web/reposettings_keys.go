package web

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
)

// deployKeysPage is the data of /{owner}/{repo}/settings/keys.
type deployKeysPage struct {
	settingsPage
	Keys  []*repo.DeployKey
	Pager listPager
	// Title and Key refill the form after a refusal.
	Title, Key string
	Writable   bool
}

const deployKeysPerPage = 50

// deployKeys serves GET /{owner}/{repo}/settings/keys.
func (h *Handler) deployKeys(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	return h.renderDeployKeys(w, r, rc, deployKeysPage{}, http.StatusOK)
}

func (h *Handler) renderDeployKeys(w http.ResponseWriter, r *http.Request, rc *repoCtx, p deployKeysPage, status int) error {
	p.settingsPage.Nav = h.newSettingsPage(rc, "keys").Nav
	pg := newListPager(r, 0, deployKeysPerPage)
	list, total, err := h.Repos.ListDeployKeys(r.Context(), rc.Repo.ID, repo.DeployKeyListOptions{
		Limit: deployKeysPerPage, Offset: pg.offset(deployKeysPerPage)})
	if err != nil {
		return err
	}
	p.Keys, p.Pager = list, newListPager(r, total, deployKeysPerPage)
	return h.renderRepo(w, r, status, "repo_settings_keys", "Deploy keys", rc, p)
}

// addDeployKey serves POST .../settings/keys: title, content and
// is_writable (a read-only key unless ticked, as in Gitea's form).
func (h *Handler) addDeployKey(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	title, content, writable := r.PostFormValue("title"), r.PostFormValue("content"), formChecked(r, "is_writable")
	k, err := h.Repos.AddDeployKey(r.Context(), rc.Repo.ID, title, content, !writable)
	if err != nil {
		if userError(err) && !errs.IsNotFound(err) {
			p := deployKeysPage{Title: title, Key: content, Writable: writable}
			p.Error = errMessage(err, "The key was refused.")
			return h.renderDeployKeys(w, r, rc, p, http.StatusUnprocessableEntity)
		}
		return err
	}
	return h.settingsDone(w, r, rc, "/keys", "The deploy key "+k.Name+" has been added.")
}

// deleteDeployKey serves POST .../settings/keys/delete (id).
func (h *Handler) deleteDeployKey(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	id, err := formID(r.PostFormValue("id"))
	if err != nil {
		return err
	}
	k, err := h.Repos.GetDeployKey(r.Context(), rc.Repo.ID, id)
	if err != nil {
		return err
	}
	if err := h.Repos.DeleteDeployKey(r.Context(), rc.Repo.ID, id); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "/keys", "The deploy key "+k.Name+" has been deleted.")
}
