package e2e

import (
	"net/http"
	"net/url"
	"testing"
)

// TestGitNotes: a note pushed under refs/notes/commits is served with the
// notes commit that last changed it; commits without a note, unknown commits
// and bad revisions are refused, and private repositories stay hidden.
func TestGitNotes(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", true)
	work := t.TempDir()
	u, _ := url.Parse(s.URL + "alice/proj.git")
	u.User = url.UserPassword(alice.Name, alice.Token)
	gdGit(t, work, nil, "clone", "-q", u.String(), "w")
	dir := work + "/w"
	gdGit(t, dir, nil, "commit", "-q", "--allow-empty", "-m", "second")
	first := gdGit(t, dir, nil, "rev-parse", "HEAD~1")
	second := gdGit(t, dir, nil, "rev-parse", "HEAD")
	gdGit(t, dir, nil, "notes", "add", "-m", "reviewed by alice", first)
	gdGit(t, dir, nil, "notes", "add", "-m", "unrelated", second)
	gdGit(t, dir, nil, "notes", "append", "-m", "and by carol", first)
	notesHead := gdGit(t, dir, nil, "rev-parse", "refs/notes/commits")
	gdGit(t, dir, nil, "push", "-q", "origin", "HEAD:main", "refs/notes/commits")

	var note struct {
		Message string `json:"message"`
		Commit  struct {
			SHA   string `json:"sha"`
			Stats *struct {
				Total int `json:"total"`
			} `json:"stats"`
		} `json:"commit"`
	}
	r := s.Do("GET", "api/v1/repos/alice/proj/git/notes/"+first, Token(alice.Token))
	mustStatus(t, r, http.StatusOK, "note")
	r.Decode(t, &note)
	if note.Message != "reviewed by alice\n\nand by carol\n" || note.Commit.SHA != notesHead || note.Commit.Stats == nil {
		t.Fatalf("note = %+v (notes head %s)", note, notesHead)
	}
	// A short sha and a branch name resolve to the commit.
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/git/notes/main", Token(alice.Token)), http.StatusOK, "note by branch")
	r = s.Do("GET", "api/v1/repos/alice/proj/git/notes/"+first[:10], Token(alice.Token))
	mustStatus(t, r, http.StatusOK, "note by short sha")

	gdGit(t, dir, nil, "commit", "-q", "--allow-empty", "-m", "third")
	gdGit(t, dir, nil, "push", "-q", "origin", "HEAD:main")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/git/notes/main", Token(alice.Token)), http.StatusNotFound, "commit without a note")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/git/notes/0123456789abcdef0123456789abcdef01234567", Token(alice.Token)), http.StatusNotFound, "unknown commit")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/git/notes/-x", Token(alice.Token)), http.StatusUnprocessableEntity, "option as revision")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/git/notes/"+first, Token(bob.Token)), http.StatusNotFound, "private repository")
	// A repository without any notes.
	createRepo(t, s, alice, "plain", false)
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/plain/git/notes/main"), http.StatusNotFound, "no notes at all")
}
