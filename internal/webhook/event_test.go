package webhook

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseEvents(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
	}{
		{nil, []string{"push"}},
		{[]string{"issues"}, []string{"issues", "issue_assign", "issue_label", "issue_milestone", "issue_comment"}},
		{[]string{"issues_only"}, []string{"issues"}},
		{[]string{"pull_request"}, []string{"pull_request", "pull_request_assign", "pull_request_label", "pull_request_milestone",
			"pull_request_comment", "pull_request_review", "pull_request_sync", "pull_request_review_request"}},
		{[]string{"pull_request_only", "Create", " push "}, []string{"create", "push", "pull_request"}},
		{[]string{"release", "status", "wiki"}, []string{"wiki", "release", "status"}},
	}
	for _, c := range cases {
		ev, err := ParseEvents(c.in)
		if err != nil {
			t.Fatalf("%v: %v", c.in, err)
		}
		if got := ev.List(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %v, want %v", c.in, got, c.want)
		}
		if back := decodeEvents(ev.encode()); !reflect.DeepEqual(back.List(), c.want) {
			t.Errorf("%v: stored form reads back as %v", c.in, back.List())
		}
	}
	if _, err := ParseEvents([]string{"push", "pushes"}); err == nil || !strings.Contains(err.Error(), "pushes") {
		t.Errorf("unknown event: %v", err)
	}
}

func TestEventsHasReviewOutcomes(t *testing.T) {
	ev, _ := ParseEvents([]string{"pull_request_review"})
	for _, e := range []EventType{EventPullRequestReviewApproved, EventPullRequestReviewRejected, EventPullRequestReviewComment} {
		if !ev.Has(e) {
			t.Errorf("pull_request_review does not select %s", e)
		}
	}
	if ev.Has(EventPullRequest) {
		t.Error("pull_request_review selects pull_request")
	}
}

func TestEventHeader(t *testing.T) {
	for e, want := range map[EventType]string{
		EventIssueLabel: "issues", EventPullRequestSync: "pull_request", EventPullRequestComment: "issue_comment",
		EventPullRequestReviewApproved: "pull_request_approved", EventPullRequestReviewRejected: "pull_request_rejected",
		EventPullRequestReviewComment: "pull_request_comment", EventPush: "push", EventStatus: "status",
	} {
		if got := e.Header(); got != want {
			t.Errorf("%s: header %q, want %q", e, got, want)
		}
	}
}

func TestHookWantsBranchFilter(t *testing.T) {
	h := &Hook{Active: true, Events: Events{EventPush: true, EventCreate: true, EventIssues: true}, BranchFilter: "{main,release/*}"}
	for _, c := range []struct {
		e      EventType
		branch string
		want   bool
	}{
		{EventPush, "main", true}, {EventPush, "release/1.0", true}, {EventPush, "feature", false},
		{EventCreate, "feature", false}, {EventIssues, "", true}, {EventDelete, "main", false},
	} {
		if got := h.wants(c.e, c.branch); got != c.want {
			t.Errorf("%s on %q: %v, want %v", c.e, c.branch, got, c.want)
		}
	}
	h.Active = false
	if h.wants(EventPush, "main") {
		t.Error("an inactive hook wants events")
	}
	if err := CheckBranchFilter("[a"); err == nil {
		t.Error("a bad glob is accepted")
	}
}

func TestSecretBox(t *testing.T) {
	dir := t.TempDir()
	key, err := InstanceSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := InstanceSecret(dir)
	if err != nil || string(again) != string(key) {
		t.Fatalf("the instance secret changed: %v", err)
	}
	box, _ := NewSecretBox(key)
	sealed, err := box.Seal("token abc")
	if err != nil || sealed == "" || strings.Contains(sealed, "abc") {
		t.Fatalf("sealed %q: %v", sealed, err)
	}
	if plain, err := box.Open(sealed); err != nil || plain != "token abc" {
		t.Fatalf("open: %q %v", plain, err)
	}
	other, _ := NewSecretBox([]byte("another instance"))
	if _, err := other.Open(sealed); err == nil {
		t.Error("another key opens the secret")
	}
	if s, _ := box.Seal(""); s != "" {
		t.Error("an empty secret is sealed")
	}
}
