package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cairn-forge/cairn/internal/db"
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

// countQueries, with [debug] QUERY_COUNT_HEADER, reports the queries a page
// made (its session lookup included) in X-Cairn-Query-Count, so tests can
// check that a page's count stays fixed.
func (h *Handler) countQueries(next http.Handler) http.Handler {
	if !h.Config.Debug.QueryCountHeader {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n atomic.Int64
		next.ServeHTTP(&queryCounter{ResponseWriter: w, n: &n}, r.WithContext(db.WithQueryCounter(r.Context(), &n)))
	})
}

// queryCounter sets X-Cairn-Query-Count when the header is written.
type queryCounter struct {
	http.ResponseWriter
	n       *atomic.Int64
	written bool
}

func (c *queryCounter) WriteHeader(status int) {
	if !c.written {
		c.written = true
		c.Header().Set("X-Cairn-Query-Count", strconv.FormatInt(c.n.Load(), 10))
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *queryCounter) Write(b []byte) (int, error) {
	if !c.written {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}

// Flush lets streamed pages (raw files, archives) flush through the counter.
func (c *queryCounter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

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
		switch {
		case r.Method == http.MethodGet, r.Method == http.MethodHead, r.Method == http.MethodOptions:
		default:
			if err := h.parseForm(w, r); err != nil {
				h.renderError(w, r, http.StatusRequestEntityTooLarge, "The form is too large or malformed.")
				return
			}
			if !h.keys.valid(r, visitorOf(r).binding) {
				h.renderError(w, r, http.StatusBadRequest, "Invalid CSRF token: reload the page and try again.")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Form limits: a plain form holds text (Markdown bodies are limited further
// by their fields); a multipart form may carry uploads up to the configured
// sizes, kept in memory only up to multipartMemory, the rest in temporary
// files that net/http removes after the request.
const (
	formLimit       = 10 << 20
	multipartMemory = 8 << 20
)

// parseForm reads a POST's form once, bounded: uploads may be as large as
// the largest the settings allow (attachments, release assets), no larger.
func (h *Handler) parseForm(w http.ResponseWriter, r *http.Request) error {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		c := h.Config
		files := int64(max(c.Attachment.MaxFiles, 1))
		limit := max(c.Attachment.MaxSize*files, c.RepositoryRelease.FileMaxSize)<<20 + 1<<20
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		return r.ParseMultipartForm(multipartMemory)
	}
	r.Body = http.MaxBytesReader(w, r.Body, formLimit)
	return r.ParseForm()
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
			p != "/user/login" && p != "/user/sign_up" && p != "/user/two_factor" && p != "/user/two_factor_scratch" &&
			p != "/user/webauthn" && p != "/user/webauthn/assertion" &&
			!isAccountMailPage(p):
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
