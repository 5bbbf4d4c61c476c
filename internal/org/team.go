package org

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// The repository units a team grants access to, by Gitea's unit keys.
const (
	UnitCode          = "repo.code"
	UnitIssues        = "repo.issues"
	UnitExternalIssue = "repo.ext_issues"
	UnitPulls         = "repo.pulls"
	UnitReleases      = "repo.releases"
	UnitWiki          = "repo.wiki"
	UnitExternalWiki  = "repo.ext_wiki"
	UnitProjects      = "repo.projects"
	UnitPackages      = "repo.packages"
	UnitActions       = "repo.actions"
)

// UnitKeys returns every unit key in Gitea's order (a new slice each call).
func UnitKeys() []string {
	return []string{UnitCode, UnitIssues, UnitExternalIssue, UnitPulls, UnitReleases,
		UnitWiki, UnitExternalWiki, UnitProjects, UnitPackages, UnitActions}
}

// IsUnitKey reports whether key names a repository unit.
func IsUnitKey(key string) bool { return slices.Contains(UnitKeys(), key) }

// isExternalUnit reports whether key is an external tracker or wiki: those
// only ever grant read access.
func isExternalUnit(key string) bool { return key == UnitExternalIssue || key == UnitExternalWiki }

// Team is a group of an organization's members with one access level to a set
// of the organization's repositories (or all of them), refined per unit.
type Team struct {
	ID          int64
	OrgID       int64
	Name        string
	LowerName   string
	Description string
	// Authorize is the team's access level: read, write, admin, or owner for
	// the Owners team.
	Authorize access.Mode
	// Units maps unit keys to the access the team has to that unit; missing
	// keys mean no access.
	Units                   map[string]access.Mode
	IncludesAllRepositories bool
	CanCreateOrgRepo        bool
	// NumMembers and NumRepos are counted when the team is loaded.
	NumMembers int
	NumRepos   int
	Created    time.Time
	Updated    time.Time
}

// IsOwnerTeam reports whether t is the organization's Owners team (the only
// team with owner access).
func (t *Team) IsOwnerTeam() bool { return t.Authorize == access.ModeOwner }

// UnitMode returns the team's access to unit key.
func (t *Team) UnitMode(key string) access.Mode { return t.Units[key] }

// UnitNames lists the keys of the units the team has any access to, in
// UnitKeys order (the deprecated "units" of Gitea's Team JSON).
func (t *Team) UnitNames() []string {
	var out []string
	for _, k := range UnitKeys() {
		if t.Units[k] > access.ModeNone {
			out = append(out, k)
		}
	}
	return out
}

// UnitsMap renders Units as unit key → access name ("none", "read", ...), for
// every unit the team has a row for (Gitea's "units_map").
func (t *Team) UnitsMap() map[string]string {
	out := make(map[string]string, len(t.Units))
	for k, m := range t.Units {
		out[k] = m.String()
	}
	return out
}

func allUnits(m access.Mode) map[string]access.Mode {
	out := make(map[string]access.Mode, 10)
	for _, k := range UnitKeys() {
		out[k] = m
		if isExternalUnit(k) && m > access.ModeRead && m < access.ModeOwner {
			out[k] = access.ModeRead
		}
	}
	return out
}

var teamNameChars = regexp.MustCompile(`^[0-9A-Za-z_.-]+$`)

func validateTeamName(name string) error {
	if strings.TrimSpace(name) == "" {
		return errs.InvalidField("name", "team name is required")
	}
	if utf8.RuneCountInString(name) > maxTeamNameLength {
		return errs.InvalidField("name", "team name is too long: at most %d characters", maxTeamNameLength)
	}
	if !teamNameChars.MatchString(name) {
		return errs.InvalidField("name", "team name %q is invalid: only letters, digits, dash ('-'), underscore ('_') and dot ('.') are allowed", name)
	}
	return nil
}

func validateTeamDescription(d string) error {
	if utf8.RuneCountInString(d) > maxDescriptionLength {
		return errs.InvalidField("description", "description is too long: at most %d characters", maxDescriptionLength)
	}
	return nil
}

