package web

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/authsource"
)

// adminAuthsPage is the data of /-/admin/auths.
type adminAuthsPage struct {
	adminPage
	Sources []adminAuthRow
}

// adminAuthRow is one sign-in source with the number of its accounts.
type adminAuthRow struct {
	*authsource.Source
	Accounts int64
}

// adminAuths serves GET /-/admin/auths (Gitea's path): the sign-in sources,
// managed with 'cairn admin auth'. Their settings, secrets included, are
// not shown.
func (h *Handler) adminAuths(w http.ResponseWriter, r *http.Request) error {
	var rows []adminAuthRow
	if h.Sources != nil {
		list, err := h.Sources.List(r.Context())
		if err != nil {
			return err
		}
		for _, s := range list {
			n, err := h.DB.Count(r.Context(), "SELECT COUNT(*) FROM users WHERE login_source = ?", s.ID)
			if err != nil {
				return err
			}
			rows = append(rows, adminAuthRow{Source: s, Accounts: n})
		}
	}
	return h.render(w, r, http.StatusOK, "admin_auths", "Authentication sources", adminAuthsPage{adminPage: newAdminPage("auths"), Sources: rows})
}
