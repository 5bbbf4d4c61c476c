package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
)

// timelineEntry is Gitea's TimelineComment as far as the tests read it (the
// SDK's own type models "label" as a list, which Gitea does not send).
type timelineEntry struct {
	ID              int64            `json:"id"`
	Type            string           `json:"type"`
	Body            string           `json:"body"`
	HTMLURL         string           `json:"html_url"`
	IssueURL        string           `json:"issue_url"`
	PRURL           string           `json:"pull_request_url"`
	Poster          *gitea.User      `json:"user"`
	Label           *gitea.Label     `json:"label"`
	Milestone       *gitea.Milestone `json:"milestone"`
	OldMilestone    *gitea.Milestone `json:"old_milestone"`
	Assignee        *gitea.User      `json:"assignee"`
	RemovedAssignee bool             `json:"removed_assignee"`
	OldTitle        string           `json:"old_title"`
	NewTitle        string           `json:"new_title"`
	RefAction       string           `json:"ref_action"`
	RefIssue        *gitea.Issue     `json:"ref_issue"`
	RefComment      *gitea.Comment   `json:"ref_comment"`
	DependentIssue  *gitea.Issue     `json:"dependent_issue"`
	TrackedTime     *struct {
		ID       int64  `json:"id"`
		Time     int64  `json:"time"`
		UserName string `json:"user_name"`
	} `json:"tracked_time"`
}

// timelineOf reads the timeline of owner/repo#index as u (nil: signed out).
func timelineOf(t *testing.T, s *Server, u *User, repo string, index int64, query string) []timelineEntry {
	t.Helper()
	tok := ""
	if u != nil {
		tok = u.Token
	}
	r := s.Do("GET", fmt.Sprintf("api/v1/repos/%s/issues/%d/timeline?%s", repo, index, query), Token(tok))
	if r.Status != http.StatusOK {
		t.Fatalf("timeline of %s#%d = %d %s", repo, index, r.Status, r.Body)
	}
	var out []timelineEntry
	r.Decode(t, &out)
	return out
}

func timelineTypes(list []timelineEntry) string {
	var parts []string
	for _, c := range list {
		parts = append(parts, c.Type)
	}
	return strings.Join(parts, ",")
}

