package e2e

import (
	"fmt"
	"strings"
	"testing"
)

func pinnedNumbers(t *testing.T, k *actKit, tok string) string {
	t.Helper()
	var list []struct {
		Number int64 `json:"number"`
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/issues/pinned", tok, nil), 200, "pinned list").Decode(t, &list)
	var out []string
	for _, is := range list {
		out = append(out, fmt.Sprint(is.Number))
	}
	return strings.Join(out, ",")
}

func pinsAllowed(t *testing.T, k *actKit, tok string) (bool, bool) {
	t.Helper()
	var v struct {
		Issues       bool `json:"issues"`
		PullRequests bool `json:"pull_requests"`
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/new_pin_allowed", tok, nil), 200, "new_pin_allowed").Decode(t, &v)
	return v.Issues, v.PullRequests
}

// TestIssuePins: repository administrators pin, reorder and unpin issues
// (Gitea keeps pins to them: reqAdmin); the pinned list is in pin order;
// [repository.issue] MAX_PINNED bounds the pins, which new_pin_allowed
// reports; readers and writers cannot pin.
func TestIssuePins(t *testing.T) {
	k := newActKit(t, WithEnv("CAIRN_REPOSITORY_ISSUE_MAX_PINNED=3"))
	for i := 2; i <= 5; i++ {
		k.issue(k.owner, "pub", fmt.Sprintf("issue %d", i))
	}
	pin := func(n int, tok string, want int) *Response {
		t.Helper()
		return k.must(k.do("POST", fmt.Sprintf("api/v1/repos/acme/pub/issues/%d/pin", n), tok, nil), want, fmt.Sprintf("pin %d", n))
	}
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/pin", k.reader.Token, nil), 403, "", "reader pins")
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues/1/pin", k.writer.Token, nil), 403, "admin", "writer pins")
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues/1/pin", "", nil), 401, "signed out pins")
	if is, pr := pinsAllowed(t, k, ""); !is || !pr {
		t.Fatalf("new_pin_allowed before = %v %v", is, pr)
	}
	pin(3, k.owner.Token, 204)
	pin(1, k.owner.Token, 204)
	pin(1, k.owner.Token, 204) // pinning a pinned issue changes nothing
	pin(5, k.owner.Token, 204)
	if got := pinnedNumbers(t, k, ""); got != "3,1,5" {
		t.Fatalf("pinned = %s", got)
	}
	if is, pr := pinsAllowed(t, k, k.reader.Token); is || !pr {
		t.Fatalf("new_pin_allowed at the limit = %v %v", is, pr)
	}
	k.wantError(pin(2, k.owner.Token, 400), 400, "max number of pinned issues", "fourth pin")
	if got := pinnedNumbers(t, k, ""); got != "3,1,5" {
		t.Fatalf("pinned after a refused pin = %s", got)
	}
	k.must(k.do("PATCH", "api/v1/repos/acme/pub/issues/5/pin/1", k.owner.Token, nil), 204, "move 5 first")
	if got := pinnedNumbers(t, k, ""); got != "5,3,1" {
		t.Fatalf("pinned after the move = %s", got)
	}
	k.must(k.do("DELETE", "api/v1/repos/acme/pub/issues/3/pin", k.owner.Token, nil), 204, "unpin 3")
	if got := pinnedNumbers(t, k, ""); got != "5,1" {
		t.Fatalf("pinned after unpinning = %s", got)
	}
	if is, _ := pinsAllowed(t, k, ""); !is {
		t.Fatal("new_pin_allowed after unpinning = false")
	}
	pin(2, k.owner.Token, 204)
	if got := pinnedNumbers(t, k, ""); got != "5,1,2" {
		t.Fatalf("pinned at the end = %s", got)
	}
	// A private repository hides both.
	k.must(k.do("GET", "api/v1/repos/acme/priv/new_pin_allowed", k.stranger.Token, nil), 404, "stranger, private repository")
}

// TestAssignees: /assignees lists who may write the repository's issues
// through their own rights, sorted, and the owning user last; assigning
// anyone else is refused.
func TestAssignees(t *testing.T) {
	k := newActKit(t)
	names := func(path, tok string) string {
		t.Helper()
		var list []struct {
			Login string `json:"login"`
		}
		k.must(k.do("GET", path, tok, nil), 200, "assignees of "+path).Decode(t, &list)
		var out []string
		for _, u := range list {
			out = append(out, u.Login)
		}
		return strings.Join(out, ",")
	}
	// Organization repository: the Owners team and the writers team; readers
	// and the site administrator are not listed.
	if got := names("api/v1/repos/acme/pub/assignees", k.reader.Token); got != "owner,writer" {
		t.Fatalf("assignees of acme/pub = %s", got)
	}
	k.must(k.do("PUT", "api/v1/repos/acme/pub/collaborators/stranger", k.owner.Token, map[string]any{"permission": "write"}), 204, "write collaborator")
	k.must(k.do("PUT", "api/v1/repos/acme/pub/collaborators/restrict", k.owner.Token, map[string]any{"permission": "read"}), 204, "read collaborator")
	if got := names("api/v1/repos/acme/pub/assignees", k.reader.Token); got != "owner,stranger,writer" {
		t.Fatalf("assignees with a collaborator = %s", got)
	}
	// User repository: collaborators, then the owner.
	createRepo(t, k.s, k.reader, "notes", false)
	k.must(k.do("PUT", "api/v1/repos/reader/notes/collaborators/writer", k.reader.Token, map[string]any{"permission": "admin"}), 204, "admin collaborator")
	if got := names("api/v1/repos/reader/notes/assignees", k.stranger.Token); got != "writer,reader" {
		t.Fatalf("assignees of reader/notes = %s", got)
	}
	k.must(k.do("GET", "api/v1/repos/acme/pub/assignees", "", nil), 401, "signed out")
	k.must(k.do("GET", "api/v1/repos/acme/priv/assignees", k.stranger.Token, nil), 404, "stranger, private repository")
	// Everyone listed can be assigned; someone not listed cannot.
	k.must(k.do("POST", "api/v1/repos/acme/pub/issues", k.owner.Token, map[string]any{"title": "assigned", "assignees": []string{"writer", "stranger"}}), 201, "assign listed")
	k.wantError(k.do("POST", "api/v1/repos/acme/pub/issues", k.owner.Token, map[string]any{"title": "x", "assignees": []string{"reader"}}), 422, "cannot be assigned", "assign a reader")
}
