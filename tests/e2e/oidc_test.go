package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"
)

// oidcClaims are the ID token claims the tests read.
type oidcClaims struct {
	Issuer            string   `json:"iss"`
	Subject           string   `json:"sub"`
	Audience          any      `json:"aud"`
	Expires           int64    `json:"exp"`
	IssuedAt          int64    `json:"iat"`
	AuthTime          int64    `json:"auth_time"`
	Nonce             string   `json:"nonce"`
	Name              string   `json:"name"`
	PreferredUsername string   `json:"preferred_username"`
	Profile           string   `json:"profile"`
	Picture           string   `json:"picture"`
	Email             string   `json:"email"`
	EmailVerified     *bool    `json:"email_verified"`
	Groups            []string `json:"groups"`
}

// oidcLogin runs the code flow of cfg (a confidential client) as w's user
// with nonce, consenting when asked, and returns the token response.
func oidcLogin(t *testing.T, w *Web, s *Server, cfg *oauth2.Config, nonce string, opts ...oauth2.AuthCodeOption) *oauth2.Token {
	t.Helper()
	authURL := cfg.AuthCodeURL("st", append(opts, oidc.Nonce(nonce))...)
	p := w.Get(authorizePath(t, s, authURL))
	var loc *url.URL
	if p.Status == http.StatusSeeOther {
		loc, _ = url.Parse(p.Location)
	} else {
		loc = consent(t, w, s, authURL, true)
	}
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("no code: %s", loc)
	}
	tok, err := cfg.Exchange(context.Background(), code)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// idTokenOf is the raw ID token of a token response, "" for none.
func idTokenOf(tok *oauth2.Token) string {
	s, _ := tok.Extra("id_token").(string)
	return s
}

// jwks fetches the key set and returns its key ids.
func jwksKeyIDs(t *testing.T, s *Server) []string {
	t.Helper()
	r := s.Do("GET", "login/oauth/keys")
	fndStatus(t, r, 200, "GET /login/oauth/keys")
	var set jose.JSONWebKeySet
	r.Decode(t, &set)
	var ids []string
	for _, k := range set.Keys {
		if k.IsPublic() != true || k.Use != "sig" {
			t.Fatalf("key %+v is not a public signing key", k)
		}
		ids = append(ids, k.KeyID)
	}
	return ids
}

