package web

import (
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// adminOrgsPage is the data of /-/admin/orgs.
type adminOrgsPage struct {
	adminPage
	Orgs  []*user.User
	Query string
	Pager listPager
}

// adminOrgs serves GET /-/admin/orgs: every organization (?q= searches
// names and full names).
func (h *Handler) adminOrgs(w http.ResponseWriter, r *http.Request) error {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	cond, args := "", []any(nil)
	if q != "" {
		cond, args = user.NameCond(q)
	}
	pg := newListPager(r, 0, adminPerPage)
	list, total, err := h.Orgs.SearchOrgs(r.Context(), cond, args, adminPerPage, pg.offset(adminPerPage))
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "admin_orgs", "Organizations", adminOrgsPage{adminPage: newAdminPage("orgs"),
		Orgs: list, Query: q, Pager: newListPager(r, total, adminPerPage)})
}

// adminReposPage is the data of /-/admin/repos.
type adminReposPage struct {
	adminPage
	Repos []*repo.Repository
	Query string
	Pager listPager
}

// adminRepos serves GET /-/admin/repos: every repository, newest first
// (?q= searches names and topics).
func (h *Handler) adminRepos(w http.ResponseWriter, r *http.Request) error {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	where, args, err := repo.SearchOptions{Keyword: q}.Cond()
	if err != nil {
		return err
	}
	pg := newListPager(r, 0, adminPerPage)
	list, total, err := h.Repos.ListVisible(r.Context(), where, args, "1 = 1", nil, "r.id DESC", adminPerPage, pg.offset(adminPerPage))
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "admin_repos", "Repositories", adminReposPage{adminPage: newAdminPage("repos"),
		Repos: list, Query: q, Pager: newListPager(r, total, adminPerPage)})
}

// adminDeleteRepo serves POST /-/admin/repos/delete (id).
func (h *Handler) adminDeleteRepo(w http.ResponseWriter, r *http.Request) error {
	id, err := formID(r.PostFormValue("id"))
	if err != nil {
		return err
	}
	rp, err := h.Repos.GetByID(r.Context(), id)
	if err != nil {
		return err
	}
	if err := h.Repos.Delete(r.Context(), rp); err != nil {
		return err
	}
	return h.adminDone(w, r, "/-/admin/repos", "The repository "+rp.FullName()+" has been deleted.")
}
