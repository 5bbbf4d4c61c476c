// Package web serves Cairn's web interface: server-rendered pages at Gitea's
// URLs, sessions in the database and CSRF tokens on every state change.
// Handlers call the same domain services as the API, never the API itself,
// and every page asks internal/access what the visitor may see and do.
package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/activity"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/mail"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/oauth2"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/protect"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/queue"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/securitykey"
	"github.com/cairn-forge/cairn/internal/signature"
	"github.com/cairn-forge/cairn/internal/templates"
	"github.com/cairn-forge/cairn/internal/twofa"
	"github.com/cairn-forge/cairn/internal/user"
	"github.com/cairn-forge/cairn/internal/webhook"
)

// Deps are the services the pages use.
type Deps struct {
	Config   *config.Config
	DB       *db.DB
	Users    *user.Service
	Access   *access.Checker
	Orgs     *org.Service
	Repos    *repo.Service
	Git      *git.Git
	Issues   *issue.Service
	Pulls    *pull.Service
	Releases *release.Service
	Markup   *markup.Renderer
	// Tokens, GPGKeys, Avatars and Templates serve the user settings and
	// the new-repository form, as they serve the API.
	Tokens    *auth.Tokens
	GPGKeys   *signature.Service
	Avatars   avatar.Files
	Templates *templates.Set
	// Activity reads the dashboard's feed.
	Activity *activity.Service
	// Webhooks, Protect and Queue serve the repository settings and the
	// site administration (hooks and deliveries, branch and tag rules, the
	// queue's backlog).
	Webhooks *webhook.Service
	Protect  *protect.Service
	Queue    *queue.Queue
	// TwoFA is two-factor sign-in (nil: off).
	TwoFA *twofa.Service
	// SecurityKeys are WebAuthn security keys, a second factor beside
	// TwoFA's codes (nil: off, as when ROOT_URL names no domain).
	SecurityKeys *securitykey.Service
	// OAuth2 keeps the accounts' OAuth2 applications (nil: no pages).
	OAuth2 *oauth2.Service
	// OAuth2Provider is the OAuth2 authorization server (nil: its
	// /login/oauth/ endpoints answer 404).
	OAuth2Provider *oauth2.Provider
	// Sources are the sign-in sources the administration lists (nil: none).
	Sources *authsource.Service
	// Mail queues account mails (nil: [mailer] is off, and the pages that
	// need it answer 404); TimeCodes checks the codes of their links.
	Mail      *mail.Service
	TimeCodes *user.TimeCodes
	// Started is when the server started (the administration's uptime).
	Started time.Time
	// Secret is the instance secret; CSRF tokens and signed cookies are
	// derived from it.
	Secret  []byte
	Version string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Handler is the web interface.
type Handler struct {
	Deps
	rootURL  string
	sessions *Sessions
	keys     csrfKeys
	views    *views
	assets   *assets
	router   chi.Router
}

// New builds the web interface.
func New(d Deps) (*Handler, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if len(d.Secret) == 0 {
		return nil, fmt.Errorf("web: no instance secret")
	}
	h := &Handler{Deps: d, rootURL: d.Config.RootURL, keys: deriveKeys(d.Secret)}
	life := time.Duration(d.Config.Session.SessionLifeTime) * time.Second
	if life <= 0 {
		life = 24 * time.Hour
	}
	h.sessions = &Sessions{db: d.DB, users: d.Users.Store, cookie: d.Config.Session.CookieName,
		secure: d.Config.Session.CookieSecure || strings.HasPrefix(d.Config.RootURL, "https://"), life: life, now: d.Now}
	if h.sessions.cookie == "" {
		h.sessions.cookie = "i_like_cairn"
	}
	var err error
	if h.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if h.views, err = loadViews(h.funcs()); err != nil {
		return nil, err
	}
	d.Users.AddDeleteHook(sessionPurger{h.sessions})
	h.router = h.routes()
	return h, nil
}

// ServeHTTP serves a page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.router.ServeHTTP(w, r) }

// RoutePattern is the pattern of the page route that serves method and
// path, or "" (the access log's and metrics' label).
func (h *Handler) RoutePattern(method, path string) string {
	return h.router.Find(chi.NewRouteContext(), method, path)
}

// PruneSessions deletes the expired sessions (a periodic worker's task).
func (h *Handler) PruneSessions(ctx context.Context) error { return h.sessions.Prune(ctx) }

// handlerFunc is a page handler; the error it returns is rendered by fail.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// page adapts a handlerFunc to http.Handler.
func (h *Handler) page(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.fail(w, r, err)
		}
	}
}
