package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// orgKit bundles the helpers of the organization and team tests (methods, so
// their names cannot clash with other test files of the package).
type orgKit struct {
	t *testing.T
	s *Server
}

func newOrgKit(t *testing.T, s *Server) *orgKit { return &orgKit{t: t, s: s} }

// do sends a request as the holder of tok ("" for signed out).
func (k *orgKit) do(method, path, tok string, body any) *Response {
	k.t.Helper()
	opts := []RequestOption{Token(tok)}
	switch b := body.(type) {
	case nil:
	case string:
		opts = append(opts, RawBody(b))
	default:
		opts = append(opts, JSON(b))
	}
	return k.s.Do(method, "api/v1/"+strings.TrimPrefix(path, "/"), opts...)
}

// expect fails unless resp has status want.
func (k *orgKit) expect(resp *Response, want int, what string) {
	k.t.Helper()
	if resp.Status != want {
		k.t.Fatalf("%s: status %d, want %d: %s", what, resp.Status, want, resp.Body)
	}
}

// expectError checks status and that the body is Gitea's error shape with a
// message containing msg.
func (k *orgKit) expectError(resp *Response, want int, msg, what string) {
	k.t.Helper()
	k.expect(resp, want, what)
	var e struct {
		Message *string `json:"message"`
		URL     string  `json:"url"`
	}
	if err := json.Unmarshal(resp.Body, &e); err != nil || e.Message == nil || e.URL == "" {
		k.t.Fatalf("%s: body is not Gitea's error shape: %s", what, resp.Body)
	}
	if !strings.Contains(*e.Message, msg) {
		k.t.Fatalf("%s: message %q does not contain %q", what, *e.Message, msg)
	}
}

// createOrg creates an organization owned by owner.
func (k *orgKit) createOrg(owner *User, name, visibility string) *gitea.Organization {
	k.t.Helper()
	resp := k.do("POST", "orgs", owner.Token, map[string]any{"username": name, "visibility": visibility, "email": name + "@example.org"})
	k.expect(resp, 201, "create org "+name)
	var o gitea.Organization
	resp.Decode(k.t, &o)
	return &o
}

// teamByName finds a team of org as its owner.
func (k *orgKit) teamByName(owner *User, org, name string) *gitea.Team {
	k.t.Helper()
	teams, _, err := k.s.Client(owner.Token).ListOrgTeams(org, gitea.ListTeamsOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	for _, tm := range teams {
		if tm.Name == name {
			return tm
		}
	}
	k.t.Fatalf("org %s has no team %s", org, name)
	return nil
}

// createTeam creates a team with raw JSON and returns it.
func (k *orgKit) createTeam(owner *User, org string, body map[string]any) *gitea.Team {
	k.t.Helper()
	resp := k.do("POST", "orgs/"+org+"/teams", owner.Token, body)
	k.expect(resp, 201, "create team")
	var tm gitea.Team
	resp.Decode(k.t, &tm)
	return &tm
}

// getTeam reads a team as tok.
func (k *orgKit) getTeam(tok string, id int64) *gitea.Team {
	k.t.Helper()
	resp := k.do("GET", fmt.Sprintf("teams/%d", id), tok, nil)
	k.expect(resp, 200, "get team")
	var tm gitea.Team
	resp.Decode(k.t, &tm)
	return &tm
}

// addToTeam puts user in team id.
func (k *orgKit) addToTeam(owner *User, id int64, user string) {
	k.t.Helper()
	k.expect(k.do("PUT", fmt.Sprintf("teams/%d/members/%s", id, user), owner.Token, nil), 204, "add "+user+" to team")
}

// names decodes a JSON array of objects and returns their "name" or "login" values.
func (k *orgKit) names(resp *Response) []string {
	k.t.Helper()
	var list []struct {
		Name  string `json:"name"`
		Login string `json:"login"`
	}
	resp.Decode(k.t, &list)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if x.Login != "" {
			out = append(out, x.Login)
		} else {
			out = append(out, x.Name)
		}
	}
	return out
}

func (k *orgKit) orgCount() int {
	k.t.Helper()
	resp := k.do("GET", "admin/orgs?limit=50", k.s.AdminTok, nil)
	k.expect(resp, 200, "admin list orgs")
	return len(k.names(resp))
}

