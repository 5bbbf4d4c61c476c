package web

import "github.com/go-chi/chi/v5"

// pullRoutes are the pages of a pull request beyond its conversation (files, commits, reviews), new pull requests from a comparison, releases, labels and milestones.
func (h *Handler) pullRoutes(r chi.Router) {
}
