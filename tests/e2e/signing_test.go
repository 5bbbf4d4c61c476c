package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// commitVerification reads the verification of commit sha of full.
func commitVerification(t *testing.T, s *Server, tok, full, sha string) (verified bool, reason, signerEmail string, parents int) {
	t.Helper()
	var c struct {
		Commit struct {
			Verification struct {
				Verified bool   `json:"verified"`
				Reason   string `json:"reason"`
				Signer   *struct {
					Email string `json:"email"`
				} `json:"signer"`
			} `json:"verification"`
		} `json:"commit"`
		Parents []any `json:"parents"`
	}
	r := s.Do("GET", "api/v1/repos/"+full+"/git/commits/"+sha, Token(tok))
	mustStatus(t, r, http.StatusOK, "commit "+sha)
	r.Decode(t, &c)
	v := c.Commit.Verification
	if v.Signer != nil {
		signerEmail = v.Signer.Email
	}
	return v.Verified, v.Reason, signerEmail, len(c.Parents)
}

// TestInstanceSignsCommits: by [repository.signing]'s rules the instance
// signs the first commit of a repository, contents API commits (here:
// when the doer has a GPG key) and merges of every style with its key; the
// commits verify, and a branch that requires signed commits takes such
// merges.
func TestInstanceSignsCommits(t *testing.T) {
	_, key := sigEntity(t, "Cairn Instance", "cairn@example.com", true)
	keyFile := filepath.Join(t.TempDir(), "signing.asc")
	if err := os.WriteFile(keyFile, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, WithEnv("CAIRN_REPOSITORY_SIGNING_SIGNING_KEY="+keyFile,
		"CAIRN_REPOSITORY_SIGNING_CRUD_ACTIONS=pubkey", "CAIRN_REPOSITORY_SIGNING_MERGES=pubkey, basesigned, commitssigned"))
	alice := s.CreateUser("alice")
	const full = "alice/proj"
	createRepo(t, s, alice, "proj", false)

	// The repository's signing key is the instance's.
	global := s.Do("GET", "api/v1/signing-key.gpg")
	mustStatus(t, global, http.StatusOK, "signing key")
	perRepo := s.Do("GET", "api/v1/repos/"+full+"/signing-key.gpg", Token(alice.Token))
	mustStatus(t, perRepo, http.StatusOK, "repository signing key")
	if len(global.Body) == 0 || string(perRepo.Body) != string(global.Body) {
		t.Fatalf("repository signing key %q, instance %q", perRepo.Body, global.Body)
	}

	// INITIAL_COMMIT (default always): the auto-init commit is signed.
	initial := prBranchSHA(t, s, alice.Token, full, "main")
	if ok, reason, signer, _ := commitVerification(t, s, alice.Token, full, initial); !ok || signer != "cairn@example.com" {
		t.Fatalf("initial commit: verified %v (%s), signer %q", ok, reason, signer)
	}

	// So is the first commit of a repository generated from a template.
	mustStatus(t, s.Do("PATCH", "api/v1/repos/"+full, Token(alice.Token), JSON(map[string]any{"template": true})), http.StatusOK, "make a template")
	mustStatus(t, s.Do("POST", "api/v1/repos/"+full+"/generate", Token(alice.Token),
		JSON(map[string]any{"owner": "alice", "name": "generated", "git_content": true})), http.StatusCreated, "generate")
	generated := prBranchSHA(t, s, alice.Token, "alice/generated", "main")
	if ok, reason, signer, _ := commitVerification(t, s, alice.Token, "alice/generated", generated); !ok || signer != "cairn@example.com" {
		t.Fatalf("generated repository's commit: verified %v (%s), signer %q", ok, reason, signer)
	}

	// CRUD_ACTIONS = pubkey: unsigned while alice has no GPG key.
	prCommit(t, s, alice.Token, full, "early", "main", map[string]string{"early.txt": "e\n"})
	if ok, reason, _, _ := commitVerification(t, s, alice.Token, full, prBranchSHA(t, s, alice.Token, full, "early")); ok ||
		reason != "gpg.error.not_signed_commit" {
		t.Fatalf("commit of a doer without GPG key: verified %v (%s)", ok, reason)
	}
	_, pub := sigEntity(t, "Alice", "alice@example.com", false)
	if _, _, err := s.Client(alice.Token).CreateGPGKey(gitea.CreateGPGKeyOption{ArmoredKey: pub}); err != nil {
		t.Fatal(err)
	}
	topics := map[string]string{"merge": "topic-merge", "squash": "topic-squash", "rebase": "topic-rebase", "rebase-merge": "topic-rm",
		"update": "topic-update"}
	for style, branch := range topics {
		prCommit(t, s, alice.Token, full, branch, "main", map[string]string{branch + ".txt": style + "\n"})
		tip := prBranchSHA(t, s, alice.Token, full, branch)
		if ok, reason, signer, _ := commitVerification(t, s, alice.Token, full, tip); !ok || signer != "cairn@example.com" {
			t.Fatalf("contents commit on %s: verified %v (%s), signer %q", branch, ok, reason, signer)
		}
	}

	// Merges into a branch that requires signed commits: each style's new
	// commits are signed (MERGES: alice has a key, the base tip and the
	// pull request's commits are signed).
	mustStatus(t, s.Do("POST", "api/v1/repos/"+full+"/branch_protections", Token(alice.Token),
		JSON(map[string]any{"rule_name": "main", "require_signed_commits": true})), http.StatusCreated, "protect main")
	for i, style := range []string{"merge", "squash", "rebase", "rebase-merge"} {
		branch := topics[style]
		pr, _, err := s.Client(alice.Token).CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: branch, Base: "main", Title: style})
		if err != nil {
			t.Fatal(err)
		}
		prWaitMergeable(t, s, alice.Token, full, pr.Index, true)
		before := prBranchSHA(t, s, alice.Token, full, "main")
		r := s.Do("POST", fmt.Sprintf("api/v1/repos/%s/pulls/%d/merge", full, pr.Index), Token(alice.Token), JSON(map[string]any{"Do": style}))
		mustStatus(t, r, http.StatusOK, style+" merge into a branch requiring signatures")
		tip := prBranchSHA(t, s, alice.Token, full, "main")
		if tip == before {
			t.Fatalf("%s: main did not move", style)
		}
		ok, reason, signer, parents := commitVerification(t, s, alice.Token, full, tip)
		if !ok || signer != "cairn@example.com" {
			t.Fatalf("%s (#%d): the new tip is verified %v (%s), signer %q", style, i+1, ok, reason, signer)
		}
		wantParents := map[string]int{"merge": 2, "squash": 1, "rebase": 1, "rebase-merge": 2}[style]
		if parents != wantParents {
			t.Fatalf("%s: the new tip has %d parents, want %d", style, parents, wantParents)
		}
	}

	// Updating a pull request's head with its base signs the merge too.
	pr, _, err := s.Client(alice.Token).CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "topic-update", Base: "main", Title: "update"})
	if err != nil {
		t.Fatal(err)
	}
	before := prBranchSHA(t, s, alice.Token, full, "topic-update")
	mustStatus(t, s.Do("POST", fmt.Sprintf("api/v1/repos/%s/pulls/%d/update?style=merge", full, pr.Index), Token(alice.Token)),
		http.StatusOK, "update the head")
	tip := prBranchSHA(t, s, alice.Token, full, "topic-update")
	if ok, reason, signer, parents := commitVerification(t, s, alice.Token, full, tip); tip == before || parents != 2 || !ok ||
		signer != "cairn@example.com" {
		t.Fatalf("updated head %s (was %s): %d parents, verified %v (%s), signer %q", tip, before, parents, ok, reason, signer)
	}
}
