package protect

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

const branchColumns = `id, repo_id, rule_name, priority, can_push, enable_whitelist, whitelist_user_ids, whitelist_team_ids,
	whitelist_deploy_keys, can_force_push, enable_force_push_allowlist, force_push_allowlist_user_ids,
	force_push_allowlist_team_ids, force_push_allowlist_deploy_keys, enable_merge_whitelist, merge_whitelist_user_ids,
	merge_whitelist_team_ids, enable_status_check, status_check_contexts, enable_approvals_whitelist,
	approvals_whitelist_user_ids, approvals_whitelist_team_ids, required_approvals, block_on_rejected_reviews,
	block_on_official_review_requests, block_on_outdated_branch, dismiss_stale_approvals, ignore_stale_approvals,
	require_signed_commits, protected_file_patterns, unprotected_file_patterns, block_admin_merge_override,
	created_unix, updated_unix`

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func ids(s sql.NullString) []int64 {
	var out []int64
	if s.Valid && s.String != "" {
		_ = json.Unmarshal([]byte(s.String), &out)
	}
	return out
}

func scanBranch(sc interface{ Scan(...any) error }) (*BranchRule, error) {
	var b BranchRule
	var wu, wt, fu, ft, mu, mt, sc2, au, at, pf, uf sql.NullString
	var created, updated int64
	err := sc.Scan(&b.ID, &b.RepoID, &b.RuleName, &b.Priority, &b.CanPush, &b.EnableWhitelist, &wu, &wt,
		&b.WhitelistDeployKeys, &b.CanForcePush, &b.EnableForcePushAllowlist, &fu, &ft, &b.ForcePushAllowlistDeployKeys,
		&b.EnableMergeWhitelist, &mu, &mt, &b.EnableStatusCheck, &sc2, &b.EnableApprovalsWhitelist, &au, &at,
		&b.RequiredApprovals, &b.BlockOnRejectedReviews, &b.BlockOnOfficialReviewRequests, &b.BlockOnOutdatedBranch,
		&b.DismissStaleApprovals, &b.IgnoreStaleApprovals, &b.RequireSignedCommits, &pf, &uf, &b.BlockAdminMergeOverride,
		&created, &updated)
	if err != nil {
		return nil, err
	}
	b.WhitelistUserIDs, b.WhitelistTeamIDs = ids(wu), ids(wt)
	b.ForcePushAllowlistUserIDs, b.ForcePushAllowlistTeamIDs = ids(fu), ids(ft)
	b.MergeWhitelistUserIDs, b.MergeWhitelistTeamIDs = ids(mu), ids(mt)
	b.ApprovalsWhitelistUserIDs, b.ApprovalsWhitelistTeamIDs = ids(au), ids(at)
	b.StatusCheckContexts = []string{}
	if sc2.Valid && sc2.String != "" {
		_ = json.Unmarshal([]byte(sc2.String), &b.StatusCheckContexts)
	}
	b.ProtectedFilePatterns, b.UnprotectedFilePatterns = pf.String, uf.String
	b.Created, b.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return &b, nil
}