func hasName(list []string, name string) bool {
	for _, n := range list {
		if n == name {
			return true
		}
	}
	return false
}

func TestOrgCRUD(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	ac := s.Client(alice.Token)

	o, _, err := ac.CreateOrg(gitea.CreateOrgOption{Name: "acme", FullName: "Acme Inc", Email: "info@acme.example",
		Description: "We make things", Website: "https://acme.example", Location: "Earth", Visibility: gitea.VisibleTypePublic})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "acme" || o.UserName != "acme" || o.FullName != "Acme Inc" || o.Email != "info@acme.example" ||
		o.Visibility != "public" || o.Website != "https://acme.example" || o.Location != "Earth" || o.ID == 0 {
		t.Fatalf("created org = %+v", o)
	}
	// The creator is the only member of the Owners team.
	owners := k.teamByName(alice, "acme", "Owners")
	if owners.Permission != "owner" || !owners.IncludesAllRepositories || !owners.CanCreateOrgRepo {
		t.Fatalf("Owners team = %+v", owners)
	}
	if ok, _, err := ac.CheckOrgMembership("acme", "alice"); err != nil || !ok {
		t.Fatalf("creator is not a member: %v %v", ok, err)
	}

	// Signed out: visible, e-mail hidden. Signed in: e-mail shown.
	anon := k.do("GET", "orgs/acme", "", nil)
	k.expect(anon, 200, "anonymous get")
	if strings.Contains(string(anon.Body), "info@acme.example") {
		t.Fatalf("signed-out caller sees the org e-mail: %s", anon.Body)
	}
	got, _, err := s.Client(bob.Token).GetOrg("acme")
	if err != nil || got.Email != "info@acme.example" || got.Description != "We make things" {
		t.Fatalf("bob's view of acme = %+v, %v", got, err)
	}
	// Names are case-insensitive.
	k.expect(k.do("GET", "orgs/ACME", "", nil), 200, "get by other case")
	k.expect(k.do("GET", "orgs/nosuchorg", "", nil), 404, "unknown org")

	// Edit with the SDK, which sends every field.
	if _, err := ac.EditOrg("acme", gitea.EditOrgOption{FullName: "Acme Inc", Email: "info@acme.example", Description: "Still making things",
		Website: "https://acme.example", Location: "Earth"}); err != nil {
		t.Fatal(err)
	}
	// Raw edits: only the given fields change.
	resp := k.do("PATCH", "orgs/acme", alice.Token, map[string]any{"location": "Mars"})
	k.expect(resp, 200, "edit location")
	var edited gitea.Organization
	resp.Decode(t, &edited)
	if edited.Location != "Mars" || edited.Description != "Still making things" || edited.FullName != "Acme Inc" ||
		edited.Website != "https://acme.example" || edited.Email != "info@acme.example" || edited.Visibility != "public" {
		t.Fatalf("edited org = %+v", edited)
	}
	resp = k.do("PATCH", "orgs/acme", alice.Token, map[string]any{"visibility": "limited", "repo_admin_change_team_access": true})
	k.expect(resp, 200, "edit visibility")
	resp.Decode(t, &edited)
	if edited.Visibility != "limited" || !edited.RepoAdminChangeTeamAccess || edited.Location != "Mars" {
		t.Fatalf("edited org = %+v", edited)
	}
	k.expect(k.do("GET", "orgs/acme", "", nil), 404, "limited org, signed out")

	// Only owners edit and delete; a visible org answers 403, an invisible one 404.
	k.expectError(k.do("PATCH", "orgs/acme", bob.Token, map[string]any{"description": "pwned"}), 403, "Must be an organization owner", "stranger edits")
	k.expectError(k.do("DELETE", "orgs/acme", bob.Token, nil), 403, "Must be an organization owner", "stranger deletes")
	k.expect(k.do("PATCH", "orgs/acme", "", map[string]any{"description": "pwned"}), 401, "signed-out edit")
	k.createOrg(alice, "secretco", "private")
	k.expect(k.do("PATCH", "orgs/secretco", bob.Token, map[string]any{"description": "pwned"}), 404, "stranger edits private org")
	k.expect(k.do("DELETE", "orgs/secretco", bob.Token, nil), 404, "stranger deletes private org")
	// A site administrator may edit any organization.
	k.expect(k.do("PATCH", "orgs/secretco", s.AdminTok, map[string]any{"full_name": "Secret Co"}), 200, "admin edits")

	// Delete.
	if _, err := ac.DeleteOrg("acme"); err != nil {
		t.Fatal(err)
	}
	k.expect(k.do("GET", "orgs/acme", alice.Token, nil), 404, "deleted org")
	// The name is free again, for an organization or a user.
	k.createOrg(bob, "acme", "public")
}

