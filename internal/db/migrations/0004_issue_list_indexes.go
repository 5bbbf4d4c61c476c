package migrations

import "github.com/cairn-forge/cairn/internal/db"

// issueListIndexes0004 lets issue lists read pages in index order instead of
// sorting every issue of a repository.
func issueListIndexes0004() db.Migration {
	return db.Migration{Version: 4, Name: "issue list indexes", Statements: []string{
		`CREATE INDEX ix_issue_repo_created ON issue (repo_id, created_unix, id)`,
		`CREATE INDEX ix_issue_repo_state_created ON issue (repo_id, is_closed, created_unix, id)`,
		`CREATE INDEX ix_comment_issue_type ON comment (issue_id, type, created_unix)`,
	}}
}
