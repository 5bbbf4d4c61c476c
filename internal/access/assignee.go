package access

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// CheckAssignable refuses to assign u to an issue or pull request of r
// (owned by owner) unless u may write unit (repo.UnitIssues or
// repo.UnitPulls), as Gitea requires. A user viewer may not see is answered
// as missing, like a name that does not exist. Refusals are
// errs.InvalidField("assignees").
func (c *Checker) CheckAssignable(ctx context.Context, viewer, u *user.User, r *repo.Repository, owner *user.User, unit string) error {
	perm, err := c.RepoPermission(ctx, u, r, owner)
	if err != nil {
		return err
	}
	if perm.CanWrite(unit) {
		return nil
	}
	visible, err := c.CanSeeOwner(ctx, viewer, u)
	if err != nil {
		return err
	}
	if !visible {
		return errs.InvalidField("assignees", "user %q does not exist", u.Name)
	}
	return errs.InvalidField("assignees", "user %q cannot be assigned: no write access to this repository", u.Name)
}
