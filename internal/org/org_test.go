package org

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/password"
	"github.com/cairn-forge/cairn/internal/user"
)

type env struct {
	ctx   context.Context
	db    *db.DB
	users *user.Service
	orgs  *Service
}

func setup(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	users := user.NewService(d, user.Options{PasswordParams: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}})
	orgs := NewService(d, users)
	users.AddDeleteHook(orgs.UserDeleteHook())
	return &env{ctx: ctx, db: d, users: users, orgs: orgs}
}

func (e *env) user(t *testing.T, name string) *user.User {
	t.Helper()
	u, err := e.users.Create(e.ctx, user.CreateOptions{Name: name, Email: name + "@example.org", Password: "secret-pw", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (e *env) org(t *testing.T, doer *user.User, name string, vis user.Visibility) *user.User {
	t.Helper()
	o, err := e.orgs.Create(e.ctx, doer, CreateOptions{Name: name, Visibility: vis})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func (e *env) owners(t *testing.T, org *user.User) *Team {
	t.Helper()
	team, err := e.orgs.GetOwnerTeam(e.ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	return team
}

// wantErr checks that err is a domain error of kind k answered with status
// (0: the kind's) whose message contains text.
func wantErr(t *testing.T, err error, k errs.Kind, status int, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %q", text)
	}
	e, ok := err.(*errs.Error)
	if !ok {
		t.Fatalf("got %T %v, want *errs.Error", err, err)
	}
	if e.Kind != k || e.Status != status || !strings.Contains(e.Message, text) {
		t.Fatalf("got kind %d status %d %q, want kind %d status %d containing %q", e.Kind, e.Status, e.Message, k, status, text)
	}
}

func names(list []*user.User) []string {
	var out []string
	for _, u := range list {
		out = append(out, u.Name)
	}
	return out
}

func counted(ctx context.Context) (context.Context, *atomic.Int64) {
	n := &atomic.Int64{}
	return db.WithQueryCounter(ctx, n), n
}

func TestCreateOrg(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	o, err := e.orgs.Create(e.ctx, alice, CreateOptions{Name: "Acme", FullName: "Acme Inc.", Email: "info@acme.test",
		Website: "https://acme.test", Location: "Earth", Description: "we make things", Visibility: user.VisibilityLimited,
		RepoAdminChangeTeamAccess: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.orgs.GetByName(e.ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != o.ID || !got.IsOrganization() || got.FullName != "Acme Inc." || got.Email != "info@acme.test" ||
		got.Visibility != user.VisibilityLimited || !got.RepoAdminChangeTeamAccess || got.Website != "https://acme.test" {
		t.Fatalf("stored org = %+v", got)
	}
	if _, err := e.orgs.GetByName(e.ctx, "alice"); !errs.IsNotFound(err) {
		t.Fatalf("GetByName(user) = %v, want not found", err)
	}
	if _, err := e.orgs.GetByID(e.ctx, o.ID); err != nil {
		t.Fatal(err)
	}

	team := e.owners(t, o)
	if team.Name != OwnerTeamName || team.Authorize != access.ModeOwner || !team.IncludesAllRepositories ||
		!team.CanCreateOrgRepo || team.NumMembers != 1 || !team.IsOwnerTeam() {
		t.Fatalf("owners team = %+v", team)
	}
	if len(team.Units) != len(UnitKeys()) {
		t.Fatalf("owners units = %v", team.Units)
	}
	for _, k := range UnitKeys() {
		if team.Units[k] != access.ModeOwner {
			t.Fatalf("owners unit %s = %v", k, team.Units[k])
		}
	}
	if !slices.Equal(team.UnitNames(), UnitKeys()) {
		t.Fatalf("UnitNames = %v", team.UnitNames())
	}
	for _, check := range []func(context.Context, int64, int64) (bool, error){
		e.orgs.IsMember, access.NewChecker(e.db).IsOrgOwner,
	} {
		if ok, err := check(e.ctx, o.ID, alice.ID); err != nil || !ok {
			t.Fatalf("membership check = %v, %v", ok, err)
		}
	}
	if ok, _ := e.orgs.IsPublicMember(e.ctx, o.ID, alice.ID); ok {
		t.Fatal("membership of the creator is public by default")
	}
	if ok, _ := e.orgs.IsTeamMember(e.ctx, team.ID, alice.ID); !ok {
		t.Fatal("creator is not in the Owners team")
	}
}

func TestCreateOrgValidation(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	e.org(t, alice, "taken", user.VisibilityPublic)
	cases := []struct {
		name string
		o    CreateOptions
		k    errs.Kind
		st   int
		text string
	}{
		{"duplicate org", CreateOptions{Name: "Taken"}, errs.KindAlreadyExists, http.StatusUnprocessableEntity, "user already exists [name: Taken]"},
		{"duplicate user", CreateOptions{Name: "ALICE"}, errs.KindAlreadyExists, http.StatusUnprocessableEntity, "user already exists [name: ALICE]"},
		{"empty name", CreateOptions{Name: ""}, errs.KindInvalid, 0, "organization name is empty"},
		{"bad chars", CreateOptions{Name: "a b"}, errs.KindInvalid, 0, "organization name"},
		{"reserved", CreateOptions{Name: "api"}, errs.KindInvalid, 0, "reserved"},
		{"too long", CreateOptions{Name: strings.Repeat("x", 41)}, errs.KindInvalid, 0, "too long"},
		{"bad email", CreateOptions{Name: "ok1", Email: "nope"}, errs.KindInvalid, 0, "e-mail"},
		{"bad website", CreateOptions{Name: "ok2", Website: "ftp://x"}, errs.KindInvalid, 0, "website"},
		{"bad visibility", CreateOptions{Name: "ok3", Visibility: 7}, errs.KindInvalid, 0, "visibility"},
		{"long location", CreateOptions{Name: "ok4", Location: strings.Repeat("l", 51)}, errs.KindInvalid, 0, "location"},
		{"long full name", CreateOptions{Name: "ok5", FullName: strings.Repeat("ü", 101)}, errs.KindInvalid, 0, "full name"},
		{"long description", CreateOptions{Name: "ok6", Description: strings.Repeat("é", 256)}, errs.KindInvalid, 0, "description"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.orgs.Create(e.ctx, alice, c.o)
			wantErr(t, err, c.k, c.st, c.text)
		})
	}
	// Empty e-mail is fine; an organization cannot create organizations.
	o, err := e.orgs.Create(e.ctx, alice, CreateOptions{Name: "noemail"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.orgs.Create(e.ctx, o, CreateOptions{Name: "child"}); err == nil {
		t.Fatal("an organization created an organization")
	}
	// Limits count characters, not bytes.
	if _, err := e.orgs.Create(e.ctx, alice, CreateOptions{Name: "runes", FullName: strings.Repeat("ü", 100),
		Description: strings.Repeat("é", 255), Location: strings.Repeat("ö", 50)}); err != nil {
		t.Fatal(err)
	}
	// Nothing was left behind by the failed attempts.
	_, total, err := e.orgs.SearchOrgs(e.ctx, "", nil, 0, 0)
	if err != nil || total != 3 {
		t.Fatalf("orgs = %d, %v; want 3", total, err)
	}
}

func TestEditOrg(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	o, err := e.orgs.Create(e.ctx, alice, CreateOptions{Name: "acme", FullName: "Acme", Location: "Here", Email: "a@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	desc, priv, yes := "new description", user.VisibilityPrivate, true
	got, err := e.orgs.Edit(e.ctx, o, EditOptions{Description: &desc, Visibility: &priv, RepoAdminChangeTeamAccess: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if got.Description != desc || got.Visibility != priv || !got.RepoAdminChangeTeamAccess ||
		got.FullName != "Acme" || got.Location != "Here" || got.Email != "a@acme.test" {
		t.Fatalf("edited = %+v", got)
	}
	if o.Description != "" {
		t.Fatal("Edit modified its argument")
	}
	stored, _ := e.orgs.GetByName(e.ctx, "acme")
	if stored.Description != desc || stored.Visibility != priv || stored.FullName != "Acme" {
		t.Fatalf("stored = %+v", stored)
	}
	empty := ""
	if got, err = e.orgs.Edit(e.ctx, stored, EditOptions{Email: &empty}); err != nil || got.Email != "" {
		t.Fatalf("clearing e-mail = %v, %v", got, err)
	}
	bad := "not-an-email"
	_, err = e.orgs.Edit(e.ctx, stored, EditOptions{Email: &bad})
	wantErr(t, err, errs.KindInvalid, 0, "e-mail")
	if _, err := e.orgs.Edit(e.ctx, alice, EditOptions{}); err == nil {
		t.Fatal("Edit accepted a user")
	}
}

type fakeRepos map[int64]int64

func (f fakeRepos) CountOwnedRepos(_ context.Context, ownerID int64) (int64, error) {
	return f[ownerID], nil
}

func TestDeleteOrg(t *testing.T) {
	e := setup(t)
	alice, bob := e.user(t, "alice"), e.user(t, "bob")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	other := e.org(t, alice, "other", user.VisibilityPublic)
	dev, err := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "dev", Permission: access.ModeWrite, Units: []string{UnitCode}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.orgs.AddTeamMember(e.ctx, dev, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.orgs.AddTeamRepo(e.ctx, dev, 42); err != nil {
		t.Fatal(err)
	}

	repos := fakeRepos{o.ID: 2}
	e.orgs.SetRepoCounter(repos)
	wantErr(t, e.orgs.Delete(e.ctx, o), errs.KindInvalid, 0, "organization still has ownership of repositories")
	if _, err := e.orgs.GetByID(e.ctx, o.ID); err != nil {
		t.Fatal("refused deletion deleted the org")
	}
	repos[o.ID] = 0
	if err := e.orgs.Delete(e.ctx, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.orgs.GetByID(e.ctx, o.ID); !errs.IsNotFound(err) {
		t.Fatalf("deleted org still loads: %v", err)
	}
	for _, table := range []string{"team", "team_user", "team_repo", "org_user"} {
		n, err := e.db.Count(e.ctx, "SELECT COUNT(*) FROM "+table+" WHERE org_id = ?", o.ID)
		if err != nil || n != 0 {
			t.Fatalf("%s rows left: %d, %v", table, n, err)
		}
	}
	// The other organization is untouched.
	if ok, _ := e.orgs.IsMember(e.ctx, other.ID, alice.ID); !ok {
		t.Fatal("deleting one org removed membership of another")
	}
	if err := e.orgs.Delete(e.ctx, alice); err == nil {
		t.Fatal("Delete accepted a user")
	}
}

func TestMembers(t *testing.T) {
	e := setup(t)
	alice := e.user(t, "alice")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	dev, err := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "dev", Permission: access.ModeRead, Units: []string{UnitCode}})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	all = append(all, "alice")
	for i := range 6 {
		u := e.user(t, fmt.Sprintf("m%d", i))
		all = append(all, u.Name)
		if err := e.orgs.AddTeamMember(e.ctx, dev, u.ID); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := e.orgs.SetPublicMembership(e.ctx, o, u.ID, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, n := counted(e.ctx)
	list, total, err := e.orgs.ListMembers(ctx, o, false, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if total != 7 || !slices.Equal(names(list), all[2:5]) {
		t.Fatalf("page = %v total %d", names(list), total)
	}
	if n.Load() != 2 {
		t.Fatalf("ListMembers ran %d queries, want 2", n.Load())
	}
	list, total, err = e.orgs.ListMembers(e.ctx, o, true, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || !slices.Equal(names(list), []string{"m0", "m2", "m4"}) {
		t.Fatalf("public members = %v total %d", names(list), total)
	}
	m0 := list[0]
	if ok, _ := e.orgs.IsPublicMember(e.ctx, o.ID, m0.ID); !ok {
		t.Fatal("m0 is not a public member")
	}
	if err := e.orgs.SetPublicMembership(e.ctx, o, m0.ID, false); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.orgs.IsPublicMember(e.ctx, o.ID, m0.ID); ok {
		t.Fatal("concealed membership is still public")
	}
	outsider := e.user(t, "outsider")
	if err := e.orgs.SetPublicMembership(e.ctx, o, outsider.ID, true); !errs.IsNotFound(err) {
		t.Fatalf("publicizing a non-member = %v, want not found", err)
	}

	// RemoveMember drops every team membership and the org membership; a non-member is a no-op.
	if err := e.orgs.RemoveMember(e.ctx, o, m0.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.orgs.IsTeamMember(e.ctx, dev.ID, m0.ID); ok {
		t.Fatal("removed member is still in the team")
	}
	if ok, _ := e.orgs.IsMember(e.ctx, o.ID, m0.ID); ok {
		t.Fatal("removed member is still a member")
	}
	if err := e.orgs.RemoveMember(e.ctx, o, outsider.ID); err != nil {
		t.Fatalf("removing a non-member = %v", err)
	}
	_, total, _ = e.orgs.ListMembers(e.ctx, o, false, 0, 0)
	if total != 6 {
		t.Fatalf("members after removal = %d", total)
	}
}

func TestLastOwnerProtections(t *testing.T) {
	e := setup(t)
	alice, bob := e.user(t, "alice"), e.user(t, "bob")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	owners := e.owners(t, o)

	wantErr(t, e.orgs.RemoveMember(e.ctx, o, alice.ID), errs.KindInvalid, 0, "last member of owner team")
	wantErr(t, e.orgs.RemoveTeamMember(e.ctx, owners, alice.ID), errs.KindInvalid, 0, "last member of owner team")
	wantErr(t, e.orgs.DeleteTeam(e.ctx, owners), errs.KindInvalid, 0, "cannot be deleted")
	if ok, _ := e.orgs.IsTeamMember(e.ctx, owners.ID, alice.ID); !ok {
		t.Fatal("refused removal removed the owner")
	}

	if err := e.orgs.AddTeamMember(e.ctx, owners, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.orgs.RemoveTeamMember(e.ctx, owners, alice.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.orgs.IsMember(e.ctx, o.ID, alice.ID); ok {
		t.Fatal("alice left her last team but is still a member")
	}
	wantErr(t, e.orgs.RemoveMember(e.ctx, o, bob.ID), errs.KindInvalid, 0, "last member of owner team")
}

func TestTeamMembership(t *testing.T) {
	e := setup(t)
	alice, bob := e.user(t, "alice"), e.user(t, "bob")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	a, _ := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "a", Permission: access.ModeRead, Units: []string{UnitCode}})
	b, _ := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "b", Permission: access.ModeRead, Units: []string{UnitCode}})

	for range 2 { // idempotent
		if err := e.orgs.AddTeamMember(e.ctx, a, bob.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.orgs.AddTeamMember(e.ctx, b, bob.ID); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.db.Count(e.ctx, "SELECT COUNT(*) FROM org_user WHERE org_id = ? AND uid = ?", o.ID, bob.ID); n != 1 {
		t.Fatalf("org_user rows for bob = %d", n)
	}
	if err := e.orgs.AddTeamMember(e.ctx, a, o.ID); !errs.IsNotFound(err) {
		t.Fatalf("adding an org to a team = %v", err)
	}
	if err := e.orgs.AddTeamMember(e.ctx, a, 9999); !errs.IsNotFound(err) {
		t.Fatalf("adding an unknown user = %v", err)
	}
	list, total, err := e.orgs.ListTeamMembers(e.ctx, a, 10, 0)
	if err != nil || total != 1 || len(list) != 1 || list[0].ID != bob.ID {
		t.Fatalf("team members = %v %d %v", names(list), total, err)
	}
	if ta, _ := e.orgs.GetTeam(e.ctx, a.ID); ta.NumMembers != 1 {
		t.Fatalf("NumMembers = %d", ta.NumMembers)
	}

	if err := e.orgs.RemoveTeamMember(e.ctx, a, bob.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.orgs.IsMember(e.ctx, o.ID, bob.ID); !ok {
		t.Fatal("bob is still in team b but lost org membership")
	}
	if err := e.orgs.RemoveTeamMember(e.ctx, a, bob.ID); err != nil {
		t.Fatalf("removing a non-member = %v", err)
	}
	if err := e.orgs.RemoveTeamMember(e.ctx, b, bob.ID); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.orgs.IsMember(e.ctx, o.ID, bob.ID); ok {
		t.Fatal("bob left his last team but is still a member")
	}

	// Deleting a team ends the membership of those in no other team.
	carol := e.user(t, "carol")
	for _, team := range []*Team{a, b} {
		if err := e.orgs.AddTeamMember(e.ctx, team, carol.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.orgs.AddTeamMember(e.ctx, a, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.orgs.DeleteTeam(e.ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := e.orgs.GetTeam(e.ctx, a.ID); !errs.IsNotFound(err) {
		t.Fatalf("deleted team loads: %v", err)
	}
	if ok, _ := e.orgs.IsMember(e.ctx, o.ID, bob.ID); ok {
		t.Fatal("bob is still a member after his only team was deleted")
	}
	if ok, _ := e.orgs.IsMember(e.ctx, o.ID, carol.ID); !ok {
		t.Fatal("carol lost membership though she is in team b")
	}
}

func TestListUserOrgsAndSearch(t *testing.T) {
	e := setup(t)
	alice, bob := e.user(t, "alice"), e.user(t, "bob")
	pub := e.org(t, alice, "pub", user.VisibilityPublic)
	lim := e.org(t, alice, "lim", user.VisibilityLimited)
	priv := e.org(t, alice, "priv", user.VisibilityPrivate)
	e.org(t, bob, "bobs", user.VisibilityPrivate)
	for _, o := range []*user.User{pub, lim, priv} {
		if o != lim {
			if err := e.orgs.SetPublicMembership(e.ctx, o, alice.ID, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name           string
		viewer         *user.User
		includePrivate bool
		want           []string
	}{
		{"self", alice, true, []string{"lim", "priv", "pub"}},
		{"admin view", &user.User{ID: 999, IsAdmin: true}, true, []string{"lim", "priv", "pub"}},
		{"anonymous", nil, false, []string{"pub"}},
		{"other user", bob, false, []string{"pub"}},
		{"other user, no cond", bob, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cond, args := access.OrgCond(c.viewer)
			if c.name == "other user, no cond" {
				cond, args = "", nil
				c.want = []string{"priv", "pub"} // public memberships, no visibility filter
			}
			list, total, err := e.orgs.ListUserOrgs(e.ctx, alice.ID, c.includePrivate, cond, args, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(list), c.want) || total != int64(len(c.want)) {
				t.Fatalf("orgs = %v total %d, want %v", names(list), total, c.want)
			}
		})
	}
	// Paging keeps the total.
	list, total, err := e.orgs.ListUserOrgs(e.ctx, alice.ID, true, "", nil, 1, 1)
	if err != nil || total != 3 || !slices.Equal(names(list), []string{"priv"}) {
		t.Fatalf("page = %v %d %v", names(list), total, err)
	}

	search := []struct {
		viewer *user.User
		want   []string
	}{
		{nil, []string{"pub"}},
		{bob, []string{"bobs", "lim", "pub"}},
		{&user.User{ID: 999, IsAdmin: true}, []string{"bobs", "lim", "priv", "pub"}},
	}
	for _, c := range search {
		cond, args := access.OrgCond(c.viewer)
		ctx, n := counted(e.ctx)
		list, total, err := e.orgs.SearchOrgs(ctx, cond, args, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(names(list), c.want) || total != int64(len(c.want)) {
			t.Fatalf("SearchOrgs = %v total %d, want %v", names(list), total, c.want)
		}
		if n.Load() != 2 {
			t.Fatalf("SearchOrgs ran %d queries", n.Load())
		}
	}
}

func TestUserDeleteHook(t *testing.T) {
	e := setup(t)
	admin, err := e.users.Create(e.ctx, user.CreateOptions{Name: "root", Email: "root@example.org", Password: "secret-pw", IsAdmin: true, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = admin
	alice, bob := e.user(t, "alice"), e.user(t, "bob")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	e.org(t, alice, "beta", user.VisibilityPublic)

	wantErr(t, e.users.Delete(e.ctx, alice, false), errs.KindInvalid, 0, fmt.Sprintf("user still has membership of organizations [uid: %d, count: 2]", alice.ID))
	// Without a repository purger, organizations alice alone owns block the purge.
	wantErr(t, e.users.Delete(e.ctx, alice, true), errs.KindInvalid, 0, "last owner of organization acme, beta")

	owners := e.owners(t, o)
	if err := e.orgs.AddTeamMember(e.ctx, owners, bob.ID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, e.users.Delete(e.ctx, alice, true), errs.KindInvalid, 0, "last owner of organization beta")
	if n, _ := e.db.Count(e.ctx, "SELECT COUNT(*) FROM team_user WHERE uid = ?", alice.ID); n != 2 {
		t.Fatalf("refused purge removed memberships: %d left", n)
	}
	// With one, purging alice deletes beta (she alone owns it) and keeps acme.
	purged := &fakePurger{}
	e.orgs.SetRepoCounter(purged)
	if err := e.users.Delete(e.ctx, alice, true); err != nil {
		t.Fatal(err)
	}
	if len(purged.owners) != 1 {
		t.Fatalf("repositories purged for %v, want only beta's", purged.owners)
	}
	if _, err := e.orgs.GetByName(e.ctx, "beta"); !errs.IsNotFound(err) {
		t.Fatalf("beta survived the purge of its only owner: %v", err)
	}
	if _, err := e.orgs.GetByName(e.ctx, "acme"); err != nil {
		t.Fatalf("acme, which bob also owns, is gone: %v", err)
	}
	alice = e.user(t, "alice")
	// bob is only in acme's Owners team, with alice: purging him is fine.
	if err := e.users.Delete(e.ctx, bob, true); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.orgs.IsMember(e.ctx, o.ID, bob.ID); ok {
		t.Fatal("purged user is still a member")
	}
	// A user in no organization is deleted without purge.
	carol := e.user(t, "carol")
	if err := e.users.Delete(e.ctx, carol, false); err != nil {
		t.Fatal(err)
	}
}

// fakePurger records which owners' repositories were purged.
type fakePurger struct{ owners []int64 }

func (f *fakePurger) CountOwnedRepos(ctx context.Context, ownerID int64) (int64, error) {
	return 0, nil
}

func (f *fakePurger) PurgeOwnedRepos(ctx context.Context, ownerID int64) error {
	f.owners = append(f.owners, ownerID)
	return nil
}
