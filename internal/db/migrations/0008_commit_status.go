package migrations

import "github.com/cairn-forge/cairn/internal/db"

// commitStatus0008 adds commit statuses, which CI systems report per commit
// and context; idx numbers the statuses of one commit from 1.
func commitStatus0008() db.Migration {
	return db.Migration{Version: 8, Name: "commit status", Statements: []string{
		`CREATE TABLE commit_status (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			sha %STR% NOT NULL,
			idx %BIGINT% NOT NULL,
			state %STR% NOT NULL,
			target_url %TEXT%,
			description %TEXT%,
			context %STR% NOT NULL,
			creator_id %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_commit_status_index ON commit_status (repo_id, sha, idx)`,
		`CREATE INDEX ix_commit_status_context ON commit_status (repo_id, sha, context, idx)`,
	}}
}
