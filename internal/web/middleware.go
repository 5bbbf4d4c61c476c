package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-forge/cairn/internal/observe"
	"github.com/cairn-forge/cairn/internal/user"
)

// visitor is who is asking: the session (nil when signed out) and what binds
// the visitor's CSRF tokens.
type visitor struct {
	sess    *Session
	binding string
}

type visitorKey struct{}

func visitorOf(r *http.Request) *visitor {
	v, _ := r.Context().Value(visitorKey{}).(*visitor)
	if v == nil {
		return &visitor{}
	}
	return v
}

// doer is the signed-in user, or nil.
func doer(r *http.Request) *user.User {
	if v := visitorOf(r); v.sess != nil {
		return v.sess.User
	}
	return nil
}

// contentSecurityPolicy allows the interface's own scripts and styles only;
// images may come from anywhere (avatars, images in Markdown).
const contentSecurityPolicy = "default-src 'self'; img-src * data:; media-src *; style-src 'self'; script-src 'self'; " +
	"object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// secure sets the security headers of every page.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// identify loads the session and, for a visitor without one, the random
// cookie that binds signed-out forms (sign in, sign up).
func (h *Handler) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, err := h.sessions.Lookup(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		v := &visitor{sess: sess}
		if sess != nil {
			observe.SetUser(r.Context(), sess.User.Name)
			v.binding = "s:" + sess.Key
		} else if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 && len(c.Value) <= 64 {
			v.binding = "a:" + c.Value
		} else if r.Method == http.MethodGet || r.Method == http.MethodHead {
			key := newKey()
			http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: key, Path: "/", HttpOnly: true,
				Secure: h.sessions.secure, SameSite: http.SameSiteLaxMode})
			v.binding = "a:" + key
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), visitorKey{}, v)))
	})
}

// checkCSRF refuses a state change without the visitor's CSRF token.
func (h *Handler) checkCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if !h.keys.valid(r, visitorOf(r).binding) {
				h.renderError(w, r, http.StatusBadRequest, "Invalid CSRF token: reload the page and try again.")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// gate applies REQUIRE_SIGNIN_VIEW and the forced password change: a
// signed-out visitor may only reach the sign-in and sign-up pages and
// assets; a user who must change their password only that page and sign-out.
func (h *Handler) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		open := strings.HasPrefix(p, "/assets/") || p == "/user/logout"
		u := doer(r)
		switch {
		case u != nil && u.MustChangePassword && !open && p != "/user/change_password":
			http.Redirect(w, r, "/user/change_password", http.StatusSeeOther)
			return
		case u == nil && h.Config.Service.RequireSigninView && !open &&
			p != "/user/login" && p != "/user/sign_up":
			h.redirectToLogin(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// redirectToLogin sends a signed-out visitor to the sign-in page, which
// returns them here afterwards.
func (h *Handler) redirectToLogin(w http.ResponseWriter, r *http.Request) {
	target := "/user/login"
	if r.Method == http.MethodGet && r.URL.Path != "/" {
		target += "?redirect_to=" + url.QueryEscape(r.URL.RequestURI())
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// safeRedirect returns to when it is a path on this site, else "/": an
// absolute URL, a scheme-relative //host or a backslash trick is refused.
func safeRedirect(to string) string {
	if to == "" || !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") || strings.ContainsAny(to, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(to)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "/"
	}
	return to
}
