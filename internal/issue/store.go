package issue

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// Columns is the select list ScanIssue reads, for table alias "i".
const Columns = `i.id, i.repo_id, i.idx, i.poster_id, i.original_author, i.original_author_id, i.title,
	COALESCE(i.content, ''), i.milestone_id, i.priority, i.is_closed, i.is_pull, i.is_locked, i.num_comments, i.ref,
	i.pin_order, i.deadline_unix, i.created_unix, i.updated_unix, i.closed_unix`

type scanner interface{ Scan(dest ...any) error }

func unixOrZero(n int64) time.Time {
	if n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0)
}

// ScanIssue reads one row selected with Columns.
func ScanIssue(row scanner) (*Issue, error) {
	i := &Issue{}
	var deadline, created, updated, closed int64
	err := row.Scan(&i.ID, &i.RepoID, &i.Index, &i.PosterID, &i.OriginalAuthor, &i.OriginalAuthorID, &i.Title,
		&i.Content, &i.MilestoneID, &i.Priority, &i.IsClosed, &i.IsPull, &i.IsLocked, &i.NumComments, &i.Ref,
		&i.PinOrder, &deadline, &created, &updated, &closed)
	if err != nil {
		return nil, err
	}
	i.Deadline, i.Created, i.Updated, i.Closed = unixOrZero(deadline), time.Unix(created, 0), time.Unix(updated, 0), unixOrZero(closed)
	return i, nil
}

// CommentColumns is the select list ScanComment reads, for table alias "c".
const CommentColumns = `c.id, c.type, c.poster_id, c.original_author, c.original_author_id, c.issue_id, c.label_id,
	c.old_milestone_id, c.milestone_id, c.assignee_id, c.removed_assignee, c.old_title, c.new_title, c.old_ref,
	c.new_ref, c.dependent_issue_id, c.ref_repo_id, c.ref_issue_id, c.ref_comment_id, c.ref_action, c.ref_is_pull,
	c.commit_sha, c.time_id, COALESCE(c.content, ''), c.created_unix, c.updated_unix, c.review_id, c.tree_path, c.line,
	COALESCE(c.patch, ''), c.invalidated, c.resolve_doer_id, c.assignee_team_id`

// ScanComment reads one row selected with CommentColumns.
func ScanComment(row scanner) (*Comment, error) {
	c := &Comment{}
	var created, updated int64
	err := row.Scan(&c.ID, &c.Type, &c.PosterID, &c.OriginalAuthor, &c.OriginalAuthorID, &c.IssueID, &c.LabelID,
		&c.OldMilestoneID, &c.MilestoneID, &c.AssigneeID, &c.RemovedAssignee, &c.OldTitle, &c.NewTitle, &c.OldRef,
		&c.NewRef, &c.DependentIssueID, &c.RefRepoID, &c.RefIssueID, &c.RefCommentID, &c.RefAction, &c.RefIsPull,
		&c.CommitSHA, &c.TimeID, &c.Content, &created, &updated, &c.ReviewID, &c.TreePath, &c.Line, &c.Patch,
		&c.Invalidated, &c.ResolveDoerID, &c.AssigneeTeamID)
	if err != nil {
		return nil, err
	}
	c.Created, c.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return c, nil
}

// ErrIndexNotExist is the error for issue #index of repository repoID when
// there is none. The API answers exactly the same for an issue the caller
// may not see.
func ErrIndexNotExist(repoID, index int64) *errs.Error {
	return errs.NotFound("issue does not exist [repo_id: %d, index: %d]", repoID, index)
}

// ErrCommentNotExist is the error for a comment id that does not exist (and
// for one the caller may not see).
func ErrCommentNotExist(id int64) *errs.Error {
	return errs.NotFound("comment does not exist [id: %d]", id)
}

// getIssue loads one issue by a condition.
func (s *Service) getIssue(ctx context.Context, notFound error, where string, args ...any) (*Issue, error) {
	i, err := ScanIssue(s.db.QueryRow(ctx, "SELECT "+Columns+" FROM issue i WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	return i, err
}

// GetByIndex loads issue #index of a repository (issues and pull requests share numbers).
func (s *Service) GetByIndex(ctx context.Context, repoID, index int64) (*Issue, error) {
	return s.getIssue(ctx, ErrIndexNotExist(repoID, index), "i.repo_id = ? AND i.idx = ?", repoID, index)
}

// GetByID loads an issue by id.
func (s *Service) GetByID(ctx context.Context, id int64) (*Issue, error) {
	return s.getIssue(ctx, errs.NotFound("issue does not exist [id: %d]", id), "i.id = ?", id)
}

// ListIssues selects issues with the given tail (WHERE/ORDER/LIMIT over alias i).
func (s *Service) ListIssues(ctx context.Context, tail string, args ...any) ([]*Issue, error) {
	rows, err := s.db.Query(ctx, "SELECT "+Columns+" FROM issue i "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Issue
	for rows.Next() {
		i, err := ScanIssue(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

// GetByIDs loads many issues keyed by id.
func (s *Service) GetByIDs(ctx context.Context, ids []int64) (map[int64]*Issue, error) {
	out := map[int64]*Issue{}
	if len(ids) == 0 {
		return out, nil
	}
	list, err := s.ListIssues(ctx, "WHERE i.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	for _, i := range list {
		out[i.ID] = i
	}
	return out, err
}

// GetComment loads a comment by id.
func (s *Service) GetComment(ctx context.Context, id int64) (*Comment, error) {
	c, err := ScanComment(s.db.QueryRow(ctx, "SELECT "+CommentColumns+" FROM comment c WHERE c.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrCommentNotExist(id)
	}
	return c, err
}

// ListComments selects comments with the given tail (over alias c).
func (s *Service) ListComments(ctx context.Context, tail string, args ...any) ([]*Comment, error) {
	rows, err := s.db.Query(ctx, "SELECT "+CommentColumns+" FROM comment c "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Comment
	for rows.Next() {
		c, err := ScanComment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// insertComment stores a timeline entry and sets its id and times.
func (s *Service) insertComment(ctx context.Context, c *Comment) error {
	now := time.Now()
	if c.Created.IsZero() {
		c.Created = now
	}
	c.Updated = c.Created
	id, err := s.db.Insert(ctx, `INSERT INTO comment (type, poster_id, original_author, original_author_id, issue_id, label_id,
		old_milestone_id, milestone_id, assignee_id, removed_assignee, old_title, new_title, old_ref, new_ref, dependent_issue_id,
		ref_repo_id, ref_issue_id, ref_comment_id, ref_action, ref_is_pull, commit_sha, time_id, content, created_unix, updated_unix,
		review_id, tree_path, line, patch, invalidated, resolve_doer_id, assignee_team_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Type, c.PosterID, c.OriginalAuthor, c.OriginalAuthorID, c.IssueID, c.LabelID, c.OldMilestoneID, c.MilestoneID,
		c.AssigneeID, c.RemovedAssignee, c.OldTitle, c.NewTitle, c.OldRef, c.NewRef, c.DependentIssueID, c.RefRepoID,
		c.RefIssueID, c.RefCommentID, c.RefAction, c.RefIsPull, c.CommitSHA, c.TimeID, c.Content, c.Created.Unix(), c.Updated.Unix(),
		c.ReviewID, c.TreePath, c.Line, c.Patch, c.Invalidated, c.ResolveDoerID, c.AssigneeTeamID)
	c.ID = id
	return err
}

// AddEvent records a timeline event (not a plain comment: it does not count in num_comments).
func (s *Service) AddEvent(ctx context.Context, c *Comment) error {
	return s.insertComment(ctx, c)
}
