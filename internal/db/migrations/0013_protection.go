package migrations

import "github.com/cairn-forge/cairn/internal/db"

// protection0013 adds branch protection rules (allowlists are JSON arrays
// of user and team ids; status check contexts a JSON array of globs) and
// tag protection rules.
func protection0013() db.Migration {
	return db.Migration{Version: 13, Name: "branch and tag protection", Statements: []string{
		`CREATE TABLE protected_branch (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			rule_name %STR% NOT NULL,
			priority %BIGINT% NOT NULL DEFAULT 0,
			can_push %BOOL% NOT NULL DEFAULT FALSE,
			enable_whitelist %BOOL% NOT NULL DEFAULT FALSE,
			whitelist_user_ids %TEXT%,
			whitelist_team_ids %TEXT%,
			whitelist_deploy_keys %BOOL% NOT NULL DEFAULT FALSE,
			can_force_push %BOOL% NOT NULL DEFAULT FALSE,
			enable_force_push_allowlist %BOOL% NOT NULL DEFAULT FALSE,
			force_push_allowlist_user_ids %TEXT%,
			force_push_allowlist_team_ids %TEXT%,
			force_push_allowlist_deploy_keys %BOOL% NOT NULL DEFAULT FALSE,
			enable_merge_whitelist %BOOL% NOT NULL DEFAULT FALSE,
			merge_whitelist_user_ids %TEXT%,
			merge_whitelist_team_ids %TEXT%,
			enable_status_check %BOOL% NOT NULL DEFAULT FALSE,
			status_check_contexts %TEXT%,
			enable_approvals_whitelist %BOOL% NOT NULL DEFAULT FALSE,
			approvals_whitelist_user_ids %TEXT%,
			approvals_whitelist_team_ids %TEXT%,
			required_approvals %BIGINT% NOT NULL DEFAULT 0,
			block_on_rejected_reviews %BOOL% NOT NULL DEFAULT FALSE,
			block_on_official_review_requests %BOOL% NOT NULL DEFAULT FALSE,
			block_on_outdated_branch %BOOL% NOT NULL DEFAULT FALSE,
			dismiss_stale_approvals %BOOL% NOT NULL DEFAULT FALSE,
			ignore_stale_approvals %BOOL% NOT NULL DEFAULT FALSE,
			require_signed_commits %BOOL% NOT NULL DEFAULT FALSE,
			protected_file_patterns %TEXT%,
			unprotected_file_patterns %TEXT%,
			block_admin_merge_override %BOOL% NOT NULL DEFAULT FALSE,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_protected_branch ON protected_branch (repo_id, rule_name)`,
		`CREATE TABLE protected_tag (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			name_pattern %STR% NOT NULL,
			allowlist_user_ids %TEXT%,
			allowlist_team_ids %TEXT%,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_protected_tag_repo ON protected_tag (repo_id)`,
	}}
}
