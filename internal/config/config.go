// Package config loads Cairn's settings: built-in defaults, overridden by an
// INI file with Gitea's section and key names, overridden by CAIRN_* environment
// variables. The result is one immutable value passed down to every service.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/ini.v1"

	"github.com/cairn-forge/cairn/internal/password"
)

// Config is the complete set of settings of one Cairn instance.
type Config struct {
	// DataDir holds the SQLite database, repositories, attachments and host keys.
	DataDir string
	// HTTPAddr is the listen address of the web interface, API and git over HTTP.
	HTTPAddr string
	// SSHAddr is the listen address of the built-in SSH server; "off" disables it.
	SSHAddr string
	// RootURL is the public base URL, always ending in "/".
	RootURL string
	// DatabaseURL selects the database: empty for SQLite in DataDir, postgres://,
	// mysql:// or sqlite:<path>.
	DatabaseURL string
	// ConfigFile is the INI file the settings were read from (may not exist).
	ConfigFile string
	// ConfigFileFound tells whether ConfigFile existed and was read.
	ConfigFileFound bool
	// Changed lists the keys set in the file or the environment to a value
	// other than their default, in declaration order.
	Changed []Setting
	// Warnings lists the keys of the file that Cairn does not know or does
	// not support yet; they have no effect.
	Warnings []KeyWarning
	// given holds "section\x00KEY" of every key set in the file or the environment.
	given map[string]bool

	Server     ServerSection     `section:"server"`
	Database   DatabaseSection   `section:"database"`
	API        APISection        `section:"api"`
	UI         UISection         `section:"ui"`
	Repository RepositorySection `section:"repository"`
	// RepositoryIssue is [repository.issue].
	RepositoryIssue RepositoryIssueSection `section:"repository.issue"`
	// RepositoryPullRequest is [repository.pull-request].
	RepositoryPullRequest RepositoryPullRequestSection `section:"repository.pull-request"`
	Attachment            AttachmentSection            `section:"attachment"`
	Picture               PictureSection               `section:"picture"`
	Security              SecuritySection              `section:"security"`
	Migrations            MigrationsSection            `section:"migrations"`
	Mirror                MirrorSection                `section:"mirror"`
	Service               ServiceSection               `section:"service"`
	Session               SessionSection               `section:"session"`
	Log                   LogSection                   `section:"log"`
	Metrics               MetricsSection               `section:"metrics"`
	Debug                 DebugSection                 `section:"debug"`

	// Webhook is [webhook]: deliveries of webhooks.
	Webhook WebhookSection `section:"webhook"`

	// RepositorySigning is [repository.signing]: the instance's signing key.
	RepositorySigning RepositorySigningSection `section:"repository.signing"`

	// RepositoryRelease is [repository.release]: release asset limits.
	RepositoryRelease RepositoryReleaseSection `section:"repository.release"`

	// OAuth2 is [oauth2]: the OAuth2 provider's token lifetimes.
	OAuth2 OAuth2Section `section:"oauth2"`

	// CronSyncExternalUsers is [cron.sync_external_users]: the
	// synchronisation of the users of sign-in sources (LDAP).
	CronSyncExternalUsers CronSyncExternalUsersSection `section:"cron.sync_external_users"`

	// CORS is [cors]: cross-origin access to the OAuth2 endpoints.
	CORS CORSSection `section:"cors"`

	// Mailer is [mailer]: outgoing mail.
	Mailer MailerSection `section:"mailer"`
}

// CronSyncExternalUsersSection is [cron.sync_external_users], with Gitea's keys and defaults.
type CronSyncExternalUsersSection struct {
	Enabled        bool   `key:"ENABLED" default:"true" doc:"Synchronise the users of the sign-in sources that have synchronisation enabled."`
	RunAtStart     bool   `key:"RUN_AT_START" default:"false" doc:"Also synchronise once when the server starts."`
	Schedule       string `key:"SCHEDULE" default:"@midnight" doc:"When to synchronise: @every <duration> (e.g. @every 24h), @hourly, @daily or @midnight; other cron expressions are refused."`
	UpdateExisting bool   `key:"UPDATE_EXISTING" default:"true" doc:"Also update existing accounts (full name, e-mail, SSH keys, admin and restricted flags, reactivation); off: only create and deactivate."`
}

