package migrations

import "github.com/cairn-forge/cairn/internal/db"

// repositories0002 creates repositories and what hangs off them directly:
// collaborators, stars, watches, topics, deploy keys, pending transfers and mirrors.
func repositories0002() db.Migration {
	return db.Migration{Version: 2, Name: "repositories", Statements: []string{
		`CREATE TABLE repository (
			id %ID%,
			owner_id %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			lower_name %STR% NOT NULL,
			description %TEXT%,
			website %STR% NOT NULL DEFAULT '',
			original_url %STR% NOT NULL DEFAULT '',
			default_branch %STR% NOT NULL DEFAULT '',
			object_format %STR% NOT NULL DEFAULT 'sha1',
			is_private %BOOL% NOT NULL DEFAULT FALSE,
			is_empty %BOOL% NOT NULL DEFAULT TRUE,
			is_archived %BOOL% NOT NULL DEFAULT FALSE,
			is_mirror %BOOL% NOT NULL DEFAULT FALSE,
			is_fork %BOOL% NOT NULL DEFAULT FALSE,
			fork_id %BIGINT% NOT NULL DEFAULT 0,
			is_template %BOOL% NOT NULL DEFAULT FALSE,
			template_id %BIGINT% NOT NULL DEFAULT 0,
			size %BIGINT% NOT NULL DEFAULT 0,
			units %TEXT%,
			settings %TEXT%,
			num_watches INTEGER NOT NULL DEFAULT 0,
			num_stars INTEGER NOT NULL DEFAULT 0,
			num_forks INTEGER NOT NULL DEFAULT 0,
			num_issues INTEGER NOT NULL DEFAULT 0,
			num_closed_issues INTEGER NOT NULL DEFAULT 0,
			num_pulls INTEGER NOT NULL DEFAULT 0,
			num_closed_pulls INTEGER NOT NULL DEFAULT 0,
			num_milestones INTEGER NOT NULL DEFAULT 0,
			num_closed_milestones INTEGER NOT NULL DEFAULT 0,
			num_releases INTEGER NOT NULL DEFAULT 0,
			status INTEGER NOT NULL DEFAULT 0,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL,
			archived_unix %BIGINT% NOT NULL DEFAULT 0
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_repository_owner_name ON repository (owner_id, lower_name)`,
		`CREATE INDEX ix_repository_lower_name ON repository (lower_name)`,
		`CREATE INDEX ix_repository_fork ON repository (fork_id)`,
		`CREATE INDEX ix_repository_updated ON repository (updated_unix)`,
		`CREATE TABLE collaboration (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			user_id %BIGINT% NOT NULL,
			mode INTEGER NOT NULL DEFAULT 2,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_collaboration ON collaboration (repo_id, user_id)`,
		`CREATE INDEX ix_collaboration_user ON collaboration (user_id)`,
		`CREATE TABLE star (
			id %ID%,
			uid %BIGINT% NOT NULL,
			repo_id %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_star ON star (uid, repo_id)`,
		`CREATE INDEX ix_star_repo ON star (repo_id)`,
		`CREATE TABLE watch (
			id %ID%,
			user_id %BIGINT% NOT NULL,
			repo_id %BIGINT% NOT NULL,
			mode INTEGER NOT NULL DEFAULT 1,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_watch ON watch (user_id, repo_id)`,
		`CREATE INDEX ix_watch_repo ON watch (repo_id)`,
		`CREATE TABLE repo_topic (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			topic %STR% NOT NULL,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_repo_topic ON repo_topic (repo_id, topic)`,
		`CREATE INDEX ix_repo_topic_topic ON repo_topic (topic)`,
		`CREATE TABLE deploy_key (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			fingerprint %STR% NOT NULL,
			content %TEXT% NOT NULL,
			read_only %BOOL% NOT NULL DEFAULT TRUE,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_deploy_key ON deploy_key (repo_id, fingerprint)`,
		`CREATE INDEX ix_deploy_key_fingerprint ON deploy_key (fingerprint)`,
		`CREATE TABLE repo_transfer (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			doer_id %BIGINT% NOT NULL,
			recipient_id %BIGINT% NOT NULL,
			team_ids %TEXT%,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_repo_transfer_repo ON repo_transfer (repo_id)`,
		`CREATE TABLE mirror (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			remote_url %TEXT% NOT NULL,
			interval_seconds %BIGINT% NOT NULL,
			enable_prune %BOOL% NOT NULL DEFAULT TRUE,
			updated_unix %BIGINT% NOT NULL DEFAULT 0,
			next_update_unix %BIGINT% NOT NULL DEFAULT 0,
			last_error %TEXT%
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_mirror_repo ON mirror (repo_id)`,
		`CREATE INDEX ix_mirror_next ON mirror (next_update_unix)`,
	}}
}
