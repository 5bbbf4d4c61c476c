package e2e

import (
	"net/http"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// subscriptionCheck reads GET .../subscriptions/check as u.
func subscriptionCheck(t *testing.T, s *Server, u *User, repo string) gitea.WatchInfo {
	t.Helper()
	r := s.Do("GET", "api/v1/repos/"+repo+"/issues/1/subscriptions/check", Token(u.Token))
	mustStatus(t, r, http.StatusOK, "check as "+u.Name)
	var wi gitea.WatchInfo
	r.Decode(t, &wi)
	return wi
}

func subscriberNames(t *testing.T, s *Server, repo string) []string {
	t.Helper()
	r := s.Do("GET", "api/v1/repos/"+repo+"/issues/1/subscriptions")
	mustStatus(t, r, http.StatusOK, "subscribers")
	var users []gitea.User
	r.Decode(t, &users)
	var names []string
	for _, u := range users {
		names = append(names, u.UserName)
	}
	return names
}

// TestIssueSubscriptions: check, subscribe (201, then 200), unsubscribe (201,
// then 200), the subscriber list, who may change whose subscription, and the
// effect on notifications.
func TestIssueSubscriptions(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	dave := s.CreateUser("dave")
	createRepo(t, s, alice, "proj", false)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token), JSON(map[string]any{"title": "Watch me"})), http.StatusCreated, "create")

	// The poster is subscribed; a stranger is not.
	wi := subscriptionCheck(t, s, alice, "alice/proj")
	if !wi.Subscribed || wi.Ignored || wi.URL != s.URL+"api/v1/repos/alice/proj/issues/1/subscriptions" ||
		wi.RepositoryURL != s.URL+"api/v1/repos/alice/proj" || wi.Reason != nil || wi.CreatedAt.IsZero() {
		t.Fatalf("alice check = %+v", wi)
	}
	if wi := subscriptionCheck(t, s, bob, "alice/proj"); wi.Subscribed || !wi.Ignored {
		t.Fatalf("bob check = %+v", wi)
	}

	// Subscribe: 201, then 200 (already); the SDK agrees.
	mustStatus(t, s.Do("PUT", "api/v1/repos/alice/proj/issues/1/subscriptions/bob", Token(bob.Token)), http.StatusCreated, "subscribe")
	mustStatus(t, s.Do("PUT", "api/v1/repos/alice/proj/issues/1/subscriptions/bob", Token(bob.Token)), http.StatusOK, "subscribe again")
	if wi := subscriptionCheck(t, s, bob, "alice/proj"); !wi.Subscribed {
		t.Fatalf("bob after subscribing = %+v", wi)
	}
	if got := subscriberNames(t, s, "alice/proj"); len(got) != 2 || got[0] != "alice" || got[1] != "bob" {
		t.Fatalf("subscribers = %v", got)
	}
	if r := s.Do("GET", "api/v1/repos/alice/proj/issues/1/subscriptions?limit=1"); r.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("subscribers total = %q", r.Header.Get("X-Total-Count"))
	}
	cc := s.Client(carol.Token)
	if _, err := cc.IssueSubscribe("alice", "proj", 1); err != nil {
		t.Fatalf("sdk subscribe: %v", err)
	}
	if users, _, err := cc.ListIssueSubscribers("alice", "proj", 1, gitea.ListIssueSubscribersOptions{}); err != nil || len(users) != 3 {
		t.Fatalf("sdk subscribers = %d, %v", len(users), err)
	}
	if _, err := cc.IssueUnSubscribe("alice", "proj", 1); err != nil {
		t.Fatalf("sdk unsubscribe: %v", err)
	}

	// Subscribers hear about comments; the commenter does not.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/comments", Token(dave.Token), JSON(map[string]any{"body": "hi"})), http.StatusCreated, "dave comments")
	if got := threadsOf(t, s, bob, "api/v1/notifications", ""); len(got) != 1 {
		t.Fatalf("bob (subscribed) threads = %s", threadTitles(got))
	}
	if got := threadsOf(t, s, dave, "api/v1/notifications", "all=true"); len(got) != 0 {
		t.Fatalf("dave (doer) threads = %s", threadTitles(got))
	}
	// Carol unsubscribed explicitly: commenting does not bring her back.
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/comments", Token(carol.Token), JSON(map[string]any{"body": "me too"})), http.StatusCreated, "carol comments")

	// Unsubscribing wins over taking part: the poster stops hearing.
	mustStatus(t, s.Do("DELETE", "api/v1/repos/alice/proj/issues/1/subscriptions/alice", Token(alice.Token)), http.StatusCreated, "alice unsubscribes")
	mustStatus(t, s.Do("DELETE", "api/v1/repos/alice/proj/issues/1/subscriptions/alice", Token(alice.Token)), http.StatusOK, "alice unsubscribes again")
	if wi := subscriptionCheck(t, s, alice, "alice/proj"); wi.Subscribed || !wi.Ignored {
		t.Fatalf("alice after unsubscribing = %+v", wi)
	}
	mustStatus(t, s.Do("PUT", "api/v1/notifications", Token(alice.Token)), http.StatusResetContent, "alice reads")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/proj/issues/1/comments", Token(bob.Token), JSON(map[string]any{"body": "ping"})), http.StatusCreated, "bob comments")
	if n := newCount(t, s, alice); n != 0 {
		t.Fatalf("unsubscribed poster notified: %d", n)
	}
	// Dave commented, so he takes part and hears of bob's comment; carol,
	// who commented too but unsubscribed, does not.
	if got := threadsOf(t, s, dave, "api/v1/notifications", ""); len(got) != 1 {
		t.Fatalf("dave (participant) threads = %s", threadTitles(got))
	}
	if wi := subscriptionCheck(t, s, dave, "alice/proj"); !wi.Subscribed {
		t.Fatalf("dave (participant) check = %+v", wi)
	}
	if got := threadsOf(t, s, carol, "api/v1/notifications", "all=true"); len(got) != 0 {
		t.Fatalf("carol (unsubscribed) threads = %s", threadTitles(got))
	}
	if wi := subscriptionCheck(t, s, carol, "alice/proj"); wi.Subscribed {
		t.Fatalf("carol (unsubscribed) check = %+v", wi)
	}

	// Who may change whose subscription.
	cases := []struct {
		name, method, path, token string
		want                      int
	}{
		{"anon list on public", "GET", "api/v1/repos/alice/proj/issues/1/subscriptions", "", 200},
		{"anon check", "GET", "api/v1/repos/alice/proj/issues/1/subscriptions/check", "", 401},
		{"anon subscribe", "PUT", "api/v1/repos/alice/proj/issues/1/subscriptions/bob", "", 401},
		{"other user", "PUT", "api/v1/repos/alice/proj/issues/1/subscriptions/carol", bob.Token, 403},
		{"other user delete", "DELETE", "api/v1/repos/alice/proj/issues/1/subscriptions/carol", bob.Token, 403},
		{"repo owner for another", "PUT", "api/v1/repos/alice/proj/issues/1/subscriptions/bob", alice.Token, 403},
		{"admin for another", "DELETE", "api/v1/repos/alice/proj/issues/1/subscriptions/bob", s.AdminTok, 201},
		{"unknown user", "PUT", "api/v1/repos/alice/proj/issues/1/subscriptions/nobody", s.AdminTok, 404},
		{"unknown issue", "PUT", "api/v1/repos/alice/proj/issues/7/subscriptions/bob", bob.Token, 404},
		{"unknown issue list", "GET", "api/v1/repos/alice/proj/issues/7/subscriptions", "", 404},
	}
	for _, c := range cases {
		if r := s.Do(c.method, c.path, Token(c.token)); r.Status != c.want {
			t.Errorf("%s: %s %s = %d, want %d (%s)", c.name, c.method, c.path, r.Status, c.want, r.Body)
		}
	}
	if wi := subscriptionCheck(t, s, bob, "alice/proj"); wi.Subscribed {
		t.Fatalf("admin's unsubscribe of bob did not hold: %+v", wi)
	}
}

