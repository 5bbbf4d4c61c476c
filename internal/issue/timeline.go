package issue

import (
	"context"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// TimelineOptions select a page of an issue's timeline.
type TimelineOptions struct {
	// Since keeps entries updated at or after the instant; Before keeps
	// entries created before it (the comment lists' rule).
	Since  time.Time
	Before time.Time
	Limit  int
	Offset int
}

// Timeline returns one page of the timeline of issue issueID (comments and
// events, oldest first; code comments belong to reviews and are left out)
// and the number of entries matching: one count query and one page query.
func (s *Service) Timeline(ctx context.Context, issueID int64, o TimelineOptions) ([]*Comment, int64, error) {
	where := "c.issue_id = ? AND c.type <> ?"
	args := []any{issueID, CommentCode}
	if !o.Since.IsZero() {
		where += " AND c.updated_unix >= ?"
		args = append(args, o.Since.Unix())
	}
	if !o.Before.IsZero() {
		where += " AND c.created_unix < ?"
		args = append(args, o.Before.Unix())
	}
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM comment c WHERE "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	limit := o.Limit
	if limit <= 0 {
		limit = 30
	}
	list, err := s.ListComments(ctx, "WHERE "+where+" ORDER BY c.created_unix, c.id"+db.LimitOffset(limit, o.Offset), args...)
	return list, total, err
}

// CommentsByIDs loads many comments keyed by id, in one query.
func (s *Service) CommentsByIDs(ctx context.Context, ids []int64) (map[int64]*Comment, error) {
	out := map[int64]*Comment{}
	ids = uniq(ids)
	if len(ids) == 0 {
		return out, nil
	}
	list, err := s.ListComments(ctx, "WHERE c.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	for _, c := range list {
		out[c.ID] = c
	}
	return out, err
}

// LabelsByIDs loads many labels keyed by id, in one query.
func (s *Service) LabelsByIDs(ctx context.Context, ids []int64) (map[int64]*Label, error) {
	out := map[int64]*Label{}
	ids = uniq(ids)
	if len(ids) == 0 {
		return out, nil
	}
	list, err := s.ListLabels(ctx, "WHERE l.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	for _, l := range list {
		out[l.ID] = l
	}
	return out, err
}

// LatestCommentIDs returns, for each of the issues, the id of its latest
// plain comment (issues without comments are absent), in one query.
func (s *Service) LatestCommentIDs(ctx context.Context, issueIDs []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	issueIDs = uniq(issueIDs)
	if len(issueIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT c.issue_id, MAX(c.id) FROM comment c WHERE c.type = ? AND c.issue_id IN "+
		db.In(len(issueIDs))+" GROUP BY c.issue_id", append([]any{CommentPlain}, db.Int64Args(issueIDs)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var iid, cid int64
		if err := rows.Scan(&iid, &cid); err != nil {
			return nil, err
		}
		out[iid] = cid
	}
	return out, rows.Err()
}

// TrackedTimesByIDs loads many tracked times (deleted ones too) keyed by id, in one query.
func (s *Service) TrackedTimesByIDs(ctx context.Context, ids []int64) (map[int64]*TrackedTime, error) {
	out := map[int64]*TrackedTime{}
	ids = uniq(ids)
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT "+trackedTimeColumns+" FROM tracked_time t WHERE t.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanTrackedTime(rows)
		if err != nil {
			return nil, err
		}
		out[t.ID] = t
	}
	return out, rows.Err()
}
