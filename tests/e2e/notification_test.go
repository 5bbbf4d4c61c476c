package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"github.com/cairn-forge/cairn/internal/db"
)

// threadsOf lists u's notification threads with a raw query string.
func threadsOf(t *testing.T, s *Server, u *User, path, query string) []gitea.NotificationThread {
	t.Helper()
	r := s.Do("GET", path+"?"+query, Token(u.Token))
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s?%s as %s = %d %s", path, query, u.Name, r.Status, r.Body)
	}
	var out []gitea.NotificationThread
	r.Decode(t, &out)
	return out
}

// threadTitles renders threads as "repo#title" for messages and comparisons.
func threadTitles(list []gitea.NotificationThread) string {
	var parts []string
	for _, th := range list {
		name := ""
		if th.Repository != nil {
			name = th.Repository.Name
		}
		title := ""
		if th.Subject != nil {
			title = th.Subject.Title
		}
		parts = append(parts, name+"#"+title)
	}
	return strings.Join(parts, ",")
}

// newCount reads GET /notifications/new for u.
func newCount(t *testing.T, s *Server, u *User) int64 {
	t.Helper()
	r := s.Do("GET", "api/v1/notifications/new", Token(u.Token))
	if r.Status != http.StatusOK {
		t.Fatalf("notifications/new for %s = %d %s", u.Name, r.Status, r.Body)
	}
	var c struct {
		New *int64 `json:"new"`
	}
	r.Decode(t, &c)
	if c.New == nil {
		t.Fatalf("notifications/new without \"new\": %s", r.Body)
	}
	return *c.New
}

func mustStatus(t *testing.T, r *Response, want int, what string) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("%s = %d, want %d: %s", what, r.Status, want, r.Body)
	}
}

