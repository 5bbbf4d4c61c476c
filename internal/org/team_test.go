package org

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

const (
	R = access.ModeRead
	W = access.ModeWrite
	A = access.ModeAdmin
	N = access.ModeNone
)

func adminUnits() map[string]access.Mode {
	m := map[string]access.Mode{}
	for _, k := range UnitKeys() {
		m[k] = A
	}
	m[UnitExternalIssue], m[UnitExternalWiki] = R, R
	return m
}

func TestCreateTeamRules(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	cases := []struct {
		name      string
		perm      access.Mode
		units     []string
		unitsMap  map[string]string
		wantPerm  access.Mode
		wantUnits map[string]access.Mode
		wantErr   string
	}{
		{name: "units list read", perm: R, units: []string{UnitCode, UnitIssues},
			wantPerm: R, wantUnits: map[string]access.Mode{UnitCode: R, UnitIssues: R}},
		{name: "units list write caps external", perm: W, units: []string{UnitCode, UnitExternalWiki, "repo.bogus"},
			wantPerm: W, wantUnits: map[string]access.Mode{UnitCode: W, UnitExternalWiki: R}},
		{name: "units map minimum", perm: W, unitsMap: map[string]string{UnitCode: "admin", UnitIssues: "read", UnitPulls: "write", UnitWiki: "none"},
			wantPerm: R, wantUnits: map[string]access.Mode{UnitCode: A, UnitIssues: R, UnitPulls: W, UnitWiki: N}},
		{name: "units map without permission", perm: N, unitsMap: map[string]string{UnitCode: "write", UnitPulls: "write"},
			wantPerm: W, wantUnits: map[string]access.Mode{UnitCode: W, UnitPulls: W}},
		{name: "units map ignores external for minimum", perm: R, unitsMap: map[string]string{UnitCode: "write", UnitExternalIssue: "write"},
			wantPerm: W, wantUnits: map[string]access.Mode{UnitCode: W, UnitExternalIssue: R}},
		{name: "units map wins over units", perm: R, units: []string{UnitWiki}, unitsMap: map[string]string{UnitCode: "write"},
			wantPerm: W, wantUnits: map[string]access.Mode{UnitCode: W}},
		{name: "units map all admin is admin", perm: R, unitsMap: map[string]string{UnitCode: "admin"},
			wantPerm: A, wantUnits: adminUnits()},
		{name: "admin ignores units", perm: A, units: []string{UnitCode},
			wantPerm: A, wantUnits: adminUnits()},
		{name: "admin ignores units map", perm: A, unitsMap: map[string]string{UnitCode: "read"},
			wantPerm: A, wantUnits: adminUnits()},
		{name: "admin without units", perm: A, wantPerm: A, wantUnits: adminUnits()},
		{name: "no units", perm: W, wantErr: "units permission should not be empty"},
		{name: "only unknown units", perm: W, units: []string{"repo.nothing"}, wantErr: "units permission should not be empty"},
		{name: "owner refused", perm: access.ModeOwner, units: []string{UnitCode}, wantErr: "not allowed"},
		{name: "owner unit refused", perm: R, unitsMap: map[string]string{UnitCode: "owner"}, wantErr: "not allowed"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			team, err := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: fmt.Sprintf("t%d", i), Permission: c.perm, Units: c.units, UnitsMap: c.unitsMap})
			if c.wantErr != "" {
				wantErr(t, err, errs.KindInvalid, 0, c.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored, err := e.orgs.GetTeam(e.ctx, team.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []*Team{team, stored} {
				if got.Authorize != c.wantPerm || !maps.Equal(got.Units, c.wantUnits) {
					t.Fatalf("team perm %v units %v, want %v %v", got.Authorize, got.Units, c.wantPerm, c.wantUnits)
				}
			}
		})
	}
}

