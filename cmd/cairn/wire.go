package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/activity"
	v1 "github.com/cairn-forge/cairn/internal/api/v1"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/authsource"
	ldapsource "github.com/cairn-forge/cairn/internal/authsource/ldap"
	pamsource "github.com/cairn-forge/cairn/internal/authsource/pam"
	smtpsource "github.com/cairn-forge/cairn/internal/authsource/smtp"
	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/cors"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/githttp"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/mail"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/notify"
	"github.com/cairn-forge/cairn/internal/oauth2"
	"github.com/cairn-forge/cairn/internal/observe"
	"github.com/cairn-forge/cairn/internal/oidc"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/protect"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/queue"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/securitykey"
	"github.com/cairn-forge/cairn/internal/server"
	"github.com/cairn-forge/cairn/internal/signature"
	"github.com/cairn-forge/cairn/internal/sshd"
	"github.com/cairn-forge/cairn/internal/storage"
	"github.com/cairn-forge/cairn/internal/templates"
	"github.com/cairn-forge/cairn/internal/twofa"
	"github.com/cairn-forge/cairn/internal/user"
	"github.com/cairn-forge/cairn/internal/web"
	"github.com/cairn-forge/cairn/internal/webhook"
)

// app is every service of one instance, built once and handed down.
type app struct {
	cfg       *config.Config
	db        *db.DB
	users     *user.Service
	tokens    *auth.Tokens
	authn     *auth.Authenticator
	access    *access.Checker
	orgs      *org.Service
	git       *git.Git
	repos     *repo.Service
	hooks     *hooks.Server
	templates *templates.Set
	issues    *issue.Service
	notifier  *notify.Service
	pulls     *pull.Service
	protect   *protect.Service
	releases  *release.Service
	// gpgKeys, signatures and signer: accounts' GPG keys, commit signature
	// verification and the instance's signing key (nil: none).
	gpgKeys    *signature.Service
	signatures *signature.Verifier
	signer     *signature.Signer
	avatars    avatar.Files
	// twoFA is two-factor sign-in (TOTP and scratch codes).
	twoFA *twofa.Service
	// securityKeys are WebAuthn security keys.
	securityKeys *securitykey.Service
	// queue is the durable job queue (webhook deliveries); webhooks the
	// hooks and their deliveries; v1 the API, built once (it is also the
	// webhooks' event source).
	queue    *queue.Queue
	webhooks *webhook.Service
	// activity records actions in the transactions of their changes and
	// reads the activity feeds.
	activity *activity.Service
	// oauth2 keeps the accounts' OAuth2 applications.
	oauth2 *oauth2.Service
	v1     *v1.API

	// oauth2Provider is the OAuth2 authorization server of those applications.
	oauth2Provider *oauth2.Provider
	// oidc serves the provider's endpoints for clients; nil when
	// [oauth2] ENABLED is false.
	oidc *oidc.Endpoints
	// oidcKey signs ID tokens; made ready in the background at start.
	oidcKey *oidc.SigningKey

	// sources are the external sign-in sources (LDAP) and syncTask the
	// synchronisation of their users ([cron.sync_external_users]).
	sources  *authsource.Service
	syncTask *authsource.SyncTask

	// mail sends mail (nil: [mailer] is off); timeCodes make and check
	// the codes of activation and password reset links.
	mail      *mail.Service
	timeCodes *user.TimeCodes

	// secret is the instance secret and box seals secrets stored in the
	// database with it (webhook, two-factor and sign-in source secrets).
	secret []byte
	box    *webhook.SecretBox

	// web is the web interface.
	web *web.Handler
	// logger writes the access log (nil: none) and metrics counts requests
	// (nil: [metrics] ENABLED is off); serve sets both.
	logger  *slog.Logger
	metrics *observe.Metrics
}

