package org

import (
	"context"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
)

// MemberRole is what a member list shows of one membership: whether it is
// public and whether the member owns the organization.
type MemberRole struct {
	Public bool
	Owner  bool
}

// MemberRoles returns, for those of uids who belong to organization orgID,
// whether their membership is public and whether they are in a team with
// owner access: one query. Non-members are left out.
func (s *Service) MemberRoles(ctx context.Context, orgID int64, uids []int64) (map[int64]MemberRole, error) {
	out := map[int64]MemberRole{}
	if len(uids) == 0 {
		return out, nil
	}
	args := append([]any{int(access.ModeOwner), orgID}, db.Int64Args(uids)...)
	rows, err := s.db.Query(ctx, `SELECT om.uid, om.is_public,
		CASE WHEN EXISTS (SELECT 1 FROM team_user tu JOIN team t ON t.id = tu.team_id
			WHERE tu.org_id = om.org_id AND tu.uid = om.uid AND t.authorize = ?) THEN 1 ELSE 0 END
		FROM org_user om WHERE om.org_id = ? AND om.uid IN `+db.In(len(uids)), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var uid int64
		var public bool
		var owner int
		if err := rows.Scan(&uid, &public, &owner); err != nil {
			return nil, err
		}
		out[uid] = MemberRole{Public: public, Owner: owner == 1}
	}
	return out, rows.Err()
}
