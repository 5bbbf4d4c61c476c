package web

import "github.com/go-chi/chi/v5"

// oauth2ProviderRoutes registers the OAuth2 provider at Gitea's URLs: the
// authorization endpoint and its consent form (pages of a signed-in user),
// the token endpoint and userinfo (JSON for clients; see checkCSRF and gate).
func (h *Handler) oauth2ProviderRoutes(r chi.Router) {
	if h.OAuth2Provider == nil {
		return
	}
	r.Get("/login/oauth/authorize", h.page(h.oauth2Authorize))
	r.Post("/login/oauth/grant", h.page(h.oauth2Grant))
	r.Post("/login/oauth/access_token", h.oauth2AccessToken)
	r.Get("/login/oauth/userinfo", h.oauth2UserInfoEndpoint)
}
