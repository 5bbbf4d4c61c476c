package web

import "github.com/go-chi/chi/v5"

// exploreRoutes are the explore pages, the dashboard's lists and the
// profiles of users and organizations.
func (h *Handler) exploreRoutes(r chi.Router) {
}
