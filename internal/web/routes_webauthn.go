package web

import "github.com/go-chi/chi/v5"

// webauthnRoutes are the security keys' pages, at Gitea's paths: the
// sign-in's second step with a key and the keys in the security settings
// (which two-factor sign-in serves; none without both services).
func (h *Handler) webauthnRoutes(r chi.Router) {
	if h.SecurityKeys == nil || h.TwoFA == nil {
		return
	}
	r.Get("/user/webauthn", h.page(h.webauthnForm))
	r.Get("/user/webauthn/assertion", h.webauthnAssertion)
	r.Post("/user/webauthn/assertion", h.webauthnSignIn)

	r.Post("/user/settings/security/webauthn/request_register", h.webauthnRequestRegister)
	r.Post("/user/settings/security/webauthn/register", h.webauthnRegister)
	r.Post("/user/settings/security/webauthn/delete", h.page(h.webauthnDelete))
}
