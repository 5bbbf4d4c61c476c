package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
)

// routes is the interface's table of contents, at Gitea's URLs. Areas add
// their pages in their own files (the *Routes functions).
func (h *Handler) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(h.countQueries, secure, h.identify, h.checkCSRF, h.gate)
	r.NotFound(h.page(func(w http.ResponseWriter, r *http.Request) error {
		return errs.NotFound("no such page")
	}))
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusMethodNotAllowed, "This page does not accept "+r.Method+" requests.")
	})
	r.Get("/", h.page(h.home))
	r.Post("/-/markup", h.page(h.previewMarkdown))

	// Signing in and out.
	r.Get("/user/login", h.page(h.loginForm))
	r.Post("/user/login", h.page(h.login))
	r.Get("/user/sign_up", h.page(h.signUpForm))
	r.Post("/user/sign_up", h.page(h.signUp))
	r.Post("/user/logout", h.page(h.logout))
	r.Get("/user/change_password", h.page(h.changePasswordForm))
	r.Post("/user/change_password", h.page(h.changePassword))
	h.accountMailRoutes(r)

	h.exploreRoutes(r)
	h.settingsRoutes(r)
	h.oauth2AppRoutes(r)
	h.oauth2ProviderRoutes(r)
	h.codeRoutes(r)
	h.editorRoutes(r)
	h.issueRoutes(r)
	h.pullRoutes(r)
	h.adminRoutes(r)
	h.orgRoutes(r)
	h.twoFactorRoutes(r)
	h.webauthnRoutes(r)
	return r
}

// Assets serves the embedded static files at /assets/.
func (h *Handler) Assets() http.Handler { return h.assets }

// signedIn refuses a signed-out visitor (sent to the sign-in page).
func signedIn(r *http.Request) error {
	if doer(r) == nil {
		return errs.Unauthorized("sign in first")
	}
	return nil
}