// TestNotificationRecipients: watchers, mentioned users, assignees and
// commenters get one thread each; the doer never does; new activity re-marks
// read threads unread without creating new ones.
func TestNotificationRecipients(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")     // watches the repository
	carol := s.CreateUser("carol") // mentioned
	dave := s.CreateUser("dave")   // assignee
	eve := s.CreateUser("eve")     // uninvolved
	createRepo(t, s, alice, "proj", false)
	addCollaborator(t, s, alice, "proj", "dave", "write")
	if r := s.Do("PUT", "api/v1/repos/alice/proj/subscription", Token(bob.Token)); r.Status != http.StatusOK {
		t.Skipf("repository watch API not available: %d %s", r.Status, r.Body)
	}

	r := s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token),
		JSON(map[string]any{"title": "Broken build", "body": "hey @carol and @nobody-here, see `@eve`", "assignees": []string{"dave"}}))
	mustStatus(t, r, http.StatusCreated, "create issue")

	for _, u := range []*User{bob, carol, dave} {
		list := threadsOf(t, s, u, "api/v1/notifications", "")
		if len(list) != 1 || list[0].Subject.Title != "Broken build" || !list[0].Unread || list[0].Pinned {
			t.Fatalf("%s threads = %s %+v", u.Name, threadTitles(list), list)
		}
		th := list[0]
		if th.Subject.Type != gitea.NotifySubjectIssue || th.Subject.State != gitea.NotifySubjectOpen ||
			th.Subject.URL != s.URL+"api/v1/repos/alice/proj/issues/1" || th.Subject.HTMLURL != s.URL+"alice/proj/issues/1" ||
			th.Repository == nil || th.Repository.FullName != "alice/proj" || th.Repository.Permissions != nil ||
			th.URL != fmt.Sprintf("%sapi/v1/notifications/threads/%d", s.URL, th.ID) {
			t.Fatalf("%s thread = %+v subject %+v", u.Name, th, th.Subject)
		}
		if n := newCount(t, s, u); n != 1 {
			t.Fatalf("%s new = %d", u.Name, n)
		}
	}
	for _, u := range []*User{alice, eve} {
		if list := threadsOf(t, s, u, "api/v1/notifications", "all=true"); len(list) != 0 {
			t.Fatalf("%s got threads: %s", u.Name, threadTitles(list))
		}
		if n := newCount(t, s, u); n != 0 {
			t.Fatalf("%s new = %d", u.Name, n)
		}
	}

	// Carol reads hers (205 with the thread); bob's comment notifies the poster,
	// the assignee and the watcher, but not carol (a mention does not subscribe)
	// nor bob himself.
	carolThread := threadsOf(t, s, carol, "api/v1/notifications", "")[0]
	r = s.Do("PATCH", fmt.Sprintf("api/v1/notifications/threads/%d", carolThread.ID), Token(carol.Token))
	mustStatus(t, r, http.StatusResetContent, "mark read")
	var patched gitea.NotificationThread
	r.Decode(t, &patched)
	if patched.Unread || patched.ID != carolThread.ID {
		t.Fatalf("patched = %+v", patched)
	}
	bobBefore := threadsOf(t, s, bob, "api/v1/notifications", "")[0]
	time.Sleep(1100 * time.Millisecond)
	r = s.Do("POST", "api/v1/repos/alice/proj/issues/1/comments", Token(bob.Token), JSON(map[string]any{"body": "same here"}))
	mustStatus(t, r, http.StatusCreated, "comment")
	var cm gitea.Comment
	r.Decode(t, &cm)
	al := threadsOf(t, s, alice, "api/v1/notifications", "")
	if len(al) != 1 || al[0].Subject.LatestCommentURL != fmt.Sprintf("%sapi/v1/repos/alice/proj/issues/comments/%d", s.URL, cm.ID) ||
		al[0].Subject.LatestCommentHTMLURL != fmt.Sprintf("%salice/proj/issues/1#issuecomment-%d", s.URL, cm.ID) {
		t.Fatalf("alice after comment = %+v", al)
	}
	if n := newCount(t, s, carol); n != 0 {
		t.Fatalf("carol re-notified by a comment: %d", n)
	}
	if bobAfter := threadsOf(t, s, bob, "api/v1/notifications", "")[0]; !bobAfter.UpdatedAt.Equal(bobBefore.UpdatedAt) {
		t.Fatalf("bob's own comment touched his thread: %v -> %v", bobBefore.UpdatedAt, bobAfter.UpdatedAt)
	}

	// Dave marks everything read (205 with the changed threads); closing the
	// issue re-marks the same thread unread, with a later update time.
	dc := s.Client(dave.Token)
	changed, resp, err := dc.ReadNotifications(gitea.MarkNotificationOptions{})
	if err != nil || resp.StatusCode != http.StatusResetContent || len(changed) != 1 || changed[0].Unread {
		t.Fatalf("read all = %v %v %+v", err, resp, changed)
	}
	if n := newCount(t, s, dave); n != 0 {
		t.Fatalf("dave new after reading = %d", n)
	}
	time.Sleep(1100 * time.Millisecond)
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj/issues/1", Token(alice.Token), JSON(map[string]any{"state": "closed"})), http.StatusCreated, "close")
	again := threadsOf(t, s, dave, "api/v1/notifications", "")
	if len(again) != 1 || again[0].ID != changed[0].ID || !again[0].Unread || !again[0].UpdatedAt.After(changed[0].UpdatedAt) ||
		again[0].Subject.State != gitea.NotifySubjectClosed {
		t.Fatalf("dave after close = %+v (before %+v)", again, changed)
	}
	if all := threadsOf(t, s, dave, "api/v1/notifications", "all=true"); len(all) != 1 {
		t.Fatalf("dave has %d threads, want one per issue", len(all))
	}

	// A label change or a title edit notifies nobody (Gitea's rules).
	mustStatus(t, s.Do("PUT", "api/v1/notifications", Token(bob.Token)), http.StatusResetContent, "bob reads all")
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/proj/issues/1", Token(alice.Token), JSON(map[string]any{"title": "Broken build!"})), http.StatusCreated, "retitle")
	if n := newCount(t, s, bob); n != 0 {
		t.Fatalf("title edit notified bob: %d", n)
	}
}