func TestOIDCCodeFlowRS256(t *testing.T) {
	s := StartServer(t)
	ctx := context.Background()
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	fndStatus(t, s.API("POST", "orgs", bob.Token, map[string]any{"username": "guild"}), 201, "create org")
	fndStatus(t, s.API("POST", "user/repos", bob.Token, map[string]any{"name": "secret", "private": true, "auto_init": true}), 201, "create repo")
	clientID, secret := oauth2FlowApp(t, s, alice.Token, "Portal", true, "https://portal.example/cb")

	// Discovery, with Gitea's fields and the revocation endpoint.
	r := s.Do("GET", ".well-known/openid-configuration")
	fndStatus(t, r, 200, "discovery")
	var doc map[string]any
	r.Decode(t, &doc)
	for k, want := range map[string]string{"issuer": s.URL, "authorization_endpoint": s.URL + "login/oauth/authorize",
		"token_endpoint": s.URL + "login/oauth/access_token", "userinfo_endpoint": s.URL + "login/oauth/userinfo",
		"jwks_uri": s.URL + "login/oauth/keys", "introspection_endpoint": s.URL + "login/oauth/introspect",
		"revocation_endpoint": s.URL + "login/oauth/revoke", "id_token_signing_alg_values_supported": "[RS256]",
		"scopes_supported": "[openid profile email groups]", "code_challenge_methods_supported": "[plain S256]"} {
		if got := fmt.Sprint(doc[k]); got != want {
			t.Errorf("discovery %s = %s, want %s", k, got, want)
		}
	}

	provider, err := oidc.NewProvider(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	verifier := provider.Verifier(&oidc.Config{ClientID: clientID})
	cfg := &oauth2.Config{ClientID: clientID, ClientSecret: secret, RedirectURL: "https://portal.example/cb",
		Endpoint: provider.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "profile", "email", "groups"}}
	w := s.Web(t)
	before := time.Now().Unix()
	w.SignIn(bob.Name, bob.Password)

	tok := oidcLogin(t, w, s, cfg, "nonce-one")
	raw := idTokenOf(tok)
	idt, err := verifier.Verify(ctx, raw)
	if err != nil {
		t.Fatalf("verify the ID token through discovery and JWKS: %v", err)
	}
	if idt.Nonce != "nonce-one" || idt.Subject != fmt.Sprint(bob.ID) || idt.Issuer != s.URL {
		t.Fatalf("ID token nonce %q sub %q iss %q", idt.Nonce, idt.Subject, idt.Issuer)
	}
	var c oidcClaims
	if err := idt.Claims(&c); err != nil {
		t.Fatal(err)
	}
	if c.Name != "bob" || c.PreferredUsername != "bob" || c.Profile != s.URL+"bob" || !strings.Contains(c.Picture, "/avatars/") ||
		c.Email != "bob@example.com" || c.EmailVerified == nil || !*c.EmailVerified ||
		fmt.Sprint(c.Groups) != "[guild guild:owners]" {
		t.Fatalf("claims %+v", c)
	}
	if c.AuthTime < before-1 || c.AuthTime > time.Now().Unix() || c.IssuedAt < c.AuthTime || c.Expires != c.IssuedAt+3600 {
		t.Fatalf("auth_time %d iat %d exp %d (signed in at %d)", c.AuthTime, c.IssuedAt, c.Expires, before)
	}
	// Another audience, or a token changed by one byte, is refused.
	if _, err := provider.Verifier(&oidc.Config{ClientID: "someone-else"}).Verify(ctx, raw); err == nil {
		t.Fatal("ID token accepted for another client id")
	}
	parts := strings.Split(raw, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || !strings.Contains(string(payload), `"sub":"`+fmt.Sprint(bob.ID)+`"`) {
		t.Fatalf("payload %s: %v", payload, err)
	}
	other := strings.Replace(string(payload), `"sub":"`+fmt.Sprint(bob.ID)+`"`, `"sub":"1"`, 1)
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(other)) + "." + parts[2]
	if _, err := verifier.Verify(ctx, forged); err == nil || !strings.Contains(err.Error(), "signature") {
		t.Fatalf("ID token with another subject: %v", err)
	}

	// The nonce is the authorization request's: a new one each time.
	tok2 := oidcLogin(t, w, s, cfg, "nonce-two")
	if idt2, err := verifier.Verify(ctx, idTokenOf(tok2)); err != nil || idt2.Nonce != "nonce-two" {
		t.Fatalf("second login: %v %+v", err, idt2)
	}

	// A refreshed ID token: same user and sign-in time, no nonce.
	next, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok2.RefreshToken}).Token()
	if err != nil {
		t.Fatal(err)
	}
	ridt, err := verifier.Verify(ctx, idTokenOf(next))
	if err != nil {
		t.Fatalf("refreshed ID token: %v", err)
	}
	var rc oidcClaims
	_ = ridt.Claims(&rc)
	if rc.Nonce != "" || rc.Subject != c.Subject || rc.AuthTime != c.AuthTime {
		t.Fatalf("refreshed claims %+v", rc)
	}

	// Claims follow the scope: openid alone says who, nothing more;
	// without openid there is no ID token.
	only := *cfg
	only.Scopes = []string{oidc.ScopeOpenID}
	otok := oidcLogin(t, w, s, &only, "n3")
	oidt, err := verifier.Verify(ctx, idTokenOf(otok))
	if err != nil {
		t.Fatal(err)
	}
	var oc oidcClaims
	_ = oidt.Claims(&oc)
	if oc.Subject != fmt.Sprint(bob.ID) || oc.Email != "" || oc.Name != "" || oc.PreferredUsername != "" || oc.Groups != nil || oc.EmailVerified != nil {
		t.Fatalf("openid-only claims %+v", oc)
	}
	none := *cfg
	none.Scopes = []string{"read:user"}
	if ntok := oidcLogin(t, w, s, &none, "n4"); idTokenOf(ntok) != "" {
		t.Fatal("an ID token without the openid scope")
	}

	// Introspection: Basic client authentication, as Gitea.
	introspect := func(user, pw, token string) (int, map[string]any) {
		r := s.Do("POST", "login/oauth/introspect", Basic(user, pw), Header("Content-Type", "application/x-www-form-urlencoded"),
			RawBody(url.Values{"token": {token}}.Encode()))
		var m map[string]any
		_ = json.Unmarshal(r.Body, &m)
		return r.Status, m
	}
	st, m := introspect(clientID, secret, tok2.AccessToken)
	if st != 200 || m["active"] != true || m["username"] != "bob" || m["client_id"] != clientID || m["sub"] != fmt.Sprint(bob.ID) ||
		!strings.Contains(fmt.Sprint(m["scope"]), "openid") || m["token_type"] != "access_token" || m["iss"] != s.URL {
		t.Fatalf("introspect a live access token: %d %v", st, m)
	}
	// tok2's refresh token was used (rotated): no longer active.
	if st, m := introspect(clientID, secret, tok2.RefreshToken); st != 200 || m["active"] != false || len(m) != 1 {
		t.Fatalf("introspect a used refresh token: %d %v", st, m)
	}
	if st, m := introspect(clientID, secret, "gtoa_"+strings.Repeat("a", 52)); st != 200 || m["active"] != false {
		t.Fatalf("introspect an unknown token: %d %v", st, m)
	}
	if st, _ := introspect(clientID, secret+"x", tok2.AccessToken); st != 401 {
		t.Fatalf("introspect with a wrong secret: %d", st)
	}
	if r := s.Do("POST", "login/oauth/introspect", RawBody("token="+tok2.AccessToken), Header("Content-Type", "application/x-www-form-urlencoded")); r.Status != 401 {
		t.Fatalf("introspect without client authentication: %d", r.Status)
	}

	// Revocation (RFC 7009) revokes the grant: the API refuses its access
	// tokens, its refresh token no longer works.
	if st := apiStatus(s, "GET", "user", next.AccessToken); st != 200 {
		t.Fatalf("access token before revocation: %d", st)
	}
	revoke := func(user, pw, token string) int {
		return s.Do("POST", "login/oauth/revoke", Basic(user, pw), Header("Content-Type", "application/x-www-form-urlencoded"),
			RawBody(url.Values{"token": {token}, "token_type_hint": {"access_token"}}.Encode())).Status
	}
	other, otherSecret := oauth2FlowApp(t, s, alice.Token, "Other", true, "https://other.example/cb")
	if st := revoke(other, otherSecret, next.AccessToken); st != 200 {
		t.Fatalf("revoke another client's token: %d", st)
	}
	if st := apiStatus(s, "GET", "user", next.AccessToken); st != 200 {
		t.Fatalf("another client revoked the token: %d", st)
	}
	if st := revoke(clientID, secret+"x", next.AccessToken); st != 401 {
		t.Fatalf("revoke with a wrong secret: %d", st)
	}
	if st := revoke(clientID, secret, next.AccessToken); st != 200 {
		t.Fatalf("revoke: %d", st)
	}
	if st := apiStatus(s, "GET", "user", next.AccessToken); st != 401 {
		t.Fatalf("access token after revocation: %d", st)
	}
	if out, err := lsRemote(s, "bob/secret", next.AccessToken); err == nil {
		t.Fatalf("git with a revoked token:\n%s", out)
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: next.RefreshToken}).Token(); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("refresh after revocation: %v", err)
	}
	if st, m := introspect(clientID, secret, next.AccessToken); st != 200 || m["active"] != false {
		t.Fatalf("introspect a revoked token: %d %v", st, m)
	}
	if st := revoke(clientID, secret, "not-a-token"); st != 200 {
		t.Fatalf("revoke an unknown token: %d", st)
	}

	// The key pair is generated once, kept in the data directory, and
	// survives a restart (same kid: clients' cached key sets stay valid).
	kids := jwksKeyIDs(t, s)
	if len(kids) != 1 || kids[0] == "" {
		t.Fatalf("key ids %v", kids)
	}
	if fi, err := os.Stat(filepath.Join(s.DataDir, "jwt", "private.pem")); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("private key file: %v %v", fi, err)
	}
	s.Stop()
	s.Restart()
	if again := jwksKeyIDs(t, s); !slices.Equal(again, kids) {
		t.Fatalf("key ids after restart %v, before %v", again, kids)
	}
	if _, err := verifier.Verify(ctx, raw); err != nil {
		t.Fatalf("ID token issued before the restart: %v", err)
	}
}

