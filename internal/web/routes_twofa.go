package web

import "github.com/go-chi/chi/v5"

// twoFactorRoutes are two-factor sign-in's pages: the second step of
// signing in and the security settings (none without the service).
func (h *Handler) twoFactorRoutes(r chi.Router) {
	if h.TwoFA == nil {
		return
	}
	r.Get("/user/two_factor", h.page(h.twoFactorForm))
	r.Post("/user/two_factor", h.page(h.twoFactorSignIn))
	r.Get("/user/two_factor_scratch", h.page(h.twoFactorScratchForm))
	r.Post("/user/two_factor_scratch", h.page(h.twoFactorScratchSignIn))

	r.Get("/user/settings/security", h.page(h.securitySettings))
	r.Get("/user/settings/security/two_factor/enroll", h.page(h.enrolForm))
	r.Post("/user/settings/security/two_factor/enroll", h.page(h.enrol))
	r.Post("/user/settings/security/two_factor/regenerate_scratch", h.page(h.regenerateScratch))
	r.Post("/user/settings/security/two_factor/disable", h.page(h.disableTwoFactor))
}