// TestNotificationStatusFilters: pinning, status-types, all, subject-type,
// since/before, repository-scoped lists and marks.
func TestNotificationStatusFilters(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "one", false)
	createRepo(t, s, alice, "two", false)
	start := time.Now().Add(-2 * time.Second)
	for _, repo := range []string{"one", "one", "two"} {
		r := s.Do("POST", "api/v1/repos/alice/"+repo+"/issues", Token(alice.Token), JSON(map[string]any{"title": "in " + repo, "body": "cc @bob"}))
		mustStatus(t, r, http.StatusCreated, "create")
	}
	all := threadsOf(t, s, bob, "api/v1/notifications", "")
	if len(all) != 3 {
		t.Fatalf("bob threads = %s", threadTitles(all))
	}
	if r := s.Do("GET", "api/v1/notifications?limit=2", Token(bob.Token)); r.Header.Get("X-Total-Count") != "3" || !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("paging headers: %v", r.Header)
	}
	if page2 := threadsOf(t, s, bob, "api/v1/notifications", "limit=2&page=2"); len(page2) != 1 {
		t.Fatalf("page 2 = %d", len(page2))
	}

	// all[0] is about repository two, the others about one. Pin one, read
	// another: the default list shows unread and pinned.
	if all[0].Repository.Name != "two" {
		t.Fatalf("newest first: %s", threadTitles(all))
	}
	r := s.Do("PATCH", fmt.Sprintf("api/v1/notifications/threads/%d?to-status=pinned", all[1].ID), Token(bob.Token))
	mustStatus(t, r, http.StatusResetContent, "pin")
	var pinned gitea.NotificationThread
	r.Decode(t, &pinned)
	if !pinned.Pinned || pinned.Unread {
		t.Fatalf("pinned = %+v", pinned)
	}
	mustStatus(t, s.Do("PATCH", fmt.Sprintf("api/v1/notifications/threads/%d", all[2].ID), Token(bob.Token)), http.StatusResetContent, "read")
	if got := threadsOf(t, s, bob, "api/v1/notifications", ""); len(got) != 2 {
		t.Fatalf("default list = %s", threadTitles(got))
	}
	if got := threadsOf(t, s, bob, "api/v1/notifications", "status-types=read"); len(got) != 1 || got[0].ID != all[2].ID {
		t.Fatalf("read list = %s", threadTitles(got))
	}
	if got := threadsOf(t, s, bob, "api/v1/notifications", "status-types=read&status-types=pinned"); len(got) != 2 {
		t.Fatalf("read+pinned list = %s", threadTitles(got))
	}
	if got := threadsOf(t, s, bob, "api/v1/notifications", "all=true"); len(got) != 3 {
		t.Fatalf("all list = %s", threadTitles(got))
	}
	if n := newCount(t, s, bob); n != 1 {
		t.Fatalf("new = %d, want 1 (pinned and read do not count)", n)
	}
	// The SDK reads the same thing.
	bc := s.Client(bob.Token)
	if got, _, err := bc.ListNotifications(gitea.ListNotificationOptions{Status: []gitea.NotifyStatus{gitea.NotifyStatusPinned}}); err != nil || len(got) != 1 || !got[0].Pinned {
		t.Fatalf("sdk pinned list = %v %+v", err, got)
	}
	if got, _, err := bc.GetNotification(all[1].ID); err != nil || got.ID != all[1].ID || !got.Pinned {
		t.Fatalf("sdk get = %v %+v", err, got)
	}

	// Subject types.
	if got := threadsOf(t, s, bob, "api/v1/notifications", "all=true&subject-type=pull"); len(got) != 0 {
		t.Fatalf("pull list = %s", threadTitles(got))
	}
	if got := threadsOf(t, s, bob, "api/v1/notifications", "all=true&subject-type=issue&subject-type=pull"); len(got) != 3 {
		t.Fatalf("issue list = %s", threadTitles(got))
	}

	// since / before bound the update time.
	future := url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339))
	past := url.QueryEscape(start.Add(-time.Hour).Format(time.RFC3339))
	if got := threadsOf(t, s, bob, "api/v1/notifications", "all=true&since="+future); len(got) != 0 {
		t.Fatalf("since future = %s", threadTitles(got))
	}
	if got := threadsOf(t, s, bob, "api/v1/notifications", "all=true&before="+past); len(got) != 0 {
		t.Fatalf("before past = %s", threadTitles(got))
	}
	if got := threadsOf(t, s, bob, "api/v1/notifications", "all=true&since="+url.QueryEscape(start.Format(time.RFC3339))+"&before="+future); len(got) != 3 {
		t.Fatalf("since..before = %s", threadTitles(got))
	}
	mustStatus(t, s.Do("GET", "api/v1/notifications?since=yesterday", Token(bob.Token)), http.StatusUnprocessableEntity, "bad since")

	// Repository-scoped list and mark.
	if got := threadsOf(t, s, bob, "api/v1/repos/alice/two/notifications", "all=true"); len(got) != 1 || got[0].Repository.Name != "two" {
		t.Fatalf("repo two list = %s", threadTitles(got))
	}
	if got, _, err := bc.ListRepoNotifications("alice", "one", gitea.ListNotificationOptions{}); err != nil || len(got) != 1 || !got[0].Pinned {
		t.Fatalf("sdk repo one list = %v %s", err, threadTitles(derefThreads(got)))
	}
	r = s.Do("PUT", "api/v1/repos/alice/two/notifications", Token(bob.Token))
	mustStatus(t, r, http.StatusResetContent, "repo mark")
	var marked []gitea.NotificationThread
	r.Decode(t, &marked)
	if len(marked) != 1 || marked[0].Repository.Name != "two" || marked[0].Unread {
		t.Fatalf("repo mark changed %s", threadTitles(marked))
	}
	if n := newCount(t, s, bob); n != 0 {
		t.Fatalf("new after repo mark = %d", n)
	}

	// last_read_at in the past changes nothing; bad values answer 400.
	r = s.Do("PUT", "api/v1/notifications?all=true&to-status=unread&last_read_at="+past, Token(bob.Token))
	mustStatus(t, r, http.StatusResetContent, "mark old")
	if string(r.Body) != "[]\n" {
		t.Fatalf("mark with old last_read_at changed %s", r.Body)
	}
	mustStatus(t, s.Do("PUT", "api/v1/notifications?last_read_at=soon", Token(bob.Token)), http.StatusBadRequest, "bad last_read_at")
	// Marking pinned threads unread with status-types.
	r = s.Do("PUT", "api/v1/notifications?status-types=pinned&to-status=unread", Token(bob.Token))
	mustStatus(t, r, http.StatusResetContent, "unpin")
	r.Decode(t, &marked)
	if len(marked) != 1 || marked[0].ID != all[1].ID || !marked[0].Unread || marked[0].Pinned {
		t.Fatalf("unpin changed %+v", marked)
	}
}

