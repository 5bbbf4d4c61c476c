package org

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
)

// ChangeRepoTeam gives repository repoID of t's organization to team t
// (add) or takes it away, refusing, as Gitea, to add a team that already
// reaches the repository or to remove one that does not. The caller checks
// that the doer may change the repository's teams.
func (s *Service) ChangeRepoTeam(ctx context.Context, t *Team, repoID int64, add bool) error {
	has, err := s.TeamHasRepo(ctx, t, repoID)
	switch {
	case err != nil:
		return err
	case add && has:
		return errs.Invalid("team '%s' is already added to repo", t.Name)
	case !add && !has:
		return errs.Invalid("team '%s' was not added to repo", t.Name)
	case add:
		return s.AddTeamRepo(ctx, t, repoID)
	}
	return s.RemoveTeamRepo(ctx, t, repoID)
}
