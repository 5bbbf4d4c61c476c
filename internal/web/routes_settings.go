package web

import "github.com/go-chi/chi/v5"

// settingsRoutes are the signed-in user's settings and the forms that create repositories and organizations.
func (h *Handler) settingsRoutes(r chi.Router) {
}