func derefThreads(list []*gitea.NotificationThread) []gitea.NotificationThread {
	out := make([]gitea.NotificationThread, 0, len(list))
	for _, th := range list {
		out = append(out, *th)
	}
	return out
}

// TestNotificationPrivateRepository: nobody hears about an issue they cannot
// read, not even when mentioned; losing access hides existing threads.
func TestNotificationPrivateRepository(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	eve := s.CreateUser("eve")
	rita := s.CreateUser("rita", "restricted")
	createRepo(t, s, alice, "secret", true)
	createRepo(t, s, alice, "open", false)
	addCollaborator(t, s, alice, "secret", "bob", "read")

	mustStatus(t, s.Do("POST", "api/v1/repos/alice/secret/issues", Token(alice.Token),
		JSON(map[string]any{"title": "Hidden", "body": "@eve @bob @rita have a look"})), http.StatusCreated, "create")
	if got := threadsOf(t, s, eve, "api/v1/notifications", "all=true"); len(got) != 0 {
		t.Fatalf("eve heard of a private issue: %s", threadTitles(got))
	}
	if got := threadsOf(t, s, rita, "api/v1/notifications", "all=true"); len(got) != 0 {
		t.Fatalf("restricted rita heard of a private issue: %s", threadTitles(got))
	}
	got := threadsOf(t, s, bob, "api/v1/notifications", "")
	if len(got) != 1 || got[0].Subject.Title != "Hidden" {
		t.Fatalf("bob (reader) threads = %s", threadTitles(got))
	}
	// eve cannot reach the thread or the repository list either.
	mustStatus(t, s.Do("GET", fmt.Sprintf("api/v1/notifications/threads/%d", got[0].ID), Token(eve.Token)), http.StatusForbidden, "eve reads bob's thread")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/secret/notifications", Token(eve.Token)), http.StatusNotFound, "eve repo list")
	// A mention in a public repository reaches the restricted user only if
	// she has access there: restricted accounts see only what they are given.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/open/issues", Token(alice.Token),
		JSON(map[string]any{"title": "Public", "body": "@rita @eve"})), http.StatusCreated, "create public")
	if got := threadsOf(t, s, rita, "api/v1/notifications", "all=true"); len(got) != 0 {
		t.Fatalf("restricted rita heard of an issue she cannot read: %s", threadTitles(got))
	}
	if got := threadsOf(t, s, eve, "api/v1/notifications", ""); len(got) != 1 || got[0].Subject.Title != "Public" {
		t.Fatalf("eve public threads = %s", threadTitles(got))
	}

	// Bob loses access: his thread is no longer shown (counts read the index
	// only and may still include it).
	if r := s.Do("DELETE", "api/v1/repos/alice/secret/collaborators/bob", Token(alice.Token)); r.Status != http.StatusNoContent {
		t.Fatalf("remove collaborator: %d %s", r.Status, r.Body)
	}
	if still := threadsOf(t, s, bob, "api/v1/notifications", "all=true"); len(still) != 0 {
		t.Fatalf("bob still sees %s", threadTitles(still))
	}
	mustStatus(t, s.Do("GET", fmt.Sprintf("api/v1/notifications/threads/%d", got[0].ID), Token(bob.Token)), http.StatusNotFound, "bob's hidden thread")
}