// oidcAlgorithmFlow signs bob in to a confidential client of s with the
// openid scope and returns the raw ID token, the client id and secret.
func oidcAlgorithmFlow(t *testing.T, s *Server) (string, string, string) {
	t.Helper()
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	clientID, secret := oauth2FlowApp(t, s, alice.Token, "Portal", true, "https://portal.example/cb")
	cfg := &oauth2.Config{ClientID: clientID, ClientSecret: secret, RedirectURL: "https://portal.example/cb",
		Endpoint: oauth2.Endpoint{AuthURL: s.URL + "login/oauth/authorize", TokenURL: s.URL + "login/oauth/access_token"},
		Scopes:   []string{oidc.ScopeOpenID, "email"}}
	w := s.Web(t)
	w.SignIn(bob.Name, bob.Password)
	raw := idTokenOf(oidcLogin(t, w, s, cfg, "alg-nonce"))
	if raw == "" {
		t.Fatal("no ID token")
	}
	return raw, clientID, secret
}

func TestOIDCSigningAlgorithms(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []string{"ES256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			s := StartServer(t, WithEnv("CAIRN_OAUTH2_JWT_SIGNING_ALGORITHM="+alg))
			raw, clientID, _ := oidcAlgorithmFlow(t, s)
			provider, err := oidc.NewProvider(ctx, s.URL)
			if err != nil {
				t.Fatal(err)
			}
			idt, err := provider.Verifier(&oidc.Config{ClientID: clientID, SupportedSigningAlgs: []string{alg}}).Verify(ctx, raw)
			if err != nil {
				t.Fatalf("verify %s ID token: %v", alg, err)
			}
			if idt.Nonce != "alg-nonce" {
				t.Fatalf("nonce %q", idt.Nonce)
			}
			var set jose.JSONWebKeySet
			s.Do("GET", "login/oauth/keys").Decode(t, &set)
			if len(set.Keys) != 1 || set.Keys[0].Algorithm != alg {
				t.Fatalf("key set %+v", set)
			}
			// The header names the key.
			jws, err := jose.ParseSigned(raw, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)})
			if err != nil || jws.Signatures[0].Header.KeyID != set.Keys[0].KeyID {
				t.Fatalf("kid: %v", err)
			}
		})
	}
	t.Run("HS256", func(t *testing.T) {
		s := StartServer(t, WithEnv("CAIRN_OAUTH2_JWT_SIGNING_ALGORITHM=HS256"))
		raw, clientID, secret := oidcAlgorithmFlow(t, s)
		// HMAC has no public key: no key set; the ID token is signed with
		// the client's secret (OpenID Connect Core section 10.1).
		if r := s.Do("GET", "login/oauth/keys"); r.Status != 404 {
			t.Fatalf("keys with HS256: %d", r.Status)
		}
		jws, err := jose.ParseSigned(raw, []jose.SignatureAlgorithm{jose.HS256})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jws.Verify([]byte(secret + "x")); err == nil {
			t.Fatal("verified with a wrong key")
		}
		payload, err := jws.Verify([]byte(secret))
		if err != nil {
			t.Fatalf("verify with the client secret: %v", err)
		}
		var c oidcClaims
		_ = json.Unmarshal(payload, &c)
		if fmt.Sprint(c.Audience) != "["+clientID+"]" || c.Nonce != "alg-nonce" || c.Email != "bob@example.com" {
			t.Fatalf("claims %+v", c)
		}
		var doc map[string]any
		s.Do("GET", ".well-known/openid-configuration").Decode(t, &doc)
		if fmt.Sprint(doc["id_token_signing_alg_values_supported"]) != "[HS256]" {
			t.Fatalf("discovery %v", doc)
		}
	})
}