// CORSSection is [cors]: which other origins' pages may call the API and
// the OAuth2 provider's endpoints for clients (token, userinfo, keys,
// introspection, revocation, discovery), as Gitea's.
type CORSSection struct {
	Enabled          bool          `key:"ENABLED" default:"false" doc:"Answer cross-origin requests (and their preflight) on /api/v1 and the OAuth2 endpoints for clients; false: no CORS headers (OPTIONS on the OAuth2 endpoints answers 405)."`
	AllowDomain      []string      `key:"ALLOW_DOMAIN" default:"*" doc:"Origins allowed (comma-separated, * for any, one * wildcard per entry such as https://*.example.com)."`
	Methods          []string      `key:"METHODS" default:"GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS" doc:"Methods allowed in cross-origin requests (comma-separated)."`
	MaxAge           time.Duration `key:"MAX_AGE" default:"10m" doc:"How long a browser may cache a preflight answer."`
	AllowCredentials bool          `key:"ALLOW_CREDENTIALS" default:"false" doc:"Allow cross-origin requests with credentials (cookies, HTTP authentication)."`
	Headers          []string      `key:"HEADERS" default:"Content-Type,User-Agent" doc:"Request headers allowed in cross-origin requests (comma-separated); Authorization (and X-Gitea-OTP on the API) are always allowed."`
	XFrameOptions    string        `key:"X_FRAME_OPTIONS" default:"SAMEORIGIN" doc:"X-Frame-Options header of the OAuth2 endpoints' answers."`
}

// OAuth2Section is [oauth2]: lifetimes of the tokens the OAuth2 provider
// issues, in Gitea's units.
type OAuth2Section struct {
	AccessTokenExpirationTime  int64    `key:"ACCESS_TOKEN_EXPIRATION_TIME" default:"3600" doc:"Lifetime of an OAuth2 access token, in seconds."`
	RefreshTokenExpirationTime int64    `key:"REFRESH_TOKEN_EXPIRATION_TIME" default:"730" doc:"Lifetime of an OAuth2 refresh token, in hours; each use replaces it with a new one."`
	Enabled                    bool     `key:"ENABLED" default:"true" doc:"Run the OAuth2 and OpenID Connect provider; false: its endpoints (authorize, token, userinfo, keys, introspect, revoke, discovery) answer 404 and its access tokens are refused."`
	JWTSigningAlgorithm        string   `key:"JWT_SIGNING_ALGORITHM" default:"RS256" doc:"Signature of OpenID Connect ID tokens: RS256, RS384, RS512, ES256, ES384, ES512, EdDSA (a key pair kept in JWT_SIGNING_PRIVATE_KEY_FILE) or HS256, HS384 (keyed with the client's secret, JWT_SECRET for public clients). HS512 is refused: its keys must have 64 bytes, client secrets have 56."`
	JWTSigningPrivateKeyFile   string   `key:"JWT_SIGNING_PRIVATE_KEY_FILE" default:"jwt/private.pem" doc:"PEM (PKCS#8) private key of the asymmetric algorithms, relative to the data directory; generated when missing (RSA 4096, the algorithm's ECDSA curve, or Ed25519)."`
	JWTSecret                  string   `key:"JWT_SECRET" default:"" secret:"true" doc:"HS256/HS384 only: base64url key (at least 32/48 bytes) of public clients' ID tokens. Empty: derived from the instance secret."`
	DefaultApplications        []string `key:"DEFAULT_APPLICATIONS" default:"git-credential-oauth,git-credential-manager,tea" doc:"Built-in public OAuth2 applications to offer, with Gitea's client ids (comma-separated; empty for none)."`
}

