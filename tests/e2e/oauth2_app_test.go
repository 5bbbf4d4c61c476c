package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

var oauth2SecretPattern = regexp.MustCompile(`^gto_[a-z2-7]{52}$`)

// oauth2StoredSecret reads the stored secret column of application id.
func oauth2StoredSecret(t *testing.T, s *Server, id int64) string {
	t.Helper()
	var hash string
	if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT client_secret_hash FROM oauth2_application WHERE id = %d", id)).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	return hash
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestOAuth2ApplicationsAPI(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	c := s.Client(alice.Token)

	app, _, err := c.CreateOauth2(gitea.CreateOauth2Option{Name: "CI", ConfidentialClient: true,
		RedirectURIs: []string{"https://ci.example.org/callback", "http://127.0.0.1/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	if app.ID == 0 || len(app.ClientID) != 36 || !oauth2SecretPattern.MatchString(app.ClientSecret) || !app.ConfidentialClient ||
		len(app.RedirectURIs) != 2 || app.RedirectURIs[1] != "http://127.0.0.1/cb" || app.Created.IsZero() {
		t.Fatalf("created %+v", app)
	}
	secret := app.ClientSecret

	// The secret is stored hashed: the plaintext is nowhere in the row.
	stored := oauth2StoredSecret(t, s, app.ID)
	if stored != sha256Hex(secret) {
		t.Fatalf("stored secret %q is not the hash of the issued one", stored)
	}
	var rowText string
	if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT name, client_id, client_secret_hash, redirect_uris FROM oauth2_application WHERE id = %d", app.ID)).
		Scan(new(string), new(string), &rowText, new(string)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rowText, secret) || strings.Contains(rowText, strings.TrimPrefix(secret, "gto_")) {
		t.Fatal("plaintext secret stored")
	}

	// Raw shapes: create shows the secret; list and get give it empty.
	r := s.API("POST", "user/applications/oauth2", alice.Token, map[string]any{"name": "Public", "redirect_uris": []string{"app.example:/cb"}})
	fndStatus(t, r, 201, "create")
	var created map[string]any
	r.Decode(t, &created)
	var keys []string
	for k := range created {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "client_id,client_secret,confidential_client,created,id,name,redirect_uris,skip_secondary_authorization" {
		t.Fatalf("keys %v", keys)
	}
	if sec, _ := created["client_secret"].(string); !oauth2SecretPattern.MatchString(sec) || created["confidential_client"] != false {
		t.Fatalf("create answer %s", r.Body)
	}
	publicID := int64(created["id"].(float64))

	r = s.API("GET", "user/applications/oauth2", alice.Token, nil)
	fndStatus(t, r, 200, "list")
	if r.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("X-Total-Count %q", r.Header.Get("X-Total-Count"))
	}
	var list []map[string]any
	r.Decode(t, &list)
	if len(list) != 2 || list[0]["name"] != "Public" || list[1]["name"] != "CI" {
		t.Fatalf("list %s", r.Body)
	}
	for _, a := range list {
		if v, ok := a["client_secret"]; !ok || v != "" {
			t.Fatalf("list shows secret: %s", r.Body)
		}
	}
	if strings.Contains(string(r.Body), secret) {
		t.Fatal("list leaks the secret")
	}
	r = s.API("GET", "user/applications/oauth2?limit=1&page=2", alice.Token, nil)
	fndStatus(t, r, 200, "list page 2")
	r.Decode(t, &list)
	if len(list) != 1 || list[0]["name"] != "CI" {
		t.Fatalf("page 2 %s", r.Body)
	}
	r = s.API("GET", fmt.Sprintf("user/applications/oauth2/%d", app.ID), alice.Token, nil)
	fndStatus(t, r, 200, "get")
	var got map[string]any
	r.Decode(t, &got)
	if v, ok := got["client_secret"]; !ok || v != "" || got["client_id"] != app.ClientID || got["name"] != "CI" {
		t.Fatalf("get %s", r.Body)
	}
	sdkGot, _, err := c.GetOauth2(app.ID)
	if err != nil || sdkGot.ClientSecret != "" || sdkGot.ClientID != app.ClientID {
		t.Fatalf("sdk get %+v %v", sdkGot, err)
	}
	sdkList, _, err := c.ListOauth2(gitea.ListOauth2Option{})
	if err != nil || len(sdkList) != 2 || sdkList[1].ClientSecret != "" {
		t.Fatalf("sdk list %v %v", sdkList, err)
	}

	// Another user's application is 404 everywhere, and not in their list.
	path := fmt.Sprintf("user/applications/oauth2/%d", app.ID)
	fndAPIError(t, s, s.API("GET", path, bob.Token, nil), 404, "bob gets")
	fndAPIError(t, s, s.API("PATCH", path, bob.Token, map[string]any{"name": "x", "redirect_uris": []string{"https://x.example"}}), 404, "bob patches")
	fndAPIError(t, s, s.API("DELETE", path, bob.Token, nil), 404, "bob deletes")
	r = s.API("GET", "user/applications/oauth2", bob.Token, nil)
	fndStatus(t, r, 200, "bob lists")
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("bob's list %s", r.Body)
	}
	if oauth2StoredSecret(t, s, app.ID) != stored {
		t.Fatal("bob's PATCH changed the secret")
	}
	fndAPIError(t, s, s.API("GET", "user/applications/oauth2/999999", alice.Token, nil), 404, "missing")

	// Bad input is refused with 422.
	for _, body := range []map[string]any{
		{"name": "x", "redirect_uris": []string{"javascript:alert(1)"}},
		{"name": "x", "redirect_uris": []string{"/relative/callback"}},
		{"name": "x", "redirect_uris": []string{"https://ci.example.org/cb#fragment"}},
		{"name": "x", "redirect_uris": []string{"https://"}},
		{"name": "x", "redirect_uris": []string{}},
		{"name": "x"},
		{"name": " ", "redirect_uris": []string{"https://ci.example.org/cb"}},
	} {
		b, _ := json.Marshal(body)
		fndAPIError(t, s, s.API("POST", "user/applications/oauth2", alice.Token, body), 422, "create "+string(b))
		fndAPIError(t, s, s.API("PATCH", path, alice.Token, body), 422, "patch "+string(b))
	}
	if _, resp, err := c.CreateOauth2(gitea.CreateOauth2Option{Name: "bad", RedirectURIs: []string{"not a url"}}); err == nil || resp.StatusCode != 422 {
		t.Fatalf("sdk create with a bad URI: %v", err)
	}

	// PATCH replaces the settings and issues a new secret, shown once.
	up, _, err := c.UpdateOauth2(app.ID, gitea.CreateOauth2Option{Name: "CI 2", RedirectURIs: []string{"https://ci2.example.org/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	if up.Name != "CI 2" || up.ConfidentialClient || up.ClientID != app.ClientID || len(up.RedirectURIs) != 1 ||
		!oauth2SecretPattern.MatchString(up.ClientSecret) || up.ClientSecret == secret {
		t.Fatalf("updated %+v", up)
	}
	if stored2 := oauth2StoredSecret(t, s, app.ID); stored2 == stored || stored2 != sha256Hex(up.ClientSecret) {
		t.Fatal("PATCH did not store the new secret's hash")
	}

	// Token scopes: the user category (read lists, write changes).
	readTok := s.CreateToken("alice", alice.Password, "read-user", "read:user")
	fndStatus(t, s.API("GET", "user/applications/oauth2", readTok, nil), 200, "read:user lists")
	fndAPIError(t, s, s.API("POST", "user/applications/oauth2", readTok, map[string]any{"name": "x", "redirect_uris": []string{"https://x.example"}}), 403, "read:user creates")
	repoTok := s.CreateToken("alice", alice.Password, "repo-only", "write:repository")
	fndAPIError(t, s, s.API("GET", "user/applications/oauth2", repoTok, nil), 403, "write:repository lists")
	fndAPIError(t, s, s.Do("GET", "api/v1/user/applications/oauth2"), 401, "anonymous lists")

	// Delete.
	if _, err := c.DeleteOauth2(app.ID); err != nil {
		t.Fatal(err)
	}
	fndAPIError(t, s, s.API("GET", path, alice.Token, nil), 404, "deleted")
	fndAPIError(t, s, s.API("DELETE", path, alice.Token, nil), 404, "deleted twice")

	// Deleting the account deletes its applications.
	carol := s.CreateUser("carol")
	for i := 0; i < 2; i++ {
		fndStatus(t, s.API("POST", "user/applications/oauth2", carol.Token, map[string]any{"name": fmt.Sprint("c", i), "redirect_uris": []string{"https://c.example"}}), 201, "carol creates")
	}
	count := func(uid int64) int {
		var n int
		if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT COUNT(*) FROM oauth2_application WHERE uid = %d", uid)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count(carol.ID) != 2 {
		t.Fatal("carol's applications not stored")
	}
	fndStatus(t, s.Do("DELETE", "api/v1/admin/users/carol", Token(s.AdminTok)), 204, "delete carol")
	if n := count(carol.ID); n != 0 {
		t.Fatalf("%d applications left after deleting their owner", n)
	}
	if count(alice.ID) != 1 {
		t.Fatal("alice's application went with carol")
	}
	fndStatus(t, s.API("GET", fmt.Sprintf("user/applications/oauth2/%d", publicID), alice.Token, nil), 200, "alice's other application")
}
