package oauth2

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/password"
	"github.com/cairn-forge/cairn/internal/user"
)

func TestTokenScope(t *testing.T) {
	for scope, want := range map[string]string{
		"":                              "all",
		"openid profile email groups":   "all",
		"read:user":                     "read:user",
		"openid read:user read:issue":   "read:issue,read:user",
		"repo user":                     "all", // unknown names grant nothing of their own
		"read:user,write:admin":         "all", // not space-separated: unknown
		"public-only":                   "public-only",
		"public-only read:repository":   "public-only,read:repository",
		"write:repository bogus openid": "write:repository",
	} {
		if got := TokenScope(scope).String(); got != want {
			t.Errorf("TokenScope(%q) = %q, want %q", scope, got, want)
		}
	}
}

func TestVerifierMatches(t *testing.T) {
	verifier := "dBjftJeZ4CVP-mJ92K9qpAdB-ceQjlYXN-4Q9JK0BbYrzYXK0pCZnRA"
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	if !verifierMatches(challenge, "S256", verifier) || verifierMatches(challenge, "S256", verifier+"x") ||
		verifierMatches(challenge, "plain", verifier) || !verifierMatches(verifier, "plain", verifier) ||
		verifierMatches("short", "plain", "short") {
		t.Fatal("PKCE verification")
	}
}

// oauthCode is the RFC 6749 error code of err.
func oauthCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestProviderExpiry(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t)
	users := user.NewService(d, user.Options{PasswordParams: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}})
	bob, err := users.Create(ctx, user.CreateOptions{Name: "bob", Email: "bob@example.org", Password: "secret-pw-1", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	apps := NewService(d)
	app, secret, err := apps.Create(ctx, bob.ID, Options{Name: "x", RedirectURIs: []string{"https://a.example/cb"}, ConfidentialClient: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	p := NewProvider(d, apps, time.Hour, 24*time.Hour)
	p.now = func() time.Time { return now }
	creds := ClientCredentials{ClientID: app.ClientID, Secret: secret}
	req, oerr := CheckRequest(app, "https://a.example/cb", "code", "", "read:user", "", "", "")
	if oerr != nil {
		t.Fatal(oerr)
	}

	// A code expires after ten minutes.
	code, err := p.Authorize(ctx, bob.ID, req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(codeTTL)
	if _, err := p.ExchangeCode(ctx, creds, code, "https://a.example/cb", ""); oauthCode(err) != ErrInvalidGrant {
		t.Fatalf("expired code: %v", err)
	}

	// An access token expires after accessTTL, a refresh token after refreshTTL.
	code, _ = p.Authorize(ctx, bob.ID, req, time.Now())
	tok, err := p.ExchangeCode(ctx, creds, code, "https://a.example/cb", "")
	if err != nil {
		t.Fatal(err)
	}
	if tok.ExpiresIn != 3600 || tok.Scope != "read:user" {
		t.Fatalf("token %+v", tok)
	}
	u, at, err := p.LookupAccessToken(ctx, tok.AccessToken)
	if err != nil || u.ID != bob.ID || !at.Scope.Has(auth.CatUser, auth.LevelRead) || at.Scope.Has(auth.CatUser, auth.LevelWrite) {
		t.Fatalf("lookup: %v %+v %v", u, at, err)
	}
	now = now.Add(time.Hour)
	if _, _, err := p.LookupAccessToken(ctx, tok.AccessToken); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("expired access token: %v", err)
	}
	next, err := p.Refresh(ctx, creds, tok.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.LookupAccessToken(ctx, next.AccessToken); err != nil {
		t.Fatalf("refreshed access token: %v", err)
	}
	now = now.Add(24 * time.Hour)
	if _, err := p.Refresh(ctx, creds, next.RefreshToken); oauthCode(err) != ErrInvalidGrant {
		t.Fatalf("expired refresh token: %v", err)
	}

	// Pruning drops what has expired, not what still works.
	code, _ = p.Authorize(ctx, bob.ID, req, time.Now())
	live, err := p.ExchangeCode(ctx, creds, code, "https://a.example/cb", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Count(ctx, "SELECT COUNT(*) FROM oauth2_token"); n != 2 {
		t.Fatalf("%d tokens after pruning, want the live pair", n)
	}
	if n, _ := d.Count(ctx, "SELECT COUNT(*) FROM oauth2_authorization_code"); n != 1 {
		t.Fatalf("%d codes after pruning, want the live one", n)
	}
	if _, _, err := p.LookupAccessToken(ctx, live.AccessToken); err != nil {
		t.Fatalf("live token after pruning: %v", err)
	}

	// A token of the wrong form, or a personal access token, is not one.
	if p.IsAccessToken(tok.RefreshToken) || p.IsAccessToken("0123456789abcdef0123456789abcdef01234567") {
		t.Fatal("IsAccessToken accepts other strings")
	}

	// Deleting the user deletes the grants given and received.
	if err := apps.UserDeleteHook().Purge(ctx, bob); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"oauth2_grant", "oauth2_authorization_code", "oauth2_token"} {
		if n, err := d.Count(ctx, "SELECT COUNT(*) FROM "+table); err != nil || n != 0 {
			t.Fatalf("%s: %d rows left (%v)", table, n, err)
		}
	}
}
