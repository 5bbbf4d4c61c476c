package e2e

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// A deleted repository takes its issues, labels and milestones with it: a new
// repository of the same name starts empty and numbers issues from 1.
func TestRepoDeleteRemovesIssueData(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "gone", false)
	for _, title := range []string{"one", "two"} {
		if r := s.Do("POST", "api/v1/repos/alice/gone/issues", Token(alice.Token), JSON(map[string]any{"title": title})); r.Status != 201 {
			t.Fatalf("create issue: %d %s", r.Status, r.Body)
		}
	}
	if r := s.Do("POST", "api/v1/repos/alice/gone/labels", Token(alice.Token), JSON(map[string]any{"name": "bug", "color": "ff0000"})); r.Status != 201 {
		t.Fatalf("create label: %d %s", r.Status, r.Body)
	}
	if r := s.Do("DELETE", "api/v1/repos/alice/gone", Token(alice.Token)); r.Status != 204 {
		t.Fatalf("delete repo: %d %s", r.Status, r.Body)
	}
	createRepo(t, s, alice, "gone", false)
	if r := s.Do("GET", "api/v1/repos/alice/gone/issues?state=all", Token(alice.Token)); r.Header.Get("X-Total-Count") != "0" {
		t.Fatalf("issues of the deleted repository are back: %s %s", r.Header.Get("X-Total-Count"), r.Body)
	}
	if r := s.Do("GET", "api/v1/repos/alice/gone/labels", Token(alice.Token)); strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("labels of the deleted repository are back: %s", r.Body)
	}
	r := s.Do("POST", "api/v1/repos/alice/gone/issues", Token(alice.Token), JSON(map[string]any{"title": "fresh"}))
	var is struct {
		Number int `json:"number"`
	}
	r.Decode(t, &is)
	if is.Number != 1 {
		t.Fatalf("first issue of the new repository is #%d", is.Number)
	}
}

// A key is either a deploy key or an account key, never both.
func TestDeployKeyCannotBecomeUserKey(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "app", true)
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub)))
	if r := s.Do("POST", "api/v1/repos/alice/app/keys", Token(alice.Token), JSON(map[string]any{"title": "ci", "key": line, "read_only": true})); r.Status != 201 {
		t.Fatalf("add deploy key: %d %s", r.Status, r.Body)
	}
	r := s.Do("POST", "api/v1/user/keys", Token(alice.Token), JSON(map[string]any{"title": "laptop", "key": line}))
	if r.Status != 422 || !strings.Contains(string(r.Body), "deploy key") {
		t.Fatalf("deploy key accepted as account key: %d %s", r.Status, r.Body)
	}
	if l := s.Do("GET", "api/v1/user/keys", Token(alice.Token)); strings.TrimSpace(string(l.Body)) != "[]" {
		t.Fatalf("account keys after refusal: %s", l.Body)
	}
}

// Deleting an issue removes it with its comments; the other issues stay.
func TestIssueDeleteRemovesComments(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	createRepo(t, s, alice, "proj", false)
	for _, title := range []string{"keep", "drop"} {
		if r := s.Do("POST", "api/v1/repos/alice/proj/issues", Token(alice.Token), JSON(map[string]any{"title": title})); r.Status != 201 {
			t.Fatalf("create issue: %d %s", r.Status, r.Body)
		}
	}
	if r := s.Do("POST", "api/v1/repos/alice/proj/issues/2/comments", Token(alice.Token), JSON(map[string]any{"body": "bye"})); r.Status != 201 {
		t.Fatalf("comment: %d %s", r.Status, r.Body)
	}
	if r := s.Do("DELETE", "api/v1/repos/alice/proj/issues/2", Token(alice.Token)); r.Status != 204 {
		t.Fatalf("delete issue: %d %s", r.Status, r.Body)
	}
	if r := s.Do("GET", "api/v1/repos/alice/proj/issues/2", Token(alice.Token)); r.Status != 404 {
		t.Fatalf("deleted issue answers %d", r.Status)
	}
	if r := s.Do("GET", "api/v1/repos/alice/proj/issues/comments", Token(alice.Token)); strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("comments of the deleted issue remain: %s", r.Body)
	}
	if r := s.Do("GET", "api/v1/repos/alice/proj/issues/1", Token(alice.Token)); r.Status != 200 {
		t.Fatalf("the other issue answers %d", r.Status)
	}
}