func TestOrgCreateRights(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	alice := s.CreateUser("alice")
	rita := s.CreateUser("rita", "restricted")

	k.expectError(k.do("POST", "orgs", "", map[string]any{"username": "anon-org"}), 401, "token is required", "signed out")
	k.expect(k.do("POST", "orgs", rita.Token, map[string]any{"username": "rita-org"}), 403, "restricted user")

	// allow_create_organization=false forbids it.
	k.expect(k.do("PATCH", "admin/users/alice", s.AdminTok, map[string]any{"login_name": "alice", "source_id": 0, "allow_create_organization": false}), 200, "forbid org creation")
	k.expect(k.do("POST", "orgs", alice.Token, map[string]any{"username": "alice-org"}), 403, "not allowed")
	// An administrator can still create one for her.
	o, _, err := s.Admin.AdminCreateOrg("alice", gitea.CreateOrgOption{Name: "alice-org", Visibility: gitea.VisibleTypePrivate})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "alice-org" || o.Visibility != "private" {
		t.Fatalf("admin-created org = %+v", o)
	}
	// alice owns it.
	k.expect(k.do("GET", "orgs/alice-org/members/alice", alice.Token, nil), 204, "alice is a member")
	perm, _, err := s.Client(alice.Token).GetOrgPermissions("alice-org", "alice")
	if err != nil || !perm.IsOwner || !perm.IsAdmin || !perm.CanWrite || !perm.CanRead || !perm.CanCreateRepository {
		t.Fatalf("alice's permissions = %+v, %v", perm, err)
	}
	k.expect(k.do("PATCH", "orgs/alice-org", alice.Token, map[string]any{"description": "mine"}), 200, "owner edits")
	// The admin route is for administrators; unknown users are 404.
	k.expect(k.do("POST", "admin/users/alice/orgs", alice.Token, map[string]any{"username": "x-org"}), 403, "non-admin")
	k.expect(k.do("POST", "admin/users/nobody/orgs", s.AdminTok, map[string]any{"username": "x-org"}), 404, "unknown owner")
	k.expect(k.do("POST", "admin/users/alice-org/orgs", s.AdminTok, map[string]any{"username": "x-org"}), 422, "org as owner")

	// GET /admin/orgs lists every organization, private ones too.
	k.createOrg(s.CreateUser("bob"), "bob-org", "limited")
	orgs, resp, err := s.Admin.AdminListOrgs(gitea.AdminListOrgsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(orgs) != 2 || orgs[0].Name != "alice-org" || orgs[1].Name != "bob-org" || resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("admin orgs = %v (total %s)", orgs, resp.Header.Get("X-Total-Count"))
	}
	k.expect(k.do("GET", "admin/orgs", alice.Token, nil), 403, "non-admin lists all orgs")
	// Paging.
	resp2 := k.do("GET", "admin/orgs?limit=1&page=2", s.AdminTok, nil)
	k.expect(resp2, 200, "page 2")
	if n := k.names(resp2); len(n) != 1 || n[0] != "bob-org" || resp2.Header.Get("X-Total-Count") != "2" || resp2.Header.Get("Link") == "" {
		t.Fatalf("page 2 = %v, headers %v", n, resp2.Header)
	}
}