// TestIssueSubscriptionPrivate: subscriptions of a private repository's
// issues are out of reach of those who cannot read it; watching the
// repository subscribes to its issues.
func TestIssueSubscriptionPrivate(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	eve := s.CreateUser("eve")
	createRepo(t, s, alice, "secret", true)
	addCollaborator(t, s, alice, "secret", "bob", "read")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/secret/issues", Token(alice.Token), JSON(map[string]any{"title": "x"})), http.StatusCreated, "create")
	for _, c := range []struct{ method, path, token string }{
		{"GET", "api/v1/repos/alice/secret/issues/1/subscriptions", ""},
		{"GET", "api/v1/repos/alice/secret/issues/1/subscriptions", eve.Token},
		{"GET", "api/v1/repos/alice/secret/issues/1/subscriptions/check", eve.Token},
		{"PUT", "api/v1/repos/alice/secret/issues/1/subscriptions/eve", eve.Token},
		{"DELETE", "api/v1/repos/alice/secret/issues/1/subscriptions/eve", eve.Token},
	} {
		if r := s.Do(c.method, c.path, Token(c.token)); r.Status != http.StatusNotFound {
			t.Errorf("%s %s = %d, want 404", c.method, c.path, r.Status)
		}
	}
	if wi := subscriptionCheck(t, s, bob, "alice/secret"); wi.Subscribed {
		t.Fatalf("bob check before watching = %+v", wi)
	}
	if r := s.Do("PUT", "api/v1/repos/alice/secret/subscription", Token(bob.Token)); r.Status != http.StatusOK {
		t.Skipf("repository watch API not available: %d %s", r.Status, r.Body)
	}
	if wi := subscriptionCheck(t, s, bob, "alice/secret"); !wi.Subscribed {
		t.Fatalf("bob watching the repository = %+v", wi)
	}
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/secret/issues/1", Token(alice.Token), JSON(map[string]any{"state": "closed"})), http.StatusCreated, "close")
	if got := threadsOf(t, s, bob, "api/v1/notifications", ""); len(got) != 1 || got[0].Subject.State != gitea.NotifySubjectClosed {
		t.Fatalf("bob (repository watcher) threads = %s", threadTitles(got))
	}
}
