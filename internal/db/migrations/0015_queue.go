package migrations

import "github.com/cairn-forge/cairn/internal/db"

// queue0015 adds the durable job queue: jobs are written in the
// transaction of the change that causes them and claimed by workers with a
// lease. pending_key is the deduplication key while a job waits (NULL once
// it is done or has failed for good), so the unique index allows one
// pending job per kind and key; times are in milliseconds.
func queue0015() db.Migration {
	return db.Migration{Version: 15, Name: "queue", Statements: []string{
		`CREATE TABLE queue_job (
			id %ID%,
			kind %STR% NOT NULL,
			pending_key %STR%,
			group_key %STR% NOT NULL DEFAULT '',
			payload %TEXT%,
			status INTEGER NOT NULL DEFAULT 0,
			attempts INTEGER NOT NULL DEFAULT 0,
			max_attempts INTEGER NOT NULL DEFAULT 0,
			run_after_ms %BIGINT% NOT NULL,
			lease_until_ms %BIGINT% NOT NULL DEFAULT 0,
			lease_owner %STR% NOT NULL DEFAULT '',
			last_error %TEXT%,
			created_ms %BIGINT% NOT NULL,
			updated_ms %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_queue_job_pending ON queue_job (kind, pending_key)`,
		`CREATE INDEX ix_queue_job_due ON queue_job (status, run_after_ms)`,
		`CREATE INDEX ix_queue_job_group ON queue_job (group_key, status, lease_until_ms)`,
	}}
}
