package migrations

import "github.com/cairn-forge/cairn/internal/db"

// webhooks0016 adds webhooks and their deliveries. A hook belongs to a
// repository (repo_id), to a user or organization (owner_id), or to the
// instance (both 0): is_system makes it fire everywhere, otherwise it is a
// default hook copied into new repositories. Secrets and authorization
// headers are stored encrypted. events is the comma-separated set of
// selected event types. A hook_task is one delivery: written with the
// change that caused it, filled in at each attempt; is_final once it
// succeeded or will not be tried again (only those are pruned).
func webhooks0016() db.Migration {
	return db.Migration{Version: 16, Name: "webhooks", Statements: []string{
		`CREATE TABLE webhook (
			id %ID%,
			repo_id %BIGINT% NOT NULL DEFAULT 0,
			owner_id %BIGINT% NOT NULL DEFAULT 0,
			is_system %BOOL% NOT NULL DEFAULT FALSE,
			hook_type %STR% NOT NULL,
			url %TEXT% NOT NULL,
			http_method %STR% NOT NULL DEFAULT 'POST',
			content_type INTEGER NOT NULL DEFAULT 1,
			secret_enc %TEXT%,
			auth_header_enc %TEXT%,
			events %TEXT% NOT NULL,
			branch_filter %TEXT%,
			meta %TEXT%,
			is_active %BOOL% NOT NULL DEFAULT FALSE,
			last_status INTEGER NOT NULL DEFAULT 0,
			failing_since_ms %BIGINT% NOT NULL DEFAULT 0,
			disabled_reason %TEXT%,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_webhook_repo ON webhook (repo_id)`,
		`CREATE INDEX ix_webhook_owner ON webhook (owner_id)`,
		`CREATE TABLE hook_task (
			id %ID%,
			hook_id %BIGINT% NOT NULL,
			uuid %STR% NOT NULL,
			event_type %STR% NOT NULL,
			payload %TEXT% NOT NULL,
			is_delivered %BOOL% NOT NULL DEFAULT FALSE,
			is_succeed %BOOL% NOT NULL DEFAULT FALSE,
			is_final %BOOL% NOT NULL DEFAULT FALSE,
			attempts INTEGER NOT NULL DEFAULT 0,
			request %TEXT%,
			response %TEXT%,
			duration_ms %BIGINT% NOT NULL DEFAULT 0,
			created_ms %BIGINT% NOT NULL,
			delivered_ms %BIGINT% NOT NULL DEFAULT 0
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_hook_task_uuid ON hook_task (uuid)`,
		`CREATE INDEX ix_hook_task_hook ON hook_task (hook_id, id)`,
	}}
}