// ServerSection is [server]. HTTP_ADDR, HTTP_PORT, ROOT_URL, DOMAIN and the
// SSH listen keys are folded into Config.HTTPAddr, SSHAddr and RootURL.
type ServerSection struct {
	Protocol          string        `key:"PROTOCOL" default:"http" doc:"Only http is supported: Cairn serves plain HTTP (put a TLS proxy in front); other values are refused."`
	HTTPAddr          string        `key:"HTTP_ADDR" default:"127.0.0.1" doc:"Host or IP address to listen on for the web interface, API and git over HTTP (0.0.0.0 for every interface). Cairn's default is loopback; Gitea's is 0.0.0.0."`
	HTTPPort          int           `key:"HTTP_PORT" default:"3000" doc:"Port to listen on, with HTTP_ADDR."`
	Domain            string        `key:"DOMAIN" default:"" doc:"Public host name. When set and ROOT_URL is not, the root URL is http://DOMAIN:<port>/; it is also the default of SSH_DOMAIN."`
	RootURL           string        `key:"ROOT_URL" default:"" doc:"Public URL of the instance, used in clone_url, html_url and links. Empty: http://<DOMAIN or listen address>:<port>/."`
	StartSSH          bool          `key:"START_SSH_SERVER" default:"true" doc:"Run the built-in SSH server. Cairn has no OpenSSH integration, so false turns SSH off (Gitea's default is false, meaning OpenSSH). Given as true, SSH_PORT is also the default listen port, as in Gitea."`
	DisableSSH        bool          `key:"DISABLE_SSH" default:"false" doc:"Turn git over SSH off."`
	SSHListenHost     string        `key:"SSH_LISTEN_HOST" default:"127.0.0.1" doc:"Address the built-in SSH server listens on (0.0.0.0 for every interface)."`
	SSHListenPort     int           `key:"SSH_LISTEN_PORT" default:"0" doc:"Port the built-in SSH server listens on. 0: SSH_PORT when START_SSH_SERVER = true is given (Gitea's rule), else 2222."`
	SSHAnonymousClone bool          `key:"SSH_ANONYMOUS_CLONE" default:"false" doc:"Allow cloning public repositories over SSH without a registered key (Cairn's own key)."`
	SSHDomain         string        `key:"SSH_DOMAIN" default:"" doc:"Host name in SSH clone URLs. Empty: DOMAIN, else the host of ROOT_URL."`
	SSHPort           int           `key:"SSH_PORT" default:"0" doc:"Port shown in SSH clone URLs (22 gives git@host:owner/repo.git). 0: the port the SSH server listens on."`
	ShutdownTimeout   time.Duration `key:"SHUTDOWN_TIMEOUT" default:"30s" doc:"How long a stopping server waits for requests and git transfers to finish (Cairn's own key)."`
}

// DatabaseSection is [database]; it is folded into Config.DatabaseURL unless
// CAIRN_DATABASE_URL is set.
type DatabaseSection struct {
	Type    string `key:"DB_TYPE" default:"" doc:"sqlite3, postgres or mysql (MariaDB too). Empty: SQLite at <data>/cairn.db. The other keys build the same connection as CAIRN_DATABASE_URL would. A database that has tables but no Cairn schema (such as Gitea's own) is refused."`
	Host    string `key:"HOST" default:"" doc:"Database server as host or host:port (PostgreSQL: 5432, MySQL: 3306 when no port is given); for PostgreSQL a path starting with / is a Unix socket directory."`
	Name    string `key:"NAME" default:"" doc:"Database name."`
	User    string `key:"USER" default:"" doc:"Database user."`
	Passwd  string `key:"PASSWD" default:"" secret:"true" doc:"Database password (never printed)."`
	SSLMode string `key:"SSL_MODE" default:"disable" doc:"PostgreSQL: sslmode (disable, require, verify-ca, verify-full). MySQL: the driver's tls value (true, false, skip-verify, preferred); disable means false."`
	Path    string `key:"PATH" default:"" doc:"sqlite3 only: the database file; a relative path is taken from the working directory. Empty: <data>/cairn.db."`
}

