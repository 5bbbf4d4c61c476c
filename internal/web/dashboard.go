package web

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/repo"
)

// dashboardPage is the signed-in home page's data.
type dashboardPage struct {
	Repos []*repo.Repository
}

// dashboard lists the signed-in user's repositories.
func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) error {
	u := doer(r)
	repos, err := h.Repos.List(r.Context(), " WHERE r.owner_id = ? ORDER BY r.updated_unix DESC LIMIT 50", u.ID)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "dashboard", "Dashboard", dashboardPage{Repos: repos})
}