func TestOIDCDisabled(t *testing.T) {
	s := StartServer(t, WithOwnSigningKey(), WithEnv("CAIRN_OAUTH2_ENABLED=false"))
	alice := s.CreateUser("alice")
	for _, c := range []struct{ method, path string }{
		{"GET", ".well-known/openid-configuration"}, {"GET", "login/oauth/keys"}, {"POST", "login/oauth/access_token"},
		{"GET", "login/oauth/userinfo"}, {"POST", "login/oauth/introspect"}, {"POST", "login/oauth/revoke"},
		{"GET", "login/oauth/authorize?client_id=x&redirect_uri=y&response_type=code"},
	} {
		if r := s.Do(c.method, c.path, Token(alice.Token)); r.Status != 404 {
			t.Errorf("%s %s with [oauth2] ENABLED=false: %d", c.method, c.path, r.Status)
		}
	}
	if _, err := os.Stat(filepath.Join(s.DataDir, "jwt")); err == nil {
		t.Error("a signing key was made while the provider is off")
	}
}

func TestOIDCCORS(t *testing.T) {
	preflight := func(s *Server, path, origin string) *Response {
		return s.Do("OPTIONS", path, Header("Origin", origin), Header("Access-Control-Request-Method", "POST"),
			Header("Access-Control-Request-Headers", "authorization,content-type")) // as browsers send it: sorted, lower-case
	}
	t.Run("enabled", func(t *testing.T) {
		s := StartServer(t, WithEnv("CAIRN_CORS_ENABLED=true", "CAIRN_CORS_ALLOW_DOMAIN=https://cms.example", "CAIRN_CORS_MAX_AGE=5m"))
		for _, p := range []string{"login/oauth/access_token", "login/oauth/userinfo", "login/oauth/keys", "login/oauth/introspect",
			"login/oauth/revoke", ".well-known/openid-configuration"} {
			r := preflight(s, p, "https://cms.example")
			if r.Status/100 != 2 || r.Header.Get("Access-Control-Allow-Origin") != "https://cms.example" ||
				!strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), "POST") || r.Header.Get("Access-Control-Max-Age") != "300" ||
				!strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "authorization") {
				t.Errorf("preflight %s: %d %v", p, r.Status, r.Header)
			}
			if r := preflight(s, p, "https://evil.example"); r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("preflight %s from another origin allowed: %v", p, r.Header)
			}
		}
		// The API too, as Gitea's: a browser application calls it with
		// its token.
		r := preflight(s, "api/v1/user", "https://cms.example")
		if r.Status/100 != 2 || r.Header.Get("Access-Control-Allow-Origin") != "https://cms.example" {
			t.Fatalf("API preflight: %d %v", r.Status, r.Header)
		}
		admin := s.Do("GET", "api/v1/user", Token(s.AdminTok), Header("Origin", "https://cms.example"))
		if admin.Status != 200 || admin.Header.Get("Access-Control-Allow-Origin") != "https://cms.example" {
			t.Fatalf("API request from the allowed origin: %d %v", admin.Status, admin.Header)
		}
		if r := s.Do("GET", "api/v1/user", Token(s.AdminTok), Header("Origin", "https://evil.example")); r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("API request from another origin: %v", r.Header)
		}
		// The answer itself carries the header, errors included.
		r = s.Do("POST", "login/oauth/access_token", Header("Origin", "https://cms.example"),
			Header("Content-Type", "application/x-www-form-urlencoded"), RawBody("grant_type=authorization_code&client_id=x&code=y"))
		if r.Status != 401 || r.Header.Get("Access-Control-Allow-Origin") != "https://cms.example" || r.Header.Get("X-Frame-Options") != "SAMEORIGIN" {
			t.Fatalf("token request from the allowed origin: %d %v", r.Status, r.Header)
		}
	})
	t.Run("disabled", func(t *testing.T) {
		// REQUIRE_SIGNIN_VIEW does not apply to the client endpoints: they
		// carry their own credentials.
		s := StartServer(t, WithEnv("CAIRN_SERVICE_REQUIRE_SIGNIN_VIEW=true"))
		r := preflight(s, "login/oauth/access_token", "https://cms.example")
		if r.Status != 405 || r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("preflight without [cors]: %d %v", r.Status, r.Header)
		}
		fndStatus(t, s.Do("GET", ".well-known/openid-configuration"), 200, "discovery with REQUIRE_SIGNIN_VIEW")
		fndStatus(t, s.Do("GET", "login/oauth/keys"), 200, "keys with REQUIRE_SIGNIN_VIEW")
		r = s.Do("POST", "login/oauth/access_token", Header("Content-Type", "application/x-www-form-urlencoded"), RawBody("grant_type=password"))
		if r.Status != 400 || !strings.Contains(string(r.Body), `"unsupported_grant_type"`) {
			t.Fatalf("token endpoint with REQUIRE_SIGNIN_VIEW: %d %s", r.Status, r.Body)
		}
		// A web page still asks for sign-in.
		if r := s.Do("GET", "explore/repos"); r.Status != http.StatusSeeOther {
			t.Fatalf("explore with REQUIRE_SIGNIN_VIEW: %d", r.Status)
		}
		if r := s.Do("GET", "api/v1/version", Header("Origin", "https://cms.example")); r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("API CORS without [cors]: %v", r.Header)
		}
	})
}