// APISection is [api].
type APISection struct {
	EnableSwagger           bool  `key:"ENABLE_SWAGGER" default:"true" doc:"Serve the API document at /swagger.v1.json; false answers 404 there."`
	MaxResponseItems        int   `key:"MAX_RESPONSE_ITEMS" default:"50" doc:"Largest page size (limit) the API returns."`
	DefaultPagingNum        int   `key:"DEFAULT_PAGING_NUM" default:"30" doc:"Page size when a request gives no limit."`
	DefaultGitTreesPerPage  int   `key:"DEFAULT_GIT_TREES_PER_PAGE" default:"1000" doc:"Largest page of entries of /git/trees."`
	DefaultMaxBlobSize      int64 `key:"DEFAULT_MAX_BLOB_SIZE" default:"10485760" doc:"Largest file (bytes) whose content the contents and blob APIs return inline."`
	TokenLastUsedFlushEvery int   `key:"TOKEN_LAST_USED_FLUSH_SECONDS" default:"10" doc:"Seconds between writes of the tokens' last-used times, kept in memory meanwhile (Cairn's own key)."`
}

// UISection is [ui].
type UISection struct {
	DefaultTheme string   `key:"DEFAULT_THEME" default:"gitea-auto" doc:"Theme reported by /settings/ui."`
	Reactions    []string `key:"REACTIONS" default:"+1,-1,laugh,hooray,confused,heart,rocket,eyes" doc:"Reactions users may give (comma-separated)."`
	CustomEmojis []string `key:"CUSTOM_EMOJIS" default:"gitea,codeberg,gitlab,git,github,gogs" doc:"Custom emojis reported by /settings/ui (comma-separated)."`
}

// RepositorySection is [repository].
type RepositorySection struct {
	Root                 string        `key:"ROOT" default:"" doc:"Directory of the bare repositories. Empty: <data>/repositories. Cairn names them <id>.git, not Gitea's <owner>/<name>.git, so it cannot serve a Gitea repository directory."`
	ForcePrivate         bool          `key:"FORCE_PRIVATE" default:"false" doc:"New repositories are private, and only administrators may make one public."`
	DefaultPrivate       string        `key:"DEFAULT_PRIVATE" default:"last" doc:"last, private or public: the default of the web interface's new-repository form (not built yet); as in Gitea, the API's private field is not affected."`
	DefaultBranch        string        `key:"DEFAULT_BRANCH" default:"main" doc:"Default branch of new repositories."`
	DefaultRepoUnits     []string      `key:"DEFAULT_REPO_UNITS" default:"repo.code,repo.releases,repo.issues,repo.pulls,repo.wiki,repo.projects,repo.packages,repo.actions" doc:"Units enabled in new repositories (comma-separated)."`
	DisabledRepoUnits    []string      `key:"DISABLED_REPO_UNITS" default:"" doc:"Units disabled on the whole instance (comma-separated)."`
	DisableMigrations    bool          `key:"DISABLE_MIGRATIONS" default:"false" doc:"Refuse repository migrations and mirrors."`
	DisableStars         bool          `key:"DISABLE_STARS" default:"false" doc:"Turn stars off."`
	MirrorInterval       string        `key:"MIRROR_INTERVAL" default:"8h" doc:"Default sync interval of new pull mirrors (Cairn's key; Gitea's [mirror] DEFAULT_INTERVAL is not supported yet)."`
	MaxCreationLimit     int           `key:"MAX_CREATION_LIMIT" default:"-1" doc:"How many repositories a user may own when their own max_repo_creation is -1; -1 is no limit. Administrators are not limited."`
	HTTPTransferDisabled bool          `key:"DISABLE_HTTP_GIT" default:"false" doc:"Turn git over HTTP off."`
	QuarantineMaxAge     time.Duration `key:"QUARANTINE_MAX_AGE" default:"1h" doc:"How long a push quarantine directory may stay unmodified before the periodic sweep removes it; 0 keeps only the sweep at start-up (Cairn's own key)."`
}

