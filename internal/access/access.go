// Package access is Cairn's one permission function: given a caller (or none)
// and a user, organization or repository, what may the caller see and do.
// Every route asks it; listings use its SQL conditions so nothing private leaks.
package access

import (
	"context"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/user"
)

// Mode is an access level, ordered.
type Mode int

// The access modes.
const (
	ModeNone  Mode = 0
	ModeRead  Mode = 1
	ModeWrite Mode = 2
	ModeAdmin Mode = 3
	ModeOwner Mode = 4
)

func (m Mode) String() string {
	switch m {
	case ModeRead:
		return "read"
	case ModeWrite:
		return "write"
	case ModeAdmin:
		return "admin"
	case ModeOwner:
		return "owner"
	default:
		return "none"
	}
}

// ParseMode reads "none", "read", "write", "admin" or "owner".
func ParseMode(s string) (Mode, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none":
		return ModeNone, true
	case "read":
		return ModeRead, true
	case "write":
		return ModeWrite, true
	case "admin":
		return ModeAdmin, true
	case "owner":
		return ModeOwner, true
	}
	return ModeNone, false
}

// Checker answers permission questions against the database.
type Checker struct {
	db *db.DB
}

// NewChecker returns the permission checker.
func NewChecker(d *db.DB) *Checker { return &Checker{db: d} }

// CanSeeUser reports whether doer (nil when signed out) may see the individual user u.
func (c *Checker) CanSeeUser(ctx context.Context, doer, u *user.User) (bool, error) {
	if u.IsOrganization() {
		return c.CanSeeOrg(ctx, doer, u)
	}
	if doer != nil && (doer.IsAdmin || doer.ID == u.ID) {
		return true, nil
	}
	switch u.Visibility {
	case user.VisibilityPublic:
		return true, nil
	case user.VisibilityLimited:
		return doer != nil && !doer.IsRestricted, nil
	}
	if doer == nil || doer.IsRestricted {
		return false, nil
	}
	// A private user is seen by those they follow and those they share an organization with.
	return c.db.Exists(ctx, `SELECT 1 FROM follow WHERE user_id = ? AND follow_id = ?
		UNION SELECT 1 FROM org_user a JOIN org_user b ON a.org_id = b.org_id WHERE a.uid = ? AND b.uid = ?`,
		u.ID, doer.ID, u.ID, doer.ID)
}

// UserCond returns a SQL condition on users alias "u" (individuals) that keeps
// only those doer may see.
func UserCond(doer *user.User) (string, []any) {
	switch {
	case doer == nil:
		return "u.visibility = 0", nil
	case doer.IsAdmin:
		return "1 = 1", nil
	case doer.IsRestricted:
		return "(u.visibility = 0 OR u.id = ?)", []any{doer.ID}
	}
	return `(u.visibility IN (0, 1) OR u.id = ?
		OR u.id IN (SELECT f.user_id FROM follow f WHERE f.follow_id = ?)
		OR u.id IN (SELECT a.uid FROM org_user a JOIN org_user b ON a.org_id = b.org_id WHERE b.uid = ?))`,
		[]any{doer.ID, doer.ID, doer.ID}
}

// CanSeeOrg reports whether doer may see organization org.
func (c *Checker) CanSeeOrg(ctx context.Context, doer, org *user.User) (bool, error) {
	if doer != nil && doer.IsAdmin {
		return true, nil
	}
	if doer == nil {
		return org.Visibility == user.VisibilityPublic, nil
	}
	if org.Visibility == user.VisibilityPrivate || doer.IsRestricted {
		return c.IsOrgMember(ctx, org.ID, doer.ID)
	}
	return true, nil
}

// OrgCond returns a SQL condition on users alias "u" (organizations) that keeps
// only those doer may see.
func OrgCond(doer *user.User) (string, []any) {
	switch {
	case doer == nil:
		return "u.visibility = 0", nil
	case doer.IsAdmin:
		return "1 = 1", nil
	case doer.IsRestricted:
		return "u.id IN (SELECT ou.org_id FROM org_user ou WHERE ou.uid = ?)", []any{doer.ID}
	}
	return "(u.visibility IN (0, 1) OR u.id IN (SELECT ou.org_id FROM org_user ou WHERE ou.uid = ?))", []any{doer.ID}
}

// CanSeeOwner reports whether doer may see u, a user or an organization.
func (c *Checker) CanSeeOwner(ctx context.Context, doer, u *user.User) (bool, error) {
	if u.IsOrganization() {
		return c.CanSeeOrg(ctx, doer, u)
	}
	return c.CanSeeUser(ctx, doer, u)
}

// IsOrgMember reports whether uid belongs to organization orgID.
func (c *Checker) IsOrgMember(ctx context.Context, orgID, uid int64) (bool, error) {
	return c.db.Exists(ctx, "SELECT 1 FROM org_user WHERE org_id = ? AND uid = ?", orgID, uid)
}

// IsOrgOwner reports whether uid is in a team of orgID with owner access.
func (c *Checker) IsOrgOwner(ctx context.Context, orgID, uid int64) (bool, error) {
	return c.db.Exists(ctx, `SELECT 1 FROM team_user tu JOIN team t ON t.id = tu.team_id
		WHERE tu.org_id = ? AND tu.uid = ? AND t.authorize = ?`, orgID, uid, int(ModeOwner))
}

// OrgRole is what a caller is in an organization.
type OrgRole struct {
	Member bool
	Owner  bool
	// Admin is membership of a team with admin access (or owner).
	Admin bool
	// CanCreateRepo is membership of a team allowed to create repositories (or owner).
	CanCreateRepo bool
	// Write is membership of a team with at least write access.
	Write bool
}

// RoleInOrg computes doer's role in org in one query. Site admins are owners.
func (c *Checker) RoleInOrg(ctx context.Context, doer, org *user.User) (OrgRole, error) {
	var r OrgRole
	if doer == nil {
		return r, nil
	}
	var member, maxAuth, canCreate int
	err := c.db.QueryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM org_user WHERE org_id = ? AND uid = ?),
		COALESCE((SELECT MAX(t.authorize) FROM team t JOIN team_user tu ON tu.team_id = t.id WHERE tu.uid = ? AND t.org_id = ?), 0),
		(SELECT COUNT(*) FROM team t JOIN team_user tu ON tu.team_id = t.id WHERE tu.uid = ? AND t.org_id = ? AND t.can_create_org_repo = ?)`,
		org.ID, doer.ID, doer.ID, org.ID, doer.ID, org.ID, true).Scan(&member, &maxAuth, &canCreate)
	if err != nil {
		return r, err
	}
	r.Member = member > 0
	r.Owner = Mode(maxAuth) == ModeOwner
	r.Admin = Mode(maxAuth) >= ModeAdmin
	r.Write = Mode(maxAuth) >= ModeWrite
	r.CanCreateRepo = canCreate > 0 || r.Owner
	if doer.IsAdmin {
		r = OrgRole{Member: r.Member, Owner: true, Admin: true, CanCreateRepo: true, Write: true}
	}
	return r, nil
}
