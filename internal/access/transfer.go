package access

import (
	"context"

	"github.com/cairn-forge/cairn/internal/user"
)

// TransfersAtOnce reports whether a repository transfer by doer to the new
// owner to moves it at once instead of waiting for the recipient to accept:
// doer is a site administrator, the recipient, or may create repositories
// in the recipient organization.
func (c *Checker) TransfersAtOnce(ctx context.Context, doer, to *user.User) (bool, error) {
	if doer.IsAdmin || doer.ID == to.ID {
		return true, nil
	}
	if !to.IsOrganization() {
		return false, nil
	}
	role, err := c.RoleInOrg(ctx, doer, to)
	if err != nil {
		return false, err
	}
	return role.CanCreateRepo, nil
}
