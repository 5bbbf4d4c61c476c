package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// oauth2FlowApp registers an OAuth2 application of tok's account through
// the API and returns its client id and secret.
func oauth2FlowApp(t *testing.T, s *Server, tok, name string, confidential bool, uris ...string) (string, string) {
	t.Helper()
	r := s.API("POST", "user/applications/oauth2", tok, map[string]any{"name": name,
		"confidential_client": confidential, "redirect_uris": uris})
	fndStatus(t, r, 201, "create an OAuth2 application")
	var app struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	r.Decode(t, &app)
	return app.ClientID, app.ClientSecret
}

// oauth2Config is a golang.org/x/oauth2 client of s.
func oauth2Config(s *Server, clientID, secret, redirect string, style oauth2.AuthStyle, scopes ...string) *oauth2.Config {
	return &oauth2.Config{ClientID: clientID, ClientSecret: secret, RedirectURL: redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: s.URL + "login/oauth/authorize", TokenURL: s.URL + "login/oauth/access_token", AuthStyle: style}}
}

// authorizePath is the path and query of an authorization URL of s.
func authorizePath(t *testing.T, s *Server, authURL string) string {
	t.Helper()
	if !strings.HasPrefix(authURL, s.URL) {
		t.Fatalf("authorization URL %s is not on %s", authURL, s.URL)
	}
	return strings.TrimPrefix(authURL, s.URL)
}

// consent loads an authorization URL, expects the consent page, and answers it.
func consent(t *testing.T, w *Web, s *Server, authURL string, grant bool, wantOnPage ...string) *url.URL {
	t.Helper()
	p := w.Get(authorizePath(t, s, authURL))
	p.MustContain(t, 200, append([]string{`action="/login/oauth/grant"`}, wantOnPage...)...)
	// The form's answer redirects to the client: the policy allows it.
	u, _ := url.Parse(authURL)
	redirect, _ := url.Parse(u.Query().Get("redirect_uri"))
	origin := redirect.Scheme + ":" // a private-use scheme
	if redirect.Host != "" {
		origin = redirect.Scheme + "://" + redirect.Host
	}
	if !strings.Contains(p.Header.Get("Content-Security-Policy"), "form-action 'self' "+origin+";") {
		t.Fatalf("consent page policy %q", p.Header.Get("Content-Security-Policy"))
	}
	q := u.Query()
	form := url.Values{"granted": {fmt.Sprint(grant)}}
	for _, k := range []string{"client_id", "redirect_uri", "response_type", "state", "scope", "code_challenge", "code_challenge_method", "nonce"} {
		form.Set(k, q.Get(k))
	}
	res := w.Post("login/oauth/grant", form)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("grant: %d %s", res.Status, res.Body)
	}
	loc, err := url.Parse(res.Location)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// redirected loads an authorization URL and expects a redirect to the
// client (no consent page).
func redirected(t *testing.T, w *Web, s *Server, authURL string) *url.URL {
	t.Helper()
	p := w.Get(authorizePath(t, s, authURL))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("authorize: %d, want a redirect: %.1500s", p.Status, p.Body)
	}
	loc, err := url.Parse(p.Location)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// oauth2ErrCode is the RFC 6749 error code of a token endpoint failure.
func oauth2ErrCode(t *testing.T, err error) string {
	t.Helper()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		t.Fatalf("want a token endpoint error, got %v", err)
	}
	return re.ErrorCode
}