// RepositoryIssueSection is [repository.issue].
type RepositoryIssueSection struct {
	MaxPinned int `key:"MAX_PINNED" default:"3" doc:"How many issues (and, apart, pull requests) a repository may pin; 0 turns pinning off."`
}

// RepositoryPullRequestSection is [repository.pull-request].
type RepositoryPullRequestSection struct {
	WorkInProgressPrefixes []string `key:"WORK_IN_PROGRESS_PREFIXES" default:"WIP:,[WIP]" doc:"Title prefixes that mark a pull request as a draft, which cannot be merged (comma-separated, case-insensitive)."`
	AddCoCommitterTrailers bool     `key:"ADD_CO_COMMITTER_TRAILERS" default:"true" doc:"Add Co-authored-by trailers naming the other authors to squash merge messages."`
}

// RepositoryReleaseSection is [repository.release].
type RepositoryReleaseSection struct {
	AllowedTypes []string `key:"ALLOWED_TYPES" default:"" doc:"File extensions or MIME types allowed for release assets (comma-separated); empty allows every type."`
	FileMaxSize  int64    `key:"FILE_MAX_SIZE" default:"2048" doc:"Largest release asset in MiB."`
}

// RepositorySigningSection is [repository.signing]: the OpenPGP key the
// instance signs its own commits with, and when it does (Gitea's rules).
type RepositorySigningSection struct {
	InitialCommit []string `key:"INITIAL_COMMIT" default:"always" doc:"When the first commit of a new repository is signed: always, never, or all of pubkey (the creator has a GPG key), twofa (the creator uses two-factor sign-in)."`
	CRUDActions   []string `key:"CRUD_ACTIONS" default:"pubkey, twofa, parentsigned" doc:"When commits of the contents API are signed: always, never, or all of pubkey, twofa, parentsigned (the parent commit is verified)."`
	Merges        []string `key:"MERGES" default:"pubkey, twofa, basesigned, commitssigned" doc:"When merge commits (and rebased commits) are signed: always, never, or all of pubkey, twofa, approved (the base branch's required approvals are met), basesigned, headsigned, commitssigned (every commit of the pull request is verified)."`

	SigningKey   string `key:"SIGNING_KEY" default:"none" doc:"Path of an unencrypted ASCII-armored OpenPGP private key file the instance signs its commits with; none (or default, since Cairn has no gpg keyring) signs nothing."`
	SigningName  string `key:"SIGNING_NAME" default:"" doc:"Committer name of commits signed by the instance; empty: the key's first identity."`
	SigningEmail string `key:"SIGNING_EMAIL" default:"" doc:"Committer e-mail of commits signed by the instance; empty: the key's first identity."`
}

// PictureSection is [picture]: limits of uploaded avatars.
type PictureSection struct {
	AvatarMaxWidth    int   `key:"AVATAR_MAX_WIDTH" default:"4096" doc:"Widest uploaded avatar in pixels."`
	AvatarMaxHeight   int   `key:"AVATAR_MAX_HEIGHT" default:"4096" doc:"Tallest uploaded avatar in pixels."`
	AvatarMaxFileSize int64 `key:"AVATAR_MAX_FILE_SIZE" default:"1048576" doc:"Largest uploaded avatar in bytes."`
}