// TestNotificationPermissionMatrix covers every notification route for the
// signed-out caller, the owner of a thread, another user, an administrator
// and tokens without the notification scope.
func TestNotificationPermissionMatrix(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	eve := s.CreateUser("eve")
	createRepo(t, s, alice, "pub", false)
	createRepo(t, s, alice, "priv", true)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/pub/issues", Token(alice.Token), JSON(map[string]any{"title": "x", "body": "@bob"})), http.StatusCreated, "create")
	th := threadsOf(t, s, bob, "api/v1/notifications", "")
	if len(th) != 1 {
		t.Fatalf("bob threads = %d", len(th))
	}
	thread := fmt.Sprintf("api/v1/notifications/threads/%d", th[0].ID)
	readOnly := s.CreateToken("bob", bob.Password, "ro", "read:notification")
	noScope := s.CreateToken("bob", bob.Password, "issues", "read:issue", "read:repository")

	cases := []struct {
		name, method, path, token string
		want                      int
	}{
		{"anon list", "GET", "api/v1/notifications", "", 401},
		{"anon mark", "PUT", "api/v1/notifications", "", 401},
		{"anon new", "GET", "api/v1/notifications/new", "", 401},
		{"anon thread", "GET", thread, "", 401},
		{"anon patch", "PATCH", thread, "", 401},
		{"anon repo list", "GET", "api/v1/repos/alice/pub/notifications", "", 401},
		{"anon repo mark", "PUT", "api/v1/repos/alice/pub/notifications", "", 401},
		{"anon private repo list", "GET", "api/v1/repos/alice/priv/notifications", "", 404},
		{"owner thread", "GET", thread, bob.Token, 200},
		{"other user's thread", "GET", thread, eve.Token, 403},
		{"other user's patch", "PATCH", thread, eve.Token, 403},
		{"admin reads any thread", "GET", thread, s.AdminTok, 200},
		{"admin cannot change another's thread", "PATCH", thread, s.AdminTok, 403},
		{"unknown thread", "GET", "api/v1/notifications/threads/999999", bob.Token, 404},
		{"bad thread id", "GET", "api/v1/notifications/threads/abc", bob.Token, 404},
		{"stranger private repo list", "GET", "api/v1/repos/alice/priv/notifications", eve.Token, 404},
		{"unknown repo list", "GET", "api/v1/repos/alice/nope/notifications", bob.Token, 404},
		{"read token lists", "GET", "api/v1/notifications", readOnly, 200},
		{"read token repo list", "GET", "api/v1/repos/alice/pub/notifications", readOnly, 200},
		{"read token cannot mark", "PUT", "api/v1/notifications", readOnly, 403},
		{"read token cannot patch", "PATCH", thread, readOnly, 403},
		{"token without notification scope", "GET", "api/v1/notifications", noScope, 403},
		{"token without notification scope, repo", "GET", "api/v1/repos/alice/pub/notifications", noScope, 403},
		{"token without notification scope, new", "GET", "api/v1/notifications/new", noScope, 403},
	}
	for _, c := range cases {
		if r := s.Do(c.method, c.path, Token(c.token)); r.Status != c.want {
			t.Errorf("%s: %s %s = %d, want %d (%s)", c.name, c.method, c.path, r.Status, c.want, r.Body)
		}
	}
	// Nothing above changed bob's thread.
	if got := threadsOf(t, s, bob, "api/v1/notifications", ""); len(got) != 1 || !got[0].Unread {
		t.Fatalf("bob's thread changed: %+v", got)
	}
}

