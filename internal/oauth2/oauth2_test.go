package oauth2

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

func TestValidRedirectURI(t *testing.T) {
	for _, ok := range []string{
		"https://app.example.org/callback", "http://127.0.0.1/cb", "http://localhost:8080/x?y=1",
		"com.example.app:/oauth2redirect", "myapp://callback", "https://[::1]:9000/cb",
	} {
		if err := ValidRedirectURI(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"", "/relative/path", "example.org/cb", "//example.org/cb", "https://example.org/cb#frag", "https:///nohost",
		"javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x", "https://user:pw@example.org/",
		"https://example.org/a b", "https://example.org:99999/", "https://example.org/\n", "myapp:",
		"https://example.org/" + strings.Repeat("a", 1100),
	} {
		if err := ValidRedirectURI(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !errs.Is(err, errs.KindInvalid) {
			t.Errorf("%q: error kind %v", bad, err)
		}
	}
	got, err := NormalizeRedirectURIs([]string{" https://a.example/cb ", "", "https://a.example/cb", "app:/x"})
	if err != nil || len(got) != 2 || got[0] != "https://a.example/cb" || got[1] != "app:/x" {
		t.Fatalf("normalize: %q %v", got, err)
	}
	if _, err := NormalizeRedirectURIs([]string{" ", ""}); err == nil {
		t.Fatal("no redirect URI accepted")
	}
}

func TestAllowsRedirect(t *testing.T) {
	public := &Application{RedirectURIs: []string{"http://127.0.0.1/cb", "http://[::1]/cb", "https://a.example/cb"}}
	for uri, want := range map[string]bool{
		"http://127.0.0.1/cb": true, "http://127.0.0.1:49152/cb": true, "http://[::1]:8000/cb": true,
		"https://a.example/cb": true, "https://a.example:444/cb": false, "http://127.0.0.1:1/other": false,
		"https://A.example/cb": false, "http://localhost:80/cb": false,
	} {
		if got := public.AllowsRedirect(uri); got != want {
			t.Errorf("public %q: %v, want %v", uri, got, want)
		}
	}
	confidential := &Application{ConfidentialClient: true, RedirectURIs: public.RedirectURIs}
	if confidential.AllowsRedirect("http://127.0.0.1:49152/cb") || !confidential.AllowsRedirect("http://127.0.0.1/cb") {
		t.Error("a confidential client's loopback redirect matches only exactly")
	}
}

func TestApplicationLifecycle(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t)
	s := NewService(d)
	const alice, bob = 7, 8

	if _, _, err := s.Create(ctx, alice, Options{Name: " ", RedirectURIs: []string{"https://a.example/cb"}}); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("blank name: %v", err)
	}
	if _, _, err := s.Create(ctx, alice, Options{Name: "x", RedirectURIs: []string{"javascript:alert(1)"}}); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("javascript redirect: %v", err)
	}
	app, secret, err := s.Create(ctx, alice, Options{Name: " CI ", RedirectURIs: []string{"https://a.example/cb", "app:/x"}, ConfidentialClient: true})
	if err != nil {
		t.Fatal(err)
	}
	if app.Name != "CI" || len(app.ClientID) != 36 || !strings.HasPrefix(secret, "gto_") || len(secret) != 4+52 || !app.ConfidentialClient {
		t.Fatalf("created %+v, secret %q", app, secret)
	}
	// Only the hash is stored.
	var stored string
	if err := d.QueryRow(ctx, "SELECT client_secret_hash FROM oauth2_application WHERE id = ?", app.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == secret || strings.Contains(stored, secret[4:]) || stored != hashSecret(secret) {
		t.Fatalf("stored secret %q", stored)
	}
	if got, err := s.VerifySecret(ctx, app.ClientID, secret); err != nil || got.ID != app.ID {
		t.Fatalf("verify: %v", err)
	}
	for _, c := range [][2]string{{app.ClientID, secret + "x"}, {app.ClientID, ""}, {"00000000-0000-0000-0000-000000000000", secret}, {"", ""}} {
		if _, err := s.VerifySecret(ctx, c[0], c[1]); !errs.Is(err, errs.KindUnauthorized) {
			t.Errorf("verify %q %q: %v", c[0], c[1], err)
		}
	}

	// Another account's application is not found.
	if _, err := s.Get(ctx, bob, app.ID); !errs.Is(err, errs.KindNotFound) {
		t.Fatalf("bob gets alice's app: %v", err)
	}
	if _, _, err := s.Update(ctx, bob, app.ID, Options{Name: "x", RedirectURIs: []string{"https://b.example"}}, true); !errs.Is(err, errs.KindNotFound) {
		t.Fatalf("bob updates alice's app: %v", err)
	}
	if err := s.Delete(ctx, bob, app.ID); !errs.Is(err, errs.KindNotFound) {
		t.Fatalf("bob deletes alice's app: %v", err)
	}
	if got, err := s.ByClientID(ctx, app.ClientID); err != nil || got.ID != app.ID || got.OwnerID != alice {
		t.Fatalf("by client id: %v", err)
	}

	// An update without regeneration keeps the secret; with, replaces it.
	up, plain, err := s.Update(ctx, alice, app.ID, Options{Name: "CI 2", RedirectURIs: []string{"https://c.example/cb"}, SkipSecondaryAuthorization: true}, false)
	if err != nil || plain != "" || up.Name != "CI 2" || up.ConfidentialClient || !up.SkipSecondaryAuthorization || up.ClientID != app.ClientID {
		t.Fatalf("update: %+v %q %v", up, plain, err)
	}
	if _, err := s.VerifySecret(ctx, app.ClientID, secret); err != nil {
		t.Fatalf("secret lost on update: %v", err)
	}
	_, secret2, err := s.Update(ctx, alice, app.ID, Options{Name: "CI 2", RedirectURIs: []string{"https://c.example/cb"}}, true)
	if err != nil || secret2 == "" || secret2 == secret {
		t.Fatalf("regenerating update: %q %v", secret2, err)
	}
	if _, err := s.VerifySecret(ctx, app.ClientID, secret); err == nil {
		t.Fatal("old secret still works")
	}
	_, secret3, err := s.RegenerateSecret(ctx, alice, app.ID)
	if err != nil || secret3 == secret2 {
		t.Fatal(err)
	}
	if _, err := s.VerifySecret(ctx, app.ClientID, secret2); err == nil {
		t.Fatal("secret still works after regeneration")
	}
	got, err := s.Get(ctx, alice, app.ID)
	if err != nil || got.Name != "CI 2" || len(got.RedirectURIs) != 1 || got.RedirectURIs[0] != "https://c.example/cb" {
		t.Fatalf("get: %+v %v", got, err)
	}

	// Paging, newest first.
	for _, n := range []string{"b", "c"} {
		if _, _, err := s.Create(ctx, alice, Options{Name: n, RedirectURIs: []string{"https://x.example"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Create(ctx, bob, Options{Name: "bob's", RedirectURIs: []string{"https://x.example"}}); err != nil {
		t.Fatal(err)
	}
	list, total, err := s.List(ctx, alice, 2, 0)
	if err != nil || total != 3 || len(list) != 2 || list[0].Name != "c" || list[1].Name != "b" {
		t.Fatalf("list: %d %v", total, err)
	}
	if list, _, _ = s.List(ctx, alice, 2, 2); len(list) != 1 || list[0].ID != app.ID {
		t.Fatalf("page 2: %v", list)
	}

	if err := s.Delete(ctx, alice, app.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, alice, app.ID); !errs.Is(err, errs.KindNotFound) {
		t.Fatalf("deleted app: %v", err)
	}
	// Deleting the user removes their applications only.
	if err := s.UserDeleteHook().Purge(ctx, &user.User{ID: alice}); err != nil {
		t.Fatal(err)
	}
	if _, total, _ := s.List(ctx, alice, 10, 0); total != 0 {
		t.Fatalf("alice has %d apps left", total)
	}
	if _, total, _ := s.List(ctx, bob, 10, 0); total != 1 {
		t.Fatalf("bob has %d apps", total)
	}
}
