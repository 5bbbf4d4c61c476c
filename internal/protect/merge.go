package protect

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
)

func disallowed(msg string) error {
	return errs.Forbidden("%s", msg).WithStatus(http.StatusMethodNotAllowed)
}

// ReviewRules is the pull.ReviewRulesFunc of the rule protecting branch.
func (s *Service) ReviewRules(ctx context.Context, r *repo.Repository, branch string) (pull.ReviewRules, error) {
	rule, err := s.MatchBranch(ctx, r.ID, branch)
	if err != nil || rule == nil {
		return pull.ReviewRules{}, err
	}
	return reviewRules(rule), nil
}

func reviewRules(rule *BranchRule) pull.ReviewRules {
	return pull.ReviewRules{
		Protected:                     true,
		RequiredApprovals:             int(rule.RequiredApprovals),
		EnableApprovalsWhitelist:      rule.EnableApprovalsWhitelist,
		ApprovalsWhitelistUserIDs:     rule.ApprovalsWhitelistUserIDs,
		ApprovalsWhitelistTeamIDs:     rule.ApprovalsWhitelistTeamIDs,
		BlockOnRejectedReviews:        rule.BlockOnRejectedReviews,
		BlockOnOfficialReviewRequests: rule.BlockOnOfficialReviewRequests,
		DismissStaleApprovals:         rule.DismissStaleApprovals,
		IgnoreStaleApprovals:          rule.IgnoreStaleApprovals,
	}
}

// overridden reports whether a repository administrator forces the merge
// past the rule's checks (force_merge, unless block_admin_merge_override).
func overridden(mc *pull.MergeContext, rule *BranchRule) bool {
	return mc.Opts.Force && mc.IsAdmin && !rule.BlockAdminMergeOverride
}

// MergeChecks returns the merge checks of branch protection, in Gitea's
// order: the merge allowlist (never overridden), then status checks, the
// review rules (reviewCheck, pull.Service.ReviewCheck of ReviewRules), an
// outdated head and protected files; an administrator's force_merge skips
// all but the allowlist unless the rule blocks the override.
func (s *Service) MergeChecks(reviewCheck pull.MergeCheck) []pull.MergeCheck {
	before := func(ctx context.Context, mc *pull.MergeContext) error {
		rule, err := s.MatchBranch(ctx, mc.Repo.ID, mc.Pull.BaseBranch)
		if err != nil || rule == nil {
			return err
		}
		teams, err := s.userTeams(ctx, mc.Doer.ID)
		if err != nil {
			return err
		}
		perm, _, err := s.permission(ctx, mc.Doer.ID, mc.Repo)
		if err != nil {
			return err
		}
		if !rule.UserCanMerge(mc.Doer.ID, teams, perm.CanWrite(repo.UnitCode)) {
			return disallowed("User not allowed to merge PR")
		}
		if mc.Opts.Style == pull.StyleManuallyMerged || overridden(mc, rule) || !rule.EnableStatusCheck {
			return nil
		}
		ok, err := s.statusesPass(ctx, mc, rule)
		if err != nil {
			return err
		}
		if !ok {
			return disallowed("Not all required status checks successful")
		}
		return nil
	}
	reviews := func(ctx context.Context, mc *pull.MergeContext) error {
		if mc.Opts.Force && mc.IsAdmin {
			rule, err := s.MatchBranch(ctx, mc.Repo.ID, mc.Pull.BaseBranch)
			if err != nil {
				return err
			}
			if rule != nil && rule.BlockAdminMergeOverride {
				m := *mc
				m.Opts.Force = false
				return reviewCheck(ctx, &m)
			}
		}
		if mc.Opts.Style == pull.StyleManuallyMerged {
			return nil
		}
		return reviewCheck(ctx, mc)
	}
	after := func(ctx context.Context, mc *pull.MergeContext) error {
		rule, err := s.MatchBranch(ctx, mc.Repo.ID, mc.Pull.BaseBranch)
		if err != nil || rule == nil || mc.Opts.Style == pull.StyleManuallyMerged || overridden(mc, rule) {
			return err
		}
		if rule.BlockOnOutdatedBranch && mc.Pull.CommitsBehind > 0 {
			return disallowed("The head branch is behind the base branch")
		}
		if len(filePatterns(rule.ProtectedFilePatterns)) == 0 || mc.Pull.MergeBase == "" || mc.Pull.HeadCommitID == "" {
			return nil
		}
		out, err := s.git.Command("diff", "--name-only", "-z", "--no-renames").Repo(s.repoPath(mc.Repo)).
			EndOfOptions().Values(mc.Pull.MergeBase, mc.Pull.HeadCommitID).Output(ctx)
		if err != nil {
			return err
		}
		if firstProtected(rule.ProtectedFilePatterns, strings.Split(string(out), "\x00")) != "" {
			return disallowed("Changed protected files")
		}
		return nil
	}
	return []pull.MergeCheck{before, reviews, after}
}

// statusesPass applies the rule's status check to the head commit.
func (s *Service) statusesPass(ctx context.Context, mc *pull.MergeContext, rule *BranchRule) (bool, error) {
	head := mc.Pull.HeadCommitID
	if head == "" {
		sha, err := s.git.ResolveCommit(ctx, s.repoPath(mc.Repo), mc.Pull.HeadRef())
		if err != nil {
			return false, nil
		}
		head = sha
	}
	list, _, err := s.repos.LatestStatuses(ctx, mc.Repo, head)
	if err != nil {
		return false, err
	}
	st := make([]Status, len(list))
	for i, c := range list {
		st[i] = Status{Context: c.Context, State: c.State}
	}
	return RequiredStatusesPass(st, rule.StatusCheckContexts), nil
}

// OnPullEvent is the pull.Listener of dismiss_stale_approvals: when the
// head of a pull request changes, the approvals of earlier heads are
// dismissed, each with a timeline entry.
func (s *Service) OnPullEvent(ctx context.Context, e pull.Event) {
	if e.Kind != pull.EventSynchronized || e.Pull == nil || e.Repo == nil {
		return
	}
	if err := s.dismissStale(ctx, e); err != nil {
		slog.Error("protect: dismiss stale approvals", "repo", e.Repo.ID, "pull", e.Pull.Index, "err", err)
	}
}

func (s *Service) dismissStale(ctx context.Context, e pull.Event) error {
	rule, err := s.MatchBranch(ctx, e.Repo.ID, e.Pull.BaseBranch)
	if err != nil || rule == nil || !rule.DismissStaleApprovals {
		return err
	}
	head := e.Pull.HeadCommitID
	rows, err := s.db.Query(ctx, `SELECT id FROM review WHERE issue_id = ? AND type = ? AND official = ? AND dismissed = ?
		AND commit_id <> ?`, e.Pull.IssueID, pull.ReviewApprove, true, false, head)
	if err != nil {
		return err
	}
	var list []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		list = append(list, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(list) == 0 {
		return err
	}
	var doer int64
	if e.Doer != nil {
		doer = e.Doer.ID
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, id := range list {
			res, err := s.db.Exec(ctx, "UPDATE review SET dismissed = ? WHERE id = ? AND dismissed = ?", true, id, false)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			if err := s.issues.AddEvent(ctx, &issue.Comment{Type: issue.CommentDismissReview, PosterID: doer,
				IssueID: e.Pull.IssueID, ReviewID: id}); err != nil {
				return err
			}
		}
		return nil
	})
}
