package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestRepoLicenses: the licenses recognized in the root license files of the
// default branch, from a license template at creation or files pushed later.
func TestRepoLicenses(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	licenses := func(full, tok string) string {
		t.Helper()
		var list []string
		r := s.Do("GET", "api/v1/repos/"+full+"/licenses", Token(tok))
		mustStatus(t, r, http.StatusOK, "licenses of "+full)
		r.Decode(t, &list)
		return strings.Join(list, ",")
	}
	mustStatus(t, s.Do("POST", "api/v1/user/repos", Token(alice.Token), JSON(map[string]any{"name": "lib", "auto_init": true, "license": "MIT"})), http.StatusCreated, "repo with MIT")
	if got := licenses("alice/lib", ""); got != "MIT" {
		t.Fatalf("licenses = %q", got)
	}
	// A second license file (dual licensing) and a file that is no license.
	var apache struct {
		Body string `json:"body"`
	}
	mustStatus(t, s.Do("GET", "api/v1/licenses/Apache-2.0"), http.StatusOK, "apache template")
	s.Do("GET", "api/v1/licenses/Apache-2.0").Decode(t, &apache)
	commitFiles(t, s, alice.Token, "alice/lib", "create", map[string]string{
		"LICENSE-APACHE": apache.Body,
		"COPYING.md":     "Do whatever you like, but tell nobody.\n",
	})
	if got := licenses("alice/lib", ""); got != "Apache-2.0,MIT" {
		t.Fatalf("licenses after adding files = %q", got)
	}
	createRepo(t, s, alice, "plain", false)
	if got := licenses("alice/plain", ""); got != "" {
		t.Fatalf("licenses without a license file = %q", got)
	}
	mustStatus(t, s.Do("POST", "api/v1/user/repos", Token(alice.Token), JSON(map[string]any{"name": "empty"})), http.StatusCreated, "empty repo")
	if got := licenses("alice/empty", ""); got != "" {
		t.Fatalf("licenses of an empty repository = %q", got)
	}
	createRepo(t, s, alice, "secret", true)
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/secret/licenses", Token(bob.Token)), http.StatusNotFound, "private repository")
}
