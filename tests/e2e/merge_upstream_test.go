package e2e

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// fileAt returns the content of path on the default branch, "" when absent.
func fileAt(t *testing.T, s *Server, tok, full, path string) string {
	t.Helper()
	r := s.Do("GET", "api/v1/repos/"+full+"/contents/"+path, Token(tok))
	if r.Status == http.StatusNotFound {
		return ""
	}
	mustStatus(t, r, http.StatusOK, "read "+path)
	var c struct {
		Content string `json:"content"`
	}
	r.Decode(t, &c)
	b, err := base64.StdEncoding.DecodeString(c.Content)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMergeUpstream: a fork's branch follows its upstream by fast-forward,
// by merge once both have moved, is refused on conflicts (unchanged), and
// only writers of the fork who can read the upstream may do it.
func TestMergeUpstream(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	createRepo(t, s, alice, "up", false)
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/up/forks", Token(bob.Token), JSON(map[string]any{})), http.StatusAccepted, "fork")
	sync := func(tok string, body any) *Response {
		t.Helper()
		return s.API("POST", "repos/bob/up/merge-upstream", tok, body)
	}
	style := func(r *Response) string {
		t.Helper()
		mustStatus(t, r, http.StatusOK, "merge-upstream")
		var out struct {
			MergeType string `json:"merge_type"`
		}
		r.Decode(t, &out)
		return out.MergeType
	}

	// Up to date already, then a fast-forward (no body: the default branch).
	if got := style(sync(bob.Token, nil)); got != "fast-forward" {
		t.Fatalf("sync of an up-to-date fork = %q", got)
	}
	commitFiles(t, s, alice.Token, "alice/up", "create", map[string]string{"a.txt": "from upstream\n"})
	if got := style(sync(bob.Token, nil)); got != "fast-forward" {
		t.Fatalf("first sync = %q", got)
	}
	if got := fileAt(t, s, bob.Token, "bob/up", "a.txt"); got != "from upstream\n" {
		t.Fatalf("a.txt in the fork = %q", got)
	}

	// Both moved: a merge commit by the caller with both parents.
	commitFiles(t, s, bob.Token, "bob/up", "create", map[string]string{"b.txt": "from the fork\n"})
	commitFiles(t, s, alice.Token, "alice/up", "create", map[string]string{"c.txt": "upstream again\n"})
	if got := style(sync(bob.Token, map[string]any{"branch": "main"})); got != "merge" {
		t.Fatalf("diverged sync = %q", got)
	}
	if fileAt(t, s, bob.Token, "bob/up", "b.txt") == "" || fileAt(t, s, bob.Token, "bob/up", "c.txt") == "" {
		t.Fatal("the merge lost a side")
	}
	var head struct {
		Commit struct {
			Author struct {
				Name string `json:"name"`
			} `json:"author"`
			Message string `json:"message"`
		} `json:"commit"`
		Parents []struct {
			SHA string `json:"sha"`
		} `json:"parents"`
	}
	s.Do("GET", "api/v1/repos/bob/up/git/commits/main", Token(bob.Token)).Decode(t, &head)
	if len(head.Parents) != 2 || head.Commit.Author.Name != "bob" || !strings.Contains(head.Commit.Message, "alice/up") {
		t.Fatalf("merge commit = %+v", head)
	}
	// The fork now has every upstream commit and more: nothing to do.
	if got := style(sync(bob.Token, nil)); got != "merge" {
		t.Fatalf("sync of a fork ahead = %q", got)
	}

	// Conflicting edits are refused and change nothing.
	commitFiles(t, s, alice.Token, "alice/up", "update", map[string]string{"a.txt": "alice's version\n"})
	commitFiles(t, s, bob.Token, "bob/up", "update", map[string]string{"a.txt": "bob's version\n"})
	var before struct {
		SHA string `json:"sha"`
	}
	s.Do("GET", "api/v1/repos/bob/up/git/commits/main", Token(bob.Token)).Decode(t, &before)
	r := sync(bob.Token, nil)
	mustStatus(t, r, http.StatusBadRequest, "conflicting sync")
	if !strings.Contains(string(r.Body), "merge conflicts") {
		t.Fatalf("conflict message: %s", r.Body)
	}
	var after struct {
		SHA string `json:"sha"`
	}
	s.Do("GET", "api/v1/repos/bob/up/git/commits/main", Token(bob.Token)).Decode(t, &after)
	if after.SHA != before.SHA || fileAt(t, s, bob.Token, "bob/up", "a.txt") != "bob's version\n" {
		t.Fatal("a refused sync moved the branch")
	}

	// Bad input and permissions.
	mustStatus(t, sync(bob.Token, map[string]any{"branch": "nope"}), http.StatusNotFound, "unknown branch")
	mustStatus(t, sync(bob.Token, map[string]any{"branch": "-x"}), http.StatusBadRequest, "option as branch")
	mustStatus(t, sync(carol.Token, nil), http.StatusForbidden, "reader of the fork")
	mustStatus(t, sync("", nil), http.StatusUnauthorized, "signed out")
	mustStatus(t, s.Do("POST", "api/v1/repos/alice/up/merge-upstream", Token(alice.Token)), http.StatusBadRequest, "not a fork")
	// An upstream the caller can no longer read is not synced from.
	mustStatus(t, s.Do("PATCH", "api/v1/repos/alice/up", Token(alice.Token), JSON(map[string]any{"private": true})), http.StatusOK, "upstream goes private")
	mustStatus(t, sync(bob.Token, nil), http.StatusNotFound, "private upstream")
}
