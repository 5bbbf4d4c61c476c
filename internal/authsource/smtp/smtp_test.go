package smtp

import (
	"context"
	"errors"
	netsmtp "net/smtp"
	"testing"

	"github.com/cairn-forge/cairn/internal/authsource"
)

func TestValidateNormalises(t *testing.T) {
	c := &Config{Auth: "cram-md5", Host: " mail.example.org ", Port: 587, AllowedDomains: " example.org,, Example.NET "}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Auth != AuthCRAMMD5 || c.Host != "mail.example.org" || c.AllowedDomains != "example.org,Example.NET" {
		t.Fatalf("normalised to %+v", c)
	}
	for _, bad := range []Config{
		{Auth: "DIGEST-MD5", Host: "h", Port: 25},
		{Auth: "PLAIN", Host: " ", Port: 25},
		{Auth: "PLAIN", Host: "h", Port: 0},
		{Auth: "PLAIN", Host: "h", Port: 65536},
		{Auth: "PLAIN", Host: "h", Port: 25, AllowedDomains: "user@example.org"},
		{Auth: "PLAIN", Host: "h", Port: 25, HeloHostname: "two words"},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

func TestDomainAllowed(t *testing.T) {
	c := &Config{AllowedDomains: "example.org,example.net"}
	for login, want := range map[string]bool{
		"a@example.org": true, "a@EXAMPLE.NET": true, "a@example.org.evil": false, "a@sub.example.org": false,
		"a": false, "a@": false, "example.org": false, "a@evil@example.org": true,
	} {
		if got := c.domainAllowed(login); got != want {
			t.Errorf("%q: %v, want %v", login, got, want)
		}
	}
	if !(&Config{}).domainAllowed("anything") {
		t.Error("no allowed domains must allow any login")
	}
}

// A login outside the domains, an empty password or a login with a line
// break is refused before any connection (the host does not exist).
func TestRefusedWithoutAsking(t *testing.T) {
	c := &Config{Auth: AuthPlain, Host: "host.invalid", Port: 25, AllowedDomains: "example.org"}
	for _, lp := range [][2]string{{"a@other.org", "pw"}, {"a@example.org", ""}, {"a\r\n@example.org", "pw"}, {"", "pw"}} {
		if _, err := c.Authenticate(context.Background(), lp[0], lp[1]); !errors.Is(err, authsource.ErrRejected) {
			t.Errorf("%q: %v, want ErrRejected", lp[0], err)
		}
	}
}

func TestLoginAuth(t *testing.T) {
	a := &loginAuth{username: "u@example.org", password: "secret"}
	if _, _, err := a.Start(&netsmtp.ServerInfo{Name: "mail.example.org"}); err == nil {
		t.Fatal("LOGIN over an unencrypted connection to another host was allowed")
	}
	mech, ir, err := a.Start(&netsmtp.ServerInfo{Name: "mail.example.org", TLS: true})
	if err != nil || mech != "LOGIN" || ir != nil {
		t.Fatalf("start: %q %q %v", mech, ir, err)
	}
	for challenge, want := range map[string]string{"Username:": "u@example.org", "Password:": "secret", "password": "secret"} {
		if got, err := a.Next([]byte(challenge), true); err != nil || string(got) != want {
			t.Errorf("%q: %q %v", challenge, got, err)
		}
	}
	if _, err := a.Next([]byte("Something else:"), true); err == nil {
		t.Error("an unknown challenge was answered")
	}
}
