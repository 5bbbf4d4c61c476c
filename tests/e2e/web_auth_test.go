package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestWebSignInFlows covers sign-up, sign-in, sign-out, the forced password
// change, CSRF refusals, open redirects and REQUIRE_SIGNIN_VIEW through the
// real binary.
func TestWebSignInFlows(t *testing.T) {
	s := StartServer(t)

	t.Run("security headers and landing page", func(t *testing.T) {
		p := s.Web(t).Get("/")
		p.MustContain(t, http.StatusOK, "Sign in", "Explore")
		csp := p.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Fatalf("CSP = %q", csp)
		}
		if p.Header.Get("X-Frame-Options") != "DENY" || p.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("headers: %v", p.Header)
		}
	})

	t.Run("unknown page is an HTML 404", func(t *testing.T) {
		p := s.Web(t).Get("/-/no/such/page")
		p.MustContain(t, http.StatusNotFound, "<h1>404</h1>")
	})

	t.Run("sign up, sign out, sign in", func(t *testing.T) {
		w := s.Web(t)
		w.Get("user/sign_up")
		p := w.Post("user/sign_up", url.Values{"user_name": {"webber"}, "email": {"webber@example.com"},
			"password": {"webber-pw-123"}, "retype": {"webber-pw-123"}})
		if p.Status != http.StatusSeeOther || p.Location != "/" {
			t.Fatalf("sign up: %d %q %s", p.Status, p.Location, p.Body)
		}
		w.Get("/").MustContain(t, http.StatusOK, "Welcome to Cairn, webber!", "Dashboard", "Sign out")
		// The account is real: the API sees it.
		if r := s.Do("GET", "api/v1/users/webber"); r.Status != http.StatusOK {
			t.Fatalf("api user: %d", r.Status)
		}
		if p := w.Post("user/logout", nil); p.Status != http.StatusSeeOther {
			t.Fatalf("logout: %d", p.Status)
		}
		if strings.Contains(w.Get("/").Body, "Sign out") {
			t.Fatal("still signed in after signing out")
		}
		w.Get("user/login")
		bad := w.Post("user/login", url.Values{"user_name": {"webber"}, "password": {"wrong-password"}})
		bad.MustContain(t, http.StatusOK, "The user name or password is incorrect.")
		w.SignIn("webber@example.com", "webber-pw-123") // e-mail works as the login too
		w.Get("/").MustContain(t, http.StatusOK, "Sign out")
	})

	t.Run("sign-up refusals keep the form", func(t *testing.T) {
		w := s.Web(t)
		w.Get("user/sign_up")
		p := w.Post("user/sign_up", url.Values{"user_name": {"mismatch"}, "email": {"mm@example.com"},
			"password": {"one-password-1"}, "retype": {"another-password"}})
		p.MustContain(t, http.StatusUnprocessableEntity, "The passwords do not match.", `value="mismatch"`)
		p = w.Post("user/sign_up", url.Values{"user_name": {adminName}, "email": {"dup@example.com"},
			"password": {"one-password-1"}, "retype": {"one-password-1"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("taken name: %d %s", p.Status, p.Body)
		}
	})

	t.Run("forms without the CSRF token are refused", func(t *testing.T) {
		w := s.Web(t)
		w.Get("user/login")
		p := w.Post("user/login", url.Values{"_csrf": {"forged"}, "user_name": {adminName}, "password": {adminPassword}})
		if p.Status != http.StatusBadRequest {
			t.Fatalf("forged token: %d", p.Status)
		}
		// A token of another visitor is refused too.
		other := s.Web(t)
		other.Get("user/login")
		p = w.Post("user/login", url.Values{"_csrf": {other.csrf}, "user_name": {adminName}, "password": {adminPassword}})
		if p.Status != http.StatusBadRequest {
			t.Fatalf("another visitor's token: %d", p.Status)
		}
		// A signed-in session's token changes with the session: an old one fails.
		w.SignIn(adminName, adminPassword)
		old := w.csrf
		w.Get("/")
		if w.csrf == old {
			t.Fatal("the CSRF token did not change with the session")
		}
		if p := w.Post("user/logout", url.Values{"_csrf": {old}}); p.Status != http.StatusBadRequest {
			t.Fatalf("pre-session token after sign-in: %d", p.Status)
		}
	})

	t.Run("redirect_to stays on this site", func(t *testing.T) {
		for _, target := range []string{"https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"} {
			w := s.Web(t)
			w.Get("user/login?redirect_to=" + url.QueryEscape(target))
			p := w.Post("user/login", url.Values{"user_name": {adminName}, "password": {adminPassword}, "redirect_to": {target}})
			if p.Status != http.StatusSeeOther || p.Location != "/" {
				t.Fatalf("redirect_to %q: %d to %q", target, p.Status, p.Location)
			}
		}
		w := s.Web(t)
		w.Get("user/login")
		p := w.Post("user/login", url.Values{"user_name": {adminName}, "password": {adminPassword}, "redirect_to": {"/explore/repos?q=a"}})
		if p.Location != "/explore/repos?q=a" {
			t.Fatalf("local redirect_to: %q", p.Location)
		}
	})

	t.Run("forced password change", func(t *testing.T) {
		resp := s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "forced",
			"email": "forced@example.com", "password": "first-pw-123", "must_change_password": true}))
		if resp.Status != 201 {
			t.Fatalf("create: %d %s", resp.Status, resp.Body)
		}
		w := s.Web(t)
		w.Get("user/login")
		p := w.Post("user/login", url.Values{"user_name": {"forced"}, "password": {"first-pw-123"}})
		if p.Location != "/user/change_password" {
			t.Fatalf("after sign-in: %d %q", p.Status, p.Location)
		}
		if p := w.Get("/explore/repos"); p.Status != http.StatusSeeOther || p.Location != "/user/change_password" {
			t.Fatalf("other page before the change: %d %q", p.Status, p.Location)
		}
		w.Get("user/change_password").MustContain(t, http.StatusOK, "Change your password")
		if p := w.Post("user/change_password", url.Values{"password": {""}, "retype": {""}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("empty password: %d", p.Status)
		}
		if p := w.Post("user/change_password", url.Values{"password": {"second-pw-123"}, "retype": {"second-pw-123"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("change: %d %s", p.Status, p.Body)
		}
		w.Get("/").MustContain(t, http.StatusOK, "Your password has been changed.")
		// The API now accepts the new password, and the old one no longer.
		if r := s.Do("GET", "api/v1/user", Basic("forced", "second-pw-123")); r.Status != http.StatusOK {
			t.Fatalf("api with the new password: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", "api/v1/user", Basic("forced", "first-pw-123")); r.Status != http.StatusUnauthorized {
			t.Fatalf("api with the old password: %d", r.Status)
		}
	})

	t.Run("the session identifies GET requests to the API, never writes", func(t *testing.T) {
		u := s.CreateUser("cookie")
		w := s.Web(t)
		w.SignIn(u.Name, u.Password)
		p := w.Get("api/v1/user")
		if p.Status != http.StatusOK || !strings.Contains(p.Body, `"login":"cookie"`) {
			t.Fatalf("GET /api/v1/user with the session: %d %s", p.Status, p.Body)
		}
		// A write with the cookie alone is anonymous: no CSRF token could guard it.
		p = w.Post("api/v1/user/repos", url.Values{"name": {"cookie-repo"}})
		if p.Status == http.StatusCreated {
			t.Fatalf("a cookie-only write was accepted: %s", p.Body)
		}
		if r := s.Do("GET", "api/v1/repos/cookie/cookie-repo", Token(s.AdminTok)); r.Status != http.StatusNotFound {
			t.Fatalf("repository created through a cookie: %d", r.Status)
		}
		// Signed out, the cookie no longer identifies anyone.
		w.Get("/")
		if p := w.Post("user/logout", nil); p.Status != http.StatusSeeOther {
			t.Fatalf("logout: %d", p.Status)
		}
		if p := w.Get("api/v1/user"); p.Status != http.StatusUnauthorized {
			t.Fatalf("after sign-out: %d %s", p.Status, p.Body)
		}
	})

	t.Run("deleting an account ends its sessions", func(t *testing.T) {
		u := s.CreateUser("leaver")
		w := s.Web(t)
		w.SignIn(u.Name, u.Password)
		if r := s.Do("DELETE", "api/v1/admin/users/leaver", Token(s.AdminTok)); r.Status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if strings.Contains(w.Get("/").Body, "Sign out") {
			t.Fatal("a deleted account's session still works")
		}
	})
}

// TestWebRequireSigninView sends signed-out visitors to the sign-in page and
// refuses sign-up when registration is disabled.
func TestWebRequireSigninView(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_SERVICE_REQUIRE_SIGNIN_VIEW=true", "CAIRN_SERVICE_DISABLE_REGISTRATION=true"))
	w := s.Web(t)
	p := w.Get("/explore/repos")
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/user/login?redirect_to=") {
		t.Fatalf("signed out: %d %q", p.Status, p.Location)
	}
	w.Get("user/login").MustContain(t, http.StatusOK, "Sign in")
	if strings.Contains(w.Get("user/login").Body, "/user/sign_up") {
		t.Fatal("the sign-up link shows while registration is disabled")
	}
	if p := w.Get("user/sign_up"); p.Status != http.StatusForbidden {
		t.Fatalf("sign-up page: %d", p.Status)
	}
	p = w.Post("user/sign_up", url.Values{"user_name": {"nope"}, "email": {"nope@example.com"}, "password": {"nope-pw-1234"}, "retype": {"nope-pw-1234"}})
	if p.Status != http.StatusForbidden {
		t.Fatalf("sign-up post: %d", p.Status)
	}
	if r := s.Do("GET", "api/v1/users/nope", Token(s.AdminTok)); r.Status != http.StatusNotFound {
		t.Fatalf("an account was created: %d", r.Status)
	}
	w.SignIn(adminName, adminPassword)
	if p := w.Get("/"); p.Status != http.StatusOK {
		t.Fatalf("signed in: %d", p.Status)
	}
}