// BranchRules returns the branch rules of a repository in matching order
// (one query).
func (s *Service) BranchRules(ctx context.Context, repoID int64) (Rules, error) {
	rows, err := s.db.Query(ctx, "SELECT "+branchColumns+" FROM protected_branch WHERE repo_id = ?", repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out Rules
	for rows.Next() {
		b, err := scanBranch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sortRules(out)
	return out, nil
}

// MatchBranch returns the rule protecting branch of a repository, or nil.
func (s *Service) MatchBranch(ctx context.Context, repoID int64, branch string) (*BranchRule, error) {
	rules, err := s.BranchRules(ctx, repoID)
	if err != nil {
		return nil, err
	}
	return rules.Match(branch), nil
}

// GetBranchRule returns the rule named name (errs.NotFound when none).
func (s *Service) GetBranchRule(ctx context.Context, repoID int64, name string) (*BranchRule, error) {
	b, err := scanBranch(s.db.QueryRow(ctx, "SELECT "+branchColumns+" FROM protected_branch WHERE repo_id = ? AND rule_name = ?", repoID, name))
	if err == sql.ErrNoRows {
		return nil, errs.NotFound("branch protection %q does not exist", name)
	}
	return b, err
}

func branchArgs(b *BranchRule) []any {
	return []any{b.Priority, b.CanPush, b.EnableWhitelist, jsonText(nonNil(b.WhitelistUserIDs)), jsonText(nonNil(b.WhitelistTeamIDs)),
		b.WhitelistDeployKeys, b.CanForcePush, b.EnableForcePushAllowlist, jsonText(nonNil(b.ForcePushAllowlistUserIDs)),
		jsonText(nonNil(b.ForcePushAllowlistTeamIDs)), b.ForcePushAllowlistDeployKeys, b.EnableMergeWhitelist,
		jsonText(nonNil(b.MergeWhitelistUserIDs)), jsonText(nonNil(b.MergeWhitelistTeamIDs)), b.EnableStatusCheck,
		jsonText(nonNilS(b.StatusCheckContexts)), b.EnableApprovalsWhitelist, jsonText(nonNil(b.ApprovalsWhitelistUserIDs)),
		jsonText(nonNil(b.ApprovalsWhitelistTeamIDs)), b.RequiredApprovals, b.BlockOnRejectedReviews,
		b.BlockOnOfficialReviewRequests, b.BlockOnOutdatedBranch, b.DismissStaleApprovals, b.IgnoreStaleApprovals,
		b.RequireSignedCommits, b.ProtectedFilePatterns, b.UnprotectedFilePatterns, b.BlockAdminMergeOverride}
}

func nonNil(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

func nonNilS(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

const branchSetColumns = `priority = ?, can_push = ?, enable_whitelist = ?, whitelist_user_ids = ?, whitelist_team_ids = ?,
	whitelist_deploy_keys = ?, can_force_push = ?, enable_force_push_allowlist = ?, force_push_allowlist_user_ids = ?,
	force_push_allowlist_team_ids = ?, force_push_allowlist_deploy_keys = ?, enable_merge_whitelist = ?,
	merge_whitelist_user_ids = ?, merge_whitelist_team_ids = ?, enable_status_check = ?, status_check_contexts = ?,
	enable_approvals_whitelist = ?, approvals_whitelist_user_ids = ?, approvals_whitelist_team_ids = ?,
	required_approvals = ?, block_on_rejected_reviews = ?, block_on_official_review_requests = ?,
	block_on_outdated_branch = ?, dismiss_stale_approvals = ?, ignore_stale_approvals = ?, require_signed_commits = ?,
	protected_file_patterns = ?, unprotected_file_patterns = ?, block_admin_merge_override = ?`

// CreateBranchRule stores a new rule (errs.AlreadyExists for a taken name).
func (s *Service) CreateBranchRule(ctx context.Context, b *BranchRule) error {
	now := time.Now()
	args := append([]any{b.RepoID, b.RuleName}, branchArgs(b)...)
	args = append(args, now.Unix(), now.Unix())
	id, err := s.db.Insert(ctx, `INSERT INTO protected_branch (repo_id, rule_name, priority, can_push, enable_whitelist,
		whitelist_user_ids, whitelist_team_ids, whitelist_deploy_keys, can_force_push, enable_force_push_allowlist,
		force_push_allowlist_user_ids, force_push_allowlist_team_ids, force_push_allowlist_deploy_keys,
		enable_merge_whitelist, merge_whitelist_user_ids, merge_whitelist_team_ids, enable_status_check,
		status_check_contexts, enable_approvals_whitelist, approvals_whitelist_user_ids, approvals_whitelist_team_ids,
		required_approvals, block_on_rejected_reviews, block_on_official_review_requests, block_on_outdated_branch,
		dismiss_stale_approvals, ignore_stale_approvals, require_signed_commits, protected_file_patterns,
		unprotected_file_patterns, block_admin_merge_override, created_unix, updated_unix)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
	if db.IsUniqueViolation(err) {
		return errs.Forbidden("Branch protection already exist")
	}
	if err != nil {
		return err
	}
	b.ID, b.Created, b.Updated = id, time.Unix(now.Unix(), 0), time.Unix(now.Unix(), 0)
	return nil
}

// UpdateBranchRule writes every field of b but its name.
func (s *Service) UpdateBranchRule(ctx context.Context, b *BranchRule) error {
	now := time.Now().Unix()
	args := append(branchArgs(b), now, b.ID, b.RepoID)
	_, err := s.db.Exec(ctx, "UPDATE protected_branch SET "+branchSetColumns+", updated_unix = ? WHERE id = ? AND repo_id = ?", args...)
	b.Updated = time.Unix(now, 0)
	return err
}

// DeleteBranchRule removes the rule named name (errs.NotFound when none).
func (s *Service) DeleteBranchRule(ctx context.Context, repoID int64, name string) error {
	res, err := s.db.Exec(ctx, "DELETE FROM protected_branch WHERE repo_id = ? AND rule_name = ?", repoID, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFound("branch protection %q does not exist", name)
	}
	return nil
}

// SetPriorities gives the rules with the listed ids priorities 1, 2, ... in
// that order; ids of no rule of the repository are ignored, as in Gitea.
func (s *Service) SetPriorities(ctx context.Context, repoID int64, order []int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for i, id := range order {
			if _, err := s.db.Exec(ctx, "UPDATE protected_branch SET priority = ? WHERE id = ? AND repo_id = ?", i+1, id, repoID); err != nil {
				return err
			}
		}
		return nil
	})
}

const tagColumns = "id, repo_id, name_pattern, allowlist_user_ids, allowlist_team_ids, created_unix, updated_unix"

func scanTag(sc interface{ Scan(...any) error }) (*TagRule, error) {
	var t TagRule
	var u, tm sql.NullString
	var c, up int64
	if err := sc.Scan(&t.ID, &t.RepoID, &t.NamePattern, &u, &tm, &c, &up); err != nil {
		return nil, err
	}
	t.AllowlistUserIDs, t.AllowlistTeamIDs = ids(u), ids(tm)
	t.Created, t.Updated = time.Unix(c, 0), time.Unix(up, 0)
	return &t, nil
}

// TagRules returns the tag rules of a repository, oldest first.
func (s *Service) TagRules(ctx context.Context, repoID int64) ([]*TagRule, error) {
	rows, err := s.db.Query(ctx, "SELECT "+tagColumns+" FROM protected_tag WHERE repo_id = ? ORDER BY id", repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*TagRule
	for rows.Next() {
		t, err := scanTag(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// GetTagRule returns tag rule id of a repository (errs.NotFound when none).
func (s *Service) GetTagRule(ctx context.Context, repoID, id int64) (*TagRule, error) {
	t, err := scanTag(s.db.QueryRow(ctx, "SELECT "+tagColumns+" FROM protected_tag WHERE repo_id = ? AND id = ?", repoID, id))
	if err == sql.ErrNoRows {
		return nil, errs.NotFound("tag protection %d does not exist", id)
	}
	return t, err
}

// TagRuleByPattern returns the rule with pattern p, or nil.
func (s *Service) TagRuleByPattern(ctx context.Context, repoID int64, p string) (*TagRule, error) {
	t, err := scanTag(s.db.QueryRow(ctx, "SELECT "+tagColumns+" FROM protected_tag WHERE repo_id = ? AND name_pattern = ?", repoID, p))
	if err == sql.ErrNoRows {
		return nil, nil
	}
	return t, err
}

// SaveTagRule creates (ID 0) or updates t.
func (s *Service) SaveTagRule(ctx context.Context, t *TagRule) error {
	now := time.Now().Unix()
	t.Updated = time.Unix(now, 0)
	if t.ID == 0 {
		id, err := s.db.Insert(ctx, `INSERT INTO protected_tag (repo_id, name_pattern, allowlist_user_ids, allowlist_team_ids,
			created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?)`, t.RepoID, t.NamePattern,
			jsonText(nonNil(t.AllowlistUserIDs)), jsonText(nonNil(t.AllowlistTeamIDs)), now, now)
		t.ID, t.Created = id, time.Unix(now, 0)
		return err
	}
	_, err := s.db.Exec(ctx, `UPDATE protected_tag SET name_pattern = ?, allowlist_user_ids = ?, allowlist_team_ids = ?,
		updated_unix = ? WHERE id = ? AND repo_id = ?`, t.NamePattern, jsonText(nonNil(t.AllowlistUserIDs)),
		jsonText(nonNil(t.AllowlistTeamIDs)), now, t.ID, t.RepoID)
	return err
}

// DeleteTagRule removes tag rule id (errs.NotFound when none).
func (s *Service) DeleteTagRule(ctx context.Context, repoID, id int64) error {
	res, err := s.db.Exec(ctx, "DELETE FROM protected_tag WHERE repo_id = ? AND id = ?", repoID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFound("tag protection %d does not exist", id)
	}
	return nil
}

// userTeams returns the ids of the teams uid belongs to.
func (s *Service) userTeams(ctx context.Context, uid int64) ([]int64, error) {
	if uid <= 0 {
		return nil, nil
	}
	rows, err := s.db.Query(ctx, "SELECT team_id FROM team_user WHERE uid = ?", uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
