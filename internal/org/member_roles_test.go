package org

import (
	"testing"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/user"
)

// TestMemberRoles: owners and public memberships are told apart; people
// who are not members are left out.
func TestMemberRoles(t *testing.T) {
	e := setup(t)
	alice, bob, carol := e.user(t, "alice"), e.user(t, "bob"), e.user(t, "carol")
	o := e.org(t, alice, "acme", user.VisibilityPublic)
	devs, err := e.orgs.CreateTeam(e.ctx, o, CreateTeamOptions{Name: "devs", Permission: access.ModeWrite, Units: []string{UnitCode}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.orgs.AddTeamMember(e.ctx, devs, bob.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.orgs.SetPublicMembership(e.ctx, o, bob.ID, true); err != nil {
		t.Fatal(err)
	}
	got, err := e.orgs.MemberRoles(e.ctx, o.ID, []int64{alice.ID, bob.ID, carol.ID})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]MemberRole{alice.ID: {Owner: true}, bob.ID: {Public: true}}
	if len(got) != len(want) || got[alice.ID] != want[alice.ID] || got[bob.ID] != want[bob.ID] {
		t.Fatalf("roles = %+v, want %+v", got, want)
	}
	if none, err := e.orgs.MemberRoles(e.ctx, o.ID, nil); err != nil || len(none) != 0 {
		t.Fatalf("no ids: %v %v", none, err)
	}
}
