package web

import "github.com/go-chi/chi/v5"

// issueRoutes are the pages of issues and pull requests.
func (h *Handler) issueRoutes(r chi.Router) {
}