// lsRemote runs git ls-remote over HTTP with tok as password.
func lsRemote(s *Server, repo, tok string) (string, error) {
	u := strings.Replace(s.URL, "http://", "http://oauth2:"+url.QueryEscape(tok)+"@", 1) + repo + ".git"
	cmd := exec.Command("git", "ls-remote", u)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// oauth2AppID is the id of the application clientID of tok's account.
func oauth2AppID(t *testing.T, s *Server, tok, clientID string) string {
	t.Helper()
	var apps []struct {
		ID       int64  `json:"id"`
		ClientID string `json:"client_id"`
	}
	s.API("GET", "user/applications/oauth2", tok, nil).Decode(t, &apps)
	for _, a := range apps {
		if a.ClientID == clientID {
			return fmt.Sprint(a.ID)
		}
	}
	t.Fatalf("no application %s", clientID)
	return ""
}

func apiStatus(s *Server, method, path, tok string) int {
	return s.Do(method, "api/v1/"+path, Header("Authorization", "Bearer "+tok)).Status
}

func TestOAuth2FlowConfidentialClient(t *testing.T) {
	s := StartServer(t)
	ctx := context.Background()
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	clientID, secret := oauth2FlowApp(t, s, alice.Token, "Builder", true, "https://client.example/cb")
	fndStatus(t, s.API("POST", "user/repos", bob.Token, map[string]any{"name": "secret", "private": true, "auto_init": true}), 201, "create repo")
	fndStatus(t, s.API("POST", "orgs", bob.Token, map[string]any{"username": "guild"}), 201, "create org")

	cfg := oauth2Config(s, clientID, secret, "https://client.example/cb", oauth2.AuthStyleInHeader)
	w := s.Web(t)

	// Signed out: sign in first, then come back.
	p := w.Get(authorizePath(t, s, cfg.AuthCodeURL("st1")))
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login?redirect_to=") ||
		!strings.Contains(p.Location, url.QueryEscape("/login/oauth/authorize?")) {
		t.Fatalf("signed out: %d %q", p.Status, p.Location)
	}
	back, _ := url.Parse(p.Location)
	w.Get(p.Location)
	res := w.Post("user/login", url.Values{"user_name": {bob.Name}, "password": {bob.Password}, "redirect_to": {back.Query().Get("redirect_to")}})
	if res.Status != http.StatusSeeOther || res.Location != "/"+authorizePath(t, s, cfg.AuthCodeURL("st1")) {
		t.Fatalf("sign in: %d %q", res.Status, res.Location)
	}

	// A bad client or redirect URI is shown, never redirected; redirect
	// URIs match exactly.
	for _, c := range []struct{ client, redirect string }{
		{"00000000-0000-0000-0000-000000000000", "https://client.example/cb"},
		{clientID, "https://client.example/cb/other"},
		{clientID, "https://client.example/cb?x=1"},
		{clientID, "https://client.example/"},
		{clientID, "https://evil.example/cb"},
		{clientID, ""},
	} {
		q := url.Values{"client_id": {c.client}, "redirect_uri": {c.redirect}, "response_type": {"code"}, "state": {"s"}}
		p := w.Get("login/oauth/authorize?" + q.Encode())
		if p.Status != http.StatusUnprocessableEntity || p.Location != "" {
			t.Fatalf("client %s redirect %q: %d %q", c.client, c.redirect, p.Status, p.Location)
		}
	}
	// Other errors go back to the client, with the state.
	q := url.Values{"client_id": {clientID}, "redirect_uri": {"https://client.example/cb"}, "response_type": {"token"}, "state": {"xyz"}}
	loc := redirected(t, w, s, s.URL+"login/oauth/authorize?"+q.Encode())
	if loc.Host != "client.example" || loc.Query().Get("error") != "unsupported_response_type" || loc.Query().Get("state") != "xyz" {
		t.Fatalf("response_type=token: %s", loc)
	}

	// Consent, code, token; the state is echoed.
	loc = consent(t, w, s, cfg.AuthCodeURL("state-1"), true, "Authorize", "Builder", "alice", "https://client.example/cb")
	if loc.Scheme+"://"+loc.Host+loc.Path != "https://client.example/cb" || loc.Query().Get("state") != "state-1" {
		t.Fatalf("grant redirect %s", loc)
	}
	code := loc.Query().Get("code")
	tok, err := cfg.Exchange(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "bearer" || tok.RefreshToken == "" || tok.AccessToken == "" || tok.Expiry.IsZero() {
		t.Fatalf("token %+v", tok)
	}
	if v, ok := tok.Extra("expires_in").(float64); !ok || v != 3600 {
		t.Fatalf("expires_in %v", tok.Extra("expires_in"))
	}
	// Stored hashed only.
	var n int
	if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT COUNT(*) FROM oauth2_token WHERE token_hash = '%s' AND kind = 'access'", sha256Hex(tok.AccessToken))).Scan(&n); err != nil || n != 1 {
		t.Fatalf("stored access token hash: %d %v", n, err)
	}
	if err := fndServerDB(t, s).QueryRow(fmt.Sprintf("SELECT COUNT(*) FROM oauth2_authorization_code WHERE code_hash = '%s'", sha256Hex(code))).Scan(&n); err != nil || n != 1 {
		t.Fatalf("stored code hash: %d %v", n, err)
	}

	// The access token works on the API and on git over HTTP, as bob.
	r := s.Do("GET", "api/v1/user", Header("Authorization", "Bearer "+tok.AccessToken))
	fndStatus(t, r, 200, "GET /user with the access token")
	var me struct {
		Login string `json:"login"`
	}
	r.Decode(t, &me)
	if me.Login != "bob" {
		t.Fatalf("user %q", me.Login)
	}
	if out, err := lsRemote(s, "bob/secret", tok.AccessToken); err != nil || !strings.Contains(out, "refs/heads/main") {
		t.Fatalf("git ls-remote with the access token: %v\n%s", err, out)
	}
	if out, err := lsRemote(s, "bob/secret", tok.AccessToken+"x"); err == nil {
		t.Fatalf("git ls-remote with a wrong token worked:\n%s", out)
	}

	// userinfo.
	r = s.Do("GET", "login/oauth/userinfo", Header("Authorization", "Bearer "+tok.AccessToken))
	fndStatus(t, r, 200, "userinfo")
	var info map[string]any
	r.Decode(t, &info)
	if info["preferred_username"] != "bob" || info["sub"] != fmt.Sprint(bob.ID) || info["email"] != "bob@example.com" ||
		!strings.Contains(fmt.Sprint(info["picture"]), "/avatars/") || fmt.Sprint(info["groups"]) != "[guild guild:owners]" {
		t.Fatalf("userinfo %v", info)
	}
	if s.Do("GET", "login/oauth/userinfo").Status != 401 || s.Do("GET", "login/oauth/userinfo", Header("Authorization", "Bearer "+alice.Token)).Status != 401 {
		t.Fatal("userinfo without an OAuth2 access token")
	}

	// A code works once; its second use also revokes what it issued.
	if _, err := cfg.Exchange(ctx, code); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("reused code: %v", err)
	}
	if st := apiStatus(s, "GET", "user", tok.AccessToken); st != 401 {
		t.Fatalf("access token after its code was reused: %d", st)
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("refresh token after its code was reused: %v", err)
	}

	// Already granted this scope: no consent page the second time.
	loc = redirected(t, w, s, cfg.AuthCodeURL("state-2"))
	if loc.Query().Get("state") != "state-2" || loc.Query().Get("code") == "" {
		t.Fatalf("second authorization %s", loc)
	}
	// The code is bound to its redirect URI and client.
	wrongRedirect := oauth2Config(s, clientID, secret, "https://client.example/other", oauth2.AuthStyleInHeader)
	if _, err := wrongRedirect.Exchange(ctx, loc.Query().Get("code")); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("exchange with another redirect_uri: %v", err)
	}
	badSecret := oauth2Config(s, clientID, secret+"x", "https://client.example/cb", oauth2.AuthStyleInParams)
	_, err = badSecret.Exchange(ctx, loc.Query().Get("code"))
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_client" || re.Response.StatusCode != 401 {
		t.Fatalf("wrong client secret: %v", err)
	}
	noSecret := oauth2Config(s, clientID, "", "https://client.example/cb", oauth2.AuthStyleInParams)
	if _, err := noSecret.Exchange(ctx, loc.Query().Get("code")); oauth2ErrCode(t, err) != "invalid_client" {
		t.Fatalf("confidential client without its secret: %v", err)
	}
	tok2, err := cfg.Exchange(ctx, loc.Query().Get("code"))
	if err != nil {
		t.Fatal(err)
	}

	// Refresh tokens rotate.
	tok3, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok2.RefreshToken}).Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok3.RefreshToken == tok2.RefreshToken || tok3.AccessToken == tok2.AccessToken {
		t.Fatal("refresh did not rotate")
	}
	if st := apiStatus(s, "GET", "user", tok3.AccessToken); st != 200 {
		t.Fatalf("refreshed access token: %d", st)
	}
	// Reusing the old refresh token revokes the whole grant.
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok2.RefreshToken}).Token(); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("reused refresh token: %v", err)
	}
	if st := apiStatus(s, "GET", "user", tok3.AccessToken); st != 401 {
		t.Fatalf("current access token after a refresh token was reused: %d", st)
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok3.RefreshToken}).Token(); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("current refresh token after reuse: %v", err)
	}
	// ... and the user is asked again.
	loc = consent(t, w, s, cfg.AuthCodeURL("state-3"), true, "Builder")
	tok4, err := cfg.Exchange(ctx, loc.Query().Get("code"))
	if err != nil {
		t.Fatal(err)
	}

	// A narrower scope: read:user only (another consent, the scope differs).
	narrow := oauth2Config(s, clientID, secret, "https://client.example/cb", oauth2.AuthStyleInHeader, "openid", "read:user")
	loc = consent(t, w, s, narrow.AuthCodeURL("state-4"), true, "read:user", "openid")
	tok5, err := narrow.Exchange(ctx, loc.Query().Get("code"))
	if err != nil {
		t.Fatal(err)
	}
	if st := apiStatus(s, "GET", "user", tok5.AccessToken); st != 200 {
		t.Fatalf("read:user token on GET /user: %d", st)
	}
	if st := apiStatus(s, "GET", "repos/bob/secret", tok5.AccessToken); st != 403 {
		t.Fatalf("read:user token on a repository: %d", st)
	}
	if out, err := lsRemote(s, "bob/secret", tok5.AccessToken); err == nil {
		t.Fatalf("git with a read:user token worked:\n%s", out)
	}
	// Tokens keep the scope they were issued with.
	if st := apiStatus(s, "GET", "repos/bob/secret", tok4.AccessToken); st != 200 {
		t.Fatalf("earlier token (all) after a narrower consent: %d", st)
	}

	// Denial.
	loc = consent(t, w, s, oauth2Config(s, clientID, secret, "https://client.example/cb", oauth2.AuthStyleInHeader, "write:issue").AuthCodeURL("state-5"), false)
	if loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "state-5" || loc.Query().Get("code") != "" {
		t.Fatalf("denied: %s", loc)
	}
	// The consent form needs the CSRF token.
	res = w.Post("login/oauth/grant", url.Values{"_csrf": {"forged"}, "client_id": {clientID}, "redirect_uri": {"https://client.example/cb"},
		"response_type": {"code"}, "granted": {"true"}})
	if res.Status != 400 || res.Location != "" {
		t.Fatalf("grant without CSRF token: %d %q", res.Status, res.Location)
	}

	// Unsupported grant type; a confidential client that sent a PKCE
	// challenge must send its verifier too.
	r = s.Do("POST", "login/oauth/access_token", Header("Content-Type", "application/x-www-form-urlencoded"),
		RawBody(url.Values{"grant_type": {"password"}, "client_id": {clientID}, "client_secret": {secret}}.Encode()))
	if r.Status != 400 || !strings.Contains(string(r.Body), `"unsupported_grant_type"`) {
		t.Fatalf("grant_type=password: %d %s", r.Status, r.Body)
	}
	verifier := oauth2.GenerateVerifier()
	loc = redirected(t, w, s, narrow.AuthCodeURL("state-6", oauth2.S256ChallengeOption(verifier)))
	if _, err := narrow.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier())); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("confidential client with a wrong verifier: %v", err)
	}
	if _, err := narrow.Exchange(ctx, loc.Query().Get("code")); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("confidential client without its verifier: %v", err)
	}
	if _, err := narrow.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(verifier)); err != nil {
		t.Fatalf("confidential client with its verifier: %v", err)
	}

	// Deleting the application deletes its grants: the tokens stop working.
	if st := apiStatus(s, "GET", "user", tok4.AccessToken); st != 200 {
		t.Fatalf("access token before the application is deleted: %d", st)
	}
	r = s.API("GET", "user/applications/oauth2", alice.Token, nil)
	var apps []struct {
		ID int64 `json:"id"`
	}
	r.Decode(t, &apps)
	fndStatus(t, s.API("DELETE", fmt.Sprintf("user/applications/oauth2/%d", apps[0].ID), alice.Token, nil), 204, "delete application")
	if st := apiStatus(s, "GET", "user", tok4.AccessToken); st != 401 {
		t.Fatalf("access token after its application was deleted: %d", st)
	}
	if err := fndServerDB(t, s).QueryRow("SELECT COUNT(*) FROM oauth2_grant").Scan(&n); err != nil || n != 0 {
		t.Fatalf("grants left after the application was deleted: %d %v", n, err)
	}
}

