package pull

import (
	"context"

	"github.com/cairn-forge/cairn/internal/issue"
)

// PendingRequest is a pending request for a review by a user or a team.
type PendingRequest struct {
	IssueID    int64
	ReviewerID int64
	TeamID     int64
}

// ReviewRequestsOf loads the pending review requests of issues, by issue id.
func (s *Service) ReviewRequestsOf(ctx context.Context, issueIDs []int64) (map[int64][]PendingRequest, error) {
	out := map[int64][]PendingRequest{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT issue_id, reviewer_id, reviewer_team_id FROM review WHERE type = ? AND issue_id IN ("+
		placeholders(len(issueIDs))+") ORDER BY id", append([]any{ReviewRequest}, int64Args(issueIDs)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var rr PendingRequest
		if err := rows.Scan(&rr.IssueID, &rr.ReviewerID, &rr.TeamID); err != nil {
			return nil, err
		}
		out[rr.IssueID] = append(out[rr.IssueID], rr)
	}
	return out, rows.Err()
}

// ReviewCommentCounts counts the line comments of issues, by issue id.
func (s *Service) ReviewCommentCounts(ctx context.Context, issueIDs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT issue_id, COUNT(*) FROM comment WHERE type = ? AND issue_id IN ("+
		placeholders(len(issueIDs))+") GROUP BY issue_id", append([]any{int(issue.CommentCode)}, int64Args(issueIDs)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}
