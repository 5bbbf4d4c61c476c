package pull

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// errRequestOnClosed is Gitea's refusal to ask again for a review of a
// closed or merged pull request.
func errRequestOnClosed() *errs.Error {
	return errs.Forbidden("cannot request a re-review on a closed or merged PR")
}

// LatestVerdict returns reviewerID's latest approval, request for changes
// or pending request on p, or nil.
func (s *Service) LatestVerdict(ctx context.Context, p *PullRequest, reviewerID int64) (*Review, error) {
	return s.latestVerdict(ctx, p.IssueID, reviewerID)
}

// RequestReview asks reviewer for a review of p (add) or withdraws the
// request; who may do so is checked by the caller. Asking someone already
// asked, or withdrawing a request that does not exist, changes nothing and
// returns nil. A request gets a review_request timeline entry.
func (s *Service) RequestReview(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, reviewer *user.User, add bool) (*Review, error) {
	var rv *Review
	changed := false
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		last, err := s.latestVerdict(ctx, p.IssueID, reviewer.ID)
		if err != nil {
			return err
		}
		official, err := s.IsOfficialReviewer(ctx, base, reviewer)
		if err != nil {
			return err
		}
		if add {
			if last != nil && last.Type == ReviewRequest {
				return nil
			}
			if last != nil && (p.HasMerged || p.Issue.IsClosed) {
				return errRequestOnClosed()
			}
			if official {
				if _, err := s.db.Exec(ctx, "UPDATE review SET official = ? WHERE issue_id = ? AND reviewer_id = ?", false, p.IssueID, reviewer.ID); err != nil {
					return err
				}
			}
			if rv, err = s.insertReview(ctx, &Review{Type: ReviewRequest, ReviewerID: reviewer.ID, IssueID: p.IssueID, Official: official}); err != nil {
				return err
			}
		} else {
			if last == nil || last.Type != ReviewRequest {
				return nil
			}
			if _, err := s.db.Exec(ctx, "DELETE FROM review WHERE id = ?", last.ID); err != nil {
				return err
			}
			if official {
				if err := s.restoreOfficial(ctx, p.IssueID, reviewer.ID); err != nil {
					return err
				}
			}
		}
		changed = true
		c := &issue.Comment{Type: issue.CommentReviewRequest, PosterID: doer.ID, IssueID: p.IssueID, AssigneeID: reviewer.ID, RemovedAssignee: !add}
		if rv != nil {
			c.ReviewID = rv.ID
		}
		if err := s.issues.AddEvent(ctx, c); err != nil {
			return err
		}
		return s.notifyRequest(ctx, doer, base, p, add, reviewer.ID, 0)
	})
	if err != nil || !changed {
		return nil, err
	}
	return rv, nil
}

// RequestTeamReview asks team teamID (of the base repository's
// organization) for a review of p, or withdraws the request, like
// RequestReview. As in Gitea, without a branch rule a team request is
// official when the doer's own reviews are.
func (s *Service) RequestTeamReview(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, teamID int64, add bool) (*Review, error) {
	var rv *Review
	changed := false
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		last, err := s.oneReview(ctx, "WHERE r.issue_id = ? AND r.reviewer_team_id = ? ORDER BY r.id DESC", p.IssueID, teamID)
		if err != nil {
			return err
		}
		if add {
			if last != nil {
				return nil
			}
			official, err := s.IsOfficialReviewer(ctx, base, doer)
			if err != nil {
				return err
			}
			if rv, err = s.insertReview(ctx, &Review{Type: ReviewRequest, ReviewerTeamID: teamID, IssueID: p.IssueID, Official: official}); err != nil {
				return err
			}
		} else {
			if last == nil {
				return nil
			}
			if _, err := s.db.Exec(ctx, "DELETE FROM review WHERE id = ?", last.ID); err != nil {
				return err
			}
		}
		changed = true
		c := &issue.Comment{Type: issue.CommentReviewRequest, PosterID: doer.ID, IssueID: p.IssueID, AssigneeTeamID: teamID, RemovedAssignee: !add}
		if rv != nil {
			c.ReviewID = rv.ID
		}
		if err := s.issues.AddEvent(ctx, c); err != nil {
			return err
		}
		return s.notifyRequest(ctx, doer, base, p, add, 0, teamID)
	})
	if err != nil || !changed {
		return nil, err
	}
	return rv, nil
}

func (s *Service) notifyRequest(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, add bool, reviewerID, teamID int64) error {
	kind := EventReviewRequested
	if !add {
		kind = EventReviewUnrequest
	}
	return s.notify(ctx, Event{Kind: kind, Doer: doer, Repo: base, Pull: p, ReviewerID: reviewerID, TeamID: teamID})
}