// AttachmentSection is [attachment].
type AttachmentSection struct {
	Enabled      bool     `key:"ENABLED" default:"true" doc:"Allow attachments on issues and comments."`
	AllowedTypes []string `key:"ALLOWED_TYPES" default:".avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip" doc:"File extensions or MIME types allowed (comma-separated)."`
	MaxSize      int64    `key:"MAX_SIZE" default:"2048" doc:"Largest attachment in MiB."`
	MaxFiles     int      `key:"MAX_FILES" default:"5" doc:"Most attachments in one upload."`
}

// SecuritySection is [security].
type SecuritySection struct {
	DisableWebhooks   bool `key:"DISABLE_WEBHOOKS" default:"false" doc:"Turn webhooks off: nothing is delivered and the hook routes answer 403."`
	ImportLocalPaths  bool `key:"IMPORT_LOCAL_PATHS" default:"false" doc:"Allow migrations from local paths of the server (for users allowed to)."`
	MinPasswordLength int  `key:"MIN_PASSWORD_LENGTH" default:"1" doc:"Shortest password accepted."`
	// PasswordHashAlgo names the argon2id parameters of new password hashes
	// (password.ParseAlgorithm); validate derives PasswordParams from it.
	PasswordHashAlgo string `key:"PASSWORD_HASH_ALGO" default:"argon2id" doc:"Hash of new passwords, always argon2id: argon2id for OWASP's parameters (19 MiB, 2 passes, 1 thread, 32 bytes), argon2 for Gitea's (64 MiB, 2 passes, 8 threads, 50 bytes), or argon2$TIME$MEMORY_KIB$THREADS$KEY_LENGTH. Each hash keeps its own parameters, so existing passwords still verify. Gitea's pbkdf2, bcrypt and scrypt are ignored with a warning."`
	// PasswordParams are PasswordHashAlgo's parameters.
	PasswordParams password.Params
	// LoginFailuresPerAccount is how many failed password checks one login
	// may have in LoginFailureWindow before password checks for it are
	// refused with 429 until the window ends; 0 turns the limit off.
	LoginFailuresPerAccount int `key:"LOGIN_FAILURES_PER_ACCOUNT" default:"10" doc:"Failed password checks one login may have in LOGIN_FAILURE_WINDOW before further ones answer 429; 0 turns the limit off (Cairn's own key)."`
	// LoginFailuresPerAddress is the same limit per client address (IPv4
	// address, IPv6 /64), over all logins; 0 turns it off.
	LoginFailuresPerAddress int `key:"LOGIN_FAILURES_PER_ADDRESS" default:"30" doc:"The same limit per client address (IPv4 address, IPv6 /64) over all logins; 0 turns it off (Cairn's own key)."`
	// LoginFailureWindow is how long failures count, from the first; 0 turns
	// the throttle off.
	LoginFailureWindow time.Duration `key:"LOGIN_FAILURE_WINDOW" default:"15m" doc:"How long failures count, from the first; 0 turns the throttle off (Cairn's own key)."`
}

// MigrationsSection is [migrations].
type MigrationsSection struct {
	AllowLocalNetworks bool     `key:"ALLOW_LOCALNETWORKS" default:"false" doc:"Allow migrations and mirrors from private and loopback addresses."`
	AllowedDomains     []string `key:"ALLOWED_DOMAINS" default:"" doc:"If set, migrations only from these hosts (comma-separated, * wildcards)."`
	BlockedDomains     []string `key:"BLOCKED_DOMAINS" default:"" doc:"Hosts migrations may not come from (comma-separated, * wildcards)."`
}

// MirrorSection is [mirror].
type MirrorSection struct {
	// Enabled allows pull mirrors; GET /settings/repository reports mirrors_disabled = !Enabled.
	Enabled bool `key:"ENABLED" default:"true" doc:"Allow pull mirrors."`
}

