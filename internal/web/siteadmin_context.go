package web

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/errs"
)

// adminPage is what every site administration page shows besides its own
// data: the navigation and the error of a refused form.
type adminPage struct {
	Nav   []settingsLink
	Error string
}

// adminSections are the pages of the site administration: key, title, path.
var adminSections = []struct{ key, name, path string }{
	{"dashboard", "Dashboard", "/-/admin"},
	{"users", "User accounts", "/-/admin/users"},
	{"orgs", "Organizations", "/-/admin/orgs"},
	{"repos", "Repositories", "/-/admin/repos"},
	{"auths", "Authentication sources", "/-/admin/auths"},
	{"config", "Configuration", "/-/admin/config"},
}

// newAdminPage is the navigation with the section active.
func newAdminPage(active string) adminPage {
	var p adminPage
	for _, s := range adminSections {
		p.Nav = append(p.Nav, settingsLink{Name: s.name, Link: s.path, Active: s.key == active})
	}
	return p
}

// requireSiteAdmin lets site administrators through; to everyone else the
// administration does not exist.
func requireSiteAdmin(r *http.Request) error {
	if d := doer(r); d == nil || !d.IsAdmin {
		return errs.NotFound("no such page")
	}
	return nil
}

// adminOnly wraps a page of the administration with requireSiteAdmin.
func (h *Handler) adminOnly(fn handlerFunc) http.HandlerFunc {
	return h.page(func(w http.ResponseWriter, r *http.Request) error {
		if err := requireSiteAdmin(r); err != nil {
			return err
		}
		return fn(w, r)
	})
}

// adminDone ends a successful administration form with a flash message
// and a redirect to path.
func (h *Handler) adminDone(w http.ResponseWriter, r *http.Request, path, msg string) error {
	h.flash(w, "success", msg)
	http.Redirect(w, r, path, http.StatusSeeOther)
	return nil
}