func TestOrgCreateBadInput(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	alice := s.CreateUser("alice")
	k.createOrg(alice, "taken", "public")
	before := k.orgCount()
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"malformed JSON", `{"username": "x1",`, "invalid JSON"},
		{"not an object", `["x1"]`, ""},
		{"empty body", ``, ""},
		{"wrong type", `{"username": 42}`, "[Username]"},
		{"wrong type of bool", `{"username": "x2", "repo_admin_change_team_access": "yes"}`, "RepoAdminChangeTeamAccess"},
		{"missing name", map[string]any{"full_name": "No Name"}, "[UserName]: Required"},
		{"blank name", map[string]any{"username": "  "}, "[UserName]: Required"},
		{"long name", map[string]any{"username": long(41)}, "[UserName]: MaxSize"},
		{"bad chars", map[string]any{"username": "bad name"}, "invalid"},
		{"leading dash", map[string]any{"username": "-bad"}, "invalid"},
		{"reserved", map[string]any{"username": "api"}, "reserved"},
		{"reserved pattern", map[string]any{"username": "x.keys"}, "not allowed"},
		{"unknown visibility", map[string]any{"username": "x3", "visibility": "secret"}, "[Visibility]"},
		{"duplicate org", map[string]any{"username": "taken"}, "already exists"},
		{"duplicate other case", map[string]any{"username": "TAKEN"}, "already exists"},
		{"duplicate user", map[string]any{"username": "alice"}, "already exists"},
		{"long full name", map[string]any{"username": "x4", "full_name": long(101)}, "[FullName]: MaxSize"},
		{"long description", map[string]any{"username": "x5", "description": long(256)}, "[Description]: MaxSize"},
		{"long location", map[string]any{"username": "x6", "location": long(51)}, "[Location]: MaxSize"},
		{"bad website", map[string]any{"username": "x7", "website": "not a url"}, "[Website]"},
		{"long website", map[string]any{"username": "x8", "website": "https://" + long(250) + ".example"}, "[Website]: MaxSize"},
		{"bad email", map[string]any{"username": "x9", "email": "not-an-email"}, "invalid"},
	}
	for _, c := range cases {
		k.expectError(k.do("POST", "orgs", alice.Token, c.body), 422, c.msg, c.name)
	}
	if after := k.orgCount(); after != before {
		t.Fatalf("bad input created organizations: %d before, %d after", before, after)
	}
	// Limits are in characters: 255 multi-byte characters are fine.
	resp := k.do("POST", "orgs", alice.Token, map[string]any{"username": "runes", "description": strings.Repeat("é", 255), "full_name": strings.Repeat("ü", 100)})
	k.expect(resp, 201, "multi-byte description")

	// Bad edits change nothing.
	orig := k.do("GET", "orgs/taken", alice.Token, nil).Body
	edits := []struct {
		name string
		body any
		msg  string
	}{
		{"malformed JSON", `{"description": `, "invalid JSON"},
		{"wrong type", `{"description": 5}`, "[Description]"},
		{"unknown visibility", map[string]any{"visibility": "hidden"}, "[Visibility]"},
		{"long description", map[string]any{"description": long(256)}, "[Description]: MaxSize"},
		{"long full name", map[string]any{"full_name": long(101)}, "[FullName]: MaxSize"},
		{"bad website", map[string]any{"website": "ftp://x"}, "[Website]"},
		{"long location", map[string]any{"location": long(51), "description": "changed"}, "[Location]: MaxSize"},
		{"bad email", map[string]any{"email": "nope", "description": "changed"}, "invalid"},
	}
	for _, c := range edits {
		k.expectError(k.do("PATCH", "orgs/taken", alice.Token, c.body), 422, c.msg, "edit: "+c.name)
	}
	if now := k.do("GET", "orgs/taken", alice.Token, nil).Body; string(now) != string(orig) {
		t.Fatalf("bad edits changed the org:\n%s\n%s", orig, now)
	}
}