// TestNotificationManyThreads: a user with 10,000 threads is served with the
// same number of queries whatever the page size, quickly.
func TestNotificationManyThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 10,000 threads")
	}
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "big", false)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/big/issues", Token(alice.Token), JSON(map[string]any{"title": "seed", "body": "@bob"})), http.StatusCreated, "seed")
	seedThreads(t, s, "alice", "big", bob.ID, 10000)

	if n := newCount(t, s, bob); n != 10001 {
		t.Fatalf("new = %d", n)
	}
	counts := map[string]string{}
	for _, q := range []string{"limit=1", "limit=50", "limit=50&page=150", "all=true&limit=50&subject-type=issue"} {
		began := time.Now()
		r := s.Do("GET", "api/v1/notifications?"+q, Token(bob.Token))
		took := time.Since(began)
		mustStatus(t, r, http.StatusOK, q)
		if r.Header.Get("X-Total-Count") != "10001" {
			t.Fatalf("%s total = %s", q, r.Header.Get("X-Total-Count"))
		}
		counts[q] = r.Header.Get("X-Cairn-Query-Count")
		t.Logf("GET /notifications?%s: %v, %s queries", q, took, counts[q])
		if took > 3*time.Second {
			t.Errorf("GET /notifications?%s took %v", q, took)
		}
	}
	if counts["limit=1"] == "" || counts["limit=1"] != counts["limit=50"] || counts["limit=50"] != counts["limit=50&page=150"] {
		t.Fatalf("query count depends on the page: %v", counts)
	}
}

