package web

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/authsource"
)

// adminAuthsPage is the data of /-/admin/auths.
type adminAuthsPage struct {
	adminPage
	Sources []adminAuthRow
	// CanAdd tells whether a kind of this binary has a web form.
	CanAdd bool
}

// adminAuthRow is one sign-in source (with the reason when this binary
// cannot use it) and the number of its accounts.
type adminAuthRow struct {
	authsource.Listed
	Accounts int64
}

// adminAuths serves GET /-/admin/auths (Gitea's path): the sign-in sources,
// each linked to its edit page. Their settings, secrets included, are not
// shown here.
func (h *Handler) adminAuths(w http.ResponseWriter, r *http.Request) error {
	var rows []adminAuthRow
	canAdd := false
	if h.Sources != nil {
		canAdd = len(h.formTypes()) > 0
		list, err := h.Sources.ListAll(r.Context())
		if err != nil {
			return err
		}
		for _, s := range list {
			n, err := h.sourceAccounts(r.Context(), s.ID)
			if err != nil {
				return err
			}
			rows = append(rows, adminAuthRow{Listed: s, Accounts: n})
		}
	}
	return h.render(w, r, http.StatusOK, "admin_auths", "Authentication sources", adminAuthsPage{adminPage: newAdminPage("auths"), Sources: rows, CanAdd: canAdd})
}
