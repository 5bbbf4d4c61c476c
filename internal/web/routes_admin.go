package web

import "github.com/go-chi/chi/v5"

// adminRoutes are repository settings and the site administration at /-/admin.
func (h *Handler) adminRoutes(r chi.Router) {
}
