package pull

import (
	"context"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/repo"
)

// ReviewRules are the review requirements of a base branch (branch
// protection supplies them); the zero value requires nothing.
type ReviewRules struct {
	// Protected tells that a rule protects the branch.
	Protected bool
	// RequiredApprovals is how many official, undismissed approvals a
	// merge needs.
	RequiredApprovals int
	// EnableApprovalsWhitelist counts only approvals (and requests for
	// changes) of the listed users and members of the listed teams.
	EnableApprovalsWhitelist  bool
	ApprovalsWhitelistUserIDs []int64
	ApprovalsWhitelistTeamIDs []int64
	// BlockOnRejectedReviews refuses while an official request for
	// changes stands; BlockOnOfficialReviewRequests while an official
	// review request is open.
	BlockOnRejectedReviews        bool
	BlockOnOfficialReviewRequests bool
	// DismissStaleApprovals and IgnoreStaleApprovals: approvals made on an
	// older head do not count.
	DismissStaleApprovals bool
	IgnoreStaleApprovals  bool
}

// requiresAnything reports whether the rules can refuse a merge.
func (r ReviewRules) requiresAnything() bool {
	return r.RequiredApprovals > 0 || r.BlockOnRejectedReviews || r.BlockOnOfficialReviewRequests
}

// ReviewRulesFunc returns the review rules of branch of r.
type ReviewRulesFunc func(ctx context.Context, r *repo.Repository, branch string) (ReviewRules, error)

// reviewState is what the rules are checked against.
type reviewState struct {
	Approvals        int
	Rejected         bool
	OfficialRequests bool
}

// ReviewCheck returns the merge check of review rules: missing approvals,
// an official request for changes or an open official review request
// refuse the merge (405), unless a repository administrator forces it.
func (s *Service) ReviewCheck(rules ReviewRulesFunc) MergeCheck {
	return reviewCheck(rules, s.reviewState)
}

func reviewCheck(rules ReviewRulesFunc, state func(context.Context, *PullRequest, ReviewRules) (reviewState, error)) MergeCheck {
	return func(ctx context.Context, mc *MergeContext) error {
		if mc.Opts.Force && mc.IsAdmin {
			return nil
		}
		rr, err := rules(ctx, mc.Repo, mc.Pull.BaseBranch)
		if err != nil || !rr.requiresAnything() {
			return err
		}
		st, err := state(ctx, mc.Pull, rr)
		if err != nil {
			return err
		}
		return checkReviewState(rr, st)
	}
}

// checkReviewState applies rr to st in Gitea's order and with its messages.
func checkReviewState(rr ReviewRules, st reviewState) error {
	switch {
	case rr.RequiredApprovals > 0 && st.Approvals < rr.RequiredApprovals:
		return notAllowed("Does not have enough approvals")
	case rr.BlockOnRejectedReviews && st.Rejected:
		return notAllowed("There are requested changes")
	case rr.BlockOnOfficialReviewRequests && st.OfficialRequests:
		return notAllowed("There are official review requests")
	}
	return nil
}

// reviewState counts the reviews of p that rr looks at.
func (s *Service) reviewState(ctx context.Context, p *PullRequest, rr ReviewRules) (reviewState, error) {
	var st reviewState
	who, whoArgs := "", []any(nil)
	if rr.EnableApprovalsWhitelist {
		who = " AND (r.reviewer_id IN " + db.In(len(rr.ApprovalsWhitelistUserIDs)+1) +
			" OR r.reviewer_id IN (SELECT tu.uid FROM team_user tu WHERE tu.team_id IN " + db.In(len(rr.ApprovalsWhitelistTeamIDs)+1) + "))"
		// 0 keeps each list non-empty; no reviewer or team has id 0.
		whoArgs = append(db.Int64Args(append([]int64{0}, rr.ApprovalsWhitelistUserIDs...)),
			db.Int64Args(append([]int64{0}, rr.ApprovalsWhitelistTeamIDs...))...)
	}
	if rr.RequiredApprovals > 0 {
		q := "SELECT COUNT(*) FROM review r WHERE r.issue_id = ? AND r.type = ? AND r.official = ? AND r.dismissed = ?"
		args := []any{p.IssueID, ReviewApprove, true, false}
		if rr.DismissStaleApprovals || rr.IgnoreStaleApprovals {
			q += " AND r.stale = ?"
			args = append(args, false)
		}
		n, err := s.db.Count(ctx, q+who, append(args, whoArgs...)...)
		if err != nil {
			return st, err
		}
		st.Approvals = int(n)
	}
	if rr.BlockOnRejectedReviews {
		ok, err := s.db.Exists(ctx, "SELECT 1 FROM review r WHERE r.issue_id = ? AND r.type = ? AND r.official = ? AND r.dismissed = ?"+who,
			append([]any{p.IssueID, ReviewReject, true, false}, whoArgs...)...)
		if err != nil {
			return st, err
		}
		st.Rejected = ok
	}
	if rr.BlockOnOfficialReviewRequests {
		ok, err := s.db.Exists(ctx, "SELECT 1 FROM review r WHERE r.issue_id = ? AND r.type = ? AND r.official = ?",
			p.IssueID, ReviewRequest, true)
		if err != nil {
			return st, err
		}
		st.OfficialRequests = ok
	}
	return st, nil
}

// approvedForSigning is the "approved" condition of [repository.signing]
// MERGES, as Gitea: a rule protects the base branch and at least one
// approval counts under it.
func (s *Service) approvedForSigning(rules ReviewRulesFunc, mc *MergeContext) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		if rules == nil {
			return false, nil
		}
		rr, err := rules(ctx, mc.Repo, mc.Pull.BaseBranch)
		if err != nil || !rr.Protected {
			return false, err
		}
		rr.RequiredApprovals = 1
		st, err := s.reviewState(ctx, mc.Pull, rr)
		return st.Approvals >= 1, err
	}
}
