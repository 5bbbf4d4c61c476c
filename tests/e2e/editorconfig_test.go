package e2e

import (
	"net/http"
	"testing"
)

// TestEditorConfig: the properties the root .editorconfig gives a file, on
// the default branch or at ?ref=; 404 without one.
func TestEditorConfig(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	createRepo(t, s, alice, "plain", false)
	createRepo(t, s, alice, "secret", true)
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/editorconfig/main.go"), http.StatusNotFound, "no .editorconfig")
	commitFiles(t, s, alice.Token, "alice/proj", "create", map[string]string{
		".editorconfig": "root = true\n\n[*]\nindent_style = space\nindent_size = 2\nend_of_line = lf\n\n[*.go]\nindent_style = tab\n\n[docs/**.md]\nindent_size = 4\n",
	})
	def := func(path string) map[string]string {
		t.Helper()
		r := s.Do("GET", "api/v1/repos/alice/proj/editorconfig/"+path)
		mustStatus(t, r, http.StatusOK, "editorconfig of "+path)
		var m map[string]string
		r.Decode(t, &m)
		return m
	}
	if m := def("cmd/main.go"); m["indent_style"] != "tab" || m["indent_size"] != "2" || m["end_of_line"] != "lf" {
		t.Fatalf("main.go = %v", m)
	}
	if m := def("docs/guide/intro.md"); m["indent_style"] != "space" || m["indent_size"] != "4" {
		t.Fatalf("intro.md = %v", m)
	}
	// ?ref= reads the file as it was.
	var commits []struct {
		SHA string `json:"sha"`
	}
	s.Do("GET", "api/v1/repos/alice/proj/commits?limit=2", Token(alice.Token)).Decode(t, &commits)
	if len(commits) != 2 {
		t.Fatalf("commits = %v", commits)
	}
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/editorconfig/main.go?ref="+commits[1].SHA), http.StatusNotFound, "before the file existed")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/editorconfig/main.go?ref="+commits[0].SHA), http.StatusOK, "at the commit that added it")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/proj/editorconfig/main.go?ref=nope"), http.StatusNotFound, "unknown ref")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/plain/editorconfig/main.go"), http.StatusNotFound, "repository without one")
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/secret/editorconfig/main.go", Token(bob.Token)), http.StatusNotFound, "private repository")
}