func TestCreateTeamNames(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	other := e.org(t, alice, "other", user.VisibilityPublic)
	mk := func(org *user.User, name, desc string) error {
		_, err := e.orgs.CreateTeam(e.ctx, org, CreateTeamOptions{Name: name, Description: desc, Permission: R, Units: []string{UnitCode}})
		return err
	}
	if err := mk(o, "Dev.Team_1-x", "the developers"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, mk(o, "dev.team_1-X", ""), errs.KindAlreadyExists, http.StatusUnprocessableEntity,
		fmt.Sprintf("team already exists [org_id: %d, name: dev.team_1-X]", o.ID))
	wantErr(t, mk(o, "owners", ""), errs.KindAlreadyExists, http.StatusUnprocessableEntity, "team already exists")
	if err := mk(other, "dev.team_1-x", ""); err != nil {
		t.Fatalf("same name in another org: %v", err)
	}
	wantErr(t, mk(o, "", ""), errs.KindInvalid, 0, "team name is required")
	wantErr(t, mk(o, "a b", ""), errs.KindInvalid, 0, "invalid")
	wantErr(t, mk(o, "a/b", ""), errs.KindInvalid, 0, "invalid")
	wantErr(t, mk(o, strings.Repeat("x", 256), ""), errs.KindInvalid, 0, "too long")
	wantErr(t, mk(o, "longdesc", strings.Repeat("d", 256)), errs.KindInvalid, 0, "description")
	if err := mk(o, strings.Repeat("x", 255), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.orgs.CreateTeam(e.ctx, alice, CreateTeamOptions{Name: "x", Permission: A}); err == nil {
		t.Fatal("CreateTeam accepted a user as organization")
	}
	team, err := e.orgs.GetTeamByName(e.ctx, o, "DEV.TEAM_1-X")
	if err != nil || team.Name != "Dev.Team_1-x" || team.Description != "the developers" {
		t.Fatalf("GetTeamByName = %+v, %v", team, err)
	}
	if _, err := e.orgs.GetTeamByName(e.ctx, other, "nope"); !errs.IsNotFound(err) {
		t.Fatalf("missing team = %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestEditTeam(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	team, err := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "dev", Description: "devs", Permission: W,
		Units: []string{UnitCode, UnitIssues}, IncludesAllRepositories: true, CanCreateOrgRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "ops", Permission: R, Units: []string{UnitCode}}); err != nil {
		t.Fatal(err)
	}

	// Nothing given: nothing changes (an empty name is "unchanged" too).
	got, err := e.orgs.EditTeam(e.ctx, team, EditTeamOptions{Name: ptr("")})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := e.orgs.GetTeam(e.ctx, team.ID)
	for _, g := range []*Team{got, stored} {
		if g.Name != "dev" || g.Description != "devs" || g.Authorize != W || !g.IncludesAllRepositories ||
			!g.CanCreateOrgRepo || !maps.Equal(g.Units, team.Units) {
			t.Fatalf("unchanged edit gave %+v", g)
		}
	}

	// Only the description.
	got, err = e.orgs.EditTeam(e.ctx, stored, EditTeamOptions{Description: ptr("new")})
	if err != nil || got.Description != "new" || got.Name != "dev" || got.Authorize != W || !got.CanCreateOrgRepo {
		t.Fatalf("description edit = %+v, %v", got, err)
	}
	if stored.Description != "devs" {
		t.Fatal("EditTeam modified its argument")
	}

	// Permission alone re-grants the team's units at the new level.
	got, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{Permission: ptr(R), CanCreateOrgRepo: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Authorize != R || !maps.Equal(got.Units, map[string]access.Mode{UnitCode: R, UnitIssues: R}) || got.CanCreateOrgRepo {
		t.Fatalf("permission edit = %+v", got)
	}
	// A units map recomputes the level.
	got, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{UnitsMap: map[string]string{UnitPulls: "write", UnitCode: "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Authorize != W || !maps.Equal(got.Units, map[string]access.Mode{UnitPulls: W, UnitCode: A}) {
		t.Fatalf("units map edit = %+v", got)
	}
	// Admin grants every unit.
	got, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{Permission: ptr(A)})
	if err != nil || got.Authorize != A || !maps.Equal(got.Units, adminUnits()) {
		t.Fatalf("admin edit = %+v, %v", got, err)
	}
	_, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{Permission: ptr(access.ModeOwner)})
	wantErr(t, err, errs.KindInvalid, 0, "not allowed")

	// Renames: to a free name, case change of itself, to a taken name.
	got, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{Name: ptr("Developers")})
	if err != nil || got.Name != "Developers" || got.LowerName != "developers" {
		t.Fatalf("rename = %+v, %v", got, err)
	}
	if got, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{Name: ptr("DEVELOPERS")}); err != nil || got.Name != "DEVELOPERS" {
		t.Fatalf("case rename = %+v, %v", got, err)
	}
	_, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{Name: ptr("OPS")})
	wantErr(t, err, errs.KindAlreadyExists, http.StatusUnprocessableEntity, "team already exists")
	_, err = e.orgs.EditTeam(e.ctx, got, EditTeamOptions{Name: ptr("bad name")})
	wantErr(t, err, errs.KindInvalid, 0, "invalid")

	// The Owners team keeps its level, units, repositories and repo creation.
	owners := e.owners(t, o)
	got, err = e.orgs.EditTeam(e.ctx, owners, EditTeamOptions{Permission: ptr(R), Units: []string{UnitCode},
		IncludesAllRepositories: ptr(false), CanCreateOrgRepo: ptr(false), Description: ptr("the bosses")})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ = e.orgs.GetTeam(e.ctx, owners.ID)
	for _, g := range []*Team{got, stored} {
		if g.Authorize != access.ModeOwner || !g.IncludesAllRepositories || !g.CanCreateOrgRepo ||
			!maps.Equal(g.Units, owners.Units) || g.Description != "the bosses" {
			t.Fatalf("owners edit = %+v", g)
		}
	}
}