func TestOrgMembership(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	member := s.CreateUser("member")
	stranger := s.CreateUser("stranger")
	k.createOrg(owner, "acme", "public")
	devs := k.createTeam(owner, "acme", map[string]any{"name": "devs", "permission": "write", "units": []string{"repo.code"}})
	k.addToTeam(owner, devs.ID, "member")

	// Member lists: members see everyone, others only public members; signed-out callers need a token.
	k.expect(k.do("GET", "orgs/acme/members", "", nil), 401, "signed-out member list")
	resp := k.do("GET", "orgs/acme/members", member.Token, nil)
	k.expect(resp, 200, "member list as member")
	if n := k.names(resp); len(n) != 2 || n[0] != "member" || n[1] != "owner" || resp.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("members as member = %v", n)
	}
	resp = k.do("GET", "orgs/acme/members", stranger.Token, nil)
	k.expect(resp, 200, "member list as stranger")
	if n := k.names(resp); len(n) != 0 || resp.Header.Get("X-Total-Count") != "0" {
		t.Fatalf("members as stranger = %v", n)
	}

	// Publicizing: only oneself, only as a member.
	mc := s.Client(member.Token)
	if _, err := mc.SetPublicOrgMembership("acme", "member", true); err != nil {
		t.Fatal(err)
	}
	k.expectError(k.do("PUT", "orgs/acme/public_members/owner", member.Token, nil), 403, "Cannot publicize another member", "publicize another")
	k.expectError(k.do("DELETE", "orgs/acme/public_members/owner", member.Token, nil), 403, "Cannot conceal another member", "conceal another")
	k.expectError(k.do("PUT", "orgs/acme/public_members/stranger", stranger.Token, nil), 403, "Must be an organization member", "non-member publicizes")
	k.expect(k.do("PUT", "orgs/acme/public_members/member", "", nil), 401, "signed-out publicize")
	k.expect(k.do("PUT", "orgs/acme/public_members/nobody", member.Token, nil), 404, "publicize unknown user")

	members, _, err := s.Client(stranger.Token).ListOrgMembership("acme", gitea.ListOrgMembershipOption{})
	if err != nil || len(members) != 1 || members[0].UserName != "member" {
		t.Fatalf("members as stranger after publicizing = %v, %v", members, err)
	}
	pub, _, err := s.Client("").ListPublicOrgMembership("acme", gitea.ListOrgMembershipOption{})
	if err != nil || len(pub) != 1 || pub[0].UserName != "member" {
		t.Fatalf("public members = %v, %v", pub, err)
	}
	k.expect(k.do("GET", "orgs/acme/public_members/member", "", nil), 204, "public member")
	k.expect(k.do("GET", "orgs/acme/public_members/owner", "", nil), 404, "concealed member")
	k.expect(k.do("GET", "orgs/acme/public_members/stranger", "", nil), 404, "non-member")
	k.expect(k.do("GET", "orgs/acme/public_members/nobody", "", nil), 404, "unknown user")

	// Membership checks.
	k.expect(k.do("GET", "orgs/acme/members/member", owner.Token, nil), 204, "owner checks member")
	k.expect(k.do("GET", "orgs/acme/members/owner", member.Token, nil), 204, "member checks owner")
	k.expect(k.do("GET", "orgs/acme/members/stranger", owner.Token, nil), 404, "owner checks non-member")
	k.expect(k.do("GET", "orgs/acme/members/nobody", owner.Token, nil), 404, "unknown user")
	k.expect(k.do("GET", "orgs/acme/members/member", "", nil), 401, "signed out")
	k.expect(k.do("GET", "orgs/acme/members/stranger", stranger.Token, nil), 404, "non-member checks himself")
	resp = k.do("GET", "orgs/acme/members/owner", stranger.Token, nil)
	k.expect(resp, 303, "non-member checks someone else")
	if loc := resp.Header.Get("Location"); loc != "/api/v1/orgs/acme/public_members/owner" {
		t.Fatalf("redirect to %q", loc)
	}
	// The SDK follows the redirect and gets the public answer.
	if ok, _, err := s.Client(stranger.Token).CheckOrgMembership("acme", "member"); err != nil || !ok {
		t.Fatalf("stranger's SDK check of member = %v, %v", ok, err)
	}
	if ok, _, err := s.Client(stranger.Token).CheckOrgMembership("acme", "owner"); err != nil || ok {
		t.Fatalf("stranger's SDK check of owner = %v, %v", ok, err)
	}
	// A site administrator who is not a member learns the truth.
	k.expect(k.do("GET", "orgs/acme/members/owner", s.AdminTok, nil), 204, "admin checks owner")
	k.expect(k.do("GET", "orgs/acme/members/stranger", s.AdminTok, nil), 404, "admin checks non-member")

	// /users/{u}/orgs: private memberships only for the user and administrators.
	for _, c := range []struct {
		who, tok string
		want     bool
	}{{"owner", owner.Token, true}, {"owner", s.AdminTok, true}, {"owner", stranger.Token, false}, {"owner", "", false},
		{"member", stranger.Token, true}, {"member", "", true}} {
		resp := k.do("GET", "users/"+c.who+"/orgs", c.tok, nil)
		k.expect(resp, 200, "orgs of "+c.who)
		if got := hasName(k.names(resp), "acme"); got != c.want {
			t.Fatalf("GET /users/%s/orgs lists acme = %v, want %v", c.who, got, c.want)
		}
	}
	myOrgs, _, err := s.Client(owner.Token).ListMyOrgs(gitea.ListOrgsOptions{})
	if err != nil || len(myOrgs) != 1 || myOrgs[0].Name != "acme" {
		t.Fatalf("owner's /user/orgs = %v, %v", myOrgs, err)
	}

	// Permissions.
	perm, _, err := s.Client(stranger.Token).GetOrgPermissions("acme", "member")
	if err != nil || perm.IsOwner || perm.IsAdmin || !perm.CanWrite || !perm.CanRead || perm.CanCreateRepository {
		t.Fatalf("member's permissions = %+v, %v", perm, err)
	}
	perm, _, err = s.Client(stranger.Token).GetOrgPermissions("acme", "stranger")
	if err != nil || perm.IsOwner || perm.IsAdmin || perm.CanWrite || perm.CanRead || perm.CanCreateRepository {
		t.Fatalf("stranger's permissions = %+v, %v", perm, err)
	}
	// A site administrator who is in no team has no team permissions.
	perm, _, err = s.Client(owner.Token).GetOrgPermissions("acme", "root")
	if err != nil || perm.IsOwner || perm.CanRead {
		t.Fatalf("root's permissions = %+v, %v", perm, err)
	}
	k.expect(k.do("GET", "users/member/orgs/nosuch/permissions", owner.Token, nil), 404, "unknown org")
	k.expect(k.do("GET", "users/nobody/orgs/acme/permissions", owner.Token, nil), 404, "unknown user")

	// Concealing again.
	if _, err := mc.SetPublicOrgMembership("acme", "member", false); err != nil {
		t.Fatal(err)
	}
	k.expect(k.do("GET", "orgs/acme/public_members/member", "", nil), 404, "concealed again")

	// Removing members: owners only; the last owner stays.
	k.expectError(k.do("DELETE", "orgs/acme/members/owner", member.Token, nil), 403, "Must be an organization owner", "member removes owner")
	k.expect(k.do("DELETE", "orgs/acme/members/owner", "", nil), 401, "signed out removes")
	k.expectError(k.do("DELETE", "orgs/acme/members/owner", owner.Token, nil), 422, "last member of owner team", "last owner leaves")
	k.expect(k.do("GET", "orgs/acme/members/owner", owner.Token, nil), 204, "owner is still a member")
	k.expect(k.do("DELETE", "orgs/acme/members/stranger", owner.Token, nil), 204, "removing a non-member")
	k.expect(k.do("DELETE", "orgs/acme/members/nobody", owner.Token, nil), 404, "removing an unknown user")
	if _, err := s.Client(owner.Token).DeleteOrgMembership("acme", "member"); err != nil {
		t.Fatal(err)
	}
	k.expect(k.do("GET", "orgs/acme/members/member", owner.Token, nil), 404, "removed member")
	k.expect(k.do("GET", fmt.Sprintf("teams/%d/members/member", devs.ID), owner.Token, nil), 404, "removed from teams too")
	teams, _, err := mc.ListMyTeams(&gitea.ListTeamsOptions{})
	if err != nil || len(teams) != 0 {
		t.Fatalf("removed member's teams = %v, %v", teams, err)
	}
}

