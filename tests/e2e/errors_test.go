package e2e

import (
	"strings"
	"testing"
)

// TestAPIBadInput sends one request of each class of bad input and checks
// that each gets a Gitea-shaped error and that nothing changed.
func TestAPIBadInput(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	admin := Token(s.AdminTok)
	snapshot := func() string {
		t.Helper()
		r := s.Do("GET", "api/v1/admin/users?limit=50", admin)
		fndStatus(t, r, 200, "snapshot users")
		settings := s.Do("GET", "api/v1/user/settings", Token(alice.Token))
		emails := s.Do("GET", "api/v1/user/emails", Token(alice.Token))
		keys := s.Do("GET", "api/v1/user/keys", Token(alice.Token))
		return r.Header.Get("X-Total-Count") + "\n" + string(r.Body) + string(settings.Body) + string(emails.Body) + string(keys.Body)
	}
	before := snapshot()
	longName := strings.Repeat("n", 41)
	cases := []struct {
		class, method, path string
		opts                []RequestOption
		status              int
		frag                string
	}{
		// Malformed JSON.
		{"malformed JSON", "POST", "api/v1/admin/users", []RequestOption{admin, RawBody(`{"username":"mal","email":"mal@example.com",`)}, 422, "json"},
		{"not JSON at all", "POST", "api/v1/admin/users", []RequestOption{admin, RawBody(`username=mal`)}, 422, "json"},
		{"JSON array instead of object", "POST", "api/v1/admin/users", []RequestOption{admin, RawBody(`["mal"]`)}, 422, ""},
		{"two JSON values", "POST", "api/v1/admin/users", []RequestOption{admin, RawBody(`{"username":"mal","email":"mal@example.com","password":"pw"} {}`)}, 422, ""},
		{"empty body", "POST", "api/v1/admin/users", []RequestOption{admin, RawBody(``)}, 422, ""},
		{"malformed settings", "PATCH", "api/v1/user/settings", []RequestOption{Token(alice.Token), RawBody(`{"full_name": "x`)}, 422, ""},
		{"malformed e-mails", "POST", "api/v1/user/emails", []RequestOption{Token(alice.Token), RawBody(`{"emails": [}`)}, 422, ""},
		{"malformed key", "POST", "api/v1/user/keys", []RequestOption{Token(alice.Token), RawBody(`{`)}, 422, ""},
		// Wrong JSON types.
		{"number for a string", "POST", "api/v1/admin/users", []RequestOption{admin, RawBody(`{"username":12,"email":"mal@example.com","password":"pw"}`)}, 422, "username"},
		{"string for a bool", "POST", "api/v1/admin/users", []RequestOption{admin, RawBody(`{"username":"mal","email":"mal@example.com","password":"pw","must_change_password":"no"}`)}, 422, "MustChangePassword"},
		{"object for a string", "PATCH", "api/v1/user/settings", []RequestOption{Token(alice.Token), RawBody(`{"website":{"url":"https://x"}}`)}, 422, "website"},
		{"string for a list", "POST", "api/v1/user/emails", []RequestOption{Token(alice.Token), RawBody(`{"emails":"x@example.com"}`)}, 422, "emails"},
		{"bool for a number", "PATCH", "api/v1/admin/users/alice", []RequestOption{admin, RawBody(`{"login_name":"alice","max_repo_creation":true}`)}, 422, "MaxRepoCreation"},
		// Unknown enum values.
		{"unknown visibility on create", "POST", "api/v1/admin/users", []RequestOption{admin, JSON(map[string]any{"username": "mal", "email": "mal@example.com", "password": "pw", "visibility": "hidden"})}, 422, "visibility"},
		{"unknown visibility on edit", "PATCH", "api/v1/admin/users/alice", []RequestOption{admin, JSON(map[string]any{"login_name": "alice", "visibility": "everyone"})}, 422, "visibility"},
		{"unknown scope", "POST", "api/v1/users/alice/tokens", []RequestOption{Basic("alice", alice.Password), JSON(map[string]any{"name": "x", "scopes": []string{"write:everything"}})}, 400, "scope"},
		// Over-long fields.
		{"long username", "POST", "api/v1/admin/users", []RequestOption{admin, JSON(map[string]any{"username": longName, "email": "mal@example.com", "password": "pw"})}, 422, "username"},
		{"long e-mail", "POST", "api/v1/admin/users", []RequestOption{admin, JSON(map[string]any{"username": "mal", "email": strings.Repeat("m", 250) + "@example.com", "password": "pw"})}, 422, "email"},
		{"long full name", "PATCH", "api/v1/user/settings", []RequestOption{Token(alice.Token), JSON(map[string]any{"full_name": strings.Repeat("f", 101)})}, 422, "full"},
		{"long website", "PATCH", "api/v1/user/settings", []RequestOption{Token(alice.Token), JSON(map[string]any{"website": "https://" + strings.Repeat("w", 250) + ".example"})}, 422, "website"},
		{"long key title", "POST", "api/v1/user/keys", []RequestOption{Token(alice.Token), JSON(map[string]any{"title": strings.Repeat("t", 51), "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJYWX3/KA/TJhJi2qOd2/DavzW4A+O0VA9bh+oi8maBb"})}, 422, "title"},
		{"long token name", "POST", "api/v1/users/alice/tokens", []RequestOption{Basic("alice", alice.Password), JSON(map[string]any{"name": strings.Repeat("t", 256), "scopes": []string{"all"}})}, 422, "name"},
		{"long password", "POST", "api/v1/admin/users", []RequestOption{admin, JSON(map[string]any{"username": "mal", "email": "mal@example.com", "password": strings.Repeat("p", 256)})}, 422, "password"},
		{"empty password", "POST", "api/v1/admin/users", []RequestOption{admin, JSON(map[string]any{"username": "mal", "email": "mal@example.com", "password": ""})}, 400, "password"},
		{"long password on edit", "PATCH", "api/v1/admin/users/alice", []RequestOption{admin, JSON(map[string]any{"login_name": "alice", "password": strings.Repeat("p", 256)})}, 422, "password"},
		// Duplicate names.
		{"duplicate user", "POST", "api/v1/admin/users", []RequestOption{admin, JSON(map[string]any{"username": "Alice", "email": "other@example.com", "password": "pw"})}, 422, "already exists"},
		{"duplicate e-mail", "POST", "api/v1/admin/users", []RequestOption{admin, JSON(map[string]any{"username": "mal", "email": "alice@example.com", "password": "pw"})}, 422, "mail"},
		{"duplicate token name", "POST", "api/v1/users/alice/tokens", []RequestOption{Basic("alice", alice.Password), JSON(map[string]any{"name": "e2e", "scopes": []string{"all"}})}, 400, "used"},
		{"rename onto a user", "POST", "api/v1/admin/users/alice/rename", []RequestOption{admin, JSON(map[string]any{"new_username": adminName})}, 422, "already exists"},
		// Invalid tokens.
		{"invalid token on a write", "POST", "api/v1/admin/users", []RequestOption{Token(strings.Repeat("a", 40)), JSON(map[string]any{"username": "mal", "email": "mal@example.com", "password": "pw"})}, 401, ""},
		{"invalid token on a read", "GET", "api/v1/users/alice", []RequestOption{Token("garbage")}, 401, ""},
		{"invalid bearer", "PATCH", "api/v1/user/settings", []RequestOption{Header("Authorization", "Bearer "+strings.Repeat("b", 40)), JSON(map[string]any{"full_name": "x"})}, 401, ""},
		{"no credentials on a write", "PATCH", "api/v1/user/settings", []RequestOption{JSON(map[string]any{"full_name": "x"})}, 401, "token is required"},
		// Unknown routes.
		{"unknown route", "GET", "api/v1/no/such/route", nil, 404, ""},
		{"unknown route with a token", "GET", "api/v1/no/such/route", []RequestOption{admin}, 404, ""},
		{"unknown sub-route of a user", "GET", "api/v1/users/alice/no-such-thing", nil, 404, ""},
		{"unknown admin route", "POST", "api/v1/admin/no-such-thing", []RequestOption{admin}, 404, ""},
		{"unknown route under /api", "GET", "api/v2/users", nil, 404, ""},
		// Wrong methods.
		{"DELETE /version", "DELETE", "api/v1/version", nil, 405, ""},
		{"POST /settings/api", "POST", "api/v1/settings/api", []RequestOption{admin}, 405, ""},
		{"PUT /user/settings", "PUT", "api/v1/user/settings", []RequestOption{Token(alice.Token), JSON(map[string]any{"full_name": "x"})}, 405, ""},
		{"DELETE /users/alice", "DELETE", "api/v1/users/alice", []RequestOption{admin}, 405, ""},
	}
	for _, c := range cases {
		r := s.Do(c.method, c.path, c.opts...)
		what := c.class + ": " + c.method + " /" + c.path
		msg := fndAPIError(t, s, r, c.status, what)
		if c.frag != "" {
			fndMsgHas(t, what, msg, c.frag)
		}
		if c.status == 404 && strings.Contains(c.class, "route") {
			if !strings.Contains(string(r.Body), `"url"`) || !strings.Contains(string(r.Body), `"message"`) {
				t.Errorf("%s: 404 without message and url: %s", what, r.Body)
			}
		}
	}
	if after := snapshot(); after != before {
		t.Fatalf("bad requests changed state:\nbefore %s\nafter  %s", before, after)
	}
	// The healthy path still works after all that.
	fndStatus(t, s.Do("POST", "api/v1/admin/users", admin, JSON(map[string]any{"username": "mal", "email": "mal@example.com", "password": "pw"})), 201, "good request")
}