// resolveAccess applies the rules that turn a requested permission, unit list
// and unit map into the team's access level and per-unit access:
//   - admin: every unit admin, except the external tracker and wiki, read;
//   - below admin with a units map: each known unit gets its mapped access (the
//     external ones at most read), and the team's level becomes the lowest
//     access above none among the non-external units;
//   - below admin with a unit list: each listed known unit gets the permission;
//   - otherwise the request is refused.
//
// Unknown unit keys are ignored, as are unknown access names (none).
func resolveAccess(perm access.Mode, units []string, unitsMap map[string]string) (access.Mode, map[string]access.Mode, error) {
	if perm > access.ModeAdmin || perm < access.ModeNone {
		return 0, nil, errs.InvalidField("permission", "permission %q is not allowed for a team: use read, write or admin", perm.String())
	}
	if perm == access.ModeAdmin {
		return access.ModeAdmin, allUnits(access.ModeAdmin), nil
	}
	if len(unitsMap) > 0 {
		m := make(map[string]access.Mode, len(unitsMap))
		for k, v := range unitsMap {
			if !IsUnitKey(k) {
				continue
			}
			mode, _ := access.ParseMode(v)
			if mode > access.ModeAdmin {
				return 0, nil, errs.InvalidField("units_map", "unit permission %q of %s is not allowed: use none, read, write or admin", v, k)
			}
			if isExternalUnit(k) {
				mode = min(mode, access.ModeRead)
			}
			m[k] = mode
		}
		if len(m) > 0 {
			level := minUnitAccess(m)
			if level == access.ModeAdmin {
				return access.ModeAdmin, allUnits(access.ModeAdmin), nil
			}
			return level, m, nil
		}
	}
	m := make(map[string]access.Mode, len(units))
	for _, k := range units {
		if !IsUnitKey(k) {
			continue
		}
		m[k] = perm
		if isExternalUnit(k) {
			m[k] = min(perm, access.ModeRead)
		}
	}
	if len(m) == 0 {
		return 0, nil, errs.InvalidField("units", "units permission should not be empty")
	}
	return perm, m, nil
}

// minUnitAccess is the lowest access above none among the non-external units
// of m, or none when there is no such unit.
func minUnitAccess(m map[string]access.Mode) access.Mode {
	level := access.ModeNone
	for k, mode := range m {
		if isExternalUnit(k) || mode == access.ModeNone {
			continue
		}
		if level == access.ModeNone || mode < level {
			level = mode
		}
	}
	return level
}

// CreateTeamOptions describes a new team. Permission is the requested level
// (the API parses Gitea's "read"/"write"/"admin"; anything else is none).
type CreateTeamOptions struct {
	Name                    string
	Description             string
	Permission              access.Mode
	Units                   []string
	UnitsMap                map[string]string
	IncludesAllRepositories bool
	CanCreateOrgRepo        bool
}