func TestOrgTokenScopes(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	k.createOrg(owner, "pubco", "public")
	k.createOrg(owner, "privco", "private")
	stranger := s.CreateUser("stranger")

	userOnly := s.CreateToken("owner", owner.Password, "user-only", "read:user")
	k.expectError(k.do("GET", "user/orgs", userOnly, nil), 403, "required=[read:user read:organization]", "user scope only on /user/orgs")
	k.expectError(k.do("GET", "orgs/pubco", userOnly, nil), 403, "required=[read:organization]", "user scope only on /orgs/{org}")
	readOrg := s.CreateToken("owner", owner.Password, "read-org", "read:organization", "read:user")
	k.expect(k.do("GET", "user/orgs", readOrg, nil), 200, "read scopes")
	k.expectError(k.do("PATCH", "orgs/pubco", readOrg, map[string]any{"description": "x"}), 403, "required=[write:organization]", "read scope writes")

	// A public-only token sees only public organizations.
	pubOnly := s.CreateToken("owner", owner.Password, "public-only", "public-only", "read:organization", "read:user")
	k.expect(k.do("GET", "orgs/pubco", pubOnly, nil), 200, "public org with public-only token")
	k.expectError(k.do("GET", "orgs/privco", pubOnly, nil), 403, "token scope is limited to public orgs", "private org with public-only token")
	resp := k.do("GET", "orgs", pubOnly, nil)
	if n := k.names(resp); len(n) != 1 || n[0] != "pubco" {
		t.Fatalf("public-only /orgs = %v", n)
	}
	resp = k.do("GET", "user/orgs", pubOnly, nil)
	if n := k.names(resp); len(n) != 1 || n[0] != "pubco" {
		t.Fatalf("public-only /user/orgs = %v", n)
	}
	resp = k.do("GET", "user/teams", pubOnly, nil)
	var teams []gitea.Team
	resp.Decode(t, &teams)
	if len(teams) != 1 || teams[0].Organization == nil || teams[0].Organization.Name != "pubco" || resp.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("public-only /user/teams = %s", resp.Body)
	}
	owners := k.teamByName(owner, "privco", "Owners")
	k.expectError(k.do("GET", fmt.Sprintf("teams/%d", owners.ID), pubOnly, nil), 403, "token scope is limited to public orgs", "private team with public-only token")
	// Someone who could not see it anyway gets 404.
	strangerPub := s.CreateToken("stranger", stranger.Password, "public-only", "public-only", "read:organization")
	k.expect(k.do("GET", "orgs/privco", strangerPub, nil), 404, "stranger's public-only token")
}

