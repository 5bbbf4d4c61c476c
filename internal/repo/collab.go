package repo

import (
	"context"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Collaboration access levels, as stored in collaboration.mode (the same
// numbers as the access package's modes).
const (
	CollabRead  = 1
	CollabWrite = 2
	CollabAdmin = 3
)

// ParseCollabMode reads "read", "write" or "admin".
func ParseCollabMode(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read":
		return CollabRead, true
	case "write":
		return CollabWrite, true
	case "admin":
		return CollabAdmin, true
	}
	return 0, false
}

// AddCollaborator gives u the access mode on r, or changes the mode of an
// existing collaborator. Organizations, inactive accounts and the owner
// cannot be collaborators.
func (s *Service) AddCollaborator(ctx context.Context, r *Repository, u *user.User, mode int) error {
	if mode < CollabRead || mode > CollabAdmin {
		return errs.InvalidField("permission", "[Permission]: In (read, write, admin)")
	}
	switch {
	case u.IsOrganization():
		return errs.Invalid("an organization cannot be a collaborator [name: %s]", u.Name)
	case !u.IsActive || u.ProhibitLogin:
		return errs.Invalid("collaborator's account is inactive [name: %s]", u.Name)
	case u.ID == r.OwnerID:
		return errs.Invalid("the owner of a repository cannot be its collaborator [name: %s]", u.Name)
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		now := db.Now()
		res, err := s.db.Exec(ctx, "UPDATE collaboration SET mode = ?, updated_unix = ? WHERE repo_id = ? AND user_id = ?", mode, now, r.ID, u.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		// MySQL reports 0 affected rows when the mode did not change.
		exists, err := s.db.Exists(ctx, "SELECT 1 FROM collaboration WHERE repo_id = ? AND user_id = ?", r.ID, u.ID)
		if err != nil || exists {
			return err
		}
		_, err = s.db.Insert(ctx, "INSERT INTO collaboration (repo_id, user_id, mode, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?)",
			r.ID, u.ID, mode, now, now)
		if db.IsUniqueViolation(err) {
			return nil
		}
		return err
	})
}

// RemoveCollaborator takes u's collaboration on r away. A user who can no
// longer see a private repository stops watching it.
func (s *Service) RemoveCollaborator(ctx context.Context, r *Repository, u *user.User) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "DELETE FROM collaboration WHERE repo_id = ? AND user_id = ?", r.ID, u.ID); err != nil {
			return err
		}
		if r.IsPrivate {
			return s.setWatch(ctx, u.ID, r.ID, false)
		}
		return nil
	})
}

// IsCollaborator reports whether uid collaborates on repository repoID.
func (s *Service) IsCollaborator(ctx context.Context, repoID, uid int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM collaboration WHERE repo_id = ? AND user_id = ?", repoID, uid)
}

// ListCollaborators returns one page of the collaborators of repository
// repoID that match cond (a condition on users alias "u", such as the
// caller's visibility condition), by name, and their total number: two
// queries.
func (s *Service) ListCollaborators(ctx context.Context, repoID int64, cond string, condArgs []any, limit, offset int) ([]*user.User, int64, error) {
	args := append([]any{repoID}, condArgs...)
	where := "JOIN collaboration c ON c.user_id = u.id WHERE c.repo_id = ? AND " + cond
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM users u "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.users.Store.List(ctx, where+" ORDER BY u.lower_name"+db.LimitOffset(limit, offset), args...)
	return list, total, err
}
