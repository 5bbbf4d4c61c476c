package v1

import (
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"

	"log/slog"

	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/observe"
	"github.com/cairn-forge/cairn/internal/user"
)

// common sets the headers every API answer carries, recovers panics, refuses
// query parameters that cannot be stored (checkQuery) and, when
// [debug] QUERY_COUNT_HEADER is on, counts the request's queries.
func (a *API) common(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "max-age=0, private, must-revalidate, no-transform")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "SAMEORIGIN")
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.ErrorContext(r.Context(), "api panic", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				a.errorJSON(w, http.StatusInternalServerError, "internal server error")
			}
		}()
		if err := checkQuery(r); err != nil {
			a.fail(w, r, err)
			return
		}
		if a.Config.Debug.QueryCountHeader {
			var n atomic.Int64
			r = r.WithContext(db.WithQueryCounter(r.Context(), &n))
			next.ServeHTTP(&countingWriter{ResponseWriter: w, n: &n}, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// countingWriter adds X-Cairn-Query-Count when the header is written.
type countingWriter struct {
	http.ResponseWriter
	n       *atomic.Int64
	written bool
}

func (c *countingWriter) WriteHeader(status int) {
	if !c.written {
		c.written = true
		c.Header().Set("X-Cairn-Query-Count", strconv.FormatInt(c.n.Load(), 10))
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if !c.written {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}

func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// authenticate identifies the caller (URL tokens allowed: this is the API),
// refuses wrong credentials with 401 and accounts that may not act with 403,
// and applies Sudo for administrators.
func (a *API) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := a.Authn.Authenticate(r, true)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if id == nil && a.Config.Service.RequireSigninView {
			if !strings.HasPrefix(r.URL.Path, "/api/") { // a web address (release downloads): sign in first
				http.Redirect(w, r, "/user/login?redirect_to="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			a.errorJSON(w, http.StatusUnauthorized, "Only signed in user is allowed to call APIs.")
			return
		}
		if id != nil {
			u := id.User
			if !u.IsActive || u.ProhibitLogin || u.IsOrganization() {
				a.errorJSON(w, http.StatusForbidden, "This account is prohibited from signing in, please contact your site administrator.")
				return
			}
			if u.MustChangePassword {
				a.errorJSON(w, http.StatusForbidden, "You must change your password. Change it at: "+a.rootURL+"user/change_password")
				return
			}
		}
		sudo := r.URL.Query().Get("sudo")
		if sudo == "" {
			sudo = r.Header.Get("Sudo")
		}
		if sudo != "" {
			if id == nil || !id.User.IsAdmin {
				writeJSON(w, http.StatusForbidden, map[string]string{"message": "Only administrators allowed to sudo."})
				return
			}
			var target *user.User
			if storableText("sudo", sudo) == nil {
				target, err = a.Users.Store.GetByName(r.Context(), sudo)
			}
			if target == nil || err != nil || target.IsOrganization() {
				a.fail(w, r, errs.NotFound("user does not exist [name: %s]", sudo))
				return
			}
			id = &auth.Identity{User: target, Token: id.Token, Method: id.Method}
		}
		if id != nil {
			r = r.WithContext(withIdentity(r.Context(), id))
			observe.SetUser(r.Context(), id.User.Name)
		}
		next.ServeHTTP(w, r)
	})
}

// scope requires, for token callers, the token scope of the given categories:
// read for GET and HEAD, write otherwise.
func (a *API) scope(cats ...auth.Category) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := identity(r)
			if id != nil && id.Token != nil {
				level := auth.LevelWrite
				if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
					level = auth.LevelRead
				}
				for _, c := range cats {
					if !id.Token.Scope.Has(c, level) {
						req := make([]string, len(cats))
						for i, c := range cats {
							req[i] = auth.Required(c, level)
						}
						a.errorJSON(w, http.StatusForbidden, "token does not have at least one of required scope(s), required=["+
							strings.Join(req, " ")+"], token scope="+id.Token.Scope.String())
						return
					}
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// signedIn answers 401 to signed-out callers.
func (a *API) signedIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if doer(r) == nil {
			a.errorJSON(w, http.StatusUnauthorized, "token is required")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireSignedIn answers 401 to signed-out callers and reports whether the
// handler may go on. Gitea 1.23 puts /users/{username}/keys, /followers and
// /following behind reqToken, so these need a caller even for public users.
func (a *API) requireSignedIn(w http.ResponseWriter, r *http.Request) bool {
	if doer(r) == nil {
		a.errorJSON(w, http.StatusUnauthorized, "token is required")
		return false
	}
	return true
}

// siteAdmin answers 401 to signed-out callers and 403 to non-administrators.
func (a *API) siteAdmin(next http.Handler) http.Handler {
	return a.signedIn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !doer(r).IsAdmin {
			a.errorJSON(w, http.StatusForbidden, "user should be the site admin")
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// passwordAuth requires basic authentication with a password: token
// management cannot be reached with a token.
func (a *API) passwordAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := identity(r)
		if id == nil || id.Method != auth.MethodPassword {
			a.errorJSON(w, http.StatusUnauthorized, "auth required")
			return
		}
		next.ServeHTTP(w, r)
	})
}
