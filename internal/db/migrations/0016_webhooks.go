package migrations

import "github.com/cairn-forge/cairn/internal/db"

// webhooks0016 adds webhooks and their deliveries. A hook belongs to a
// repository (repo_id), to a user or organization (owner_id), or to the
// instance (both 0): is_system makes it fire everywhere, otherwise it is a
// default hook copied into new repositories. Secrets and authorization
// headers are stored encrypted. events is the comma-separated set of
// selected event types. A hook_task is one delivery: written with the
// change that caused it, filled in at each attempt; is_final once it
// succeeded or will not be tried again (only those are pruned). The
// queue gets an index of its leased jobs: with a backlog of deliveries,
// counting the running ones must not read it all.
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
		// Pruning finds the newest finished deliveries of a hook without
		// reading the ones still waiting.
		`CREATE INDEX ix_hook_task_final ON hook_task (hook_id, is_final, id)`,
		// The queue counts the jobs running in each group before it claims
		// more: only leased rows, found without reading the backlog.
		`CREATE INDEX ix_queue_job_leased ON queue_job (status, lease_until_ms, group_key)`,
		// Due jobs are claimed oldest first (run_after_ms, id): with the id
		// in the index PostgreSQL and MariaDB read the first ones without
		// sorting the backlog (SQLite's index ends with the rowid anyway).
		`CREATE INDEX ix_queue_job_due_order ON queue_job (status, run_after_ms, id)`,
	}}
}
