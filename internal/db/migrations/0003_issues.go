package migrations

import "github.com/cairn-forge/cairn/internal/db"

// issues0003 creates issues (shared with pull requests), comments and timeline
// events, labels, milestones, assignees, reactions, attachments, tracked time,
// stopwatches, dependencies, subscriptions and notifications.
func issues0003() db.Migration {
	return db.Migration{Version: 3, Name: "issues", Statements: []string{
		`CREATE TABLE issue_index (
			repo_id %BIGINT% NOT NULL PRIMARY KEY,
			max_index %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE TABLE issue (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			idx %BIGINT% NOT NULL,
			poster_id %BIGINT% NOT NULL,
			original_author %STR% NOT NULL DEFAULT '',
			original_author_id %BIGINT% NOT NULL DEFAULT 0,
			title %STR% NOT NULL,
			content %TEXT%,
			milestone_id %BIGINT% NOT NULL DEFAULT 0,
			priority INTEGER NOT NULL DEFAULT 0,
			is_closed %BOOL% NOT NULL DEFAULT FALSE,
			is_pull %BOOL% NOT NULL DEFAULT FALSE,
			is_locked %BOOL% NOT NULL DEFAULT FALSE,
			num_comments INTEGER NOT NULL DEFAULT 0,
			ref %STR% NOT NULL DEFAULT '',
			pin_order INTEGER NOT NULL DEFAULT 0,
			deadline_unix %BIGINT% NOT NULL DEFAULT 0,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL,
			closed_unix %BIGINT% NOT NULL DEFAULT 0
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_issue_repo_index ON issue (repo_id, idx)`,
		`CREATE INDEX ix_issue_repo_list ON issue (repo_id, is_pull, is_closed, created_unix)`,
		`CREATE INDEX ix_issue_repo_updated ON issue (repo_id, updated_unix)`,
		`CREATE INDEX ix_issue_poster ON issue (poster_id)`,
		`CREATE INDEX ix_issue_milestone ON issue (milestone_id)`,
		`CREATE INDEX ix_issue_updated ON issue (updated_unix)`,
		`CREATE TABLE issue_assignees (
			id %ID%,
			issue_id %BIGINT% NOT NULL,
			assignee_id %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_issue_assignees ON issue_assignees (issue_id, assignee_id)`,
		`CREATE INDEX ix_issue_assignees_user ON issue_assignees (assignee_id)`,
		`CREATE TABLE comment (
			id %ID%,
			type INTEGER NOT NULL DEFAULT 0,
			poster_id %BIGINT% NOT NULL,
			original_author %STR% NOT NULL DEFAULT '',
			original_author_id %BIGINT% NOT NULL DEFAULT 0,
			issue_id %BIGINT% NOT NULL,
			label_id %BIGINT% NOT NULL DEFAULT 0,
			old_milestone_id %BIGINT% NOT NULL DEFAULT 0,
			milestone_id %BIGINT% NOT NULL DEFAULT 0,
			assignee_id %BIGINT% NOT NULL DEFAULT 0,
			removed_assignee %BOOL% NOT NULL DEFAULT FALSE,
			old_title %STR% NOT NULL DEFAULT '',
			new_title %STR% NOT NULL DEFAULT '',
			old_ref %STR% NOT NULL DEFAULT '',
			new_ref %STR% NOT NULL DEFAULT '',
			dependent_issue_id %BIGINT% NOT NULL DEFAULT 0,
			ref_repo_id %BIGINT% NOT NULL DEFAULT 0,
			ref_issue_id %BIGINT% NOT NULL DEFAULT 0,
			ref_comment_id %BIGINT% NOT NULL DEFAULT 0,
			ref_action INTEGER NOT NULL DEFAULT 0,
			ref_is_pull %BOOL% NOT NULL DEFAULT FALSE,
			commit_sha %STR% NOT NULL DEFAULT '',
			time_id %BIGINT% NOT NULL DEFAULT 0,
			content %TEXT%,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_comment_issue ON comment (issue_id, created_unix)`,
		`CREATE INDEX ix_comment_poster ON comment (poster_id)`,
		`CREATE INDEX ix_comment_updated ON comment (updated_unix)`,
		`CREATE TABLE label (
			id %ID%,
			repo_id %BIGINT% NOT NULL DEFAULT 0,
			org_id %BIGINT% NOT NULL DEFAULT 0,
			name %STR% NOT NULL,
			exclusive %BOOL% NOT NULL DEFAULT FALSE,
			description %STR% NOT NULL DEFAULT '',
			color %STR% NOT NULL,
			num_issues INTEGER NOT NULL DEFAULT 0,
			num_closed_issues INTEGER NOT NULL DEFAULT 0,
			archived_unix %BIGINT% NOT NULL DEFAULT 0,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_label_repo ON label (repo_id)`,
		`CREATE INDEX ix_label_org ON label (org_id)`,
		`CREATE TABLE issue_label (
			id %ID%,
			issue_id %BIGINT% NOT NULL,
			label_id %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_issue_label ON issue_label (issue_id, label_id)`,
		`CREATE INDEX ix_issue_label_label ON issue_label (label_id)`,
		`CREATE TABLE milestone (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			content %TEXT%,
			is_closed %BOOL% NOT NULL DEFAULT FALSE,
			num_issues INTEGER NOT NULL DEFAULT 0,
			num_closed_issues INTEGER NOT NULL DEFAULT 0,
			deadline_unix %BIGINT% NOT NULL DEFAULT 0,
			closed_unix %BIGINT% NOT NULL DEFAULT 0,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_milestone_repo ON milestone (repo_id, is_closed)`,
		`CREATE TABLE reaction (
			id %ID%,
			type %STR% NOT NULL,
			issue_id %BIGINT% NOT NULL,
			comment_id %BIGINT% NOT NULL DEFAULT 0,
			user_id %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_reaction ON reaction (type, issue_id, comment_id, user_id)`,
		`CREATE INDEX ix_reaction_issue ON reaction (issue_id, comment_id)`,
		`CREATE TABLE attachment (
			id %ID%,
			uuid %STR% NOT NULL,
			repo_id %BIGINT% NOT NULL,
			issue_id %BIGINT% NOT NULL DEFAULT 0,
			comment_id %BIGINT% NOT NULL DEFAULT 0,
			release_id %BIGINT% NOT NULL DEFAULT 0,
			uploader_id %BIGINT% NOT NULL DEFAULT 0,
			name %STR% NOT NULL,
			download_count %BIGINT% NOT NULL DEFAULT 0,
			size %BIGINT% NOT NULL DEFAULT 0,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_attachment_uuid ON attachment (uuid)`,
		`CREATE INDEX ix_attachment_issue ON attachment (issue_id, comment_id)`,
		`CREATE TABLE tracked_time (
			id %ID%,
			issue_id %BIGINT% NOT NULL,
			user_id %BIGINT% NOT NULL,
			time %BIGINT% NOT NULL,
			deleted %BOOL% NOT NULL DEFAULT FALSE,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_tracked_time_issue ON tracked_time (issue_id)`,
		`CREATE INDEX ix_tracked_time_user ON tracked_time (user_id, created_unix)`,
		`CREATE TABLE stopwatch (
			id %ID%,
			issue_id %BIGINT% NOT NULL,
			user_id %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_stopwatch ON stopwatch (user_id, issue_id)`,
		`CREATE TABLE issue_dependency (
			id %ID%,
			user_id %BIGINT% NOT NULL,
			issue_id %BIGINT% NOT NULL,
			dependency_id %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_issue_dependency ON issue_dependency (issue_id, dependency_id)`,
		`CREATE INDEX ix_issue_dependency_dep ON issue_dependency (dependency_id)`,
		`CREATE TABLE issue_watch (
			id %ID%,
			user_id %BIGINT% NOT NULL,
			issue_id %BIGINT% NOT NULL,
			is_watching %BOOL% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_issue_watch ON issue_watch (user_id, issue_id)`,
		`CREATE INDEX ix_issue_watch_issue ON issue_watch (issue_id)`,
		`CREATE TABLE issue_user (
			id %ID%,
			uid %BIGINT% NOT NULL,
			issue_id %BIGINT% NOT NULL,
			is_read %BOOL% NOT NULL DEFAULT TRUE,
			is_mentioned %BOOL% NOT NULL DEFAULT FALSE
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_issue_user ON issue_user (uid, issue_id)`,
		`CREATE INDEX ix_issue_user_issue ON issue_user (issue_id)`,
		`CREATE TABLE notification (
			id %ID%,
			user_id %BIGINT% NOT NULL,
			repo_id %BIGINT% NOT NULL,
			status INTEGER NOT NULL,
			source INTEGER NOT NULL,
			issue_id %BIGINT% NOT NULL DEFAULT 0,
			commit_id %STR% NOT NULL DEFAULT '',
			comment_id %BIGINT% NOT NULL DEFAULT 0,
			updated_by %BIGINT% NOT NULL DEFAULT 0,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_notification_thread ON notification (user_id, issue_id)`,
		`CREATE INDEX ix_notification_user ON notification (user_id, status, updated_unix)`,
		`CREATE INDEX ix_notification_repo ON notification (repo_id)`,
	}}
}
