package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// threadTitled finds u's thread about the issue titled title (any status).
func threadTitled(t *testing.T, s *Server, u *User, title string) gitea.NotificationThread {
	t.Helper()
	for _, th := range threadsOf(t, s, u, "api/v1/notifications", "all=true") {
		if th.Subject != nil && th.Subject.Title == title {
			return th
		}
	}
	t.Fatalf("%s has no thread about %q", u.Name, title)
	return gitea.NotificationThread{}
}

// notifyComment has poster comment on issue 1 of repo and returns the comment's id.
func notifyComment(t *testing.T, s *Server, poster *User, repo, body string) int64 {
	t.Helper()
	r := s.Do("POST", "api/v1/repos/"+repo+"/issues/1/comments", Token(poster.Token), JSON(map[string]any{"body": body}))
	mustStatus(t, r, http.StatusCreated, "comment on "+repo)
	var c gitea.Comment
	r.Decode(t, &c)
	return c.ID
}

// TestWebNotifications: a comment by someone else on an issue the user
// subscribes to shows on /notifications with a link to the comment; marking
// it read, unread and pinned through the forms moves it between the tabs and
// the API agrees; "mark all as read" empties the unread tab; a thread of a
// repository the user lost access to is not shown; nobody else can change
// a user's thread, and the pages need a signed-in user and the CSRF token.
func TestWebNotifications(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("nalice")
	bob := s.CreateUser("nbob")
	carol := s.CreateUser("ncarol")
	createRepo(t, s, alice, "open", false)
	createRepo(t, s, alice, "secret", true)
	addCollaborator(t, s, alice, "secret", bob.Name, "write")
	for repo, title := range map[string]string{"open": "Broken build", "secret": "Secret plan"} {
		r := s.Do("POST", "api/v1/repos/nalice/"+repo+"/issues", Token(alice.Token), JSON(map[string]any{"title": title}))
		mustStatus(t, r, http.StatusCreated, "create issue in "+repo)
		mustStatus(t, s.Do("PUT", "api/v1/repos/nalice/"+repo+"/issues/1/subscriptions/nbob", Token(bob.Token)), http.StatusCreated, "bob subscribes in "+repo)
	}
	openComment := notifyComment(t, s, alice, "nalice/open", "a fix is coming")
	notifyComment(t, s, alice, "nalice/secret", "do not tell")

	t.Run("signed out is sent to sign in", func(t *testing.T) {
		p := s.Web(t).Get("/notifications")
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login") {
			t.Fatalf("signed out: %d %q", p.Status, p.Location)
		}
	})

	w := s.Web(t)
	w.SignIn(bob.Name, bob.Password)
	open := threadTitled(t, s, bob, "Broken build")
	if !open.Unread {
		t.Fatalf("thread not unread: %+v", open)
	}
	first := w.Get("/notifications")
	first.MustContain(t, http.StatusOK, "Broken build", "Secret plan", "nalice/open", "by nalice",
		fmt.Sprintf(`href="/nalice/open/issues/1#issuecomment-%d"`, openComment), `name="notification_id" value="`+strconv.FormatInt(open.ID, 10)+`"`,
		`href="/notifications">Notifications <span class="badge">2</span>`)

	t.Run("mark as read moves it to the read tab", func(t *testing.T) {
		p := w.Post("/notifications/status", url.Values{"notification_id": {strconv.FormatInt(open.ID, 10)}, "status": {"read"}, "type": {"unread"}})
		mustRedirect(t, p, "/notifications")
		p = w.Get("/notifications")
		if p.Status != http.StatusOK || strings.Contains(p.Body, "Broken build") || !strings.Contains(p.Body, "Secret plan") {
			t.Fatalf("read thread still in the unread tab: %d %.2000s", p.Status, p.Body)
		}
		// The page's queries do not grow with its rows (two rows before, one now).
		if q1, q2 := p.Header.Get("X-Cairn-Query-Count"), first.Header.Get("X-Cairn-Query-Count"); q1 == "" || q1 != q2 {
			t.Fatalf("query count with one row %q, with two %q", q1, q2)
		}
		w.Get("/notifications?type=read").MustContain(t, http.StatusOK, "Broken build", "Mark as unread",
			`href="/notifications">Notifications <span class="badge">1</span>`)
		if th := threadTitled(t, s, bob, "Broken build"); th.Unread || th.Pinned {
			t.Fatalf("API after mark read: %+v", th)
		}
	})

	t.Run("pin and unread", func(t *testing.T) {
		w.Get("/notifications?type=read")
		p := w.Post("/notifications/status", url.Values{"notification_id": {strconv.FormatInt(open.ID, 10)}, "status": {"pinned"}, "type": {"read"}})
		mustRedirect(t, p, "/notifications?type=read")
		w.Get("/notifications?type=pinned").MustContain(t, http.StatusOK, "Broken build", "Unpin")
		if th := threadTitled(t, s, bob, "Broken build"); !th.Pinned {
			t.Fatalf("API after pin: %+v", th)
		}
		p = w.Post("/notifications/status", url.Values{"notification_id": {strconv.FormatInt(open.ID, 10)}, "status": {"unread"}})
		mustRedirect(t, p, "/notifications")
		w.Get("/notifications").MustContain(t, http.StatusOK, "Broken build", "Mark as read")
		if th := threadTitled(t, s, bob, "Broken build"); !th.Unread {
			t.Fatalf("API after mark unread: %+v", th)
		}
	})

	t.Run("another user cannot change the thread", func(t *testing.T) {
		wc := s.Web(t)
		wc.SignIn(carol.Name, carol.Password)
		wc.Get("/notifications").MustContain(t, http.StatusOK, "You have no unread notifications.")
		p := wc.Post("/notifications/status", url.Values{"notification_id": {strconv.FormatInt(open.ID, 10)}, "status": {"read"}})
		if p.Status != http.StatusNotFound {
			t.Fatalf("carol changing bob's thread: %d", p.Status)
		}
		if th := threadTitled(t, s, bob, "Broken build"); !th.Unread {
			t.Fatalf("carol changed bob's thread: %+v", th)
		}
	})

	t.Run("a form without the CSRF token is refused", func(t *testing.T) {
		p := w.Post("/notifications/purge", url.Values{"_csrf": {"forged"}})
		if p.Status != http.StatusBadRequest {
			t.Fatalf("forged purge: %d", p.Status)
		}
		if n := newCount(t, s, bob); n != 2 {
			t.Fatalf("unread after forged purge = %d, want 2", n)
		}
	})

	t.Run("lost access hides the thread", func(t *testing.T) {
		if r := s.Do("DELETE", "api/v1/repos/nalice/secret/collaborators/nbob", Token(alice.Token)); r.Status != http.StatusNoContent {
			t.Fatalf("remove collaborator: %d %s", r.Status, r.Body)
		}
		for _, path := range []string{"/notifications", "/notifications?type=read", "/notifications?type=pinned"} {
			p := w.Get(path)
			if p.Status != http.StatusOK || strings.Contains(p.Body, "Secret plan") || strings.Contains(p.Body, "nalice/secret") {
				t.Fatalf("%s shows the lost repository's thread: %d %.3000s", path, p.Status, p.Body)
			}
		}
		w.Get("/notifications").MustContain(t, http.StatusOK, "Broken build")
	})

	t.Run("mark all as read", func(t *testing.T) {
		w.Get("/notifications")
		mustRedirect(t, w.Post("/notifications/purge", nil), "/notifications")
		if n := newCount(t, s, bob); n != 0 {
			t.Fatalf("unread after mark all = %d", n)
		}
		w.Get("/notifications").MustContain(t, http.StatusOK, "You have no unread notifications.")
		w.Get("/notifications?type=read").MustContain(t, http.StatusOK, "Broken build")
	})
}
