package e2e

import (
	"strconv"
	"testing"

	"code.gitea.io/sdk/gitea"
)

func TestTransferAcceptReject(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob, carol, dave := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol"), s.CreateUser("dave")
	k.repo(alice, "proj", true, true)
	k.repo(alice, "dup", false, false)
	k.repo(bob, "dup", false, false)

	// Bad requests.
	k.want(k.do("POST", "repos/alice/proj/transfer", alice.Token, map[string]any{"new_owner": "nobody"}), 404, "new owner does not exist", "unknown new owner")
	k.want(k.do("POST", "repos/alice/proj/transfer", alice.Token, map[string]any{}), 422, "NewOwner", "no new owner")
	k.want(k.do("POST", "repos/alice/proj/transfer", alice.Token, map[string]any{"new_owner": "bob", "team_ids": []int64{1}}), 422, "organization", "teams for a user")
	k.want(k.do("POST", "repos/alice/dup/transfer", alice.Token, map[string]any{"new_owner": "bob"}), 422, "already exists", "name taken at recipient")
	k.want(k.do("PUT", "repos/alice/proj/collaborators/carol", alice.Token, map[string]any{"permission": "admin"}), 204, "", "carol admin")
	k.want(k.do("POST", "repos/alice/proj/transfer", carol.Token, map[string]any{"new_owner": "carol"}), 403, "", "repo admin is not the owner")

	// To another user: pending until bob accepts.
	resp := k.do("POST", "repos/alice/proj/transfer", alice.Token, map[string]any{"new_owner": "bob"})
	k.want(resp, 201, "", "start transfer")
	var pending struct {
		FullName     string `json:"full_name"`
		RepoTransfer *struct {
			Doer      struct{ Login string } `json:"doer"`
			Recipient struct{ Login string } `json:"recipient"`
		} `json:"repo_transfer"`
	}
	resp.Decode(t, &pending)
	if pending.FullName != "alice/proj" || pending.RepoTransfer == nil || pending.RepoTransfer.Doer.Login != "alice" || pending.RepoTransfer.Recipient.Login != "bob" {
		t.Fatalf("pending transfer answer: %s", resp.Body)
	}
	k.want(k.do("POST", "repos/alice/proj/transfer", alice.Token, map[string]any{"new_owner": "carol"}), 409, "", "second transfer")
	k.want(k.do("POST", "repos/alice/proj/transfer/accept", dave.Token, nil), 404, "", "stranger accepts")
	k.want(k.do("POST", "repos/alice/proj/transfer/accept", carol.Token, nil), 403, "", "collaborator accepts")
	k.want(k.do("POST", "repos/alice/proj/transfer/accept", "", nil), 401, "", "signed-out accept")
	repo, _, err := s.Client(bob.Token).AcceptRepoTransfer("alice", "proj")
	if err != nil || repo.FullName != "bob/proj" {
		t.Fatalf("accept: %+v %v", repo, err)
	}
	if st, _ := k.get(bob.Token, "bob/proj"); st != 200 {
		t.Fatalf("new owner GET: %d", st)
	}
	if st, _ := k.get(alice.Token, "alice/proj"); st != 404 {
		t.Fatalf("old name still answers: %d", st)
	}
	if st, _ := k.get(alice.Token, "bob/proj"); st != 404 {
		t.Fatalf("old owner still sees the private repository: %d", st)
	}
	if _, ok := k.clone(bob, "bob/proj"); !ok {
		t.Fatal("new owner cannot clone")
	}
	k.want(k.do("POST", "repos/bob/proj/transfer/accept", bob.Token, nil), 404, "", "accept again")

	// Rejected: nothing moves.
	k.want(k.do("POST", "repos/bob/proj/transfer", bob.Token, map[string]any{"new_owner": "carol"}), 201, "", "offer to carol")
	k.want(k.do("POST", "repos/bob/proj/transfer/reject", carol.Token, nil), 200, "", "carol rejects")
	k.want(k.do("POST", "repos/bob/proj/transfer/accept", carol.Token, nil), 404, "", "accept after reject")
	if st, _ := k.get(bob.Token, "bob/proj"); st != 200 {
		t.Fatalf("rejected transfer moved the repository: %d", st)
	}
	// The same offer can be made again after a rejection.
	k.want(k.do("POST", "repos/bob/proj/transfer", bob.Token, map[string]any{"new_owner": "carol"}), 201, "", "offer again")
	if _, _, err := s.Client(carol.Token).RejectRepoTransfer("bob", "proj"); err != nil {
		t.Fatal(err)
	}

	// A site admin moves a repository at once.
	resp = k.do("POST", "repos/bob/proj/transfer", s.AdminTok, map[string]any{"new_owner": "dave"})
	k.want(resp, 202, "", "admin transfer")
	if st, _ := k.get(dave.Token, "dave/proj"); st != 200 {
		t.Fatalf("admin transfer: %d", st)
	}
}

func TestTransferToOrganization(t *testing.T) {
	s := StartServer(t)
	k := newRelKit(t, s)
	alice, bob, carol := s.CreateUser("alice"), s.CreateUser("bob"), s.CreateUser("carol")
	k.want(k.do("POST", "orgs", alice.Token, map[string]any{"username": "acme"}), 201, "", "create org")
	var team struct {
		ID int64 `json:"id"`
	}
	resp := k.do("POST", "orgs/acme/teams", alice.Token, map[string]any{"name": "readers", "permission": "read",
		"units": []string{"repo.code"}, "includes_all_repositories": false})
	k.want(resp, 201, "", "create team")
	resp.Decode(t, &team)
	k.want(k.do("PUT", "teams/"+strconv.FormatInt(team.ID, 10)+"/members/carol", alice.Token, nil), 204, "", "carol joins readers")
	k.want(k.do("PUT", "teams/"+strconv.FormatInt(team.ID, 10)+"/members/bob", alice.Token, nil), 204, "", "bob joins readers")

	// An owner of the organization moves her repository in at once, with a team.
	k.repo(alice, "tool", true, true)
	resp = k.do("POST", "repos/alice/tool/transfer", alice.Token, map[string]any{"new_owner": "acme", "team_ids": []int64{team.ID}})
	k.want(resp, 202, "", "owner transfers into org")
	var moved gitea.Repository
	resp.Decode(t, &moved)
	if moved.FullName != "acme/tool" || moved.Owner == nil || moved.Owner.UserName != "acme" {
		t.Fatalf("moved: %s", resp.Body)
	}
	if st, r := k.get(carol.Token, "acme/tool"); st != 200 || r.Permissions.Push {
		t.Fatalf("team member after transfer: %d %+v", st, r.Permissions)
	}
	k.want(k.do("POST", "repos/acme/tool/transfer", alice.Token, map[string]any{"new_owner": "acme", "team_ids": []int64{999999}}), 422, "team 999999 not found", "unknown team")

	// A member without the right to create repositories only proposes;
	// an owner of the organization accepts.
	k.repo(bob, "lib", false, false)
	k.want(k.do("POST", "repos/bob/lib/transfer", bob.Token, map[string]any{"new_owner": "acme"}), 201, "", "member proposes")
	k.want(k.do("POST", "repos/bob/lib/transfer/accept", carol.Token, nil), 403, "", "plain member accepts")
	k.want(k.do("POST", "repos/bob/lib/transfer/accept", alice.Token, nil), 202, "", "org owner accepts")
	if st, _ := k.get(alice.Token, "acme/lib"); st != 200 {
		t.Fatalf("accepted into org: %d", st)
	}
}
