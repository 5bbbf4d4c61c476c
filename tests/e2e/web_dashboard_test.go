package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestWebDashboardFeed shows the activity of the user's repositories on the
// dashboard, and nothing of a private repository to others.
func TestWebDashboardFeed(t *testing.T) {
	s := StartServer(t)
	owner := s.CreateUser("feeder")
	other := s.CreateUser("watcher")
	for _, name := range []string{"open-feed", "secret-feed"} {
		r := s.API("POST", "user/repos", owner.Token, map[string]any{"name": name, "auto_init": true, "private": name == "secret-feed"})
		if r.Status != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, r.Status, r.Body)
		}
		if r := s.API("POST", "repos/feeder/"+name+"/issues", owner.Token, map[string]any{"title": "Feed <b>issue</b> in " + name}); r.Status != http.StatusCreated {
			t.Fatalf("issue: %d %s", r.Status, r.Body)
		}
	}
	// The other user watches the public repository.
	if r := s.API("PUT", "repos/feeder/open-feed/subscription", other.Token, nil); r.Status != http.StatusOK {
		t.Fatalf("watch: %d %s", r.Status, r.Body)
	}

	w := s.Web(t)
	w.SignIn(owner.Name, owner.Password)
	p := w.Get("/")
	p.MustContain(t, http.StatusOK, "Recent activity", "created repository", "opened issue",
		`href="/feeder/open-feed/issues/1"`, "Feed &lt;b&gt;issue&lt;/b&gt; in open-feed", "feeder/secret-feed")

	w2 := s.Web(t)
	w2.SignIn(other.Name, other.Password)
	p = w2.Get("/")
	p.MustContain(t, http.StatusOK, "Recent activity", "Feed &lt;b&gt;issue&lt;/b&gt; in open-feed")
	if strings.Contains(p.Body, "secret-feed") {
		t.Fatal("a private repository's activity shows on another user's dashboard")
	}
}
