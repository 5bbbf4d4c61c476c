package migrations

import "github.com/cairn-forge/cairn/internal/db"

// actions0018 adds the activity feed: one action row per event (a push, an
// issue opened, a review, ...), whoever will read it; feeds are selected
// when read. op_type is Gitea's ActionType number. owner_id is the
// repository's owner and is_private its privacy when the action happened;
// comment_id the comment it concerns (0: none); is_deleted marks the
// actions of deleted comments (kept for heatmaps, left out of feeds).
// Feeds read the newest actions of one actor, one repository or one owner
// first, heatmaps count an actor's actions of the last year.
func actions0018() db.Migration {
	return db.Migration{Version: 18, Name: "actions", Statements: []string{
		`CREATE TABLE action (
			id %ID%,
			op_type INTEGER NOT NULL,
			act_user_id %BIGINT% NOT NULL,
			repo_id %BIGINT% NOT NULL,
			owner_id %BIGINT% NOT NULL,
			comment_id %BIGINT% NOT NULL DEFAULT 0,
			ref_name %TEXT%,
			is_private %BOOL% NOT NULL DEFAULT FALSE,
			is_deleted %BOOL% NOT NULL DEFAULT FALSE,
			content %TEXT%,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_action_act_user ON action (act_user_id, created_unix)`,
		`CREATE INDEX ix_action_repo ON action (repo_id, created_unix)`,
		`CREATE INDEX ix_action_owner ON action (owner_id, created_unix)`,
		`CREATE INDEX ix_action_created ON action (created_unix)`,
		`CREATE INDEX ix_action_comment ON action (comment_id)`,
	}}
}
