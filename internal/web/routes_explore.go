package web

import "github.com/go-chi/chi/v5"

// exploreRoutes are the explore pages, the dashboard's lists and the
// profiles of users and organizations.
func (h *Handler) exploreRoutes(r chi.Router) {
	r.Get("/explore", h.page(h.exploreRedirect))
	r.Get("/explore/repos", h.page(h.exploreRepos))
	r.Get("/explore/users", h.page(h.exploreUsers))
	r.Get("/explore/organizations", h.page(h.exploreOrgs))
	// A profile: chi tries static segments first, so /explore, /issues,
	// /user/... and the other single-segment pages win over a name.
	r.Get("/{username}", h.page(h.profile))
	r.Post("/{username}", h.page(h.followAction))
}
