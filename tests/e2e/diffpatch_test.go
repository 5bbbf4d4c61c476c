package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestApplyDiffPatch: a unified diff becomes one commit by the caller on the
// branch (or a new one); a patch that does not apply, an empty one and a
// reader are refused and change nothing.
func TestApplyDiffPatch(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	commitFiles(t, s, alice.Token, "alice/proj", "create", map[string]string{"notes.txt": "one\ntwo\nthree\n"})
	patch := "diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" +
		"diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n"
	post := func(tok string, body map[string]any) *Response {
		return s.Do("POST", "api/v1/repos/alice/proj/diffpatch", Token(tok), JSON(body))
	}
	r := post(alice.Token, map[string]any{"content": patch, "message": "Apply a fix"})
	mustStatus(t, r, http.StatusCreated, "apply")
	var out struct {
		Content any `json:"content"`
		Commit  struct {
			SHA     string `json:"sha"`
			Message string `json:"message"`
			Author  struct {
				Name string `json:"name"`
			} `json:"author"`
		} `json:"commit"`
	}
	r.Decode(t, &out)
	if out.Content != nil || out.Commit.SHA == "" || !strings.HasPrefix(out.Commit.Message, "Apply a fix") || out.Commit.Author.Name != "alice" {
		t.Fatalf("response = %+v", out)
	}
	if got := fileAt(t, s, alice.Token, "alice/proj", "notes.txt"); got != "one\nTWO\nthree\n" {
		t.Fatalf("notes.txt = %q", got)
	}
	if got := fileAt(t, s, alice.Token, "alice/proj", "new.txt"); got != "fresh\n" {
		t.Fatalf("new.txt = %q", got)
	}
	// The same patch again no longer applies; nothing moves.
	r = post(alice.Token, map[string]any{"content": patch})
	mustStatus(t, r, http.StatusUnprocessableEntity, "stale patch")
	if !strings.Contains(string(r.Body), "does not apply") {
		t.Fatalf("stale patch message: %s", r.Body)
	}
	var head struct {
		SHA string `json:"sha"`
	}
	s.Do("GET", "api/v1/repos/alice/proj/git/commits/main", Token(alice.Token)).Decode(t, &head)
	if head.SHA != out.Commit.SHA {
		t.Fatal("a refused patch moved the branch")
	}
	// On a new branch.
	fix := "--- a/new.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-fresh\n+fresher\n"
	mustStatus(t, post(alice.Token, map[string]any{"content": fix, "new_branch": "fix"}), http.StatusCreated, "apply on a new branch")
	if got := fileAt(t, s, alice.Token, "alice/proj", "new.txt"); got != "fresh\n" {
		t.Fatalf("the default branch changed: %q", got)
	}
	r = s.Do("GET", "api/v1/repos/alice/proj/contents/new.txt?ref=fix", Token(alice.Token))
	mustStatus(t, r, http.StatusOK, "file on the new branch")
	// Bad input and permissions.
	mustStatus(t, post(alice.Token, map[string]any{"content": ""}), http.StatusUnprocessableEntity, "empty patch")
	mustStatus(t, post(alice.Token, map[string]any{"content": "not a diff at all"}), http.StatusUnprocessableEntity, "garbage")
	mustStatus(t, post(alice.Token, map[string]any{"content": fix, "branch": "nope"}), http.StatusNotFound, "unknown branch")
	mustStatus(t, post(bob.Token, map[string]any{"content": fix}), http.StatusForbidden, "reader")
	// Gitea checks write access before the token here: 403, not 401.
	mustStatus(t, post("", map[string]any{"content": fix}), http.StatusForbidden, "signed out")
}