// open loads the settings, connects the database and builds the services.
// With migrate it applies pending migrations (serve, migrate); without, it
// refuses a database whose level differs from this binary's, as Gitea's
// admin commands do, rather than change a schema a running server uses.
func open(ctx context.Context, getenv func(string) string, migrate bool) (*app, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, err
	}
	cfg.LogSummary(slog.Default(), os.Environ())
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if err := os.MkdirAll(cfg.RepositoryRoot(), 0o750); err != nil { // [repository] ROOT
		return nil, fmt.Errorf("repositories directory: %w", err)
	}
	if file, ok := strings.CutPrefix(cfg.DatabaseURL, "sqlite:"); ok { // [database] PATH
		if err := os.MkdirAll(filepath.Dir(file), 0o750); err != nil {
			return nil, fmt.Errorf("database directory: %w", err)
		}
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if err := refuseForeignDatabase(ctx, d); err != nil {
		d.Close()
		return nil, err
	}
	if migrate {
		err = d.Migrate(ctx, migrations.All())
	} else {
		err = checkLevel(ctx, d)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	a := &app{cfg: cfg, db: d}
	// The instance secret (made at the first start) keys the sessions and
	// the mailed codes and, through the secret box, seals stored secrets.
	if a.secret, err = webhook.InstanceSecret(cfg.DataDir); err != nil {
		d.Close()
		return nil, fmt.Errorf("instance secret: %w", err)
	}
	if a.box, err = webhook.NewSecretBox(a.secret); err != nil {
		d.Close()
		return nil, err
	}
	throttle := auth.NewThrottle(auth.ThrottleOptions{
		PerAccount: cfg.Security.LoginFailuresPerAccount,
		PerAddress: cfg.Security.LoginFailuresPerAddress,
		Window:     cfg.Security.LoginFailureWindow,
	})
	a.users = user.NewService(d, user.Options{PasswordParams: cfg.Security.PasswordParams, MinPasswordLength: cfg.Security.MinPasswordLength, Throttle: throttle})
	a.tokens = auth.NewTokens(d)
	a.authn = auth.NewAuthenticator(a.users, a.tokens)
	a.access = access.NewChecker(d)
	a.orgs = org.NewService(d, a.users)
	tmp := filepath.Join(cfg.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		d.Close()
		return nil, err
	}
	a.git, err = git.New(git.Options{TempDir: tmp})
	if err != nil {
		d.Close()
		return nil, err
	}
	if a.templates, err = templates.New(); err != nil {
		d.Close()
		return nil, err
	}
	a.repos = repo.NewService(d, a.git, a.users, cfg, a.templates)
	exe, err := os.Executable()
	if err != nil {
		d.Close()
		return nil, err
	}
	if a.hooks, err = hooks.NewServer(a.repos, cfg.DataDir, exe, cfg.HTTPAddr); err != nil {
		d.Close()
		return nil, err
	}
	a.issues = issue.NewService(d, a.repos, a.users.Store)
	a.repos.AddDeleteHook(a.issues.DeleteRepoData)
	a.users.AddDeleteHook(a.issues.UserDeleteHook())
	a.notifier = notify.NewService(d, a.issues, a.users.Store, a.access)
	a.issues.AddListener(a.notifier.OnIssueEvent)
	a.issues.SetLabelTemplates(a.templates)
	a.repos.SetLabelInitializer(a.issues)
	attachments := storage.NewLocal(filepath.Join(cfg.DataDir, "attachments"))
	a.issues.SetAttachmentStorage(attachments)
	// Releases: assets are attachments (same store and download route);
	// tags pushed or changed by Cairn keep releases in step.
	a.releases = release.NewService(d, a.issues, attachments)
	a.repos.AddPushListener(a.releases.PushListener(func(ctx context.Context, r *repo.Repository, name string) (git.Tag, error) {
		return a.git.GetTag(ctx, a.repos.Path(r), name)
	}))
	a.repos.AddDeleteHook(a.releases.DeleteRepoData)
	a.issues.SetClosingBlocker(a.issues.DependencyBlocker)
	a.pulls = pull.NewService(d, a.repos, a.issues, a.users.Store, a.access, pull.Options{
		WorkInProgressPrefixes: cfg.RepositoryPullRequest.WorkInProgressPrefixes,
		CoAuthorTrailers:       cfg.RepositoryPullRequest.AddCoCommitterTrailers,
	})
	a.hooks.SetProcReceiver(pull.NewAGit(a.pulls, cfg.RootURL))
	a.repos.AddPushRule(pull.RefuseReservedRefs)
	a.repos.AddPushListener(a.pulls.OnPush)
	a.repos.AddStatusListener(a.pulls.OnStatus)
	a.pulls.AddListener(a.notifier.OnPullEvent)
	// Branch and tag protection: one push rule for every ref change, the
	// merge checks (review rules of the matching branch rule included) and
	// the dismissal of stale approvals (require_signed_commits asks the
	// signature verifier set below).
	a.protect = protect.NewService(d, a.git, a.repos, a.users.Store, a.access, a.issues)
	a.repos.AddPushRule(a.protect.PushRule)
	for _, c := range a.protect.MergeChecks(a.pulls.ReviewCheck(a.protect.ReviewRules)) {
		a.pulls.AddMergeCheck(c)
	}
	a.pulls.AddListener(a.protect.OnPullEvent)
	a.repos.AddDeleteHook(a.protect.DeleteRepoData)
	if a.signer, err = signature.NewSigner(cfg.RepositorySigning); err != nil {
		d.Close()
		return nil, err
	}
	a.gpgKeys = signature.NewService(d, a.users)
	a.signatures = signature.NewVerifier(d, a.users.Store, a.git, a.signer)
	a.protect.SetVerifier(a.signatures)
	// Two-factor sign-in: secrets sealed with the instance secret; a
	// password alone no longer authenticates its accounts.
	a.twoFA = newTwoFactor(d, cfg, a.box)
	a.authn.SetSecondFactor(a.twoFA)
	// Sign-in sources: accounts of a source sign in through it, unknown
	// logins are tried against the active sources.
	a.sources = newSignInSources(d, a.box, a.users)
	a.users.SetExternalSources(a.sources)
	a.authn.SetLocalTwoFASkipper(a.sources)
	cron := cfg.CronSyncExternalUsers
	if a.syncTask, err = a.sources.NewSyncTask(cron.Schedule, cron.Enabled, cron.RunAtStart, cron.UpdateExisting); err != nil {
		d.Close()
		return nil, fmt.Errorf("[cron.sync_external_users] SCHEDULE: %w", err)
	}
	a.users.AddDeleteHook(a.twoFA.UserDeleteHook())
	// Security keys: the relying party is ROOT_URL's host; with an IP
	// address no ceremony runs (the settings say why), but registered keys
	// still count as a second factor.
	a.securityKeys = securitykey.NewService(d, securitykey.Options{RootURL: cfg.RootURL})
	a.authn.SetSecurityKeys(a.securityKeys)
	a.users.AddDeleteHook(a.securityKeys.UserDeleteHook())
	// When the instance signs the commits it writes ([repository.signing];
	// "twofa" holds for accounts with two-factor sign-in).
	signing, err := signature.NewPolicy(d, a.git, a.signer, a.signatures, cfg.RepositorySigning, a.twoFA.Enabled)
	if err != nil {
		d.Close()
		return nil, err
	}
	a.repos.SetCommitSigning(signing)
	a.pulls.SetMergeSigning(signing, a.protect.ReviewRules)
	a.users.AddDeleteHook(a.gpgKeys.UserDeleteHook())
	a.oauth2 = oauth2.NewService(d)
	a.users.AddDeleteHook(a.oauth2.UserDeleteHook())
	a.oauth2Provider = oauth2.NewProvider(d, a.oauth2, time.Duration(cfg.OAuth2.AccessTokenExpirationTime)*time.Second,
		time.Duration(cfg.OAuth2.RefreshTokenExpirationTime)*time.Hour)
	if cfg.OAuth2.Enabled { // [oauth2] ENABLED = false: no endpoint, no token accepted
		if err := a.openIDConnect(ctx, cfg, migrate); err != nil {
			d.Close()
			return nil, err
		}
		a.authn.SetOAuth2Tokens(a.oauth2Provider)
	}
	a.activity = activity.NewService(d, a.repos, a.issues, a.pulls, a.users.Store, a.access)
	a.activity.Listen(a.users, a.releases)
	a.orgs.SetRepoCounter(a.repos)
	a.users.AddDeleteHook(a.repos.UserDeleteHook())
	a.users.AddDeleteHook(a.orgs.UserDeleteHook())
	// Uploaded avatars leave with their account or repository.
	a.avatars = avatar.Files{Dir: filepath.Join(a.cfg.DataDir, "avatars")}
	a.users.AddDeleteHook(avatarCleanup{a.avatars})
	a.users.SetExternalAvatars(sourceAvatars{files: a.avatars, store: a.users.Store, limits: avatar.Limits{
		MaxWidth: cfg.Picture.AvatarMaxWidth, MaxHeight: cfg.Picture.AvatarMaxHeight, MaxFileSize: cfg.Picture.AvatarMaxFileSize}})
	a.orgs.AddDeleteHook(func(ctx context.Context, o *user.User) error {
		if o.Avatar != "" {
			db.AfterCommit(ctx, func() { _ = a.avatars.Remove(o.Avatar) })
		}
		return nil
	})
	a.repos.AddDeleteHook(func(ctx context.Context, r *repo.Repository) error {
		if r.Avatar != "" {
			db.AfterCommit(ctx, func() { _ = a.avatars.Remove(r.Avatar) })
		}
		return nil
	})
	if err := a.wireWebhooks(); err != nil {
		d.Close()
		return nil, err
	}
	if err := a.wireMail(); err != nil {
		d.Close()
		return nil, err
	}
	a.v1 = a.api()
	a.v1.AddWebhookSources()
	if a.web, err = a.webInterface(); err != nil {
		d.Close()
		return nil, err
	}
	a.authn.SetSessionReader(a.web.SessionUser)
	return a, nil
}

func (a *app) close() { a.db.Close() }

// newTwoFactor builds two-factor sign-in; authenticator applications show
// the instance as "Cairn (host)".
func newTwoFactor(d *db.DB, cfg *config.Config, box *webhook.SecretBox) *twofa.Service {
	issuer := "Cairn"
	if u, err := url.Parse(cfg.RootURL); err == nil && u.Hostname() != "" {
		issuer += " (" + u.Hostname() + ")"
	}
	return twofa.NewService(d, box, twofa.Options{Issuer: issuer})
}

// newSignInSources builds the sign-in sources with the kinds this binary
// knows; their secrets are sealed with the instance secret.
func newSignInSources(d *db.DB, box *webhook.SecretBox, users *user.Service) *authsource.Service {
	kinds := authsource.NewRegistry(append(ldapsource.Kinds(), smtpsource.Kind(), pamsource.Kind())...)
	return authsource.NewService(d, box, kinds, users, slog.Default())
}

// openIDConnect makes the OAuth2 provider an OpenID Connect provider: its
// ID token signing key ([oauth2] JWT_*), its endpoints for clients, and,
// when the server starts (migrate), the built-in applications of
// [oauth2] DEFAULT_APPLICATIONS.
func (a *app) openIDConnect(ctx context.Context, cfg *config.Config, migrate bool) error {
	keyFile := cfg.OAuth2.JWTSigningPrivateKeyFile
	if !filepath.IsAbs(keyFile) {
		keyFile = filepath.Join(cfg.DataDir, keyFile)
	}
	key, err := oidc.NewSigningKey(cfg.OAuth2.JWTSigningAlgorithm, keyFile, cfg.OAuth2.JWTSecret, a.secret)
	if err != nil {
		return err
	}
	a.oidcKey = key
	issuer := &oidc.Issuer{Key: key, Claims: oidc.Claims{Users: a.users.Store, Orgs: a.orgs, RootURL: cfg.RootURL}}
	a.oauth2Provider.SetIDTokens(issuer)
	a.oidc = &oidc.Endpoints{Provider: a.oauth2Provider, Issuer: issuer, RootURL: cfg.RootURL, CORS: cfg.CORS}
	if migrate {
		return a.oauth2.SyncBuiltinApps(ctx, cfg.OAuth2.DefaultApplications)
	}
	return nil
}

// checkLevel refuses a database that is not at this binary's migration level.
func checkLevel(ctx context.Context, d *db.DB) error {
	pending, newer, err := d.MigrationState(ctx, migrations.All())
	if err != nil {
		return err
	}
	if len(newer) > 0 {
		return fmt.Errorf("the database was migrated by a newer Cairn (migrations %v are unknown to this binary): use that version", newer)
	}
	if len(pending) > 0 {
		return fmt.Errorf("the database is older than this binary (%d migrations pending, the first %d %q): run 'cairn migrate' (or start 'cairn serve', which migrates) first",
			len(pending), pending[0].Version, pending[0].Name)
	}
	return nil
}

// handler is the top-level HTTP router: health, API, API document, avatars.
// Every request gets an X-Request-Id, an access log line and its metrics.
func (a *app) handler() http.Handler {
	return observe.Middleware(a.logger, a.metrics, a.routePattern)(a.routes(a.v1))
}

// api builds the API handler.
func (a *app) api() *v1.API {
	return v1.New(v1.Deps{
		Config: a.cfg, DB: a.db, Users: a.users, Tokens: a.tokens, Authn: a.authn, Access: a.access, Orgs: a.orgs,
		Repos: a.repos, Templates: a.templates, Issues: a.issues, Pulls: a.pulls, Protect: a.protect, Releases: a.releases, Markup: markup.New(a.cfg.RootURL),
		Avatars: a.avatars, Version: version, GPGKeys: a.gpgKeys, Signatures: a.signatures, Signer: a.signer, Webhooks: a.webhooks,
		Activity: a.activity, OAuth2: a.oauth2, Sources: a.sources, SyncTask: a.syncTask, Mail: a.mail,
	})
}

// webInterface builds the web interface.
func (a *app) webInterface() (*web.Handler, error) {
	return web.New(web.Deps{
		Config: a.cfg, DB: a.db, Users: a.users, Access: a.access, Orgs: a.orgs, Repos: a.repos, Git: a.git,
		Issues: a.issues, Pulls: a.pulls, Releases: a.releases, Markup: markup.New(a.cfg.RootURL),
		Secret: a.secret, Version: version,
		Tokens: a.tokens, GPGKeys: a.gpgKeys, Avatars: a.avatars, Templates: a.templates, Activity: a.activity,
		Webhooks: a.webhooks, Protect: a.protect, Queue: a.queue, Started: time.Now(), TwoFA: a.twoFA, OAuth2: a.oauth2,
		OAuth2Provider: a.oauth2Provider, Sources: a.sources, SecurityKeys: a.securityKeys, Mail: a.mail, TimeCodes: a.timeCodes,
	})
}

// routePattern labels a request with the route that serves it: the API's
// or a page's.
func (a *app) routePattern(method, path string) string {
	if strings.HasPrefix(path, "/api/") {
		return a.v1.RoutePattern(method, path)
	}
	if p := a.v1.RoutePattern(method, path); p != "" && p != "/*" {
		return p
	}
	return a.web.RoutePattern(method, path)
}

// routes maps paths to handlers; routes that are not the API's get a fixed
// route label (log, metrics), the API's are labelled by chi.
func (a *app) routes(api *v1.API) http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h http.Handler) {
		path := pattern
		if _, p, ok := strings.Cut(pattern, " "); ok {
			path = p // without the method
		}
		mux.Handle(pattern, observe.Route(path, h))
	}
	handle("GET /api/healthz", observe.Health("Cairn", 5*time.Second,
		observe.Check{Name: "database:ping", Failure: "the database does not answer", Run: func(ctx context.Context) error {
			var one int
			return a.db.QueryRow(ctx, "SELECT 1").Scan(&one)
		}},
		observe.Check{Name: "repositories:storage", Failure: "the repositories directory is not readable and writable",
			Run: observe.DirWritable(a.cfg.RepositoryRoot())},
	))
	if a.metrics != nil { // [metrics] ENABLED; otherwise /metrics answers 404
		handle("GET /metrics", a.metrics.Handler(a.cfg.Metrics.Token))
	}
	var apiHandler http.Handler = api
	if mw := cors.Middleware(a.cfg.CORS, "Authorization", "X-Gitea-OTP"); mw != nil { // [cors], as Gitea's API
		apiHandler = mw(api)
	}
	mux.Handle("/api/v1/", apiHandler)
	mux.Handle("/api/", api) // other API paths: the API's JSON 404
	handle("/api/internal/hook/", a.hooks)
	if a.cfg.API.EnableSwagger { // [api] ENABLE_SWAGGER
		handle("GET /swagger.v1.json", http.HandlerFunc(api.ServeSwagger))
	}
	handle("GET /avatars/{name}", http.HandlerFunc(avatar.Handler))
	handle("GET /avatars/custom/{name}", http.HandlerFunc(a.avatars.Handler))
	handle("GET /attachments/{uuid}", http.HandlerFunc(api.ServeAttachment))
	// Release downloads are served by the API's handler at their web
	// address; every other path that is not git over HTTP is a page.
	handle("GET /assets/", a.web.Assets())
	if a.oidc != nil { // the OAuth2 endpoints for clients, outside the web interface's sessions
		a.oidc.Register(handle)
	} else {
		for _, p := range oidc.Paths() {
			handle(p, http.NotFoundHandler())
		}
	}
	mux.Handle("/", &githttp.Handler{
		Authn: a.authn, Repos: a.repos, Users: a.users.Store, Access: a.access, Hooks: a.hooks, Git: a.git,
		Disabled: a.cfg.Repository.HTTPTransferDisabled, Metrics: a.metrics, RequireSignin: a.cfg.Service.RequireSigninView,
		Fallback: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isReleaseDownload(r.URL.Path) {
				api.ServeHTTP(w, r)
				return
			}
			a.web.ServeHTTP(w, r)
		}),
	})
	return api.GuardPaths(mux)
}

