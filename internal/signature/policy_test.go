package signature

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/config"
)

// TestPolicy: [repository.signing]'s rules as Gitea reads them: unknown
// rules refused, every listed condition must hold, always and never end
// the list, no key signs nothing.
func TestPolicy(t *testing.T) {
	e := setup(t)
	file, signer := instanceKey(t)
	ver := NewVerifier(e.ver.db, e.ver.users, e.git, signer)
	alice := e.user(t, "alice")
	policy := func(c config.RepositorySigningSection, twoFA bool) *Policy {
		c.SigningKey = file
		p, err := NewPolicy(e.ver.db, e.git, signer, ver, c, func(context.Context, int64) (bool, error) { return twoFA, nil })
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	signs := func(f SignFunc, err error) bool {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f != nil
	}

	for _, bad := range []config.RepositorySigningSection{{Merges: []string{"parentsigned"}}, {CRUDActions: []string{"approved"}}, {InitialCommit: []string{"sometimes"}}} {
		if _, err := NewPolicy(e.ver.db, e.git, signer, ver, bad, nil); err == nil || !strings.Contains(err.Error(), "unknown rule") {
			t.Fatalf("%+v accepted: %v", bad, err)
		}
	}
	if signs(policy(config.RepositorySigningSection{InitialCommit: []string{"always"}}, false).Initial(e.ctx, alice)) != true {
		t.Fatal("always did not sign")
	}
	if signs(policy(config.RepositorySigningSection{InitialCommit: []string{"never", "always"}}, false).Initial(e.ctx, alice)) {
		t.Fatal("never signed")
	}
	if signs(policy(config.RepositorySigningSection{}, false).Initial(e.ctx, alice)) {
		t.Fatal("an empty rule list signed")
	}
	noKey, err := NewPolicy(e.ver.db, e.git, nil, ver, config.RepositorySigningSection{InitialCommit: []string{"always"}}, nil)
	if err != nil || signs(noKey.Initial(e.ctx, alice)) {
		t.Fatal("a policy without key signed")
	}

	// pubkey and twofa.
	pubkey := config.RepositorySigningSection{InitialCommit: []string{"pubkey"}}
	if signs(policy(pubkey, false).Initial(e.ctx, alice)) {
		t.Fatal("pubkey held for a user without GPG key")
	}
	_, pub := newEntity(t, "alice", "alice@example.org", nil)
	if _, err := e.keys.AddKey(e.ctx, alice, pub, ""); err != nil {
		t.Fatal(err)
	}
	if !signs(policy(pubkey, false).Initial(e.ctx, alice)) {
		t.Fatal("pubkey failed for a user with a GPG key")
	}
	twofa := config.RepositorySigningSection{InitialCommit: []string{"pubkey", "twofa"}}
	if signs(policy(twofa, false).Initial(e.ctx, alice)) || !signs(policy(twofa, true).Initial(e.ctx, alice)) {
		t.Fatal("twofa is not honoured")
	}

	// parentsigned, basesigned, headsigned, approved.
	tree := e.emptyTree(t)
	unsigned := run(t, nil, e.work, "git", "commit-tree", tree, "-m", "unsigned")
	signed, err := signer.SignCommit(e.ctx, e.git, e.repo, nil, commitPayload(tree, "", "cairn@example.org", "signed"))
	if err != nil {
		t.Fatal(err)
	}
	crud := policy(config.RepositorySigningSection{CRUDActions: []string{"parentsigned"}}, false)
	if signs(crud.CRUD(e.ctx, alice, e.repo, unsigned)) || !signs(crud.CRUD(e.ctx, alice, e.repo, signed)) || signs(crud.CRUD(e.ctx, alice, e.repo, "")) {
		t.Fatal("parentsigned is not honoured")
	}
	yes := func(context.Context) (bool, error) { return true, nil }
	no := func(context.Context) (bool, error) { return false, nil }
	base := policy(config.RepositorySigningSection{Merges: []string{"basesigned"}}, false)
	if signs(base.Merge(e.ctx, alice, e.repo, unsigned, signed, yes)) || !signs(base.Merge(e.ctx, alice, e.repo, signed, unsigned, yes)) {
		t.Fatal("basesigned is not honoured")
	}
	head := policy(config.RepositorySigningSection{Merges: []string{"headsigned"}}, false)
	if signs(head.Merge(e.ctx, alice, e.repo, signed, unsigned, yes)) || !signs(head.Merge(e.ctx, alice, e.repo, unsigned, signed, yes)) {
		t.Fatal("headsigned is not honoured")
	}
	approved := policy(config.RepositorySigningSection{Merges: []string{"approved"}}, false)
	if signs(approved.Merge(e.ctx, alice, e.repo, signed, signed, no)) || !signs(approved.Merge(e.ctx, alice, e.repo, signed, signed, yes)) {
		t.Fatal("approved is not honoured")
	}
}
