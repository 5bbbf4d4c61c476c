package e2e

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

var allTeamUnits = []string{"repo.code", "repo.issues", "repo.ext_issues", "repo.pulls", "repo.releases",
	"repo.wiki", "repo.ext_wiki", "repo.projects", "repo.packages", "repo.actions"}

func unitStrings(units []gitea.RepoUnitType) []string {
	out := make([]string, 0, len(units))
	for _, u := range units {
		out = append(out, string(u))
	}
	sort.Strings(out)
	return out
}

func sortedCopy(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

func TestTeamCreateRules(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	member := s.CreateUser("member")
	stranger := s.CreateUser("stranger")
	k.createOrg(owner, "acme", "public")
	k.createOrg(owner, "hidden", "private")
	oc := s.Client(owner.Token)

	// A unit list: each unit gets the permission (external ones at most read).
	desc := "Writes code"
	tm, _, err := oc.CreateTeam("acme", gitea.CreateTeamOption{Name: "devs", Description: desc, Permission: gitea.AccessModeWrite,
		Units: []gitea.RepoUnitType{gitea.RepoUnitCode, gitea.RepoUnitIssues, gitea.RepoUnitExtWiki}, CanCreateOrgRepo: true})
	if err != nil {
		t.Fatal(err)
	}
	if tm.Name != "devs" || tm.Description != desc || tm.Permission != "write" || !tm.CanCreateOrgRepo || tm.IncludesAllRepositories ||
		tm.Organization == nil || tm.Organization.Name != "acme" {
		t.Fatalf("created team = %+v", tm)
	}
	if got := unitStrings(tm.Units); !reflect.DeepEqual(got, []string{"repo.code", "repo.ext_wiki", "repo.issues"}) {
		t.Fatalf("units = %v", got)
	}
	if want := map[string]string{"repo.code": "write", "repo.issues": "write", "repo.ext_wiki": "read"}; !reflect.DeepEqual(tm.UnitsMap, want) {
		t.Fatalf("units_map = %v", tm.UnitsMap)
	}
	k.addToTeam(owner, tm.ID, "member")

	// A units map wins over the unit list; the team's level is the lowest unit access.
	tm = k.createTeam(owner, "acme", map[string]any{"name": "mixed", "permission": "write",
		"units":     []string{"repo.wiki"},
		"units_map": map[string]string{"repo.code": "write", "repo.issues": "read", "repo.pulls": "none", "repo.nonsense": "write"}})
	if tm.Permission != "read" {
		t.Fatalf("mixed team permission = %s", tm.Permission)
	}
	if want := map[string]string{"repo.code": "write", "repo.issues": "read", "repo.pulls": "none"}; !reflect.DeepEqual(tm.UnitsMap, want) {
		t.Fatalf("mixed units_map = %v", tm.UnitsMap)
	}
	if got := unitStrings(tm.Units); !reflect.DeepEqual(got, []string{"repo.code", "repo.issues"}) {
		t.Fatalf("mixed units = %v", got)
	}
	// Permission may be left out when a units map says it.
	tm = k.createTeam(owner, "acme", map[string]any{"name": "mapped", "units_map": map[string]string{"repo.code": "write", "repo.wiki": "write"}})
	if tm.Permission != "write" {
		t.Fatalf("mapped team permission = %s", tm.Permission)
	}

	// Admin: every unit admin, external ones read, whatever the units say.
	tm = k.createTeam(owner, "acme", map[string]any{"name": "admins", "permission": "admin", "units": []string{"repo.code"}, "includes_all_repositories": true})
	if tm.Permission != "admin" || !tm.IncludesAllRepositories || len(tm.Units) != len(allTeamUnits) {
		t.Fatalf("admin team = %+v", tm)
	}
	for _, u := range allTeamUnits {
		want := "admin"
		if u == "repo.ext_issues" || u == "repo.ext_wiki" {
			want = "read"
		}
		if tm.UnitsMap[u] != want {
			t.Fatalf("admin team units_map[%s] = %q, want %q", u, tm.UnitsMap[u], want)
		}
	}

	// Bad input: Gitea-shaped 422, nothing created.
	countTeams := func() int {
		resp := k.do("GET", "orgs/acme/teams", owner.Token, nil)
		k.expect(resp, 200, "list teams")
		return len(k.names(resp))
	}
	before := countTeams()
	bad := []struct {
		name string
		body any
		msg  string
	}{
		{"malformed JSON", `{"name": "x", `, "invalid JSON"},
		{"wrong type", `{"name": "x", "permission": "read", "units": "repo.code"}`, "[Units]"},
		{"missing name", map[string]any{"permission": "read", "units": []string{"repo.code"}}, "[Name]: Required"},
		{"bad name", map[string]any{"name": "two words", "permission": "read", "units": []string{"repo.code"}}, "[Name]: AlphaDashDot"},
		{"long name", map[string]any{"name": strings.Repeat("n", 256), "permission": "read", "units": []string{"repo.code"}}, "[Name]: MaxSize"},
		{"long description", map[string]any{"name": "x1", "description": strings.Repeat("d", 256), "permission": "read", "units": []string{"repo.code"}}, "[Description]: MaxSize"},
		{"unknown permission", map[string]any{"name": "x2", "permission": "superuser", "units": []string{"repo.code"}}, "[Permission]"},
		{"owner permission", map[string]any{"name": "x3", "permission": "owner", "units": []string{"repo.code"}}, "[Permission]"},
		{"no permission", map[string]any{"name": "x4", "units": []string{"repo.code"}}, "[Permission]"},
		{"no units", map[string]any{"name": "x5", "permission": "read"}, "units permission should not be empty"},
		{"only unknown units", map[string]any{"name": "x6", "permission": "read", "units": []string{"repo.bogus"}}, "units"},
		{"bad unit access", map[string]any{"name": "x7", "units_map": map[string]string{"repo.code": "owner"}}, "unit permission"},
		{"duplicate", map[string]any{"name": "DEVS", "permission": "read", "units": []string{"repo.code"}}, "team already exists"},
		{"duplicate owners", map[string]any{"name": "owners", "permission": "read", "units": []string{"repo.code"}}, "team already exists"},
	}
	for _, c := range bad {
		k.expectError(k.do("POST", "orgs/acme/teams", owner.Token, c.body), 422, c.msg, c.name)
	}
	if after := countTeams(); after != before {
		t.Fatalf("bad input created teams: %d before, %d after", before, after)
	}

	// Only owners create teams.
	body := map[string]any{"name": "sneaky", "permission": "read", "units": []string{"repo.code"}}
	k.expectError(k.do("POST", "orgs/acme/teams", member.Token, body), 403, "Must be an organization owner", "member creates")
	k.expectError(k.do("POST", "orgs/acme/teams", stranger.Token, body), 403, "Must be an organization owner", "stranger creates")
	k.expect(k.do("POST", "orgs/hidden/teams", stranger.Token, body), 404, "stranger creates in a private org")
	k.expect(k.do("POST", "orgs/acme/teams", "", body), 401, "signed out creates")
	k.expect(k.do("POST", "orgs/acme/teams", s.AdminTok, body), 201, "site admin creates")
}

func TestTeamEdit(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	member := s.CreateUser("member")
	k.createOrg(owner, "acme", "public")
	orig := k.createTeam(owner, "acme", map[string]any{"name": "devs", "description": "the developers", "permission": "write",
		"units": []string{"repo.code", "repo.issues"}, "can_create_org_repo": true, "includes_all_repositories": false})
	k.addToTeam(owner, orig.ID, "member")
	path := fmt.Sprintf("teams/%d", orig.ID)

	edit := func(body any) *gitea.Team {
		t.Helper()
		resp := k.do("PATCH", path, owner.Token, body)
		k.expect(resp, 200, "edit team")
		var tm gitea.Team
		resp.Decode(t, &tm)
		if tm.Organization == nil || tm.Organization.Name != "acme" {
			t.Fatalf("edited team has no organization: %s", resp.Body)
		}
		return &tm
	}
	same := func(got *gitea.Team, want *gitea.Team, what string) {
		t.Helper()
		if got.Name != want.Name || got.Description != want.Description || got.Permission != want.Permission ||
			got.CanCreateOrgRepo != want.CanCreateOrgRepo || got.IncludesAllRepositories != want.IncludesAllRepositories ||
			!reflect.DeepEqual(got.UnitsMap, want.UnitsMap) || !reflect.DeepEqual(unitStrings(got.Units), unitStrings(want.Units)) {
			t.Fatalf("%s: team = %+v, want %+v", what, got, want)
		}
	}

	// An empty edit changes nothing.
	same(edit(map[string]any{}), orig, "empty edit")
	// Omitted fields stay unchanged.
	got := edit(map[string]any{"description": "new words"})
	want := *orig
	want.Description = "new words"
	same(got, &want, "description only")
	same(k.getTeam(owner.Token, orig.ID), &want, "description only, read back")
	// An empty name means unchanged.
	same(edit(map[string]any{"name": ""}), &want, "empty name")
	got = edit(map[string]any{"can_create_org_repo": false})
	want.CanCreateOrgRepo = false
	same(got, &want, "can_create_org_repo only")
	got = edit(map[string]any{"includes_all_repositories": true})
	want.IncludesAllRepositories = true
	same(got, &want, "includes_all_repositories only")
	// A new permission keeps the units, at the new level.
	got = edit(map[string]any{"permission": "read"})
	want.Permission = "read"
	want.UnitsMap = map[string]string{"repo.code": "read", "repo.issues": "read"}
	same(got, &want, "permission only")
	// A units map replaces the units.
	got = edit(map[string]any{"units_map": map[string]string{"repo.code": "write", "repo.pulls": "write"}})
	want.Permission = "write"
	want.UnitsMap = map[string]string{"repo.code": "write", "repo.pulls": "write"}
	want.Units = []gitea.RepoUnitType{"repo.code", "repo.pulls"}
	same(got, &want, "units map")
	// Rename with the SDK (which always sends name and permission).
	if _, err := s.Client(owner.Token).EditTeam(orig.ID, gitea.EditTeamOption{Name: "developers", Permission: gitea.AccessModeWrite}); err != nil {
		t.Fatal(err)
	}
	want.Name = "developers"
	same(k.getTeam(owner.Token, orig.ID), &want, "renamed")

	// Bad edits change nothing.
	k.createTeam(owner, "acme", map[string]any{"name": "testers", "permission": "read", "units": []string{"repo.issues"}})
	bad := []struct {
		name string
		body any
		msg  string
	}{
		{"malformed JSON", `{"name": `, "invalid JSON"},
		{"wrong type", `{"description": ["x"]}`, "[Description]"},
		{"bad name", map[string]any{"name": "two words", "description": "changed"}, "[Name]: AlphaDashDot"},
		{"long name", map[string]any{"name": strings.Repeat("n", 256)}, "[Name]: MaxSize"},
		{"long description", map[string]any{"description": strings.Repeat("d", 256)}, "[Description]: MaxSize"},
		{"unknown permission", map[string]any{"permission": "boss", "description": "changed"}, "[Permission]"},
		{"owner permission", map[string]any{"permission": "owner"}, "[Permission]"},
		{"duplicate name", map[string]any{"name": "Testers", "description": "changed"}, "team already exists"},
		{"bad unit access", map[string]any{"units_map": map[string]string{"repo.code": "owner"}, "description": "changed"}, "unit permission"},
	}
	for _, c := range bad {
		k.expectError(k.do("PATCH", path, owner.Token, c.body), 422, c.msg, c.name)
	}
	same(k.getTeam(owner.Token, orig.ID), &want, "after bad edits")

	// Only owners edit or delete; members of the team get 404 (Gitea's answer in a team context).
	k.expect(k.do("PATCH", path, member.Token, map[string]any{"description": "x"}), 404, "member edits")
	k.expect(k.do("DELETE", path, member.Token, nil), 404, "member deletes")
	k.expect(k.do("PATCH", path, "", map[string]any{"description": "x"}), 401, "signed out edits")
	k.expect(k.do("PATCH", "teams/99999", owner.Token, map[string]any{"description": "x"}), 404, "unknown team")
	k.expect(k.do("PATCH", "teams/abc", owner.Token, map[string]any{"description": "x"}), 404, "non-numeric id")
	same(k.getTeam(owner.Token, orig.ID), &want, "after refused edits")
	k.expect(k.do("PATCH", path, s.AdminTok, map[string]any{"description": "by admin"}), 200, "site admin edits")

	// Deleting the team ends the membership of those in no other team.
	if _, err := s.Client(owner.Token).DeleteTeam(orig.ID); err != nil {
		t.Fatal(err)
	}
	k.expect(k.do("GET", path, owner.Token, nil), 404, "deleted team")
	k.expect(k.do("GET", "orgs/acme/members/member", owner.Token, nil), 404, "member left the org with the team")
}

func TestTeamOwnersProtections(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	second := s.CreateUser("second")
	k.createOrg(owner, "acme", "public")
	owners := k.teamByName(owner, "acme", "Owners")
	if owners.Permission != "owner" || !owners.IncludesAllRepositories || !owners.CanCreateOrgRepo || len(owners.Units) != len(allTeamUnits) {
		t.Fatalf("Owners team = %+v", owners)
	}
	for _, u := range allTeamUnits {
		if owners.UnitsMap[u] != "owner" {
			t.Fatalf("Owners units_map = %v", owners.UnitsMap)
		}
	}
	// The list leaves the organization out; a single team has it.
	if owners.Organization != nil {
		t.Fatalf("team list has organization: %+v", owners.Organization)
	}
	path := fmt.Sprintf("teams/%d", owners.ID)

	// Permission, units and repository settings of the Owners team cannot change.
	resp := k.do("PATCH", path, owner.Token, map[string]any{"permission": "read", "includes_all_repositories": false,
		"can_create_org_repo": false, "units": []string{"repo.code"}, "units_map": map[string]string{"repo.code": "read"}, "description": "the bosses"})
	k.expect(resp, 200, "edit Owners")
	var tm gitea.Team
	resp.Decode(t, &tm)
	if tm.Permission != "owner" || !tm.IncludesAllRepositories || !tm.CanCreateOrgRepo || tm.Description != "the bosses" ||
		!reflect.DeepEqual(sortedCopy(unitStrings(tm.Units)), sortedCopy(allTeamUnits)) {
		t.Fatalf("Owners after edit = %+v", tm)
	}
	// It cannot be deleted.
	k.expect(k.do("DELETE", path, owner.Token, nil), 422, "delete Owners")
	k.expect(k.do("GET", path, owner.Token, nil), 200, "Owners still there")
	// Its last member cannot leave.
	k.expectError(k.do("DELETE", path+"/members/owner", owner.Token, nil), 422, "last member of owner team", "last owner leaves the team")
	k.expect(k.do("GET", path+"/members/owner", owner.Token, nil), 200, "owner still in Owners")
	// With a second owner, the first may go.
	k.addToTeam(owner, owners.ID, "second")
	k.expect(k.do("DELETE", path+"/members/owner", second.Token, nil), 204, "second owner removes the first")
	k.expect(k.do("GET", "orgs/acme/members/owner", second.Token, nil), 404, "first owner left the org")
	k.expectError(k.do("DELETE", "orgs/acme/members/second", second.Token, nil), 422, "last member of owner team", "last owner leaves the org")
	perm, _, err := s.Client(second.Token).GetOrgPermissions("acme", "second")
	if err != nil || !perm.IsOwner {
		t.Fatalf("second's permissions = %+v, %v", perm, err)
	}
}

func TestTeamMembersAndUserTeams(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	member := s.CreateUser("member")
	other := s.CreateUser("other")
	k.createOrg(owner, "acme", "public")
	k.createOrg(owner, "zeta", "private")
	devs := k.createTeam(owner, "acme", map[string]any{"name": "devs", "description": "code people", "permission": "write", "units": []string{"repo.code"}})
	ops := k.createTeam(owner, "zeta", map[string]any{"name": "ops", "permission": "read", "units": []string{"repo.code"}})

	oc := s.Client(owner.Token)
	if _, err := oc.AddTeamMember(devs.ID, "member"); err != nil {
		t.Fatal(err)
	}
	// Adding again is fine.
	k.expect(k.do("PUT", fmt.Sprintf("teams/%d/members/member", devs.ID), owner.Token, nil), 204, "add again")
	k.expect(k.do("PUT", fmt.Sprintf("teams/%d/members/nobody", devs.ID), owner.Token, nil), 404, "add unknown user")
	k.expect(k.do("PUT", fmt.Sprintf("teams/%d/members/zeta", devs.ID), owner.Token, nil), 404, "add an organization")
	k.expect(k.do("PUT", fmt.Sprintf("teams/%d/members/other", devs.ID), member.Token, nil), 404, "team member adds")
	k.expect(k.do("PUT", fmt.Sprintf("teams/%d/members/other", devs.ID), other.Token, nil), 404, "stranger adds")
	k.addToTeam(owner, ops.ID, "member")

	// Members of the team.
	users, resp, err := s.Client(member.Token).ListTeamMembers(devs.ID, gitea.ListTeamMembersOptions{})
	if err != nil || len(users) != 1 || users[0].UserName != "member" || resp.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("team members = %v, %v", users, err)
	}
	u, _, err := s.Client(member.Token).GetTeamMember(devs.ID, "member")
	if err != nil || u.UserName != "member" {
		t.Fatalf("team member = %v, %v", u, err)
	}
	k.expect(k.do("GET", fmt.Sprintf("teams/%d/members/owner", devs.ID), owner.Token, nil), 404, "owner is not in devs")
	k.expect(k.do("GET", fmt.Sprintf("teams/%d/members/nobody", devs.ID), owner.Token, nil), 404, "unknown user")

	// /user/teams: every team of the caller, with its organization.
	teams, resp, err := s.Client(member.Token).ListMyTeams(&gitea.ListTeamsOptions{})
	if err != nil || len(teams) != 2 || resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("member's teams = %v, %v", teams, err)
	}
	if teams[0].Name != "devs" || teams[0].Organization == nil || teams[0].Organization.Name != "acme" ||
		teams[1].Name != "ops" || teams[1].Organization == nil || teams[1].Organization.Name != "zeta" || teams[1].Organization.Visibility != "private" {
		t.Fatalf("member's teams = %+v / %+v", teams[0], teams[1])
	}
	resp2 := k.do("GET", "user/teams?limit=1&page=2", member.Token, nil)
	if n := k.names(resp2); len(n) != 1 || n[0] != "ops" || resp2.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("member's teams page 2 = %v", n)
	}
	k.expect(k.do("GET", "user/teams", "", nil), 401, "signed out")
	// The list costs the same number of queries however many teams there are.
	few := k.do("GET", "user/teams", member.Token, nil).Header.Get("X-Cairn-Query-Count")
	for i := 0; i < 4; i++ {
		name := fmt.Sprintf("org%d", i)
		k.createOrg(owner, name, "public")
		tm := k.createTeam(owner, name, map[string]any{"name": "t", "permission": "read", "units": []string{"repo.code"}})
		k.addToTeam(owner, tm.ID, "member")
	}
	many := k.do("GET", "user/teams", member.Token, nil)
	if n := k.names(many); len(n) != 6 {
		t.Fatalf("member's teams = %v", n)
	}
	if few == "" || many.Header.Get("X-Cairn-Query-Count") != few {
		t.Fatalf("query count grows with teams: %s with 2, %s with 6", few, many.Header.Get("X-Cairn-Query-Count"))
	}
	// Same for an organization's team list and member list.
	teamsFew := k.do("GET", "orgs/acme/teams", owner.Token, nil).Header.Get("X-Cairn-Query-Count")
	for i := 0; i < 3; i++ {
		k.createTeam(owner, "acme", map[string]any{"name": fmt.Sprintf("extra%d", i), "permission": "read", "units": []string{"repo.code"}})
	}
	if teamsMany := k.do("GET", "orgs/acme/teams", owner.Token, nil).Header.Get("X-Cairn-Query-Count"); teamsMany != teamsFew {
		t.Fatalf("query count of /orgs/acme/teams grows: %s, then %s", teamsFew, teamsMany)
	}

	// Search.
	found, _, err := s.Client(member.Token).SearchOrgTeams("acme", &gitea.SearchTeamsOptions{Query: "DEV"})
	if err != nil || len(found) != 1 || found[0].Name != "devs" {
		t.Fatalf("search DEV = %v, %v", found, err)
	}
	sr := k.do("GET", "orgs/acme/teams/search?q=people", member.Token, nil)
	k.expect(sr, 200, "search in descriptions")
	if !strings.Contains(string(sr.Body), `"ok":true`) || !strings.Contains(string(sr.Body), `"name":"devs"`) || sr.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("search people = %s", sr.Body)
	}
	sr = k.do("GET", "orgs/acme/teams/search?q=people&include_desc=false", member.Token, nil)
	if strings.Contains(string(sr.Body), `"name":"devs"`) || sr.Header.Get("X-Total-Count") != "0" {
		t.Fatalf("search people without descriptions = %s", sr.Body)
	}

	// Leaving the last team of an organization ends the membership.
	if _, err := oc.RemoveTeamMember(ops.ID, "member"); err != nil {
		t.Fatal(err)
	}
	k.expect(k.do("GET", "orgs/zeta", member.Token, nil), 404, "former member sees the private org")
	k.expect(k.do("DELETE", fmt.Sprintf("teams/%d/members/member", ops.ID), owner.Token, nil), 204, "removing a non-member")
	k.expect(k.do("DELETE", fmt.Sprintf("teams/%d/members/nobody", ops.ID), owner.Token, nil), 404, "removing an unknown user")
}

