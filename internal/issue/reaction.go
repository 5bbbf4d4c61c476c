package issue

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Reaction is one user's emoji reaction to an issue or to one of its comments.
type Reaction struct {
	ID        int64
	Type      string
	IssueID   int64
	CommentID int64 // 0 for a reaction to the issue itself
	UserID    int64
	Created   time.Time
}

// ReactionFilter selects reactions.
type ReactionFilter struct {
	IssueID int64
	// CommentID selects the reactions of one comment; 0 selects the reactions
	// of the issue itself (not of its comments).
	CommentID int64
	// UserID, when set, keeps only that user's reactions.
	UserID int64
	// Allowed keeps only these reaction types (the configured set); reactions
	// of types removed from the configuration are not shown. Empty keeps all.
	Allowed []string
	// Limit and Offset page the list; Limit 0 returns every reaction.
	Limit, Offset int
}

func (f ReactionFilter) where() (string, []any) {
	where := "r.issue_id = ? AND r.comment_id = ?"
	args := []any{f.IssueID, f.CommentID}
	if f.UserID != 0 {
		where += " AND r.user_id = ?"
		args = append(args, f.UserID)
	}
	if len(f.Allowed) > 0 {
		where += " AND r.type IN " + db.In(len(f.Allowed))
		for _, t := range f.Allowed {
			args = append(args, t)
		}
	}
	return where, args
}

const reactionColumns = "r.id, r.type, r.issue_id, r.comment_id, r.user_id, r.created_unix"

func scanReaction(row scanner) (*Reaction, error) {
	x := &Reaction{}
	var created int64
	if err := row.Scan(&x.ID, &x.Type, &x.IssueID, &x.CommentID, &x.UserID, &created); err != nil {
		return nil, err
	}
	x.Created = time.Unix(created, 0)
	return x, nil
}

// FindReactions lists reactions oldest first and, when f pages the list,
// counts them all (one query more). Without paging the total is the length.
func (s *Service) FindReactions(ctx context.Context, f ReactionFilter) ([]*Reaction, int64, error) {
	where, args := f.where()
	tail := " ORDER BY r.created_unix, r.id"
	var total int64 = -1
	if f.Limit > 0 {
		n, err := s.db.Count(ctx, "SELECT COUNT(*) FROM reaction r WHERE "+where, args...)
		if err != nil {
			return nil, 0, err
		}
		total = n
		tail += db.LimitOffset(f.Limit, f.Offset)
	}
	rows, err := s.db.Query(ctx, "SELECT "+reactionColumns+" FROM reaction r WHERE "+where+tail, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*Reaction{}
	for rows.Next() {
		x, err := scanReaction(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, x)
	}
	if total < 0 {
		total = int64(len(out))
	}
	return out, total, rows.Err()
}

// AllowedReaction reports whether typ is in the allowed set.
func AllowedReaction(allowed []string, typ string) bool {
	for _, a := range allowed {
		if a == typ {
			return true
		}
	}
	return false
}

// AddReaction records doer's reaction typ to issue is (c nil) or to comment
// c. A type outside allowed is refused with 403, as Gitea does. Adding a
// reaction that already exists changes nothing and returns the existing one
// with created false.
func (s *Service) AddReaction(ctx context.Context, doer *user.User, is *Issue, c *Comment, typ string, allowed []string) (*Reaction, bool, error) {
	if !AllowedReaction(allowed, typ) {
		return nil, false, errs.Forbidden("'%s' is not an allowed reaction; allowed: %s", typ, strings.Join(allowed, ", "))
	}
	x := &Reaction{Type: typ, IssueID: is.ID, UserID: doer.ID, Created: time.Now()}
	if c != nil {
		x.CommentID = c.ID
	}
	existing := func() (*Reaction, bool, error) {
		old, err := scanReaction(s.db.QueryRow(ctx, "SELECT "+reactionColumns+
			" FROM reaction r WHERE r.type = ? AND r.issue_id = ? AND r.comment_id = ? AND r.user_id = ?", typ, x.IssueID, x.CommentID, x.UserID))
		return old, err == nil, err
	}
	if old, ok, err := existing(); ok {
		return old, false, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, false, err
	}
	id, err := s.db.Insert(ctx, "INSERT INTO reaction (type, issue_id, comment_id, user_id, created_unix) VALUES (?, ?, ?, ?, ?)",
		x.Type, x.IssueID, x.CommentID, x.UserID, x.Created.Unix())
	if err != nil {
		if db.IsUniqueViolation(err) { // a concurrent request added it first
			if old, ok, _ := existing(); ok {
				return old, false, nil
			}
		}
		return nil, false, err
	}
	x.ID = id
	return x, true, nil
}

// RemoveReaction removes doer's reaction typ from issue is (c nil) or from
// comment c. Removing a reaction that does not exist is not an error.
func (s *Service) RemoveReaction(ctx context.Context, doer *user.User, is *Issue, c *Comment, typ string) error {
	var commentID int64
	if c != nil {
		commentID = c.ID
	}
	_, err := s.db.Exec(ctx, "DELETE FROM reaction WHERE type = ? AND issue_id = ? AND comment_id = ? AND user_id = ?",
		typ, is.ID, commentID, doer.ID)
	return err
}