// seedThreads writes n issues of owner/repo with one unread thread each for
// user uid directly into the database (as a benchmark helper would).
func seedThreads(t *testing.T, s *Server, owner, repo string, uid int64, n int) {
	t.Helper()
	dbURL := ""
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "CAIRN_DATABASE_URL="); ok {
			dbURL = v
		}
	}
	ctx := context.Background()
	d, err := db.Open(ctx, dbURL, s.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var repoID int64
	if err := d.QueryRow(ctx, "SELECT r.id FROM repository r JOIN users o ON o.id = r.owner_id WHERE o.lower_name = ? AND r.lower_name = ?", owner, repo).Scan(&repoID); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix() - int64(n)
	err = d.WithTx(ctx, func(ctx context.Context) error {
		const batch = 200
		for start := 0; start < n; start += batch {
			var iv, nv []string
			var iargs []any
			for i := start; i < start+batch && i < n; i++ {
				iv = append(iv, "(?, ?, ?, ?, ?, ?)")
				iargs = append(iargs, repoID, 1000+i, uid, fmt.Sprintf("seeded %d", i), now+int64(i), now+int64(i))
			}
			if _, err := d.Exec(ctx, "INSERT INTO issue (repo_id, idx, poster_id, title, created_unix, updated_unix) VALUES "+strings.Join(iv, ", "), iargs...); err != nil {
				return err
			}
			var nargs []any
			rows, err := d.Query(ctx, "SELECT id, created_unix FROM issue WHERE repo_id = ? AND idx >= ? AND idx < ?", repoID, 1000+start, 1000+start+batch)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, at int64
				if err := rows.Scan(&id, &at); err != nil {
					rows.Close()
					return err
				}
				nv = append(nv, "(?, ?, ?, ?, ?, ?, ?, ?)")
				nargs = append(nargs, uid, repoID, 1, 1, id, uid, at, at)
			}
			rows.Close()
			if _, err := d.Exec(ctx, "INSERT INTO notification (user_id, repo_id, status, source, issue_id, updated_by, created_unix, updated_unix) VALUES "+strings.Join(nv, ", "), nargs...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNotificationPagesFromBothEnds reads every page of a user's threads in
// mixed states, including pages past the middle (read from the oldest end)
// and past the end, and compares them with the whole list in one page.
func TestNotificationPagesFromBothEnds(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	for i := range 23 {
		r := s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token), JSON(map[string]any{"title": fmt.Sprintf("issue %d", i), "body": "cc @bob"}))
		mustStatus(t, r, http.StatusCreated, "create")
	}
	all := threadsOf(t, s, bob, "api/v1/notifications", "all=true&limit=50")
	if len(all) != 23 {
		t.Fatalf("bob has %d threads, want 23", len(all))
	}
	for i, th := range all {
		switch i % 3 {
		case 1:
			mustStatus(t, s.Do("PATCH", fmt.Sprintf("api/v1/notifications/threads/%d?to-status=pinned", th.ID), Token(bob.Token)), http.StatusResetContent, "pin")
		case 2:
			mustStatus(t, s.Do("PATCH", fmt.Sprintf("api/v1/notifications/threads/%d", th.ID), Token(bob.Token)), http.StatusResetContent, "read")
		}
	}
	ids := func(list []gitea.NotificationThread) []int64 {
		out := make([]int64, len(list))
		for i, th := range list {
			out[i] = th.ID
		}
		return out
	}
	for _, filter := range []string{"all=true", "", "status-types=read", "status-types=pinned&status-types=read"} {
		whole := ids(threadsOf(t, s, bob, "api/v1/notifications", filter+"&limit=50"))
		var paged []int64
		for page := 1; ; page++ {
			r := s.Do("GET", fmt.Sprintf("api/v1/notifications?%s&limit=4&page=%d", filter, page), Token(bob.Token))
			mustStatus(t, r, http.StatusOK, filter)
			if got := r.Header.Get("X-Total-Count"); got != strconv.Itoa(len(whole)) {
				t.Fatalf("%s page %d: total %s, want %d", filter, page, got, len(whole))
			}
			var list []gitea.NotificationThread
			r.Decode(t, &list)
			if list == nil {
				t.Fatalf("%s page %d: body %s, want a JSON array", filter, page, r.Body)
			}
			if len(list) == 0 {
				break
			}
			paged = append(paged, ids(list)...)
		}
		if !slices.Equal(paged, whole) {
			t.Errorf("%s: pages give %v, the whole list %v", filter, paged, whole)
		}
	}
}
