package web

import "github.com/go-chi/chi/v5"

// oauth2AppRoutes registers the OAuth2 applications of the user settings,
// at Gitea's URLs (the list is part of /user/settings/applications).
func (h *Handler) oauth2AppRoutes(r chi.Router) {
	if h.OAuth2 == nil {
		return
	}
	r.Post("/user/settings/applications/oauth2", h.page(h.createOAuth2App))
	r.Get("/user/settings/applications/oauth2/{id}", h.page(h.editOAuth2AppForm))
	r.Post("/user/settings/applications/oauth2/{id}", h.page(h.editOAuth2App))
	r.Post("/user/settings/applications/oauth2/{id}/regenerate_secret", h.page(h.regenerateOAuth2Secret))
	r.Post("/user/settings/applications/oauth2/{id}/delete", h.page(h.deleteOAuth2App))
	if h.OAuth2Provider != nil && h.Config.OAuth2.Enabled {
		r.Post("/user/settings/applications/oauth2/{id}/revoke/{grantId}", h.page(h.revokeOAuth2Grant))
	}
}
