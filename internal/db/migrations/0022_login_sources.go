package migrations

import "github.com/cairn-forge/cairn/internal/db"

// loginSources0022 adds external sign-in sources (LDAP and, later, SMTP and
// PAM): one row per source with Gitea's type numbers and its settings as
// JSON (secrets sealed with the instance secret). Public keys copied from a
// source's directory are marked with it (login_source_id), so a sign-in or
// a synchronisation replaces those and never the keys a user added; users
// of a source are looked up by (login_source, login_name).
func loginSources0022() db.Migration {
	return db.Migration{Version: 22, Name: "login sources", Statements: []string{
		`CREATE TABLE login_source (
			id %ID%,
			type INTEGER NOT NULL,
			name %STR% NOT NULL,
			is_active %BOOL% NOT NULL,
			is_sync_enabled %BOOL% NOT NULL,
			cfg %TEXT% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_login_source_name ON login_source (name)`,
		`ALTER TABLE public_key ADD COLUMN login_source_id %BIGINT% NOT NULL DEFAULT 0`,
		`CREATE INDEX ix_users_login_source ON users (login_source, login_name)`,
	}}
}