// TestTimelineEvents: label, milestone, assignee, title, deadline, lock,
// close and reopen events made through the API show up in order, with their
// related objects; since/before/page/limit select entries.
func TestTimelineEvents(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	addCollaborator(t, s, alice, "proj", "bob", "write")

	r := s.Do("POST", "api/v1/repos/alice/proj/labels", Token(alice.Token), JSON(map[string]any{"name": "bug", "color": "#ee0701"}))
	mustStatus(t, r, http.StatusCreated, "create label")
	var label gitea.Label
	r.Decode(t, &label)
	r = s.Do("POST", "api/v1/repos/alice/proj/milestones", Token(alice.Token), JSON(map[string]any{"title": "v1"}))
	mustStatus(t, r, http.StatusCreated, "create milestone")
	var ms gitea.Milestone
	r.Decode(t, &ms)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token), JSON(map[string]any{"title": "Old title"})), http.StatusCreated, "create issue")
	begin := time.Now()
	time.Sleep(1100 * time.Millisecond)

	steps := []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "issues/1/labels", map[string]any{"labels": []int64{label.ID}}, 200},
		{"PATCH", "issues/1", map[string]any{"milestone": ms.ID}, 201},
		{"PATCH", "issues/1", map[string]any{"assignees": []string{"bob"}}, 201},
		{"PATCH", "issues/1", map[string]any{"title": "New title"}, 201},
		{"POST", "issues/1/deadline", map[string]any{"due_date": "2031-02-03T00:00:00Z"}, 201},
		{"PATCH", "issues/1", map[string]any{"state": "closed"}, 201},
		{"PATCH", "issues/1", map[string]any{"state": "open"}, 201},
		{"DELETE", fmt.Sprintf("issues/1/labels/%d", label.ID), nil, 204},
		{"PATCH", "issues/1", map[string]any{"assignees": []string{}}, 201},
		{"POST", "issues/1/comments", map[string]any{"body": "a plain comment"}, 201},
	}
	for _, st := range steps {
		opts := []RequestOption{Token(alice.Token)}
		if st.body != nil {
			opts = append(opts, JSON(st.body))
		}
		mustStatus(t, s.Do(st.method, "api/v1/repos/alice/proj/"+st.path, opts...), st.want, st.method+" "+st.path)
	}

	tl := timelineOf(t, s, bob, "alice/proj", 1, "limit=50")
	want := "label,milestone,assignees,change_title,added_deadline,close,reopen,label,assignees,comment"
	if got := timelineTypes(tl); got != want {
		t.Fatalf("timeline = %s\nwant       %s", got, want)
	}
	byType := func(i int) timelineEntry { return tl[i] }
	if c := byType(0); c.Label == nil || c.Label.Name != "bug" || c.Body != "1" || c.Poster == nil || c.Poster.UserName != "alice" {
		t.Fatalf("label event = %+v", c)
	}
	if c := byType(1); c.Milestone == nil || c.Milestone.Title != "v1" || c.OldMilestone != nil {
		t.Fatalf("milestone event = %+v", c)
	}
	if c := byType(2); c.Assignee == nil || c.Assignee.UserName != "bob" || c.RemovedAssignee {
		t.Fatalf("assignee event = %+v", c)
	}
	if c := byType(3); c.OldTitle != "Old title" || c.NewTitle != "New title" {
		t.Fatalf("title event = %+v", c)
	}
	if c := byType(7); c.Label == nil || c.Label.ID != label.ID || c.Body != "" {
		t.Fatalf("label removal = %+v", c)
	}
	if c := byType(8); c.Assignee == nil || !c.RemovedAssignee {
		t.Fatalf("unassign event = %+v", c)
	}
	last := byType(9)
	if last.Body != "a plain comment" || last.IssueURL != s.URL+"alice/proj/issues/1" ||
		last.HTMLURL != fmt.Sprintf("%salice/proj/issues/1#issuecomment-%d", s.URL, last.ID) || last.RefAction != "none" {
		t.Fatalf("comment entry = %+v", last)
	}

	// The SDK reads timelines without label events (its type expects a list).
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token), JSON(map[string]any{"title": "Second"})), http.StatusCreated, "create 2")
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj/issues/2", Token(alice.Token), JSON(map[string]any{"title": "Second!", "state": "closed"})), http.StatusCreated, "edit 2")
	sdk, _, err := s.Client(bob.Token).ListIssueTimeline("alice", "proj", 2, gitea.ListIssueCommentOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: 50}})
	if err != nil || len(sdk) != 2 || sdk[0].Type != "change_title" || sdk[0].NewTitle != "Second!" || sdk[1].Type != "close" {
		t.Fatalf("sdk timeline = %+v, %v", sdk, err)
	}

	// Pagination and filters.
	r = s.Do("GET", "api/v1/repos/alice/proj/issues/1/timeline?limit=3&page=2", Token(bob.Token))
	mustStatus(t, r, http.StatusOK, "page 2")
	var page []timelineEntry
	r.Decode(t, &page)
	if timelineTypes(page) != "change_title,added_deadline,close" || r.Header.Get("X-Total-Count") != "10" {
		t.Fatalf("page 2 = %s (total %s)", timelineTypes(page), r.Header.Get("X-Total-Count"))
	}
	future := url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339))
	if got := timelineOf(t, s, bob, "alice/proj", 1, "since="+future); len(got) != 0 {
		t.Fatalf("since future = %s", timelineTypes(got))
	}
	if got := timelineOf(t, s, bob, "alice/proj", 1, "before="+url.QueryEscape(begin.Format(time.RFC3339))); len(got) != 0 {
		t.Fatalf("before the first event = %s", timelineTypes(got))
	}
	if got := timelineOf(t, s, bob, "alice/proj", 1, "since="+url.QueryEscape(begin.Format(time.RFC3339))); len(got) != 10 {
		t.Fatalf("since the start = %s", timelineTypes(got))
	}
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/issues/1/timeline?before=noon", Token(bob.Token)), http.StatusUnprocessableEntity, "bad before")

	// A fixed number of queries whatever the page size.
	small := s.Do("GET", "api/v1/repos/alice/proj/issues/1/timeline?limit=1&page=10", Token(bob.Token)).Header.Get("X-Cairn-Query-Count")
	for i := 0; i < 15; i++ {
		mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/comments", Token(bob.Token), JSON(map[string]any{"body": fmt.Sprintf("c%d", i)})), http.StatusCreated, "comment")
	}
	large := s.Do("GET", "api/v1/repos/alice/proj/issues/1/timeline?limit=20&page=2", Token(bob.Token)).Header.Get("X-Cairn-Query-Count")
	if small == "" || small != large {
		t.Fatalf("query count depends on the page size: %s vs %s", small, large)
	}
}