func TestOIDCBuiltinApplications(t *testing.T) {
	ctx := context.Background()
	s := StartServer(t)
	bob := s.CreateUser("bob")
	fndStatus(t, s.API("POST", "user/repos", bob.Token, map[string]any{"name": "notes", "private": true, "auto_init": true}), 201, "create repo")
	w := s.Web(t)
	w.SignIn(bob.Name, bob.Password)
	const gitCredentialOAuth = "a4792ccc-144e-407e-86c9-5e7d8d9c3269"
	// git-credential-oauth: a public client listening on a loopback port
	// it picks when it runs.
	cfg := oauth2Config(s, gitCredentialOAuth, "", "http://127.0.0.1:38123", oauth2.AuthStyleInParams)
	verifier := oauth2.GenerateVerifier()
	loc := consent(t, w, s, cfg.AuthCodeURL("b1", oauth2.S256ChallengeOption(verifier)), true, "git-credential-oauth", "built into this instance")
	if loc.Host != "127.0.0.1:38123" || loc.Query().Get("state") != "b1" {
		t.Fatalf("redirect %s", loc)
	}
	tok, err := cfg.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	// Its token works for git over HTTP and the API as a personal token.
	if out, err := lsRemote(s, "bob/notes", tok.AccessToken); err != nil || !strings.Contains(out, "refs/heads/main") {
		t.Fatalf("git ls-remote: %v\n%s", err, out)
	}
	if st := apiStatus(s, "GET", "repos/bob/notes", tok.AccessToken); st != 200 {
		t.Fatalf("API: %d", st)
	}
	// The other two exist too; a host that is not loopback is refused.
	for _, id := range []string{"e90ee53c-94e2-48ac-9358-a874fb9e0662", "d57cb8c4-630c-4168-8324-ec79935e18d4"} {
		q := url.Values{"client_id": {id}, "redirect_uri": {"http://127.0.0.1:40000"}, "response_type": {"code"}, "state": {"x"},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}}
		w.Get("login/oauth/authorize?"+q.Encode()).MustContain(t, 200, `action="/login/oauth/grant"`)
		q.Set("redirect_uri", "http://evil.example:40000")
		if p := w.Get("login/oauth/authorize?" + q.Encode()); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("built-in app %s with a non-loopback redirect: %d", id, p.Status)
		}
	}
	// No user owns them: not listed among anyone's, not deletable.
	var apps []map[string]any
	s.API("GET", "user/applications/oauth2", s.AdminTok, nil).Decode(t, &apps)
	if len(apps) != 0 {
		t.Fatalf("admin's applications %v", apps)
	}
	var id int64
	if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT id FROM oauth2_application WHERE client_id = '%s'", gitCredentialOAuth)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, tk := range []string{bob.Token, s.AdminTok} {
		if r := s.API("DELETE", fmt.Sprintf("user/applications/oauth2/%d", id), tk, nil); r.Status != 404 {
			t.Fatalf("delete a built-in application: %d", r.Status)
		}
	}

	// DEFAULT_APPLICATIONS chooses which exist: on restart without
	// git-credential-oauth it is gone, with its grants and tokens.
	s.Stop()
	s.Env = append(s.Env, "CAIRN_OAUTH2_DEFAULT_APPLICATIONS=tea")
	s.Restart()
	q := url.Values{"client_id": {gitCredentialOAuth}, "redirect_uri": {"http://127.0.0.1:40000"}, "response_type": {"code"}}
	if p := w.Get("login/oauth/authorize?" + q.Encode()); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a built-in application left out of DEFAULT_APPLICATIONS: %d", p.Status)
	}
	if st := apiStatus(s, "GET", "user", tok.AccessToken); st != 401 {
		t.Fatalf("its token after removal: %d", st)
	}
}