func TestTeamLists(t *testing.T) {
	e := setup(t)
	alice, bob := e.user(t, "alice"), e.user(t, "bob")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	for _, n := range []string{"zeta", "Alpha", "beta_team", "gamma"} {
		desc := "about " + n
		if n == "gamma" {
			desc = "handles 100% of builds"
		}
		team, err := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: n, Description: desc, Permission: R, Units: []string{UnitCode}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.orgs.AddTeamMember(e.ctx, team, bob.ID); err != nil {
			t.Fatal(err)
		}
	}
	teamNames := func(list []*Team) []string {
		var out []string
		for _, t := range list {
			out = append(out, t.Name)
		}
		return out
	}
	ctx, n := counted(e.ctx)
	list, total, err := e.orgs.ListOrgTeams(ctx, o, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if total != 5 || !slices.Equal(teamNames(list), []string{"beta_team", "gamma"}) || list[0].NumMembers != 1 {
		t.Fatalf("ListOrgTeams = %v %d", teamNames(list), total)
	}
	if n.Load() != 2 {
		t.Fatalf("ListOrgTeams ran %d queries", n.Load())
	}

	search := []struct {
		q           string
		includeDesc bool
		want        []string
	}{
		{"", false, []string{"Alpha", "beta_team", "gamma", "Owners", "zeta"}},
		{"A", false, []string{"Alpha", "beta_team", "gamma", "zeta"}},
		{"_", false, []string{"beta_team"}},
		{"%", false, nil},
		{"%", true, []string{"gamma"}},
		{"about z", true, []string{"zeta"}},
		{"about z", false, nil},
	}
	for _, c := range search {
		list, total, err := e.orgs.SearchTeams(e.ctx, o, c.q, c.includeDesc, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(teamNames(list), c.want) || total != int64(len(c.want)) {
			t.Fatalf("SearchTeams(%q, %v) = %v %d, want %v", c.q, c.includeDesc, teamNames(list), total, c.want)
		}
	}

	// ListUserTeams: teams across orgs with the orgs loaded in one batch.
	o2 := e.org(t, bob, "bobcorp", user.VisibilityPrivate)
	ctx, n = counted(e.ctx)
	teams, orgs, total, err := e.orgs.ListUserTeams(ctx, bob.ID, "", nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 5 || !slices.Equal(teamNames(teams), []string{"Alpha", "beta_team", "gamma", "zeta", "Owners"}) {
		t.Fatalf("ListUserTeams = %v %d", teamNames(teams), total)
	}
	if n.Load() != 3 {
		t.Fatalf("ListUserTeams ran %d queries, want 3", n.Load())
	}
	if len(orgs) != 2 || orgs[o.ID].Name != "acme" || orgs[o2.ID].Name != "bobcorp" {
		t.Fatalf("orgs = %v", orgs)
	}
	teams, _, total, _ = e.orgs.ListUserTeams(e.ctx, bob.ID, "", nil, 2, 4)
	if total != 5 || len(teams) != 1 || teams[0].OrgID != o2.ID {
		t.Fatalf("ListUserTeams page = %v %d", teamNames(teams), total)
	}
	loaded, err := e.orgs.LoadTeamOrgs(e.ctx, teams)
	if err != nil || loaded[o2.ID] == nil {
		t.Fatalf("LoadTeamOrgs = %v, %v", loaded, err)
	}
	// A visibility condition on the organization keeps only matching teams.
	teams, orgs, total, err = e.orgs.ListUserTeams(e.ctx, bob.ID, "u.visibility = ?", []any{int(user.VisibilityPublic)}, 0, 0)
	if err != nil || total != 4 || len(teams) != 4 || len(orgs) != 1 || orgs[o.ID] == nil {
		t.Fatalf("ListUserTeams of public orgs = %v %d %v", teamNames(teams), total, err)
	}
}

func TestTeamRepos(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	team, _ := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "dev", Permission: R, Units: []string{UnitCode}})
	other, _ := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "ops", Permission: R, Units: []string{UnitCode}})
	for _, id := range []int64{30, 10, 20, 10} {
		if err := e.orgs.AddTeamRepo(e.ctx, team, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.orgs.AddTeamRepo(e.ctx, other, 10); err != nil {
		t.Fatal(err)
	}
	ids, total, err := e.orgs.ListTeamRepoIDs(e.ctx, team.ID, 2, 0)
	if err != nil || total != 3 || !slices.Equal(ids, []int64{10, 20}) {
		t.Fatalf("ListTeamRepoIDs = %v %d %v", ids, total, err)
	}
	if got, _ := e.orgs.GetTeam(e.ctx, team.ID); got.NumRepos != 3 {
		t.Fatalf("NumRepos = %d", got.NumRepos)
	}
	if err := e.orgs.RemoveTeamRepo(e.ctx, team, 20); err != nil {
		t.Fatal(err)
	}
	if err := e.orgs.RemoveTeamRepo(e.ctx, team, 20); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.orgs.HasTeamRepo(e.ctx, team.ID, 20); ok {
		t.Fatal("removed repo still there")
	}
	if ok, _ := e.orgs.HasTeamRepo(e.ctx, team.ID, 30); !ok {
		t.Fatal("repo 30 missing")
	}
	if err := e.orgs.RemoveRepoFromTeams(e.ctx, 10); err != nil {
		t.Fatal(err)
	}
	for _, tm := range []*Team{team, other} {
		if ok, _ := e.orgs.HasTeamRepo(e.ctx, tm.ID, 10); ok {
			t.Fatalf("repo 10 still in team %s", tm.Name)
		}
	}
}

func TestTeamUnitHelpers(t *testing.T) {
	team := &Team{Units: map[string]access.Mode{UnitWiki: R, UnitCode: W, UnitPulls: N}}
	if !slices.Equal(team.UnitNames(), []string{UnitCode, UnitWiki}) {
		t.Fatalf("UnitNames = %v", team.UnitNames())
	}
	if !maps.Equal(team.UnitsMap(), map[string]string{UnitWiki: "read", UnitCode: "write", UnitPulls: "none"}) {
		t.Fatalf("UnitsMap = %v", team.UnitsMap())
	}
	if team.UnitMode(UnitCode) != W || team.UnitMode(UnitActions) != N {
		t.Fatal("UnitMode")
	}
	if !IsUnitKey(UnitActions) || IsUnitKey("repo.bogus") || len(UnitKeys()) != 10 {
		t.Fatal("unit keys")
	}
}
