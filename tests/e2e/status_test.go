package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// TestCommitStatuses: CI systems report statuses (writers), the SDK lists
// them by sha and by ref, the combined status is the latest per context with
// the worst state winning; bad states, unknown commits and readers are refused.
func TestCommitStatuses(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	c := s.Client(alice.Token)
	br, _, err := c.GetRepoBranch("alice", "proj", "main")
	if err != nil {
		t.Fatal(err)
	}
	sha := br.Commit.ID

	// The combined status of a commit without statuses.
	combined, _, err := c.GetCombinedStatus("alice", "proj", "main")
	if err != nil || combined.State != "" || combined.TotalCount != 0 || combined.SHA != sha {
		t.Fatalf("empty combined status: %v %+v", err, combined)
	}
	for _, st := range []struct{ state, context string }{
		{"pending", "ci/build"}, {"success", "ci/build"}, {"pending", "ci/lint"}, {"failure", "ci/test"}, {"success", "ci/test"},
	} {
		cs, resp, err := c.CreateStatus("alice", "proj", sha, gitea.CreateStatusOption{
			State: gitea.StatusState(st.state), Context: st.context, TargetURL: "https://ci.example/run", Description: st.context + " " + st.state,
		})
		if err != nil || resp.StatusCode != 201 || cs.State != gitea.StatusState(st.state) || cs.Creator == nil || cs.Creator.UserName != "alice" {
			t.Fatalf("create %v: %v %v %+v", st, err, resp, cs)
		}
	}
	list, resp, err := c.ListStatuses("alice", "proj", sha, gitea.ListStatusesOption{})
	if err != nil || len(list) != 5 || list[0].Context != "ci/test" || list[0].State != "success" || resp.Header.Get("X-Total-Count") != "5" {
		t.Fatalf("list by sha: %v %d", err, len(list))
	}
	var byRef []struct {
		State string `json:"status"`
	}
	r := s.Do("GET", "api/v1/repos/alice/proj/commits/main/statuses?state=pending&sort=oldest", Token(bob.Token))
	mustStatus(t, r, http.StatusOK, "list by ref")
	r.Decode(t, &byRef)
	if len(byRef) != 2 || byRef[0].State != "pending" {
		t.Fatalf("pending by ref = %+v", byRef)
	}
	// Latest per context: build success, lint pending, test success: pending wins.
	combined, _, err = c.GetCombinedStatus("alice", "proj", "main")
	if err != nil || combined.State != "pending" || combined.TotalCount != 3 || combined.Repository == nil {
		t.Fatalf("combined: %v %+v", err, combined)
	}
	if _, _, err := c.CreateStatus("alice", "proj", sha, gitea.CreateStatusOption{State: "error", Context: "ci/deploy"}); err != nil {
		t.Fatal(err)
	}
	if combined, _, _ = c.GetCombinedStatus("alice", "proj", sha); combined.State != "error" {
		t.Fatalf("combined after an error = %q", combined.State)
	}

	// Bad input and permissions.
	bad := func(tok, sha string, body map[string]any, want int, what string) {
		t.Helper()
		mustStatus(t, s.Do("POST", fmt.Sprintf("api/v1/repos/alice/proj/statuses/%s", sha), Token(tok), JSON(body)), want, what)
	}
	bad(alice.Token, sha, map[string]any{"state": "great"}, http.StatusUnprocessableEntity, "unknown state")
	bad(alice.Token, "0123456789abcdef0123456789abcdef01234567", map[string]any{"state": "success"}, http.StatusNotFound, "unknown commit")
	bad(alice.Token, "-x", map[string]any{"state": "success"}, http.StatusUnprocessableEntity, "option as sha")
	bad(bob.Token, sha, map[string]any{"state": "success"}, http.StatusForbidden, "reader")
	bad("", sha, map[string]any{"state": "success"}, http.StatusUnauthorized, "signed out")
	if list, _, _ := c.ListStatuses("alice", "proj", sha, gitea.ListStatusesOption{}); len(list) != 6 {
		t.Fatalf("refused reports were recorded: %d", len(list))
	}
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/statuses/0123456789abcdef0123456789abcdef01234567"), http.StatusOK, "statuses of an unknown commit")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/commits/nope/status"), http.StatusNotFound, "combined of an unknown ref")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/statuses/"+sha+"?sort=sideways"), http.StatusUnprocessableEntity, "unknown sort")
	createRepo(t, s, alice, "secret", true)
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/secret/commits/main/status", Token(bob.Token)), http.StatusNotFound, "private repository")
}
