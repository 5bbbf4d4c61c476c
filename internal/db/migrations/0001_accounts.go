package migrations

import "github.com/cairn-forge/cairn/internal/db"

// accounts0001 creates users and organizations (one table, told apart by type),
// e-mail addresses, access tokens, SSH keys, follows, memberships and teams.
func accounts0001() db.Migration {
	return db.Migration{Version: 1, Name: "accounts", Statements: []string{
		`CREATE TABLE users (
			id %ID%,
			type INTEGER NOT NULL DEFAULT 0,
			name %STR% NOT NULL,
			lower_name %STR% NOT NULL,
			full_name %STR% NOT NULL DEFAULT '',
			email %STR% NOT NULL DEFAULT '',
			keep_email_private %BOOL% NOT NULL DEFAULT FALSE,
			passwd %TEXT%,
			must_change_password %BOOL% NOT NULL DEFAULT FALSE,
			login_type INTEGER NOT NULL DEFAULT 0,
			login_source %BIGINT% NOT NULL DEFAULT 0,
			login_name %STR% NOT NULL DEFAULT '',
			is_admin %BOOL% NOT NULL DEFAULT FALSE,
			is_restricted %BOOL% NOT NULL DEFAULT FALSE,
			is_active %BOOL% NOT NULL DEFAULT TRUE,
			prohibit_login %BOOL% NOT NULL DEFAULT FALSE,
			visibility INTEGER NOT NULL DEFAULT 0,
			location %STR% NOT NULL DEFAULT '',
			website %STR% NOT NULL DEFAULT '',
			description %TEXT%,
			language %STR% NOT NULL DEFAULT '',
			theme %STR% NOT NULL DEFAULT '',
			diff_view_style %STR% NOT NULL DEFAULT '',
			hide_activity %BOOL% NOT NULL DEFAULT FALSE,
			allow_git_hook %BOOL% NOT NULL DEFAULT FALSE,
			allow_import_local %BOOL% NOT NULL DEFAULT FALSE,
			allow_create_organization %BOOL% NOT NULL DEFAULT TRUE,
			max_repo_creation INTEGER NOT NULL DEFAULT -1,
			repo_admin_change_team_access %BOOL% NOT NULL DEFAULT FALSE,
			num_followers INTEGER NOT NULL DEFAULT 0,
			num_following INTEGER NOT NULL DEFAULT 0,
			num_stars INTEGER NOT NULL DEFAULT 0,
			num_repos INTEGER NOT NULL DEFAULT 0,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL,
			last_login_unix %BIGINT% NOT NULL DEFAULT 0
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_users_lower_name ON users (lower_name)`,
		`CREATE INDEX ix_users_type ON users (type, visibility)`,
		`CREATE INDEX ix_users_email ON users (email)`,
		`CREATE TABLE email_address (
			id %ID%,
			uid %BIGINT% NOT NULL,
			email %STR% NOT NULL,
			lower_email %STR% NOT NULL,
			is_primary %BOOL% NOT NULL DEFAULT FALSE,
			is_activated %BOOL% NOT NULL DEFAULT TRUE
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_email_address_lower ON email_address (lower_email)`,
		`CREATE INDEX ix_email_address_uid ON email_address (uid)`,
		`CREATE TABLE access_token (
			id %ID%,
			uid %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			token_hash %STR% NOT NULL,
			token_last_eight %STR% NOT NULL,
			scope %TEXT% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_access_token_hash ON access_token (token_hash)`,
		`CREATE UNIQUE INDEX uq_access_token_name ON access_token (uid, name)`,
		`CREATE TABLE public_key (
			id %ID%,
			owner_id %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			fingerprint %STR% NOT NULL,
			content %TEXT% NOT NULL,
			key_type %STR% NOT NULL,
			mode INTEGER NOT NULL DEFAULT 2,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_public_key_fingerprint ON public_key (fingerprint)`,
		`CREATE INDEX ix_public_key_owner ON public_key (owner_id)`,
		`CREATE TABLE follow (
			id %ID%,
			user_id %BIGINT% NOT NULL,
			follow_id %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_follow ON follow (user_id, follow_id)`,
		`CREATE INDEX ix_follow_target ON follow (follow_id)`,
		`CREATE TABLE org_user (
			id %ID%,
			uid %BIGINT% NOT NULL,
			org_id %BIGINT% NOT NULL,
			is_public %BOOL% NOT NULL DEFAULT FALSE
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_org_user ON org_user (uid, org_id)`,
		`CREATE INDEX ix_org_user_org ON org_user (org_id)`,
		`CREATE TABLE team (
			id %ID%,
			org_id %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			lower_name %STR% NOT NULL,
			description %TEXT%,
			authorize INTEGER NOT NULL DEFAULT 0,
			units %TEXT%,
			includes_all_repositories %BOOL% NOT NULL DEFAULT FALSE,
			can_create_org_repo %BOOL% NOT NULL DEFAULT FALSE,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_team_name ON team (org_id, lower_name)`,
		`CREATE TABLE team_user (
			id %ID%,
			org_id %BIGINT% NOT NULL,
			team_id %BIGINT% NOT NULL,
			uid %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_team_user ON team_user (team_id, uid)`,
		`CREATE INDEX ix_team_user_uid ON team_user (uid, org_id)`,
		`CREATE TABLE team_repo (
			id %ID%,
			org_id %BIGINT% NOT NULL,
			team_id %BIGINT% NOT NULL,
			repo_id %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_team_repo ON team_repo (team_id, repo_id)`,
		`CREATE INDEX ix_team_repo_repo ON team_repo (repo_id)`,
	}}
}
