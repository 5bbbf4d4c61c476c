// Package v1 serves Cairn's Gitea-compatible HTTP API under /api/v1: one file
// per resource, thin handlers that decode, ask a service and encode.
package v1

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/activity"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/authsource"
	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/mail"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/oauth2"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/protect"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/signature"
	"github.com/cairn-forge/cairn/internal/templates"
	"github.com/cairn-forge/cairn/internal/user"
	"github.com/cairn-forge/cairn/internal/webhook"
)

// GiteaAPILevel is the Gitea version whose API Cairn implements.
const GiteaAPILevel = "1.23.0"

// Deps are the services the API uses, built once in cmd/cairn.
type Deps struct {
	Config    *config.Config
	DB        *db.DB
	Users     *user.Service
	Tokens    *auth.Tokens
	Authn     *auth.Authenticator
	Access    *access.Checker
	Orgs      *org.Service
	Repos     *repo.Service
	Issues    *issue.Service
	Pulls     *pull.Service
	Protect   *protect.Service
	Releases  *release.Service
	Templates *templates.Set
	Markup    *markup.Renderer
	Avatars   avatar.Files
	// GPGKeys, Signatures and Signer serve GPG keys, commit verification
	// and the instance's signing key (Signer nil: none).
	GPGKeys    *signature.Service
	Signatures *signature.Verifier
	Signer     *signature.Signer
	// Webhooks stores hooks and their deliveries (nil: webhooks are off).
	Webhooks *webhook.Service
	// Activity records and reads activity feeds (nil: no feed routes answer).
	Activity *activity.Service
	// OAuth2 keeps the accounts' OAuth2 applications (nil: no routes).
	OAuth2 *oauth2.Service
	// Mail queues mails (nil: [mailer] is off): the welcome mail of
	// send_notify.
	Mail    *mail.Service
	Version string // Cairn's own version, e.g. 0.1.0
	// Sources are the sign-in sources that source_id of the admin user
	// routes names (nil: none exists).
	Sources *authsource.Service
	// SyncTask is the sync_external_users cron task of /admin/cron (nil: none).
	SyncTask *authsource.SyncTask
}

// API is the /api/v1 handler set.
type API struct {
	Deps
	rootURL    string
	swaggerURL string
	noReply    string
	router     chi.Router
}

// New builds the API and its router.
func New(d Deps) *API {
	a := &API{Deps: d, rootURL: d.Config.RootURL, swaggerURL: d.Config.RootURL + "api/swagger"}
	host := "localhost"
	if u, err := url.Parse(d.Config.RootURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	a.noReply = "noreply." + host
	a.router = a.routes()
	return a
}

// ServeHTTP serves requests whose path starts with /api/v1.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.router.ServeHTTP(w, r) }

// RoutePattern is the pattern of the route that serves method and path
// (e.g. /api/v1/users/{username}), or "": the access log's label for
// requests refused before routing.
func (a *API) RoutePattern(method, path string) string {
	return a.router.Find(chi.NewRouteContext(), method, path)
}

// VersionString is the version reported to clients: Gitea's API level plus Cairn's own.
func VersionString(cairnVersion string) string {
	return GiteaAPILevel + "+cairn." + strings.TrimPrefix(cairnVersion, "v")
}