// TestOrgTeamPermissionMatrix asks every organization and team read route as
// each kind of caller, for a public, a limited and a private organization, and
// checks the status and that nothing of an organization the caller may not
// see appears in listings.
func TestOrgTeamPermissionMatrix(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	member := s.CreateUser("member")
	plain := s.CreateUser("plain")
	restricted := s.CreateUser("restricted", "restricted")

	type orgSetup struct {
		name, vis   string
		devs, owner int64
	}
	orgs := []*orgSetup{{name: "mxpublic", vis: "public"}, {name: "mxlimited", vis: "limited"}, {name: "mxprivate", vis: "private"}}
	for _, o := range orgs {
		k.createOrg(owner, o.name, o.vis)
		o.owner = k.teamByName(owner, o.name, "Owners").ID
		o.devs = k.createTeam(owner, o.name, map[string]any{"name": "devs", "permission": "write", "units": []string{"repo.code"}}).ID
		k.addToTeam(owner, o.devs, "member")
		k.expect(k.do("PUT", "orgs/"+o.name+"/public_members/member", member.Token, nil), 204, "publicize")
	}

	type caller struct {
		name                                 string
		tok                                  string
		signedIn, isMember, isOwner, isAdmin bool
		restricted                           bool
	}
	callers := []caller{
		{name: "signed-out"},
		{name: "plain", tok: plain.Token, signedIn: true},
		{name: "restricted", tok: restricted.Token, signedIn: true, restricted: true},
		{name: "member", tok: member.Token, signedIn: true, isMember: true},
		{name: "owner", tok: owner.Token, signedIn: true, isMember: true, isOwner: true},
		{name: "admin", tok: s.AdminTok, signedIn: true, isAdmin: true},
	}
	canSee := func(c caller, vis string) bool {
		switch {
		case c.isMember || c.isAdmin:
			return true
		case c.restricted:
			return false
		case vis == "public":
			return true
		case vis == "limited":
			return c.signedIn
		}
		return false
	}
	// status picks the expected status: 401 for signed-out callers where a
	// token is needed, 404 when the org is invisible, else the given one.
	for _, o := range orgs {
		for _, c := range callers {
			see := canSee(c, o.vis)
			orgOr404 := func(ok int) int {
				if !see {
					return 404
				}
				return ok
			}
			tokenOrg := func(ok int) int {
				if !c.signedIn {
					return 401
				}
				return orgOr404(ok)
			}
			inTeam := c.isMember || c.isAdmin // member is in devs, owner owns
			teamStatus := func(ok bool, memberButNotInTeam bool) int {
				switch {
				case !c.signedIn:
					return 401
				case ok:
					return 200
				case memberButNotInTeam:
					return 403
				}
				return 404
			}
			plainOr := func(ok int) int {
				if c.isMember || c.isAdmin {
					return ok
				}
				return 403
			}
			memberCheck := 204
			if !c.isMember && !c.isAdmin {
				memberCheck = 303
			}
			routes := []struct {
				path string
				want int
			}{
				{"orgs/" + o.name, orgOr404(200)},
				{"orgs/" + o.name + "/public_members", orgOr404(200)},
				{"orgs/" + o.name + "/public_members/member", orgOr404(204)},
				{"orgs/" + o.name + "/public_members/owner", 404},
				{"orgs/" + o.name + "/members", tokenOrg(200)},
				{"orgs/" + o.name + "/members/member", tokenOrg(memberCheck)},
				{"orgs/" + o.name + "/teams", tokenOrg(plainOr(200))},
				{"orgs/" + o.name + "/teams/search?q=dev", tokenOrg(plainOr(200))},
				{fmt.Sprintf("teams/%d", o.devs), teamStatus(inTeam, false)},
				{fmt.Sprintf("teams/%d/members", o.devs), teamStatus(inTeam, false)},
				{fmt.Sprintf("teams/%d/members/member", o.devs), teamStatus(inTeam, false)},
				{fmt.Sprintf("teams/%d", o.owner), teamStatus(c.isOwner || c.isAdmin, c.isMember)},
				{fmt.Sprintf("teams/%d/members", o.owner), teamStatus(c.isOwner || c.isAdmin, c.isMember)},
				{"users/member/orgs/" + o.name + "/permissions", orgOr404(200)},
				{"users/owner/orgs/" + o.name + "/permissions", orgOr404(200)},
			}
			for _, rt := range routes {
				resp := k.do("GET", rt.path, c.tok, nil)
				if resp.Status != rt.want {
					t.Errorf("%s as %s (%s org): status %d, want %d: %s", rt.path, c.name, o.vis, resp.Status, rt.want, resp.Body)
					continue
				}
				if resp.Status >= 400 && strings.Contains(string(resp.Body), `"devs"`) {
					t.Errorf("%s as %s: refusal leaks team data: %s", rt.path, c.name, resp.Body)
				}
			}
			// Member lists: owner's membership is concealed, member's public.
			if see && c.signedIn {
				names := k.names(k.do("GET", "orgs/"+o.name+"/members", c.tok, nil))
				if !hasName(names, "member") || hasName(names, "owner") != (c.isMember || c.isAdmin) {
					t.Errorf("members of %s as %s = %v", o.name, c.name, names)
				}
			}
		}
	}

	// Listings: an organization appears only for callers who may see it.
	for _, c := range callers {
		lists := map[string][]string{}
		for _, path := range []string{"orgs", "users/member/orgs", "users/owner/orgs"} {
			resp := k.do("GET", path, c.tok, nil)
			if resp.Status != 200 {
				t.Errorf("%s as %s: status %d: %s", path, c.name, resp.Status, resp.Body)
				continue
			}
			lists[path] = k.names(resp)
			if total := resp.Header.Get("X-Total-Count"); total != fmt.Sprint(len(lists[path])) {
				t.Errorf("%s as %s: X-Total-Count %s for %v", path, c.name, total, lists[path])
			}
		}
		for _, o := range orgs {
			see := canSee(c, o.vis)
			if got := hasName(lists["orgs"], o.name); got != see {
				t.Errorf("/orgs as %s lists %s = %v, want %v", c.name, o.name, got, see)
			}
			if got := hasName(lists["users/member/orgs"], o.name); got != see {
				t.Errorf("/users/member/orgs as %s lists %s = %v, want %v", c.name, o.name, got, see)
			}
			// owner's membership is concealed: only owner himself and admins see it.
			if got, want := hasName(lists["users/owner/orgs"], o.name), c.isOwner || c.isAdmin; got != want {
				t.Errorf("/users/owner/orgs as %s lists %s = %v, want %v", c.name, o.name, got, want)
			}
		}
		// User search lists individuals only.
		resp := k.do("GET", "users/search?q=mx", c.tok, nil)
		if resp.Status != 200 || strings.Contains(string(resp.Body), "mxp") || strings.Contains(string(resp.Body), "mxl") {
			t.Errorf("users/search as %s: %d %s", c.name, resp.Status, resp.Body)
		}
		if !c.signedIn {
			k.expect(k.do("GET", "user/orgs", c.tok, nil), 401, "signed-out /user/orgs")
			k.expect(k.do("GET", "user/teams", c.tok, nil), 401, "signed-out /user/teams")
			continue
		}
		resp = k.do("GET", "user/orgs", c.tok, nil)
		mine := k.names(resp)
		for _, o := range orgs {
			if hasName(mine, o.name) != c.isMember {
				t.Errorf("/user/orgs as %s = %v", c.name, mine)
			}
		}
		resp = k.do("GET", "user/teams", c.tok, nil)
		var teams []gitea.Team
		resp.Decode(t, &teams)
		if c.isMember && len(teams) != 3 || !c.isMember && len(teams) != 0 {
			t.Errorf("/user/teams as %s = %s", c.name, resp.Body)
		}
	}

	// Permissions of the asked-about user.
	perm, _, err := s.Client(plain.Token).GetOrgPermissions("mxpublic", "member")
	if err != nil || perm.IsOwner || !perm.CanWrite || !perm.CanRead {
		t.Fatalf("member's permissions = %+v, %v", perm, err)
	}
	perm, _, err = s.Client(plain.Token).GetOrgPermissions("mxlimited", "owner")
	if err != nil || !perm.IsOwner || !perm.IsAdmin || !perm.CanCreateRepository {
		t.Fatalf("owner's permissions = %+v, %v", perm, err)
	}
	// An organization the asked-about user may not see answers 404.
	k.expect(k.do("GET", "users/restricted/orgs/mxpublic/permissions", plain.Token, nil), 404, "permissions of a user who cannot see the org")
	k.expect(k.do("GET", "users/plain/orgs/mxprivate/permissions", s.AdminTok, nil), 404, "permissions of a user who cannot see the private org")
}
