package e2e

import (
	"net/http"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestPullMergeRefusedByRule: a merge goes through the same push rules as a
// push, and when one refuses the new tip, the caller gets its message (409)
// and the base branch does not move. Here the base requires signed commits
// and the instance has no signing key, so the merge commit is refused.
func TestPullMergeRefusedByRule(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	prCommit(t, s, alice.Token, "alice/proj", "topic", "main", map[string]string{"t.txt": "t\n"})
	pr, _, err := s.Client(alice.Token).CreatePullRequest("alice", "proj", gitea.CreatePullRequestOption{Head: "topic", Base: "main", Title: "topic"})
	if err != nil {
		t.Fatal(err)
	}
	prWaitMergeable(t, s, alice.Token, "alice/proj", pr.Index, true)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/branch_protections", Token(alice.Token),
		JSON(map[string]any{"rule_name": "main", "require_signed_commits": true})), http.StatusCreated, "protect main")
	before := prBranchSHA(t, s, alice.Token, "alice/proj", "main")
	r := s.Do("POST", "api/v1/repos/alice/proj/pulls/1/merge", Token(alice.Token), JSON(map[string]any{"Do": "merge"}))
	if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "protected from unverified commit") {
		t.Fatalf("merge refused by the signed-commit rule = %d %s", r.Status, r.Body)
	}
	if after := prBranchSHA(t, s, alice.Token, "alice/proj", "main"); after != before {
		t.Fatalf("main moved from %s to %s", before, after)
	}
	if got := prGet(t, s, alice.Token, "alice/proj", 1); got["merged"] != false || got["state"] != "open" {
		t.Fatalf("pull request after the refusal: merged %v state %v", got["merged"], got["state"])
	}
}