// isReleaseDownload reports whether path is a release asset's web address,
// /{owner}/{repo}/releases/download/{tag}/{name}.
func isReleaseDownload(path string) bool {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	return len(parts) == 6 && parts[2] == "releases" && parts[3] == "download"
}

// workers are the background tasks of a running server.
func (a *app) workers() []func(context.Context) {
	every := time.Duration(a.cfg.API.TokenLastUsedFlushEvery) * time.Second
	if every <= 0 {
		every = 10 * time.Second
	}
	list := []func(context.Context){
		a.syncTask.Run,
		func(ctx context.Context) { a.tokens.RunLastUsedFlusher(ctx, every) },
		func(ctx context.Context) { a.repos.RunMirrorWorker(ctx, time.Minute, 2) },
		func(ctx context.Context) { a.pulls.Run(ctx, 2) },
		func(ctx context.Context) { a.queue.Run(ctx) },
		func(ctx context.Context) {
			server.Every(ctx, time.Hour, "web: pruning expired sessions", a.web.PruneSessions)
		},
		func(ctx context.Context) {
			server.Every(ctx, time.Hour, "oauth2: pruning expired codes and tokens", a.oauth2Provider.Prune)
		},
	}
	if a.oidcKey != nil { // [oauth2] ENABLED
		list = append(list, func(context.Context) { a.oidcKey.Prepare() })
	}
	return list
}