// TestOIDCTokenScopes: an access token whose grant names token scopes is
// limited to them on the API and on git over HTTP, as a personal token is.
func TestOIDCTokenScopes(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	fndStatus(t, s.API("POST", "user/repos", bob.Token, map[string]any{"name": "code", "private": true, "auto_init": true}), 201, "create repo")
	clientID, secret := oauth2FlowApp(t, s, alice.Token, "Reader", true, "https://reader.example/cb")
	cfg := oauth2Config(s, clientID, secret, "https://reader.example/cb", oauth2.AuthStyleInHeader, "openid", "read:repository")
	w := s.Web(t)
	w.SignIn(bob.Name, bob.Password)
	tok := oidcLogin(t, w, s, cfg, "scoped")
	if idTokenOf(tok) == "" {
		t.Fatal("no ID token")
	}
	if st := apiStatus(s, "GET", "repos/bob/code", tok.AccessToken); st != 200 {
		t.Fatalf("read a repository: %d", st)
	}
	if st := apiStatus(s, "GET", "user/emails", tok.AccessToken); st != 403 {
		t.Fatalf("read:user route with read:repository: %d", st)
	}
	if st := s.Do("PATCH", "api/v1/repos/bob/code", Header("Authorization", "Bearer "+tok.AccessToken), JSON(map[string]any{"description": "x"})).Status; st != 403 {
		t.Fatalf("write with read:repository: %d", st)
	}
	dir := t.TempDir()
	remote := strings.Replace(s.URL, "http://", "http://oauth2:"+tok.AccessToken+"@", 1) + "bob/code.git"
	if out, err := clhGit(dir, "clone", "-q", remote, "c"); err != nil {
		t.Fatalf("git clone with the scoped token: %v\n%s", err, out)
	}
	if out, err := clhGit(filepath.Join(dir, "c"), "log", "-1", "--format=%H"); err != nil || len(strings.TrimSpace(out)) != 40 {
		t.Fatalf("cloned history: %v %q", err, out)
	}
	// Pushing needs write:repository.
	if out, err := clhGit(filepath.Join(dir, "c"), "commit", "--allow-empty", "-qm", "x"); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	if out, err := clhGit(filepath.Join(dir, "c"), "push", "-q", "origin", "HEAD:main"); err == nil {
		t.Fatalf("push with read:repository worked:\n%s", out)
	}

	// With the provider turned off, its tokens are refused everywhere.
	s.Stop()
	s.Env = append(s.Env, "CAIRN_OAUTH2_ENABLED=false")
	s.Restart()
	if st := apiStatus(s, "GET", "repos/bob/code", tok.AccessToken); st != 401 {
		t.Fatalf("API with [oauth2] ENABLED=false: %d", st)
	}
	if out, err := lsRemote(s, "bob/code", tok.AccessToken); err == nil {
		t.Fatalf("git with [oauth2] ENABLED=false:\n%s", out)
	}
	if st := apiStatus(s, "GET", "repos/bob/code", bob.Token); st != 200 {
		t.Fatalf("personal token with [oauth2] ENABLED=false: %d", st)
	}
}