// TestAPIHeaders checks the headers every API answer carries.
func TestAPIHeaders(t *testing.T) {
	s := StartServer(t)
	for _, path := range []string{"api/v1/version", "api/v1/users/" + adminName, "api/v1/no/such/route", "api/v1/user"} {
		r := s.Do("GET", path)
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=0") || !strings.Contains(cc, "no-transform") {
			t.Errorf("%s: Cache-Control %q", path, cc)
		}
		if r.Header.Get("X-Frame-Options") != "SAMEORIGIN" {
			t.Errorf("%s: X-Frame-Options %q", path, r.Header.Get("X-Frame-Options"))
		}
		if r.Header.Get("X-Cairn-Query-Count") == "" {
			t.Errorf("%s: no X-Cairn-Query-Count", path)
		}
	}
	r := s.Do("GET", "api/v1/version")
	fndStatus(t, r, 200, "version")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Errorf("version Content-Type %q", r.Header.Get("Content-Type"))
	}
	var v struct {
		Version string `json:"version"`
	}
	r.Decode(t, &v)
	if v.Version != "1.23.0+cairn.0.1.0" {
		t.Errorf("version = %q", v.Version)
	}
	r = s.Do("GET", "api/healthz")
	fndStatus(t, r, 200, "healthz")
}