func TestOAuth2FlowPublicClientPKCE(t *testing.T) {
	s := StartServer(t)
	ctx := context.Background()
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	clientID, _ := oauth2FlowApp(t, s, alice.Token, "Desktop", false, "http://127.0.0.1/callback")
	// A public client may listen on any loopback port.
	cfg := oauth2Config(s, clientID, "", "http://127.0.0.1:45678/callback", oauth2.AuthStyleInParams)
	w := s.Web(t)
	w.SignIn(bob.Name, bob.Password)

	// PKCE is required for public clients.
	loc := redirected(t, w, s, cfg.AuthCodeURL("p1"))
	if loc.Host != "127.0.0.1:45678" || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("state") != "p1" || loc.Query().Get("code") != "" {
		t.Fatalf("public client without PKCE: %s", loc)
	}
	// An unknown challenge method is refused.
	loc = redirected(t, w, s, cfg.AuthCodeURL("p2", oauth2.SetAuthURLParam("code_challenge", strings.Repeat("a", 43)),
		oauth2.SetAuthURLParam("code_challenge_method", "S512")))
	if loc.Query().Get("error") != "invalid_request" {
		t.Fatalf("code_challenge_method=S512: %s", loc)
	}

	verifier := oauth2.GenerateVerifier()
	loc = consent(t, w, s, cfg.AuthCodeURL("p3", oauth2.S256ChallengeOption(verifier)), true, "Desktop")
	if loc.Host != "127.0.0.1:45678" || loc.Query().Get("state") != "p3" {
		t.Fatalf("grant redirect %s", loc)
	}
	code := loc.Query().Get("code")
	if _, err := cfg.Exchange(ctx, code); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("public client without the verifier: %v", err)
	}
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier())); oauth2ErrCode(t, err) != "invalid_grant" {
		t.Fatalf("public client with a wrong verifier: %v", err)
	}
	other := oauth2Config(s, "00000000-0000-0000-0000-000000000000", "", "http://127.0.0.1:45678/callback", oauth2.AuthStyleInParams)
	if _, err := other.Exchange(ctx, code, oauth2.VerifierOption(verifier)); oauth2ErrCode(t, err) != "invalid_client" {
		t.Fatalf("another client id: %v", err)
	}
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if st := apiStatus(s, "GET", "user", tok.AccessToken); st != 200 {
		t.Fatalf("public client's access token: %d", st)
	}
	// A public client is asked every time (anyone can pose as one); the
	// plain method works too.
	plain := oauth2.GenerateVerifier()
	loc = consent(t, w, s, cfg.AuthCodeURL("p4", oauth2.SetAuthURLParam("code_challenge", plain),
		oauth2.SetAuthURLParam("code_challenge_method", "plain")), true, "Desktop")
	if _, err := cfg.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(plain)); err != nil {
		t.Fatalf("plain PKCE: %v", err)
	}
	// A public client refreshes with its client id alone; rotation applies.
	next, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatal(err)
	}
	if next.RefreshToken == tok.RefreshToken {
		t.Fatal("refresh did not rotate")
	}
	// skip_secondary_authorization skips the consent page only once the
	// user has granted the application.
	trustedID, _ := oauth2FlowApp(t, s, alice.Token, "Trusted", false, "app.example:/cb")
	fndStatus(t, s.API("PATCH", "user/applications/oauth2/"+oauth2AppID(t, s, alice.Token, trustedID), alice.Token, map[string]any{"name": "Trusted",
		"confidential_client": false, "skip_secondary_authorization": true, "redirect_uris": []string{"app.example:/cb"}}), 200, "trust the application")
	trusted := oauth2Config(s, trustedID, "", "app.example:/cb", oauth2.AuthStyleInParams)
	v := oauth2.GenerateVerifier()
	loc = consent(t, w, s, trusted.AuthCodeURL("t1", oauth2.S256ChallengeOption(v)), true, "Trusted")
	if loc.Scheme != "app.example" || loc.Query().Get("state") != "t1" || loc.Query().Get("code") == "" {
		t.Fatalf("private-use scheme redirect %s", loc)
	}
	loc = redirected(t, w, s, trusted.AuthCodeURL("t2", oauth2.S256ChallengeOption(v)))
	if _, err := trusted.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(v)); err != nil {
		t.Fatalf("trusted application's second code: %v", err)
	}

	// Non-loopback hosts are matched exactly even for public clients.
	q := url.Values{"client_id": {clientID}, "redirect_uri": {"http://localhost:45678/callback"}, "response_type": {"code"}}
	if p := w.Get("login/oauth/authorize?" + q.Encode()); p.Status != http.StatusUnprocessableEntity || p.Location != "" {
		t.Fatalf("public client with localhost redirect: %d %q", p.Status, p.Location)
	}
}
