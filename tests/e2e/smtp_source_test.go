package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/emersion/go-sasl"
)

// TestSMTPSignInSource signs in through SMTP sign-in sources (Gitea's
// add-smtp): the mail server's AUTH decides, the account is made at the
// first sign-in from the login's name, wrong passwords and other domains are
// refused; STARTTLS with AUTH LOGIN, and implicit TLS with AUTH PLAIN and
// the server's certificate verified against the test CA.
func TestSMTPSignInSource(t *testing.T) {
	starttls := startMailServer(t, mailServerOptions{Mechanisms: []string{sasl.Login}})
	implicit := startMailServer(t, mailServerOptions{ImplicitTLS: true, Mechanisms: []string{sasl.Plain}})
	implicit.User, implicit.Password = "second@example.org", "second-pw-123"
	s := StartServer(t, WithEnv("SSL_CERT_FILE="+implicit.CAFile))

	out, err := s.Cairn("admin", "auth", "add-smtp", "--name", "Mail", "--host", "127.0.0.1", "--port", starttls.Port,
		"--auth-type", "LOGIN", "--force-smtps=false", "--skip-verify=true", "--allowed-domains", "example.com")
	if err != nil || !strings.Contains(out, "has been added") {
		t.Fatalf("add-smtp: %v\n%s", err, out)
	}
	out, err = s.Cairn("admin", "auth", "add-smtp", "--name", "Mail TLS", "--host", "127.0.0.1", "--port", implicit.Port,
		"--auth-type", "PLAIN", "--skip-verify=false")
	if err != nil {
		t.Fatalf("add-smtp (TLS): %v\n%s", err, out)
	}
	if out, err := s.Cairn("admin", "auth", "add-smtp", "--name", "Bad", "--host", "h", "--port", "25", "--auth-type", "XOAUTH"); err == nil {
		t.Fatalf("an unknown auth type was accepted:\n%s", out)
	}
	if out, _ := s.Cairn("admin", "auth", "list"); !strings.Contains(out, "Mail TLS") || !strings.Contains(out, "SMTP") {
		t.Fatalf("auth list:\n%s", out)
	}

	w := s.Web(t)
	w.Get("user/login")
	w.Post("user/login", url.Values{"user_name": {starttls.User}, "password": {"wrong-password"}}).
		MustContain(t, http.StatusOK, "The user name or password is incorrect.")
	w.SignIn(starttls.User, starttls.Password)
	w.Get("/").MustContain(t, http.StatusOK, "Sign out")
	var u struct {
		Login string `json:"login"`
		Email string `json:"email"`
	}
	resp := s.Do("GET", "api/v1/user", Basic(starttls.User, starttls.Password))
	if resp.Status != http.StatusOK {
		t.Fatalf("basic auth through the source: %d %s", resp.Status, resp.Body)
	}
	resp.Decode(t, &u)
	if u.Login != "mailer" || u.Email != starttls.User {
		t.Fatalf("account made by the source: %+v", u)
	}

	// Implicit TLS, PLAIN, a login of a domain the first source does not allow.
	resp = s.Do("GET", "api/v1/user", Basic(implicit.User, implicit.Password))
	if resp.Status != http.StatusOK {
		t.Fatalf("basic auth through the TLS source: %d %s", resp.Status, resp.Body)
	}
	resp.Decode(t, &u)
	if u.Login != "second" {
		t.Fatalf("account made by the TLS source: %+v", u)
	}
	if r := s.Do("GET", "api/v1/user", Basic(implicit.User, "wrong-password")); r.Status != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d", r.Status)
	}

	// Restricting the first source's domains turns its users away.
	if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", "1", "--allowed-domains", "other.org"); err != nil {
		t.Fatalf("update-smtp: %v\n%s", err, out)
	}
	if r := s.Do("GET", "api/v1/user", Basic(starttls.User, starttls.Password)); r.Status != http.StatusUnauthorized {
		t.Fatalf("a login of a domain no longer allowed: %d", r.Status)
	}
}
