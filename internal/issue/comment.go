package issue

import (
	"context"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// MaxCommentLength bounds a comment or issue body, in bytes.
const MaxCommentLength = 1 << 20

// CreateComment adds a plain comment to an issue.
func (s *Service) CreateComment(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, body string) (*Comment, error) {
	if strings.TrimSpace(body) == "" {
		return nil, errs.InvalidField("body", "[Body]: Required")
	}
	if len(body) > MaxCommentLength {
		return nil, errs.InvalidField("body", "[Body]: MaxSize (at most %d bytes)", MaxCommentLength)
	}
	c := &Comment{Type: CommentPlain, PosterID: doer.ID, IssueID: is.ID, Content: body, Created: time.Now()}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.insertComment(ctx, c); err != nil {
			return err
		}
		if _, err := s.db.Exec(ctx, "UPDATE issue SET num_comments = num_comments + 1, updated_unix = ? WHERE id = ?", c.Created.Unix(), is.ID); err != nil {
			return err
		}
		after := *is
		after.NumComments++
		after.Updated = c.Created
		return s.Notify(ctx, Event{Kind: EventCommentCreated, Doer: doer, Repo: r, Issue: &after, Comment: c})
	})
	if err != nil {
		return nil, err
	}
	is.NumComments++
	is.Updated = c.Created
	return c, nil
}

// UpdateComment replaces the body of a plain comment.
func (s *Service) UpdateComment(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, c *Comment, body string) error {
	if c.Type != CommentPlain && c.Type != CommentCode && c.Type != CommentReview {
		return errs.Invalid("only comments can be edited")
	}
	if strings.TrimSpace(body) == "" {
		return errs.InvalidField("body", "[Body]: Required")
	}
	if len(body) > MaxCommentLength {
		return errs.InvalidField("body", "[Body]: MaxSize (at most %d bytes)", MaxCommentLength)
	}
	if body == c.Content {
		return nil
	}
	now := time.Now()
	old := c.Content
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE comment SET content = ?, updated_unix = ? WHERE id = ?", body, now.Unix(), c.ID); err != nil {
			return err
		}
		c.Content, c.Updated = body, now
		return s.Notify(ctx, Event{Kind: EventCommentEdited, Doer: doer, Repo: r, Issue: is, Comment: c, From: old})
	})
}

// DeleteComment removes a plain comment and what hangs off it.
func (s *Service) DeleteComment(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, c *Comment) error {
	if c.Type != CommentPlain && c.Type != CommentCode && c.Type != CommentReview {
		return errs.Invalid("only comments can be deleted")
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.dropAttachments(ctx, "comment_id = ?", c.ID); err != nil {
			return err
		}
		for _, q := range []string{
			"DELETE FROM reaction WHERE comment_id = ?",
			"UPDATE notification SET comment_id = 0 WHERE comment_id = ?",
			"DELETE FROM comment WHERE id = ?",
		} {
			if _, err := s.db.Exec(ctx, q, c.ID); err != nil {
				return err
			}
		}
		if c.Type == CommentPlain {
			if _, err := s.db.Exec(ctx, "UPDATE issue SET num_comments = num_comments - 1 WHERE id = ? AND num_comments > 0", is.ID); err != nil {
				return err
			}
		}
		return s.Notify(ctx, Event{Kind: EventCommentDeleted, Doer: doer, Repo: r, Issue: is, Comment: c})
	})
}
