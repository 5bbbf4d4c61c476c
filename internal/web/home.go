package web

import (
	"net/http"
)

// home serves /: the landing page for visitors, the dashboard once signed in.
func (h *Handler) home(w http.ResponseWriter, r *http.Request) error {
	if doer(r) != nil {
		return h.dashboard(w, r)
	}
	return h.render(w, r, http.StatusOK, "home", "", nil)
}