// TestOIDCAuthorizedApplications: the user's settings list the
// applications they authorized, with the scope, and revoking one ends its
// tokens at once; another user cannot revoke it.
func TestOIDCAuthorizedApplications(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")
	clientID, secret := oauth2FlowApp(t, s, alice.Token, "Dashboard", true, "https://dash.example/cb")
	cfg := oauth2Config(s, clientID, secret, "https://dash.example/cb", oauth2.AuthStyleInHeader, "openid", "read:user")
	w := s.Web(t)
	w.SignIn(bob.Name, bob.Password)
	w.Get("user/settings/applications").MustContain(t, 200, "Authorized OAuth2 applications", "You have not authorized any application.")
	tok := oidcLogin(t, w, s, cfg, "n")
	page := w.Get("user/settings/applications")
	page.MustContain(t, 200, "Authorized OAuth2 applications", "Dashboard", "openid read:user")
	var appID, grantID int64
	if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT application_id, id FROM oauth2_grant WHERE uid = %d", bob.ID)).Scan(&appID, &grantID); err != nil {
		t.Fatal(err)
	}
	action := fmt.Sprintf("/user/settings/applications/oauth2/%d/revoke/%d", appID, grantID)
	page.MustContain(t, 200, `action="`+action+`"`)

	// Not another user's to revoke.
	wc := s.Web(t)
	wc.SignIn(carol.Name, carol.Password)
	wc.Get("user/settings/applications")
	if p := wc.Post(action, nil); p.Status != 404 {
		t.Fatalf("carol revokes bob's grant: %d", p.Status)
	}
	if st := apiStatus(s, "GET", "user", tok.AccessToken); st != 200 {
		t.Fatalf("token after carol's attempt: %d", st)
	}
	// Without the CSRF token: refused.
	if p := w.Post(action, url.Values{"_csrf": {"x"}}); p.Status != 400 {
		t.Fatalf("revoke without the CSRF token: %d", p.Status)
	}
	w.Get("user/settings/applications")
	if p := w.Post(action, nil); p.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d %s", p.Status, p.Body)
	}
	if st := apiStatus(s, "GET", "user", tok.AccessToken); st != 401 {
		t.Fatalf("token after revocation: %d", st)
	}
	w.Get("user/settings/applications").MustContain(t, 200, "You have not authorized any application.")
	// Consent is asked again.
	w.Get(authorizePath(t, s, cfg.AuthCodeURL("again"))).MustContain(t, 200, `action="/login/oauth/grant"`)
}

// TestOIDCKeyMadeAtFirstStart: the ID token signing key is generated in
// the data directory by the first start itself, in the background, before
// any client asks for it.
func TestOIDCKeyMadeAtFirstStart(t *testing.T) {
	s := StartServer(t, WithOwnSigningKey())
	file := filepath.Join(s.DataDir, "jwt", "private.pem")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(file); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no signing key at %s a minute after the start", file)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if kids := jwksKeyIDs(t, s); len(kids) != 1 || kids[0] == "" {
		t.Fatalf("key ids %v", kids)
	}
}
