package migrations

import "github.com/cairn-forge/cairn/internal/db"

// pulls0011 adds pull requests (the issue row holds title, body and state;
// pull_request holds head, base, mergeability and the merge), reviews and
// review requests (review.type 4 is a request), the review fields of line
// comments (comment type 21) and scheduled auto-merges.
func pulls0011() db.Migration {
	return db.Migration{Version: 11, Name: "pull requests", Statements: []string{
		`CREATE TABLE pull_request (
			id %ID%,
			issue_id %BIGINT% NOT NULL,
			idx %BIGINT% NOT NULL,
			status INTEGER NOT NULL DEFAULT 1,
			conflicted_files %TEXT%,
			commits_ahead INTEGER NOT NULL DEFAULT 0,
			commits_behind INTEGER NOT NULL DEFAULT 0,
			additions INTEGER NOT NULL DEFAULT 0,
			deletions INTEGER NOT NULL DEFAULT 0,
			changed_files INTEGER NOT NULL DEFAULT 0,
			head_repo_id %BIGINT% NOT NULL,
			base_repo_id %BIGINT% NOT NULL,
			head_branch %STR% NOT NULL,
			base_branch %STR% NOT NULL,
			merge_base %STR% NOT NULL DEFAULT '',
			head_commit_id %STR% NOT NULL DEFAULT '',
			checked_head %STR% NOT NULL DEFAULT '',
			checked_base %STR% NOT NULL DEFAULT '',
			allow_maintainer_edit %BOOL% NOT NULL DEFAULT FALSE,
			has_merged %BOOL% NOT NULL DEFAULT FALSE,
			merged_commit_id %STR% NOT NULL DEFAULT '',
			merger_id %BIGINT% NOT NULL DEFAULT 0,
			merged_unix %BIGINT% NOT NULL DEFAULT 0,
			flow INTEGER NOT NULL DEFAULT 0
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_pull_request_issue ON pull_request (issue_id)`,
		`CREATE INDEX ix_pull_request_base ON pull_request (base_repo_id, base_branch, has_merged)`,
		`CREATE INDEX ix_pull_request_head ON pull_request (head_repo_id, head_branch)`,
		`CREATE INDEX ix_pull_request_merged ON pull_request (base_repo_id, merged_commit_id)`,
		`CREATE INDEX ix_pull_request_status ON pull_request (status)`,
		`CREATE TABLE review (
			id %ID%,
			type INTEGER NOT NULL,
			reviewer_id %BIGINT% NOT NULL DEFAULT 0,
			reviewer_team_id %BIGINT% NOT NULL DEFAULT 0,
			original_author %STR% NOT NULL DEFAULT '',
			original_author_id %BIGINT% NOT NULL DEFAULT 0,
			issue_id %BIGINT% NOT NULL,
			content %TEXT%,
			official %BOOL% NOT NULL DEFAULT FALSE,
			commit_id %STR% NOT NULL DEFAULT '',
			stale %BOOL% NOT NULL DEFAULT FALSE,
			dismissed %BOOL% NOT NULL DEFAULT FALSE,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_review_issue ON review (issue_id, type)`,
		`CREATE INDEX ix_review_reviewer ON review (reviewer_id)`,
		`ALTER TABLE comment ADD COLUMN review_id %BIGINT% NOT NULL DEFAULT 0`,
		`ALTER TABLE comment ADD COLUMN tree_path %STR% NOT NULL DEFAULT ''`,
		`ALTER TABLE comment ADD COLUMN line %BIGINT% NOT NULL DEFAULT 0`,
		`ALTER TABLE comment ADD COLUMN patch %TEXT%`,
		`ALTER TABLE comment ADD COLUMN invalidated %BOOL% NOT NULL DEFAULT FALSE`,
		`ALTER TABLE comment ADD COLUMN resolve_doer_id %BIGINT% NOT NULL DEFAULT 0`,
		`ALTER TABLE comment ADD COLUMN assignee_team_id %BIGINT% NOT NULL DEFAULT 0`,
		`CREATE INDEX ix_comment_review ON comment (review_id)`,
		`CREATE TABLE pull_auto_merge (
			id %ID%,
			pull_id %BIGINT% NOT NULL,
			doer_id %BIGINT% NOT NULL,
			merge_style %STR% NOT NULL,
			message %TEXT%,
			delete_branch_after_merge %BOOL% NOT NULL DEFAULT FALSE,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_pull_auto_merge ON pull_auto_merge (pull_id)`,
	}}
}