// CreateTeam adds a team to org following the unit rules of resolveAccess.
func (s *Service) CreateTeam(ctx context.Context, org *user.User, o CreateTeamOptions) (*Team, error) {
	if err := requireOrg(org); err != nil {
		return nil, err
	}
	if err := validateTeamName(o.Name); err != nil {
		return nil, err
	}
	if err := validateTeamDescription(o.Description); err != nil {
		return nil, err
	}
	perm, units, err := resolveAccess(o.Permission, o.Units, o.UnitsMap)
	if err != nil {
		return nil, err
	}
	t := &Team{
		OrgID:                   org.ID,
		Name:                    o.Name,
		Description:             o.Description,
		Authorize:               perm,
		Units:                   units,
		IncludesAllRepositories: o.IncludesAllRepositories,
		CanCreateOrgRepo:        o.CanCreateOrgRepo,
	}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.checkTeamNameFree(ctx, org.ID, t.Name, 0); err != nil {
			return err
		}
		return s.insertTeam(ctx, t)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (s *Service) checkTeamNameFree(ctx context.Context, orgID int64, name string, exceptID int64) error {
	taken, err := s.db.Exists(ctx, "SELECT 1 FROM team WHERE org_id = ? AND lower_name = ? AND id <> ?",
		orgID, strings.ToLower(name), exceptID)
	if err != nil {
		return err
	}
	if taken {
		return teamExists(orgID, name)
	}
	return nil
}

func teamExists(orgID int64, name string) error {
	return errs.AlreadyExists("team already exists [org_id: %d, name: %s]", orgID, name).WithStatus(422)
}

func encodeUnits(units map[string]access.Mode) (string, error) {
	m := make(map[string]string, len(units))
	for k, v := range units {
		m[k] = v.String()
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func decodeUnits(s string) (map[string]access.Mode, error) {
	out := map[string]access.Mode{}
	if s == "" {
		return out, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("team units %q: %w", s, err)
	}
	for k, v := range m {
		mode, _ := access.ParseMode(v)
		out[k] = mode
	}
	return out, nil
}

func (s *Service) insertTeam(ctx context.Context, t *Team) error {
	units, err := encodeUnits(t.Units)
	if err != nil {
		return err
	}
	now := time.Unix(db.Now(), 0)
	t.LowerName = strings.ToLower(t.Name)
	id, err := s.db.Insert(ctx, `INSERT INTO team (org_id, name, lower_name, description, authorize, units,
		includes_all_repositories, can_create_org_repo, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.OrgID, t.Name, t.LowerName, t.Description, int(t.Authorize), units,
		t.IncludesAllRepositories, t.CanCreateOrgRepo, now.Unix(), now.Unix())
	if db.IsUniqueViolation(err) {
		return teamExists(t.OrgID, t.Name)
	}
	if err != nil {
		return err
	}
	t.ID, t.Created, t.Updated = id, now, now
	return nil
}

// EditTeamOptions changes a team; nil (or empty) fields stay unchanged. For the
// Owners team, Permission, Units, UnitsMap and IncludesAllRepositories are
// ignored and CanCreateOrgRepo stays true.
type EditTeamOptions struct {
	// Name, when given and not empty, renames the team.
	Name                    *string
	Description             *string
	Permission              *access.Mode
	Units                   []string
	UnitsMap                map[string]string
	IncludesAllRepositories *bool
	CanCreateOrgRepo        *bool
}

// EditTeam applies o to t and returns the updated team; t itself is not modified.
// A new permission without units re-grants the units the team has at that level.
func (s *Service) EditTeam(ctx context.Context, t *Team, o EditTeamOptions) (*Team, error) {
	c := *t
	c.Units = make(map[string]access.Mode, len(t.Units))
	for k, v := range t.Units {
		c.Units[k] = v
	}
	rename := o.Name != nil && *o.Name != "" && *o.Name != t.Name
	if rename {
		if err := validateTeamName(*o.Name); err != nil {
			return nil, err
		}
		c.Name = *o.Name
		c.LowerName = strings.ToLower(c.Name)
	}
	if o.Description != nil {
		if err := validateTeamDescription(*o.Description); err != nil {
			return nil, err
		}
		c.Description = *o.Description
	}
	if c.IsOwnerTeam() {
		c.CanCreateOrgRepo = true
		c.IncludesAllRepositories = true
	} else {
		if o.IncludesAllRepositories != nil {
			c.IncludesAllRepositories = *o.IncludesAllRepositories
		}
		if o.CanCreateOrgRepo != nil {
			c.CanCreateOrgRepo = *o.CanCreateOrgRepo
		}
		if o.Permission != nil || len(o.Units) > 0 || len(o.UnitsMap) > 0 {
			perm := c.Authorize
			if o.Permission != nil {
				perm = *o.Permission
			}
			units := o.Units
			if len(units) == 0 && len(o.UnitsMap) == 0 {
				units = (&c).UnitNames()
			}
			level, m, err := resolveAccess(perm, units, o.UnitsMap)
			if err != nil {
				return nil, err
			}
			c.Authorize, c.Units = level, m
		}
	}
	units, err := encodeUnits(c.Units)
	if err != nil {
		return nil, err
	}
	c.Updated = time.Unix(db.Now(), 0)
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		if rename {
			if err := s.checkTeamNameFree(ctx, c.OrgID, c.Name, c.ID); err != nil {
				return err
			}
		}
		_, err := s.db.Exec(ctx, `UPDATE team SET name = ?, lower_name = ?, description = ?, authorize = ?, units = ?,
			includes_all_repositories = ?, can_create_org_repo = ?, updated_unix = ? WHERE id = ?`,
			c.Name, c.LowerName, c.Description, int(c.Authorize), units, c.IncludesAllRepositories,
			c.CanCreateOrgRepo, c.Updated.Unix(), c.ID)
		if db.IsUniqueViolation(err) {
			return teamExists(c.OrgID, c.Name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// DeleteTeam removes t with its members and repositories. Members left in no
// team of the organization stop being members of it. The Owners team cannot be deleted.
func (s *Service) DeleteTeam(ctx context.Context, t *Team) error {
	if t.IsOwnerTeam() {
		return errs.Invalid("the %s team of an organization cannot be deleted", t.Name)
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		members, err := s.teamMemberIDs(ctx, t.ID)
		if err != nil {
			return err
		}
		for _, q := range []string{
			"DELETE FROM team_repo WHERE team_id = ?",
			"DELETE FROM team_user WHERE team_id = ?",
			"DELETE FROM team WHERE id = ?",
		} {
			if _, err := s.db.Exec(ctx, q, t.ID); err != nil {
				return err
			}
		}
		return s.dropTeamlessMembers(ctx, t.OrgID, members)
	})
}

func (s *Service) teamMemberIDs(ctx context.Context, teamID int64) ([]int64, error) {
	rows, err := s.db.Query(ctx, "SELECT uid FROM team_user WHERE team_id = ?", teamID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// dropTeamlessMembers ends the organization membership of those of uids who
// are in no team of orgID any more.
func (s *Service) dropTeamlessMembers(ctx context.Context, orgID int64, uids []int64) error {
	if len(uids) == 0 {
		return nil
	}
	args := append([]any{orgID}, db.Int64Args(uids)...)
	args = append(args, orgID)
	_, err := s.db.Exec(ctx, "DELETE FROM org_user WHERE org_id = ? AND uid IN "+db.In(len(uids))+
		" AND uid NOT IN (SELECT tu.uid FROM team_user tu WHERE tu.org_id = ?)", args...)
	return err
}

// teamColumns is the select list scanTeam reads, for table alias "t".
const teamColumns = `t.id, t.org_id, t.name, t.lower_name, COALESCE(t.description, ''), t.authorize,
	COALESCE(t.units, ''), t.includes_all_repositories, t.can_create_org_repo, t.created_unix, t.updated_unix,
	(SELECT COUNT(*) FROM team_user cu WHERE cu.team_id = t.id),
	(SELECT COUNT(*) FROM team_repo cr WHERE cr.team_id = t.id)`

type scanner interface{ Scan(dest ...any) error }

func scanTeam(row scanner) (*Team, error) {
	t := &Team{}
	var authorize int
	var units string
	var created, updated int64
	if err := row.Scan(&t.ID, &t.OrgID, &t.Name, &t.LowerName, &t.Description, &authorize, &units,
		&t.IncludesAllRepositories, &t.CanCreateOrgRepo, &created, &updated, &t.NumMembers, &t.NumRepos); err != nil {
		return nil, err
	}
	t.Authorize = access.Mode(authorize)
	var err error
	if t.Units, err = decodeUnits(units); err != nil {
		return nil, err
	}
	t.Created, t.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return t, nil
}

// listTeams runs "SELECT teamColumns FROM team t <tail>".
func (s *Service) listTeams(ctx context.Context, tail string, args ...any) ([]*Team, error) {
	rows, err := s.db.Query(ctx, "SELECT "+teamColumns+" FROM team t "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Team
	for rows.Next() {
		t, err := scanTeam(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *Service) oneTeam(ctx context.Context, notFound error, where string, args ...any) (*Team, error) {
	t, err := scanTeam(s.db.QueryRow(ctx, "SELECT "+teamColumns+" FROM team t WHERE "+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	return t, err
}

// ErrTeamNotExist is the error for a team id that does not exist. The API
// answers exactly the same for a team the caller may not see.
func ErrTeamNotExist(id int64) *errs.Error { return errs.NotFound("team does not exist [id: %d]", id) }

// ErrTeamNameNotExist is ErrTeamNotExist for a team name of org.
func ErrTeamNameNotExist(org *user.User, name string) *errs.Error {
	return errs.NotFound("team does not exist [org_id: %d, name: %s]", org.ID, name)
}

// GetTeam loads a team by id.
func (s *Service) GetTeam(ctx context.Context, id int64) (*Team, error) {
	return s.oneTeam(ctx, ErrTeamNotExist(id), "t.id = ?", id)
}

// GetTeamByName loads org's team called name (case-insensitive).
func (s *Service) GetTeamByName(ctx context.Context, org *user.User, name string) (*Team, error) {
	return s.oneTeam(ctx, ErrTeamNameNotExist(org, name),
		"t.org_id = ? AND t.lower_name = ?", org.ID, strings.ToLower(name))
}

// GetOwnerTeam loads org's Owners team.
func (s *Service) GetOwnerTeam(ctx context.Context, org *user.User) (*Team, error) {
	return s.oneTeam(ctx, errs.NotFound("owner team does not exist [org_id: %d]", org.ID),
		"t.org_id = ? AND t.authorize = ? ORDER BY t.id"+db.LimitOffset(1, 0), org.ID, int(access.ModeOwner))
}

// ListOrgTeams lists org's teams alphabetically with the total count. limit <= 0 means no limit.
func (s *Service) ListOrgTeams(ctx context.Context, org *user.User, limit, offset int) ([]*Team, int64, error) {
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM team t WHERE t.org_id = ?", org.ID)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.listTeams(ctx, "WHERE t.org_id = ? ORDER BY t.lower_name, t.id"+page(limit, offset), org.ID)
	return list, total, err
}

// SearchTeams lists org's teams whose name (or, with includeDesc, description)
// contains q, case-insensitively, alphabetically with the total count.
// limit <= 0 means no limit.
func (s *Service) SearchTeams(ctx context.Context, org *user.User, q string, includeDesc bool, limit, offset int) ([]*Team, int64, error) {
	where := "WHERE t.org_id = ?"
	args := []any{org.ID}
	if q = strings.TrimSpace(q); q != "" {
		p := likePattern(q)
		if includeDesc {
			where += " AND (t.lower_name LIKE ? ESCAPE '!' OR LOWER(COALESCE(t.description, '')) LIKE ? ESCAPE '!')"
			args = append(args, p, p)
		} else {
			where += " AND t.lower_name LIKE ? ESCAPE '!'"
			args = append(args, p)
		}
	}
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM team t "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.listTeams(ctx, where+" ORDER BY t.lower_name, t.id"+page(limit, offset), args...)
	return list, total, err
}

// ListUserTeams lists the teams uid is in across all organizations (ordered by
// organization name, then team name) with the total count, and the
// organizations of the listed teams keyed by id. visibleCond, a condition on
// the organization as users alias "u" with visibleArgs (the API passes
// access.OrgCond(viewer) so a token limited to public data sees only teams of
// public organizations), restricts the list; empty means no restriction.
// limit <= 0 means no limit.
func (s *Service) ListUserTeams(ctx context.Context, uid int64, visibleCond string, visibleArgs []any, limit, offset int) ([]*Team, map[int64]*user.User, int64, error) {
	tail := "JOIN team_user tu ON tu.team_id = t.id JOIN users u ON u.id = t.org_id WHERE tu.uid = ? AND " + condOrTrue(visibleCond)
	args := append([]any{uid}, visibleArgs...)
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM team t "+tail, args...)
	if err != nil {
		return nil, nil, 0, err
	}
	list, err := s.listTeams(ctx, tail+" ORDER BY u.lower_name, t.lower_name, t.id"+page(limit, offset), args...)
	if err != nil {
		return nil, nil, 0, err
	}
	orgs, err := s.LoadTeamOrgs(ctx, list)
	if err != nil {
		return nil, nil, 0, err
	}
	return list, orgs, total, nil
}

// LoadTeamOrgs loads the organizations of teams in one query, keyed by id.
func (s *Service) LoadTeamOrgs(ctx context.Context, teams []*Team) (map[int64]*user.User, error) {
	ids := make([]int64, 0, len(teams))
	for _, t := range teams {
		ids = append(ids, t.OrgID)
	}
	return s.users.Store.GetByIDs(ctx, ids)
}

// TeamsByIDs loads teams by id, keyed by id (missing ids are left out).
func (s *Service) TeamsByIDs(ctx context.Context, ids []int64) (map[int64]*Team, error) {
	out := map[int64]*Team{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	list, err := s.listTeams(ctx, "WHERE t.id IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+")", args...)
	if err != nil {
		return nil, err
	}
	for _, t := range list {
		out[t.ID] = t
	}
	return out, nil
}
