package web

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoCtx is the repository a /{owner}/{repo}/... page shows, with the
// visitor's permission on it.
type repoCtx struct {
	Owner *user.User
	Repo  *repo.Repository
	Perm  access.RepoPerm
	// Link is the repository's path on this site, /owner/name.
	Link string
	// Tab names the active tab of the repository header (code, issues,
	// pulls, releases, settings).
	Tab string
}

// repoPage is what a repository page's template receives: the repository
// (for the shared header) and the page's own data.
type repoPage struct {
	R    *repoCtx
	Page any
}

// loadRepo loads {owner}/{repo} of the route and the visitor's permission;
// a repository the visitor may not see is not found, exactly like a missing one.
func (h *Handler) loadRepo(r *http.Request) (*repoCtx, error) {
	ownerName, name := chi.URLParam(r, "owner"), chi.URLParam(r, "repo")
	rp, owner, err := h.Repos.GetWithOwner(r.Context(), ownerName, name)
	if err != nil {
		return nil, err
	}
	perm, err := h.Access.RepoPermission(r.Context(), doer(r), rp, owner)
	if err != nil {
		return nil, err
	}
	if !perm.HasAccess() {
		return nil, errs.NotFound("repository %s/%s does not exist", ownerName, name)
	}
	return &repoCtx{Owner: owner, Repo: rp, Perm: perm, Link: "/" + escapeSegments(owner.Name+"/"+rp.Name)}, nil
}

// loadRepoUnit is loadRepo for a page of one unit (repo.UnitCode, ...): a
// unit the visitor may not read, or that is off, is not found.
func (h *Handler) loadRepoUnit(r *http.Request, unit, tab string) (*repoCtx, error) {
	rc, err := h.loadRepo(r)
	if err != nil {
		return nil, err
	}
	if !rc.Perm.CanRead(unit) {
		return nil, errs.NotFound("no such page")
	}
	rc.Tab = tab
	return rc, nil
}

// renderRepo renders a repository page: name is the page template, which
// includes the "repo_header" partial with .Data.R.
func (h *Handler) renderRepo(w http.ResponseWriter, r *http.Request, status int, name, title string, rc *repoCtx, data any) error {
	full := rc.Owner.Name + "/" + rc.Repo.Name
	if title == "" {
		title = full
	} else {
		title = strings.TrimSpace(title) + " · " + full
	}
	return h.render(w, r, status, name, title, repoPage{R: rc, Page: data})
}
