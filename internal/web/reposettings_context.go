package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
)

// settingsLink is one entry of a settings navigation (a repository's or the
// site administration's).
type settingsLink struct {
	Name, Link string
	Active     bool
}

// settingsPage is what every repository settings page shows besides its
// own data: the navigation and the error of a refused form.
type settingsPage struct {
	Nav   []settingsLink
	Error string
}

// settingsPages are the repository settings pages: key, title and path
// below /{owner}/{repo}/settings.
var settingsPages = []struct{ key, name, path string }{
	{"options", "Options", ""},
	{"collaboration", "Collaborators", "/collaboration"},
	{"branches", "Branches", "/branches"},
	{"tags", "Tags", "/tags"},
	{"hooks", "Webhooks", "/hooks"},
	{"keys", "Deploy keys", "/keys"},
}

// newSettingsPage is the navigation of rc's settings with page active; the
// webhooks entry is left out when webhooks are off.
func (h *Handler) newSettingsPage(rc *repoCtx, active string) settingsPage {
	var p settingsPage
	for _, s := range settingsPages {
		if s.key == "hooks" && !h.webhooksOn() {
			continue
		}
		p.Nav = append(p.Nav, settingsLink{Name: s.name, Link: rc.Link + "/settings" + s.path, Active: s.key == active})
	}
	return p
}

// loadRepoSettings loads the repository of a settings page for its
// administrators: a repository the visitor may not see is not found, a
// signed-out visitor is sent to sign in, and anyone else is refused (403).
func (h *Handler) loadRepoSettings(r *http.Request) (*repoCtx, error) {
	rc, err := h.loadRepo(r)
	if err != nil {
		return nil, err
	}
	if !rc.Perm.IsAdmin() {
		if doer(r) == nil {
			return nil, errs.Unauthorized("sign in first")
		}
		return nil, errs.Forbidden("Only the administrators of this repository may change its settings.")
	}
	rc.Tab = "settings"
	return rc, nil
}

// settingsDone ends a successful settings form: a flash message and a
// redirect to path below the repository's settings.
func (h *Handler) settingsDone(w http.ResponseWriter, r *http.Request, rc *repoCtx, path, msg string) error {
	h.flash(w, "success", msg)
	http.Redirect(w, r, rc.Link+"/settings"+path, http.StatusSeeOther)
	return nil
}

// formChecked reports whether a checkbox of the posted form is ticked.
func formChecked(r *http.Request, name string) bool {
	switch r.PostFormValue(name) {
	case "on", "true", "1":
		return true
	}
	return false
}

// formID reads a positive id (of a form or a route); a malformed one is a
// missing object.
func formID(v string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || id <= 0 {
		return 0, errs.NotFound("no such object")
	}
	return id, nil
}

// splitNames reads a list of names separated by commas, spaces or lines.
func splitNames(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}

// listPager is the paging of a list page: the current page and the links
// to the previous and next ones ("" when there is none).
type listPager struct {
	Page       int
	Total      int64
	Prev, Next string
}

// newListPager pages total items by size for the request's ?page=, keeping
// its other query parameters in the links.
func newListPager(r *http.Request, total int64, size int) listPager {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	if page < 1 {
		page = 1
	}
	p := listPager{Page: page, Total: total}
	link := func(n int) string {
		q.Set("page", strconv.Itoa(n))
		return r.URL.Path + "?" + q.Encode()
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if int64(page*size) < total {
		p.Next = link(page + 1)
	}
	return p
}

// offset is the first item of the page.
func (p listPager) offset(size int) int { return (p.Page - 1) * size }