// WebhookSection is [webhook].
type WebhookSection struct {
	DeliverTimeout  time.Duration `key:"DELIVER_TIMEOUT" default:"5s" doc:"How long one delivery may take, connection to the end of the response (a bare number is seconds, as in Gitea)."`
	SkipTLSVerify   bool          `key:"SKIP_TLS_VERIFY" default:"false" doc:"Do not verify the certificates of HTTPS receivers."`
	AllowedHostList string        `key:"ALLOWED_HOST_LIST" default:"external" doc:"Where hooks may deliver, checked on the address actually connected to: external (public addresses), loopback, private (RFC 1918/4193 and link-local), * (anywhere), CIDRs and host name globs, comma-separated."`
	PagingNum       int           `key:"PAGING_NUM" default:"10" doc:"Deliveries listed per page by default."`
	ProxyURL        string        `key:"PROXY_URL" default:"" doc:"HTTP proxy for deliveries (empty: none)."`
	ProxyHosts      []string      `key:"PROXY_HOSTS" default:"" doc:"Host name globs whose deliveries go through PROXY_URL (comma-separated; ** for all)."`
	// Cairn's own keys: retries, history, health.
	DeliveryAttempts int           `key:"DELIVERY_ATTEMPTS" default:"5" doc:"Attempts per delivery before it is given up, with exponential back-off between them (Cairn's own key; Gitea does not retry)."`
	RetryBackoff     time.Duration `key:"RETRY_BACKOFF" default:"10s" doc:"Wait before the first retry of a failed delivery; it doubles with each attempt, up to an hour (Cairn's own key)."`
	DeliveryWorkers  int           `key:"DELIVERY_WORKERS" default:"8" doc:"Deliveries made at the same time (Cairn's own key)."`
	PerHookLimit     int           `key:"PER_HOOK_CONCURRENCY" default:"2" doc:"Deliveries to one hook made at the same time, so that a slow receiver holds up only itself (Cairn's own key)."`
	DeliveriesKept   int           `key:"DELIVERIES_KEPT" default:"50" doc:"Finished deliveries each hook keeps for its history; older ones are pruned (Cairn's own key)."`
	DisableAfter     time.Duration `key:"DISABLE_AFTER" default:"0" doc:"Turn a hook off once its deliveries have failed without a success for this long, recording why; 0 never does (Cairn's own key)."`
}

// ServiceSection is [service].
type ServiceSection struct {
	DefaultUserVisibility string `key:"DEFAULT_USER_VISIBILITY" default:"public" doc:"public, limited or private: visibility of accounts created without one."`
	DefaultOrgVisibility  string `key:"DEFAULT_ORG_VISIBILITY" default:"public" doc:"public, limited or private: the default of the web interface's new-organization form (not built yet); as in Gitea, the API's visibility field is not affected."`
	EnableTimetracking    bool   `key:"ENABLE_TIMETRACKING" default:"true" doc:"Allow time tracking."`
	EnableDependencies    bool   `key:"DEFAULT_ENABLE_DEPENDENCIES" default:"true" doc:"Issue dependencies are on in new repositories."`
	DisableRegistration   bool   `key:"DISABLE_REGISTRATION" default:"false" doc:"Refuse sign-up through the web interface; administrators still create accounts (API, CLI)."`
	RegisterEmailConfirm  bool   `key:"REGISTER_EMAIL_CONFIRM" default:"false" doc:"Accounts created by sign-up stay inactive until their owner follows the link mailed to them (needs [mailer] ENABLED)."`
	EnableNotifyMail      bool   `key:"ENABLE_NOTIFY_MAIL" default:"false" doc:"Mail watchers and participants about issues and pull requests (needs [mailer] ENABLED); each user's e-mail notification preference applies."`
	ActiveCodeLiveMinutes int    `key:"ACTIVE_CODE_LIVE_MINUTES" default:"180" doc:"Minutes an account activation link stays valid."`
	ResetPasswdCodeLive   int    `key:"RESET_PASSWD_CODE_LIVE_MINUTES" default:"180" doc:"Minutes a password reset link stays valid."`
	RequireSigninView     bool   `key:"REQUIRE_SIGNIN_VIEW" default:"false" doc:"Only signed-in users see anything: web pages and downloads send others to the sign-in page, the API answers 401, git over HTTP asks for credentials and anonymous SSH clones are off."`
}

