package org

import (
	"context"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// AddTeamMember puts the individual user uid in team t, and in t's
// organization if not yet a member. Adding a member again does nothing.
func (s *Service) AddTeamMember(ctx context.Context, t *Team, uid int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		ok, err := s.db.Exists(ctx, "SELECT 1 FROM users WHERE id = ? AND type = ?", uid, int(user.TypeIndividual))
		if err != nil {
			return err
		}
		if !ok {
			return errs.NotFound("user does not exist [uid: %d]", uid)
		}
		return s.addTeamMember(ctx, t, uid)
	})
}

// addTeamMember inserts the team and organization membership rows that are
// missing. It runs inside a transaction.
func (s *Service) addTeamMember(ctx context.Context, t *Team, uid int64) error {
	in, err := s.IsTeamMember(ctx, t.ID, uid)
	if err != nil || in {
		return err
	}
	if _, err := s.db.Insert(ctx, "INSERT INTO team_user (org_id, team_id, uid) VALUES (?, ?, ?)", t.OrgID, t.ID, uid); err != nil {
		return err
	}
	member, err := s.IsMember(ctx, t.OrgID, uid)
	if err != nil || member {
		return err
	}
	_, err = s.db.Insert(ctx, "INSERT INTO org_user (uid, org_id, is_public) VALUES (?, ?, ?)", uid, t.OrgID, false)
	return err
}

// RemoveTeamMember takes uid out of team t; when it was uid's last team in the
// organization, uid also stops being a member of it. Removing a non-member does
// nothing; removing the last member of the Owners team is refused.
func (s *Service) RemoveTeamMember(ctx context.Context, t *Team, uid int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		in, err := s.IsTeamMember(ctx, t.ID, uid)
		if err != nil || !in {
			return err
		}
		if t.IsOwnerTeam() {
			if err := s.checkNotLastOwner(ctx, t.OrgID, uid); err != nil {
				return err
			}
		}
		if _, err := s.db.Exec(ctx, "DELETE FROM team_user WHERE team_id = ? AND uid = ?", t.ID, uid); err != nil {
			return err
		}
		return s.dropTeamlessMembers(ctx, t.OrgID, []int64{uid})
	})
}

// IsTeamMember reports whether uid is in team teamID.
func (s *Service) IsTeamMember(ctx context.Context, teamID, uid int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM team_user WHERE team_id = ? AND uid = ?", teamID, uid)
}

// ListTeamMembers lists the members of t alphabetically with the total count.
// limit <= 0 means no limit.
func (s *Service) ListTeamMembers(ctx context.Context, t *Team, limit, offset int) ([]*user.User, int64, error) {
	const tail = "JOIN team_user tm ON tm.uid = u.id WHERE tm.team_id = ?"
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM users u "+tail, t.ID)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.users.Store.List(ctx, tail+" ORDER BY u.lower_name, u.id"+page(limit, offset), t.ID)
	return list, total, err
}

// AddTeamRepo gives team t access to repository repoID (which the caller has
// checked belongs to t's organization). Adding it again does nothing.
func (s *Service) AddTeamRepo(ctx context.Context, t *Team, repoID int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		has, err := s.HasTeamRepo(ctx, t.ID, repoID)
		if err != nil || has {
			return err
		}
		_, err = s.db.Insert(ctx, "INSERT INTO team_repo (org_id, team_id, repo_id) VALUES (?, ?, ?)", t.OrgID, t.ID, repoID)
		return err
	})
}

// RemoveTeamRepo takes repository repoID away from team t; removing one the
// team does not have does nothing.
func (s *Service) RemoveTeamRepo(ctx context.Context, t *Team, repoID int64) error {
	_, err := s.db.Exec(ctx, "DELETE FROM team_repo WHERE team_id = ? AND repo_id = ?", t.ID, repoID)
	return err
}

// RemoveRepoFromTeams takes repository repoID away from every team (for
// repository deletion or transfer).
func (s *Service) RemoveRepoFromTeams(ctx context.Context, repoID int64) error {
	_, err := s.db.Exec(ctx, "DELETE FROM team_repo WHERE repo_id = ?", repoID)
	return err
}

// TeamHasRepo reports whether team t reaches repository repoID of its
// organization: given to it, or through includes_all_repositories.
func (s *Service) TeamHasRepo(ctx context.Context, t *Team, repoID int64) (bool, error) {
	if t.IncludesAllRepositories {
		return true, nil
	}
	return s.HasTeamRepo(ctx, t.ID, repoID)
}

// ListRepoTeams lists the teams of organization orgID that reach repository
// repoID: the Owners team first, then the others alphabetically (as Gitea).
func (s *Service) ListRepoTeams(ctx context.Context, orgID, repoID int64) ([]*Team, error) {
	return s.listTeams(ctx, "WHERE t.org_id = ? AND (t.includes_all_repositories = ? OR t.id IN (SELECT tr.team_id FROM team_repo tr WHERE tr.repo_id = ?))"+
		" ORDER BY CASE WHEN t.authorize = ? THEN 0 ELSE 1 END, t.lower_name, t.id", orgID, true, repoID, int(access.ModeOwner))
}

// HasTeamRepo reports whether team teamID was given repository repoID.
func (s *Service) HasTeamRepo(ctx context.Context, teamID, repoID int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM team_repo WHERE team_id = ? AND repo_id = ?", teamID, repoID)
}

// ListTeamRepoIDs lists the ids of the repositories given to team teamID, in
// id order, with the total count. limit <= 0 means no limit.
func (s *Service) ListTeamRepoIDs(ctx context.Context, teamID int64, limit, offset int) ([]int64, int64, error) {
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM team_repo WHERE team_id = ?", teamID)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.Query(ctx, "SELECT repo_id FROM team_repo WHERE team_id = ? ORDER BY repo_id"+page(limit, offset), teamID)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, total, rows.Err()
}
