package org

import (
	"context"
	"strings"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// UserDeleteHook returns the participant in user deletion that guards and
// removes organization memberships; cmd/cairn registers it with
// user.Service.AddDeleteHook.
func (s *Service) UserDeleteHook() user.DeleteHook { return deleteHook{s} }

type deleteHook struct{ s *Service }

var _ user.DeleteHook = deleteHook{}

// CheckDelete refuses while u belongs to any organization.
func (h deleteHook) CheckDelete(ctx context.Context, u *user.User) error {
	n, err := h.s.db.Count(ctx, "SELECT COUNT(*) FROM org_user WHERE uid = ?", u.ID)
	if err != nil {
		return err
	}
	if n > 0 {
		return errs.Invalid("user still has membership of organizations [uid: %d, count: %d]", u.ID, n)
	}
	return nil
}

// RepoPurger deletes every repository of an owner; the repository service
// implements it. With it, purging a user also deletes the organizations the
// user alone owns, with their repositories, as Gitea does.
type RepoPurger interface {
	PurgeOwnedRepos(ctx context.Context, ownerID int64) error
}

// Purge removes u from every team and organization. Organizations whose only
// owner is u are deleted with their repositories when the repository service
// can purge them; otherwise it refuses, changing nothing.
func (h deleteHook) Purge(ctx context.Context, u *user.User) error {
	s := h.s
	orgs, err := s.soleOwnedOrgs(ctx, u.ID)
	if err != nil {
		return err
	}
	if len(orgs) > 0 {
		purger, ok := s.repos.(RepoPurger)
		if !ok {
			names := make([]string, len(orgs))
			for i, o := range orgs {
				names[i] = o.Name
			}
			return errs.Invalid("user %s is the last owner of organization %s [uid: %d]: add another owner or delete the organization first",
				u.Name, strings.Join(names, ", "), u.ID)
		}
		for _, o := range orgs {
			if err := purger.PurgeOwnedRepos(ctx, o.ID); err != nil {
				return err
			}
			if err := s.Delete(ctx, o); err != nil {
				return err
			}
		}
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, q := range []string{
			"DELETE FROM team_user WHERE uid = ?",
			"DELETE FROM org_user WHERE uid = ?",
		} {
			if _, err := s.db.Exec(ctx, q, u.ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// soleOwnedOrgs lists the organizations whose Owners team has uid as its only member.
func (s *Service) soleOwnedOrgs(ctx context.Context, uid int64) ([]*user.User, error) {
	return s.users.Store.List(ctx, `WHERE u.type = 1 AND u.id IN (SELECT t.org_id FROM team t
		JOIN team_user tu ON tu.team_id = t.id
		WHERE tu.uid = ? AND t.authorize = ?
		AND NOT EXISTS (SELECT 1 FROM team_user x WHERE x.team_id = t.id AND x.uid <> ?)) ORDER BY u.lower_name`,
		uid, int(access.ModeOwner), uid)
}
