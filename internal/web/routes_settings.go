package web

import "github.com/go-chi/chi/v5"

// settingsRoutes are the signed-in user's settings and the forms that create repositories and organizations.
func (h *Handler) settingsRoutes(r chi.Router) {
	r.Get("/user/settings", h.page(h.profileSettings))
	r.Post("/user/settings", h.page(h.updateProfile))
	r.Post("/user/settings/avatar", h.page(h.uploadAvatar))
	r.Post("/user/settings/avatar/delete", h.page(h.deleteAvatar))
	r.Get("/user/settings/account", h.page(h.accountSettings))
	r.Post("/user/settings/account", h.page(h.changeAccountPassword))
	r.Post("/user/settings/account/email", h.page(h.emailAction))
	r.Post("/user/settings/account/email/delete", h.page(h.deleteEmail))
	r.Post("/user/settings/account/sessions/delete", h.page(h.endOtherSessions))
	r.Get("/user/settings/keys", h.page(h.keysSettings))
	r.Post("/user/settings/keys", h.page(h.addKey))
	r.Post("/user/settings/keys/delete", h.page(h.deleteKey))
	r.Get("/user/settings/applications", h.page(h.applications))
	r.Post("/user/settings/applications", h.page(h.createToken))
	r.Post("/user/settings/applications/delete", h.page(h.deleteToken))

	r.Get("/repo/create", h.page(h.newRepoForm))
	r.Post("/repo/create", h.page(h.createRepo))
	r.Get("/org/create", h.page(h.newOrgForm))
	r.Post("/org/create", h.page(h.createOrg))
}
