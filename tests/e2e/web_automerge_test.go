package e2e

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestWebAutoMerge schedules a merge from the merge box while the head's
// checks run, cancels it, schedules it again and sees it happen when the
// checks succeed.
func TestWebAutoMerge(t *testing.T) {
	s := StartServer(t)
	u := s.CreateUser("auto")
	if r := s.API("POST", "user/repos", u.Token, map[string]any{"name": "am", "auto_init": true}); r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	r := s.API("POST", "repos/auto/am/contents/change.txt", u.Token, map[string]any{
		"content": base64.StdEncoding.EncodeToString([]byte("change\n")), "new_branch": "topic", "message": "A change"})
	if r.Status != http.StatusCreated {
		t.Fatalf("commit: %d %s", r.Status, r.Body)
	}
	var pr struct {
		Number int  `json:"number"`
		Merged bool `json:"merged"`
		Head   struct {
			Sha string `json:"sha"`
		} `json:"head"`
	}
	r = s.API("POST", "repos/auto/am/pulls", u.Token, map[string]any{"title": "Topic", "head": "topic", "base": "main"})
	if r.Status != http.StatusCreated {
		t.Fatalf("pull: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &pr)
	status := func(state string) {
		t.Helper()
		if r := s.API("POST", "repos/auto/am/statuses/"+pr.Head.Sha, u.Token, map[string]any{"state": state, "context": "ci"}); r.Status != http.StatusCreated {
			t.Fatalf("status %s: %d %s", state, r.Status, r.Body)
		}
	}
	status("pending")

	w := s.Web(t)
	w.SignIn(u.Name, u.Password)
	link := "/auto/am/pulls/1"
	w.Get(link).MustContain(t, http.StatusOK, "Merge when all checks succeed")
	form := url.Values{"do": {"merge"}, "merge_when_checks_succeed": {"true"}, "head_commit_id": {pr.Head.Sha}}
	if p := w.Post(link+"/merge", form); p.Status != http.StatusSeeOther {
		t.Fatalf("schedule: %d %s", p.Status, p.Body)
	}
	w.Get(link).MustContain(t, http.StatusOK, "The pull request will be merged when all checks succeed.", "Cancel the scheduled merge")
	s.API("GET", "repos/auto/am/pulls/1", u.Token, nil).Decode(t, &pr)
	if pr.Merged {
		t.Fatal("merged while the checks were pending")
	}
	// Another writer who did not schedule it may not cancel it.
	other := s.CreateUser("other-writer")
	if r := s.API("PUT", "repos/auto/am/collaborators/other-writer", u.Token, map[string]any{"permission": "write"}); r.Status != http.StatusNoContent {
		t.Fatalf("collaborator: %d %s", r.Status, r.Body)
	}
	w2 := s.Web(t)
	w2.SignIn(other.Name, other.Password)
	w2.Get(link)
	if p := w2.Post(link+"/cancel_auto_merge", nil); p.Status != http.StatusForbidden {
		t.Fatalf("cancel by another writer: %d", p.Status)
	}
	w.Get(link)
	if p := w.Post(link+"/cancel_auto_merge", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("cancel: %d %s", p.Status, p.Body)
	}
	if p := w.Get(link); strings.Contains(p.Body, "Cancel the scheduled merge") {
		t.Fatal("still scheduled after cancelling")
	}
	if p := w.Post(link+"/merge", form); p.Status != http.StatusSeeOther {
		t.Fatalf("schedule again: %d %s", p.Status, p.Body)
	}
	status("success")
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && !pr.Merged; time.Sleep(100 * time.Millisecond) {
		s.API("GET", "repos/auto/am/pulls/1", u.Token, nil).Decode(t, &pr)
	}
	if !pr.Merged {
		t.Fatal("not merged after the checks succeeded")
	}
}
