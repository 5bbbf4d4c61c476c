package access

import (
	"context"
	"encoding/json"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// RepoPerm is what a caller may do in one repository, per unit.
type RepoPerm struct {
	// Mode is the caller's overall level: owner or admin for those who manage
	// the repository, otherwise the highest unit level.
	Mode  Mode
	Units map[string]Mode
}

// UnitMode is the caller's level on unit (none when the unit is disabled).
func (p RepoPerm) UnitMode(unit string) Mode { return p.Units[unit] }

// CanRead reports read access to unit.
func (p RepoPerm) CanRead(unit string) bool { return p.Units[unit] >= ModeRead }

// CanWrite reports write access to unit.
func (p RepoPerm) CanWrite(unit string) bool { return p.Units[unit] >= ModeWrite }

// IsAdmin reports whether the caller administers the repository.
func (p RepoPerm) IsAdmin() bool { return p.Mode >= ModeAdmin }

// IsOwner reports owner-level access (the owner, an org owner, a site admin).
func (p RepoPerm) IsOwner() bool { return p.Mode >= ModeOwner }

// HasAccess reports whether the caller can see the repository at all.
func (p RepoPerm) HasAccess() bool {
	if p.Mode >= ModeRead {
		return true
	}
	for _, m := range p.Units {
		if m >= ModeRead {
			return true
		}
	}
	return false
}

func uniform(r *repo.Repository, m Mode) RepoPerm {
	p := RepoPerm{Mode: m, Units: map[string]Mode{}}
	for u, on := range r.Units {
		if on {
			p.Units[u] = m
		}
	}
	return p
}

// capUnit lowers unit to at most max (archived repositories, mirrored code).
func (p RepoPerm) capUnit(unit string, max Mode) {
	if p.Units[unit] > max {
		p.Units[unit] = max
	}
}

// RepoPermission computes doer's access to r, owned by owner. It takes
// into account site admin, ownership, organization teams (units and
// includes-all), collaborators, repository and owner visibility and the
// restricted flag. Archived repositories are read-only for everyone; mirrors
// are read-only for code.
func (c *Checker) RepoPermission(ctx context.Context, doer *user.User, r *repo.Repository, owner *user.User) (RepoPerm, error) {
	p, err := c.repoPermission(ctx, doer, r, owner)
	if err != nil {
		return p, err
	}
	if r.IsArchived {
		for u := range p.Units {
			p.capUnit(u, ModeRead)
		}
	}
	if r.IsMirror {
		p.capUnit(repo.UnitCode, ModeRead)
	}
	return p, nil
}

func (c *Checker) repoPermission(ctx context.Context, doer *user.User, r *repo.Repository, owner *user.User) (RepoPerm, error) {
	if doer != nil && (doer.IsAdmin || doer.ID == r.OwnerID) {
		return uniform(r, ModeOwner), nil
	}
	base := ModeNone
	if !r.IsPrivate && (doer == nil || !doer.IsRestricted) {
		visible, err := c.CanSeeOwner(ctx, doer, owner)
		if err != nil {
			return RepoPerm{}, err
		}
		if visible {
			base = ModeRead
		}
	}
	if doer == nil {
		return uniform(r, base), nil
	}
	var collab int
	err := c.db.QueryRow(ctx, "SELECT COALESCE(MAX(mode), 0) FROM collaboration WHERE repo_id = ? AND user_id = ?", r.ID, doer.ID).Scan(&collab)
	if err != nil {
		return RepoPerm{}, err
	}
	var grants []teamGrant
	if owner.IsOrganization() {
		rows, err := c.db.Query(ctx, `SELECT t.authorize, COALESCE(t.units, '') FROM team t JOIN team_user tu ON tu.team_id = t.id
			WHERE tu.uid = ? AND t.org_id = ? AND (t.includes_all_repositories = ? OR t.id IN (SELECT tr.team_id FROM team_repo tr WHERE tr.repo_id = ?))`,
			doer.ID, owner.ID, true, r.ID)
		if err != nil {
			return RepoPerm{}, err
		}
		defer rows.Close()
		for rows.Next() {
			var g teamGrant
			var units string
			if err := rows.Scan(&g.authorize, &units); err != nil {
				return RepoPerm{}, err
			}
			g.units = decodeTeamUnits(units)
			grants = append(grants, g)
		}
		if err := rows.Err(); err != nil {
			return RepoPerm{}, err
		}
	}
	return combine(r, base, Mode(collab), grants), nil
}

// teamGrant is what one team of the caller gives on a repository.
type teamGrant struct {
	authorize Mode
	units     map[string]Mode
}

// combine raises the base level of every enabled unit by the caller's
// collaboration and team grants.
func combine(r *repo.Repository, base, collab Mode, grants []teamGrant) RepoPerm {
	p := uniform(r, base)
	raise := func(unit string, m Mode) {
		if r.Units[unit] && m > p.Units[unit] {
			p.Units[unit] = m
		}
	}
	for u := range r.Units {
		raise(u, collab)
	}
	if collab > p.Mode {
		p.Mode = collab
	}
	for _, g := range grants {
		if g.authorize == ModeOwner {
			return uniform(r, ModeOwner)
		}
		if g.authorize > p.Mode {
			p.Mode = g.authorize
		}
		for unit, m := range g.units {
			raise(unit, m)
		}
	}
	if p.Mode < ModeAdmin {
		p.Mode = ModeNone
		for _, m := range p.Units {
			if m > p.Mode {
				p.Mode = m
			}
		}
	}
	return p
}

// RepoPermissions computes doer's access to many repositories with a fixed
// number of queries. The repositories must already be filtered with RepoCond,
// so a public one is readable by the caller.
func (c *Checker) RepoPermissions(ctx context.Context, doer *user.User, repos []*repo.Repository, owners map[int64]*user.User) (map[int64]RepoPerm, error) {
	out := make(map[int64]RepoPerm, len(repos))
	if len(repos) == 0 {
		return out, nil
	}
	finish := func(r *repo.Repository, p RepoPerm) {
		if r.IsArchived {
			for u := range p.Units {
				p.capUnit(u, ModeRead)
			}
		}
		if r.IsMirror {
			p.capUnit(repo.UnitCode, ModeRead)
		}
		out[r.ID] = p
	}
	if doer == nil || doer.IsAdmin {
		for _, r := range repos {
			switch {
			case doer != nil:
				finish(r, uniform(r, ModeOwner))
			case r.IsPrivate:
				finish(r, uniform(r, ModeNone))
			default:
				finish(r, uniform(r, ModeRead))
			}
		}
		return out, nil
	}
	ids := make([]any, 0, len(repos))
	orgSet := map[int64]bool{}
	for _, r := range repos {
		ids = append(ids, r.ID)
		if o := owners[r.OwnerID]; o != nil && o.IsOrganization() {
			orgSet[o.ID] = true
		}
	}
	collabs := map[int64]Mode{}
	rows, err := c.db.Query(ctx, "SELECT repo_id, mode FROM collaboration WHERE user_id = ? AND repo_id IN "+db.In(len(ids)), append([]any{doer.ID}, ids...)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var m int
		if err := rows.Scan(&id, &m); err != nil {
			rows.Close()
			return nil, err
		}
		collabs[id] = Mode(m)
	}
	rows.Close()
	type team struct {
		id, orgID int64
		all       bool
		grant     teamGrant
	}
	var teams []team
	teamRepos := map[int64]map[int64]bool{} // team id -> repo ids
	if len(orgSet) > 0 {
		orgs := make([]any, 0, len(orgSet))
		for id := range orgSet {
			orgs = append(orgs, id)
		}
		rows, err := c.db.Query(ctx, `SELECT t.id, t.org_id, t.includes_all_repositories, t.authorize, COALESCE(t.units, '')
			FROM team t JOIN team_user tu ON tu.team_id = t.id WHERE tu.uid = ? AND t.org_id IN `+db.In(len(orgs)), append([]any{doer.ID}, orgs...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var t team
			var units string
			if err := rows.Scan(&t.id, &t.orgID, &t.all, &t.grant.authorize, &units); err != nil {
				rows.Close()
				return nil, err
			}
			t.grant.units = decodeTeamUnits(units)
			teams = append(teams, t)
		}
		rows.Close()
		if len(teams) > 0 {
			rows, err := c.db.Query(ctx, `SELECT tr.team_id, tr.repo_id FROM team_repo tr JOIN team_user tu ON tu.team_id = tr.team_id
				WHERE tu.uid = ? AND tr.repo_id IN `+db.In(len(ids)), append([]any{doer.ID}, ids...)...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var tid, rid int64
				if err := rows.Scan(&tid, &rid); err != nil {
					rows.Close()
					return nil, err
				}
				if teamRepos[tid] == nil {
					teamRepos[tid] = map[int64]bool{}
				}
				teamRepos[tid][rid] = true
			}
			rows.Close()
		}
	}
	for _, r := range repos {
		if r.OwnerID == doer.ID {
			finish(r, uniform(r, ModeOwner))
			continue
		}
		base := ModeNone
		if !r.IsPrivate && !doer.IsRestricted {
			base = ModeRead
		}
		var grants []teamGrant
		for _, t := range teams {
			if t.orgID == r.OwnerID && (t.all || teamRepos[t.id][r.ID]) {
				grants = append(grants, t.grant)
			}
		}
		finish(r, combine(r, base, collabs[r.ID], grants))
	}
	return out, nil
}

// TeamUnitMode is the access a team, given its authorize level and its units
// column, gives to unit in its repositories.
func TeamUnitMode(authorize Mode, units, unit string) Mode {
	if authorize == ModeOwner {
		return ModeOwner
	}
	return decodeTeamUnits(units)[unit]
}

// decodeTeamUnits reads the team.units column: a JSON object of unit key to
// access name ("read", "write", ...).
func decodeTeamUnits(s string) map[string]Mode {
	out := map[string]Mode{}
	var raw map[string]string
	if json.Unmarshal([]byte(s), &raw) != nil {
		return out
	}
	for k, v := range raw {
		if m, ok := ParseMode(v); ok {
			out[k] = m
		}
	}
	return out
}

// RepoCond returns a SQL condition on repository alias "r" joined with owner
// alias "o" keeping only repositories doer may see.
func RepoCond(doer *user.User) (string, []any) {
	switch {
	case doer == nil:
		return "(r.is_private = ? AND o.visibility = 0)", []any{false}
	case doer.IsAdmin:
		return "1 = 1", nil
	}
	explicit := `r.owner_id = ?
		OR r.id IN (SELECT c.repo_id FROM collaboration c WHERE c.user_id = ?)
		OR r.id IN (SELECT tr.repo_id FROM team_repo tr JOIN team_user tu ON tu.team_id = tr.team_id WHERE tu.uid = ?)
		OR r.owner_id IN (SELECT t.org_id FROM team t JOIN team_user tu ON tu.team_id = t.id WHERE tu.uid = ? AND (t.includes_all_repositories = ? OR t.authorize = 4))`
	args := []any{doer.ID, doer.ID, doer.ID, doer.ID, true}
	if doer.IsRestricted {
		return "(" + explicit + ")", args
	}
	return "((r.is_private = ? AND (o.visibility IN (0, 1) OR o.id IN (SELECT ou.org_id FROM org_user ou WHERE ou.uid = ?))) OR " + explicit + ")",
		append([]any{false, doer.ID}, args...)
}
