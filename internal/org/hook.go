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

// Purge removes u from every team and organization. It refuses, changing
// nothing, when u is the last member of an organization's Owners team.
func (h deleteHook) Purge(ctx context.Context, u *user.User) error {
	s := h.s
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		rows, err := s.db.Query(ctx, `SELECT o.name FROM team t
			JOIN team_user tu ON tu.team_id = t.id
			JOIN users o ON o.id = t.org_id
			WHERE tu.uid = ? AND t.authorize = ?
			AND NOT EXISTS (SELECT 1 FROM team_user x WHERE x.team_id = t.id AND x.uid <> ?)
			ORDER BY o.lower_name`, u.ID, int(access.ModeOwner), u.ID)
		if err != nil {
			return err
		}
		var orgs []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return err
			}
			orgs = append(orgs, name)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(orgs) > 0 {
			return errs.Invalid("user %s is the last owner of organization %s [uid: %d]: add another owner or delete the organization first",
				u.Name, strings.Join(orgs, ", "), u.ID)
		}
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