// TestTimelinePermissions: the timeline follows the issue's visibility.
func TestTimelinePermissions(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	eve := s.CreateUser("eve")
	createRepo(t, s, alice, "pub", false)
	createRepo(t, s, alice, "priv", true)
	for _, repo := range []string{"pub", "priv"} {
		mustStatus(t, s.Do("POST", "api/v1/repos/alice/"+repo+"/issues", Token(alice.Token), JSON(map[string]any{"title": "t"})), http.StatusCreated, "create")
	}
	cases := []struct {
		name, path, token string
		want              int
	}{
		{"anon public", "api/v1/repos/alice/pub/issues/1/timeline", "", 200},
		{"anon private", "api/v1/repos/alice/priv/issues/1/timeline", "", 404},
		{"stranger private", "api/v1/repos/alice/priv/issues/1/timeline", eve.Token, 404},
		{"owner private", "api/v1/repos/alice/priv/issues/1/timeline", alice.Token, 200},
		{"admin private", "api/v1/repos/alice/priv/issues/1/timeline", s.AdminTok, 200},
		{"unknown issue", "api/v1/repos/alice/pub/issues/9/timeline", alice.Token, 404},
		{"bad index", "api/v1/repos/alice/pub/issues/x/timeline", alice.Token, 404},
	}
	for _, c := range cases {
		if r := s.Do("GET", c.path, Token(c.token)); r.Status != c.want {
			t.Errorf("%s: %s = %d, want %d (%s)", c.name, c.path, r.Status, c.want, r.Body)
		}
	}
}

// TestTimelineTimesAndDependencies: time events carry their tracked time and
// dependency events their issue, which is left out for those who cannot
// read it.
func TestTimelineTimesAndDependencies(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	eve := s.CreateUser("eve")
	createRepo(t, s, alice, "proj", false)
	createRepo(t, s, alice, "priv", true)
	for _, repo := range []string{"proj", "proj", "priv"} {
		mustStatus(t, s.Do("POST", "api/v1/repos/alice/"+repo+"/issues", Token(alice.Token), JSON(map[string]any{"title": "in " + repo})), http.StatusCreated, "create")
	}
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/times", Token(alice.Token), JSON(map[string]any{"time": 3660})), http.StatusOK, "add time")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/dependencies", Token(alice.Token), JSON(map[string]any{"index": 2})), http.StatusCreated, "depend on #2")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/dependencies", Token(alice.Token), JSON(map[string]any{"owner": "alice", "repo": "priv", "index": 1})), http.StatusCreated, "depend on priv#1")

	tl := timelineOf(t, s, alice, "alice/proj", 1, "")
	if timelineTypes(tl) != "add_time_manual,add_dependency,add_dependency" {
		t.Fatalf("timeline = %s", timelineTypes(tl))
	}
	if c := tl[0]; c.TrackedTime == nil || c.TrackedTime.Time != 3660 || c.TrackedTime.UserName != "alice" || c.Body != "1 hour 1 minute" {
		t.Fatalf("time event = %+v (tracked %+v)", c, c.TrackedTime)
	}
	if tl[1].DependentIssue == nil || tl[1].DependentIssue.Index != 2 || tl[2].DependentIssue == nil || tl[2].DependentIssue.Title != "in priv" {
		t.Fatalf("dependency events = %+v / %+v", tl[1].DependentIssue, tl[2].DependentIssue)
	}
	et := timelineOf(t, s, eve, "alice/proj", 1, "")
	if len(et) != 3 || et[1].DependentIssue == nil || et[2].DependentIssue != nil {
		t.Fatalf("eve sees dependencies %+v / %+v", et[1].DependentIssue, et[2].DependentIssue)
	}
}
