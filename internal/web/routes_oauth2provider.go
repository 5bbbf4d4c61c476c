package web

import "github.com/go-chi/chi/v5"

// oauth2ProviderRoutes registers the OAuth2 provider's pages at Gitea's
// URLs: the authorization endpoint and its consent form, pages of a
// signed-in user. The endpoints for clients (token, userinfo, keys,
// introspection, revocation, discovery) carry their own credentials and
// are served outside the interface's session and CSRF middleware, by
// internal/oidc. [oauth2] ENABLED = false leaves them out (404).
func (h *Handler) oauth2ProviderRoutes(r chi.Router) {
	if h.OAuth2Provider == nil || !h.Config.OAuth2.Enabled {
		return
	}
	r.Get("/login/oauth/authorize", h.page(h.oauth2Authorize))
	r.Post("/login/oauth/grant", h.page(h.oauth2Grant))
}