func TestOrgRestrictedUser(t *testing.T) {
	s := StartServer(t)
	k := newOrgKit(t, s)
	owner := s.CreateUser("owner")
	rita := s.CreateUser("rita", "restricted")
	k.createOrg(owner, "pubco", "public")
	k.createOrg(owner, "limco", "limited")
	k.createOrg(owner, "privco", "private")
	devs := k.createTeam(owner, "privco", map[string]any{"name": "devs", "permission": "read", "units": []string{"repo.code"}})
	k.addToTeam(owner, devs.ID, "rita")

	// A restricted user sees only the organizations she belongs to.
	k.expect(k.do("GET", "orgs/pubco", rita.Token, nil), 404, "public org")
	k.expect(k.do("GET", "orgs/limco", rita.Token, nil), 404, "limited org")
	k.expect(k.do("GET", "orgs/privco", rita.Token, nil), 200, "her private org")
	resp := k.do("GET", "orgs", rita.Token, nil)
	if n := k.names(resp); len(n) != 1 || n[0] != "privco" || resp.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("restricted /orgs = %v", n)
	}
	resp = k.do("GET", "users/owner/orgs", rita.Token, nil)
	if n := k.names(resp); len(n) != 0 {
		t.Fatalf("restricted /users/owner/orgs = %v", n)
	}
	tm := k.getTeam(rita.Token, devs.ID)
	if tm.Organization == nil || tm.Organization.Name != "privco" {
		t.Fatalf("team as rita = %+v", tm)
	}
	k.expect(k.do("GET", "orgs/privco/teams", rita.Token, nil), 200, "teams of her org")
}