// SessionSection is [session]: the web interface's sign-in sessions, kept
// in the database.
type SessionSection struct {
	CookieName      string `key:"COOKIE_NAME" default:"i_like_cairn" doc:"Name of the session cookie."`
	CookieSecure    bool   `key:"COOKIE_SECURE" default:"false" doc:"Mark the session cookie Secure (only sent over HTTPS); also on whenever ROOT_URL starts with https://."`
	SessionLifeTime int64  `key:"SESSION_LIFE_TIME" default:"86400" doc:"Seconds a session stays valid after its last use."`
}

// LogSection is [log].
type LogSection struct {
	Level  string `key:"LEVEL" default:"info" doc:"Least severe messages logged: trace, debug, info, warn, error, critical, fatal, or none (off) for no log."`
	Format string `key:"FORMAT" default:"text" doc:"text or json (Cairn's own key)."`
}

// MetricsSection is [metrics].
type MetricsSection struct {
	Enabled bool   `key:"ENABLED" default:"false" doc:"Serve Prometheus metrics at /metrics."`
	Token   string `key:"TOKEN" default:"" secret:"true" doc:"If set, /metrics requires Authorization: Bearer <TOKEN> (never printed)."`
}

// DebugSection is [debug]: switches that help tests and benchmarks observe the server.
type DebugSection struct {
	// QueryCountHeader adds X-Cairn-Query-Count to every API response.
	QueryCountHeader bool `key:"QUERY_COUNT_HEADER" default:"false" doc:"Add X-Cairn-Query-Count to every API response (Cairn's own key)."`
}

// Load reads the settings: built-in defaults, then the INI file, then
// CAIRN_<SECTION>_<KEY> variables, then the fixed operator variables
// (CAIRN_HTTP_ADDR, CAIRN_SSH_ADDR, CAIRN_ROOT_URL, CAIRN_DATABASE_URL), each
// winning over the ones before. getenv is usually os.Getenv; tests pass their own.
func Load(getenv func(string) string) (*Config, error) {
	c := &Config{DataDir: envOr(getenv, "CAIRN_DATA_DIR", "./data")}
	abs, err := filepath.Abs(c.DataDir)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	c.DataDir = abs
	explicit := getenv("CAIRN_CONFIG")
	c.ConfigFile = envOr(getenv, "CAIRN_CONFIG", filepath.Join(c.DataDir, "cairn.ini"))
	if c.ConfigFile, err = filepath.Abs(c.ConfigFile); err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	file := ini.Empty()
	switch _, err := os.Stat(c.ConfigFile); {
	case err == nil:
		file, err = ini.LoadSources(ini.LoadOptions{IgnoreContinuation: true}, c.ConfigFile) // as Gitea reads app.ini
		if err != nil {
			return nil, fmt.Errorf("config file %s: %w", c.ConfigFile, err)
		}
		c.ConfigFileFound = true
	case explicit != "":
		return nil, fmt.Errorf("config file %s given by CAIRN_CONFIG: %w", c.ConfigFile, err)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("config file %s: %w", c.ConfigFile, err)
	}
	if err := fill(c, file, getenv); err != nil {
		return nil, err
	}
	c.Warnings = checkKeys(file)
	if err := c.derive(getenv); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if c.API.MaxResponseItems < 1 {
		c.API.MaxResponseItems = 50
	}
	if c.API.DefaultPagingNum < 1 {
		c.API.DefaultPagingNum = 30
	}
	return c, nil
}

// RepositoryRoot is the directory of the bare repositories:
// [repository] ROOT, or <data>/repositories.
func (c *Config) RepositoryRoot() string {
	if c.Repository.Root != "" {
		return c.Repository.Root
	}
	return filepath.Join(c.DataDir, "repositories")
}

func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}