// sshServer builds the built-in SSH server (host key in <data>/ssh), or
// returns nil when CAIRN_SSH_ADDR is "off".
func (a *app) sshServer() (*sshd.Server, error) {
	if a.cfg.SSHAddr == "" || a.cfg.SSHAddr == "off" {
		return nil, nil
	}
	return sshd.New(sshd.Options{
		Users: a.users, Repos: a.repos, Access: a.access, Hooks: a.hooks, Git: a.git,
		DataDir: a.cfg.DataDir, AnonymousClone: a.cfg.Server.SSHAnonymousClone && !a.cfg.Service.RequireSigninView, Metrics: a.metrics,
	})
}

// sourceAvatars stores the avatars sign-in sources give: named by the
// source's bytes, so an unchanged image is recognised without decoding it.
type sourceAvatars struct {
	files  avatar.Files
	store  *user.Store
	limits avatar.Limits
}

func (s sourceAvatars) SetExternalAvatar(ctx context.Context, u *user.User, image []byte) error {
	sum := sha256.Sum256(append([]byte(fmt.Sprintf("user:%d:source:", u.ID)), image...))
	name := hex.EncodeToString(sum[:])
	if u.Avatar == name {
		return nil
	}
	png, err := avatar.Prepare(image, s.limits)
	if err != nil {
		return err
	}
	if err := s.files.SaveAs(name, png); err != nil {
		return err
	}
	if err := s.store.SetAvatar(ctx, u.ID, name); err != nil {
		_ = s.files.Remove(name)
		return err
	}
	previous := u.Avatar
	u.Avatar = name
	if previous != "" {
		_ = s.files.Remove(previous)
	}
	return nil
}

// avatarCleanup is the user delete hook that removes an uploaded avatar.
type avatarCleanup struct{ files avatar.Files }

func (c avatarCleanup) CheckDelete(context.Context, *user.User) error { return nil }

func (c avatarCleanup) Purge(ctx context.Context, u *user.User) error {
	if u.Avatar != "" {
		db.AfterCommit(ctx, func() { _ = c.files.Remove(u.Avatar) })
	}
	return nil
}
