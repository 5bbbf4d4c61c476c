package config

import (
	"slices"
	"sort"
	"strings"
)

// notSupported lists the Gitea sections and keys Cairn knows of but does
// not support yet: the one place that tells "not supported yet" from
// "unknown". A section mapped to nil covers all its keys; a name ending in
// ".*" covers every subsection. Keys Cairn reads are not listed here.
func notSupported() map[string][]string {
	return map[string][]string{
		// Keys before the first section.
		"": {"APP_NAME", "APP_SLOGAN", "APP_DISPLAY_NAME_FORMAT", "RUN_USER", "RUN_MODE", "WORK_PATH"},
		"server": {"SSL_MIN_VERSION", "SSL_MAX_VERSION", "SSL_CURVE_PREFERENCES", "SSL_CIPHER_SUITES", "LOCAL_USE_PROXY_PROTOCOL", "SSH_SERVER_USE_PROXY_PROTOCOL", "SSH_AUTHORIZED_PRINCIPALS_BACKUP", "APP_DATA_PATH", "STATIC_URL_PREFIX", "LOCAL_ROOT_URL", "PER_WRITE_TIMEOUT", "PER_WRITE_PER_KB_TIMEOUT",
			"UNIX_SOCKET_PERMISSION", "REDIRECT_OTHER_PORT", "PORT_TO_REDIRECT", "REDIRECTOR_USE_PROXY_PROTOCOL",
			"USE_PROXY_PROTOCOL", "PROXY_PROTOCOL_TLS_BRIDGING", "PROXY_PROTOCOL_HEADER_TIMEOUT", "PROXY_PROTOCOL_ACCEPT_UNKNOWN",
			"CERT_FILE", "KEY_FILE", "ENABLE_ACME", "ACME_URL", "ACME_ACCEPTTOS", "ACME_CA_ROOT", "ACME_EMAIL", "ACME_DIRECTORY",
			"STATIC_ROOT_PATH", "ENABLE_GZIP", "ENABLE_PPROF", "PPROF_DATA_PATH", "LANDING_PAGE",
			"OFFLINE_MODE", "DISABLE_ROUTER_LOG", "STATIC_CACHE_TIME", "ALLOW_GRACEFUL_RESTARTS", "GRACEFUL_HAMMER_TIME",
			"STARTUP_TIMEOUT", "SSH_USER", "BUILTIN_SSH_SERVER_USER", "SSH_ROOT_PATH", "SSH_CREATE_AUTHORIZED_KEYS_FILE",
			"SSH_CREATE_AUTHORIZED_PRINCIPALS_FILE", "SSH_SERVER_CIPHERS", "SSH_SERVER_KEY_EXCHANGES", "SSH_SERVER_MACS",
			"SSH_SERVER_HOST_KEYS", "SSH_KEY_TEST_PATH", "SSH_KEYGEN_PATH", "SSH_AUTHORIZED_KEYS_BACKUP",
			"SSH_AUTHORIZED_PRINCIPALS_ALLOW", "SSH_TRUSTED_USER_CA_KEYS", "SSH_TRUSTED_USER_CA_KEYS_FILENAME",
			"SSH_EXPOSE_ANONYMOUS", "SSH_PER_WRITE_TIMEOUT", "SSH_PER_WRITE_PER_KB_TIMEOUT", "SSH_AUTHORIZED_KEYS_COMMAND_TEMPLATE",
			"MINIMUM_KEY_SIZE_CHECK", "LFS_START_SERVER", "LFS_CONTENT_PATH", "LFS_JWT_SECRET", "LFS_JWT_SECRET_URI",
			"LFS_HTTP_AUTH_EXPIRY", "LFS_MAX_FILE_SIZE", "LFS_LOCKS_PAGING_NUM", "LFS_MAX_BATCH_SIZE"},
		"database": {"SCHEMA", "CHARSET", "CHARSET_COLLATION", "SQLITE_TIMEOUT", "SQLITE_JOURNAL_MODE", "ITERATE_BUFFER_SIZE",
			"LOG_SQL", "DB_RETRIES", "DB_RETRY_BACKOFF", "MAX_OPEN_CONNS", "MAX_IDLE_CONNS", "CONN_MAX_LIFETIME",
			"AUTO_MIGRATION", "SLOW_QUERY_THRESHOLD"},
		"security": {"COOKIE_USERNAME", "INSTALL_LOCK", "SECRET_KEY", "SECRET_KEY_URI", "INTERNAL_TOKEN", "INTERNAL_TOKEN_URI", "LOGIN_REMEMBER_DAYS",
			"COOKIE_REMEMBER_NAME", "REVERSE_PROXY_AUTHENTICATION_USER", "REVERSE_PROXY_AUTHENTICATION_EMAIL",
			"REVERSE_PROXY_AUTHENTICATION_FULL_NAME", "REVERSE_PROXY_LIMIT", "REVERSE_PROXY_TRUSTED_PROXIES",
			"PASSWORD_COMPLEXITY", "CSRF_COOKIE_HTTP_ONLY", "PASSWORD_CHECK_PWN",
			"SUCCESSFUL_TOKENS_CACHE_SIZE", "DISABLE_GIT_HOOKS", "ONLY_ALLOW_PUSH_IF_GITEA_ENVIRONMENT_SET",
			"DISABLE_QUERY_AUTH_TOKEN", "TWO_FACTOR_AUTH"},
		"service": {"ALLOW_CROSS_REPOSITORY_DEPENDENCIES", "DEFAULT_ENABLE_TIMETRACKING", "DEFAULT_KEEP_EMAIL_PRIVATE", "ALLOW_ONLY_INTERNAL_REGISTRATION", "REGISTER_MANUAL_CONFIRM",
			"EMAIL_DOMAIN_ALLOWLIST", "EMAIL_DOMAIN_BLOCKLIST", "ALLOW_ONLY_EXTERNAL_REGISTRATION",
			"ENABLE_BASIC_AUTHENTICATION", "ENABLE_PASSWORD_SIGNIN_FORM",
			"ENABLE_PASSKEY_AUTHENTICATION", "ENABLE_REVERSE_PROXY_AUTHENTICATION", "ENABLE_REVERSE_PROXY_AUTHENTICATION_API",
			"ENABLE_REVERSE_PROXY_AUTO_REGISTRATION", "ENABLE_REVERSE_PROXY_EMAIL", "ENABLE_REVERSE_PROXY_FULL_NAME",
			"ENABLE_CAPTCHA", "REQUIRE_CAPTCHA_FOR_LOGIN", "REQUIRE_EXTERNAL_REGISTRATION_CAPTCHA",
			"REQUIRE_EXTERNAL_REGISTRATION_PASSWORD", "CAPTCHA_TYPE", "RECAPTCHA_SECRET", "RECAPTCHA_SITEKEY", "RECAPTCHA_URL",
			"CF_TURNSTILE_SECRET", "CF_TURNSTILE_SITEKEY", "HCAPTCHA_SECRET", "HCAPTCHA_SITEKEY", "MCAPTCHA_SECRET",
			"MCAPTCHA_SITEKEY", "MCAPTCHA_URL", "DEFAULT_ALLOW_CREATE_ORGANIZATION", "DEFAULT_USER_IS_RESTRICTED",
			"ALLOWED_USER_VISIBILITY_MODES", "DEFAULT_ORG_MEMBER_VISIBLE", "DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME",
			"NO_REPLY_ADDRESS", "SHOW_REGISTRATION_BUTTON", "SHOW_MILESTONES_DASHBOARD_PAGE", "AUTO_WATCH_NEW_REPOS",
			"AUTO_WATCH_ON_CHANGES", "USER_DELETE_WITH_COMMENTS_MAX_TIME", "VALID_SITE_URL_SCHEMES", "USER_LOCATION_MAP_URL",
			"ENABLE_USER_HEATMAP", "ENABLE_INTERNAL_SIGNIN"},
		"repository": {"PREFIX_ARCHIVE_FILES", "SCRIPT_TYPE", "DETECTED_CHARSETS_ORDER", "ANSI_CHARSET", "DEFAULT_PUSH_CREATE_PRIVATE",
			"PREFERRED_LICENSES", "DISABLE_DOWNLOAD_SOURCE_ARCHIVES", "ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT", "MAX_FORKS_PER_USER",
			"DEFAULT_FORK_REPO_UNITS", "ENABLE_PUSH_CREATE_USER", "ENABLE_PUSH_CREATE_ORG", "ACCESS_CONTROL_ALLOW_ORIGIN",
			"USE_COMPAT_SSH_URI", "GO_GET_CLONE_URL_PROTOCOL", "DEFAULT_CLOSE_ISSUES_VIA_COMMITS_IN_ANY_BRANCH",
			"ALLOW_ADOPTION_OF_UNADOPTED_REPOSITORIES", "ALLOW_DELETION_OF_UNADOPTED_REPOSITORIES", "DISABLE_DOWNLOAD_SOURCE_ARCHIVES",
			"DISABLE_MIRRORS", "LOCAL_COPY_PATH", "LOCAL_WIKI_PATH"},
		"repository.*":          nil,
		"api":                   {"DEFAULT_MAX_RESPONSE_SIZE"},
		"ui":                    {"EXPLORE_PAGING_NUM", "THEMES", "MAX_DISPLAY_FILE_SIZE", "SHOW_USER_EMAIL", "ISSUE_PAGING_NUM", "MEMBERS_PAGING_NUM", "FEED_MAX_COMMIT_NUM", "FEED_PAGING_NUM", "SITEMAP_PAGING_NUM", "GRAPH_MAX_COMMIT_NUM", "CODE_COMMENT_LINES", "DEFAULT_SHOW_FULL_NAME", "SEARCH_REPO_DESCRIPTION", "ONLY_SHOW_RELEVANT_REPOS", "EXPLORE_PAGING_DEFAULT_SORT", "PREFERRED_TIMESTAMP_TENSE", "AMBIGUOUS_UNICODE_DETECTION", "FILE_ICON_THEME"},
		"ui.*":                  nil,
		"picture":               {"AVATAR_UPLOAD_PATH", "REPOSITORY_AVATAR_UPLOAD_PATH", "REPOSITORY_AVATAR_FALLBACK", "REPOSITORY_AVATAR_FALLBACK_IMAGE", "AVATAR_RENDERED_SIZE_FACTOR", "GRAVATAR_SOURCE", "DISABLE_GRAVATAR", "ENABLE_FEDERATED_AVATAR", "AVATAR_MAX_ORIGIN_SIZE"},
		"attachment":            {"SERVE_DIRECT", "MINIO_INSECURE_SKIP_VERIFY", "MINIO_CHECKSUM_ALGORITHM", "PATH", "STORAGE_TYPE", "MINIO_ENDPOINT", "MINIO_ACCESS_KEY_ID", "MINIO_SECRET_ACCESS_KEY", "MINIO_BUCKET", "MINIO_LOCATION", "MINIO_BASE_PATH", "MINIO_USE_SSL"},
		"mirror":                {"DISABLE_NEW_PULL", "DISABLE_NEW_PUSH", "DEFAULT_INTERVAL", "MIN_INTERVAL"},
		"migrations":            {"MAX_ATTEMPTS", "RETRY_BACKOFF", "SKIP_TLS_VERIFY"},
		"admin":                 nil,
		"log":                   {"ROOT_PATH", "MODE", "BUFFER_LEN", "ROUTER", "ENABLE_ACCESS_LOG", "ACCESS", "ACCESS_LOG_TEMPLATE", "ENABLE_SSH_LOG", "XORM", "logger.access.MODE", "logger.router.MODE", "logger.xorm.MODE", "STACKTRACE_LEVEL", "FLAGS", "EXPRESSION", "PREFIX", "COLORIZE", "REQUEST_ID_HEADERS"},
		"log.*":                 nil,
		"metrics":               {"ENABLED_ISSUE_BY_LABEL", "ENABLED_ISSUE_BY_REPOSITORY"},
		"camo":                  nil,
		"oauth2":                {"JWT_SECRET_URI", "INVALIDATE_REFRESH_TOKENS", "MAX_TOKEN_LENGTH"},
		"oauth2_client":         nil,
		"openid":                nil,
		"git":                   nil,
		"git.*":                 nil,
		"ssh.minimum_key_sizes": nil,
		"email.incoming":        nil,
		"cache":                 nil,
		"cache.*":               nil,
		"session":               {"PROVIDER", "PROVIDER_CONFIG", "SAME_SITE", "GC_INTERVAL_TIME", "DOMAIN"},
		"project":               nil,
		"time":                  nil,
		"cron":                  nil,
		"cron.*":                nil,
		"i18n":                  nil,
		"highlight.mapping":     nil,
		"other":                 nil,
		"markup":                nil,
		"markup.*":              nil,
		"markdown":              nil,
		"task":                  nil,
		"federation":            nil,
		"packages":              nil,
		"packages.*":            nil,
		"storage":               nil,
		"storage.*":             nil,
		"repo-archive":          nil,
		"lfs":                   nil,
		"lfs_client":            nil,
		"proxy":                 nil,
		"actions":               nil,
		"indexer":               nil,
		"queue":                 nil,
		"queue.*":               nil,
		"service.explore":       nil,
		"badges":                nil,
		"avatar":                nil,
	}
}

// notSupportedYet tells whether key of section is a Gitea key Cairn does
// not support yet.
func notSupportedYet(section, key string) bool {
	list := notSupported()
	if keys, ok := list[section]; ok && (keys == nil || slices.Contains(keys, key)) {
		return true
	}
	for pattern, keys := range list {
		if prefix, ok := strings.CutSuffix(pattern, ".*"); ok && keys == nil && strings.HasPrefix(section, prefix+".") {
			return true
		}
	}
	return false
}

// NotSupportedSections lists the sections of which no key is supported yet,
// sorted; a name ending in ".*" stands for every subsection.
func NotSupportedSections() []string {
	var out []string
	for s, keys := range notSupported() {
		if keys == nil {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// NotSupportedKeys lists, per section with supported keys, the Gitea keys
// that are not supported yet, sorted ("" is the top level).
func NotSupportedKeys() map[string][]string {
	out := map[string][]string{}
	for s, keys := range notSupported() {
		if keys != nil {
			k := slices.Clone(keys)
			slices.Sort(k)
			out[s] = slices.Compact(k)
		}
	}
	return out
}
