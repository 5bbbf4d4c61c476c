package org

import (
	"context"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// ListMembers lists the members of org alphabetically with the total count;
// publicOnly keeps those whose membership is public. limit <= 0 means no limit.
func (s *Service) ListMembers(ctx context.Context, org *user.User, publicOnly bool, limit, offset int) ([]*user.User, int64, error) {
	tail := "JOIN org_user om ON om.uid = u.id WHERE om.org_id = ?"
	args := []any{org.ID}
	if publicOnly {
		tail += " AND om.is_public = ?"
		args = append(args, true)
	}
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM users u "+tail, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.users.Store.List(ctx, tail+" ORDER BY u.lower_name, u.id"+page(limit, offset), args...)
	return list, total, err
}

// IsMember reports whether uid belongs to organization orgID.
func (s *Service) IsMember(ctx context.Context, orgID, uid int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM org_user WHERE org_id = ? AND uid = ?", orgID, uid)
}

// IsPublicMember reports whether uid belongs to organization orgID and shows it.
func (s *Service) IsPublicMember(ctx context.Context, orgID, uid int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM org_user WHERE org_id = ? AND uid = ? AND is_public = ?", orgID, uid, true)
}

// SetPublicMembership shows or hides uid's membership of org. uid must be a member.
func (s *Service) SetPublicMembership(ctx context.Context, org *user.User, uid int64, public bool) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		ok, err := s.IsMember(ctx, org.ID, uid)
		if err != nil {
			return err
		}
		if !ok {
			return errs.NotFound("user is not a member of the organization [uid: %d, org_id: %d]", uid, org.ID)
		}
		_, err = s.db.Exec(ctx, "UPDATE org_user SET is_public = ? WHERE org_id = ? AND uid = ?", public, org.ID, uid)
		return err
	})
}

// RemoveMember removes uid from org and from every team of org. Removing a
// non-member does nothing; removing the last member of the Owners team is refused.
func (s *Service) RemoveMember(ctx context.Context, org *user.User, uid int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.checkNotLastOwner(ctx, org.ID, uid); err != nil {
			return err
		}
		if _, err := s.db.Exec(ctx, "DELETE FROM team_user WHERE org_id = ? AND uid = ?", org.ID, uid); err != nil {
			return err
		}
		_, err := s.db.Exec(ctx, "DELETE FROM org_user WHERE org_id = ? AND uid = ?", org.ID, uid)
		return err
	})
}

// checkNotLastOwner refuses when uid is in an owner team of orgID that has no
// other member.
func (s *Service) checkNotLastOwner(ctx context.Context, orgID, uid int64) error {
	last, err := s.db.Exists(ctx, `SELECT 1 FROM team t JOIN team_user tu ON tu.team_id = t.id
		WHERE t.org_id = ? AND t.authorize = ? AND tu.uid = ?
		AND NOT EXISTS (SELECT 1 FROM team_user o WHERE o.team_id = t.id AND o.uid <> ?)`,
		orgID, int(access.ModeOwner), uid, uid)
	if err != nil {
		return err
	}
	if last {
		return errs.Invalid("user is the last member of owner team [uid: %d]: add another owner first", uid)
	}
	return nil
}
