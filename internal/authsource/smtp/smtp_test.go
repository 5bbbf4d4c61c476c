package smtp

import (
	"context"
	"errors"
	"testing"

	"github.com/cairn-forge/cairn/internal/authsource"
)

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{Host: "mail", Port: 587}, true},
		{Config{Auth: "login", Host: "mail", Port: 25}, true},
		{Config{Auth: "CRAM-MD5", Host: "mail", Port: 465}, true},
		{Config{Auth: "XOAUTH2", Host: "mail", Port: 25}, false},
		{Config{Host: " ", Port: 25}, false},
		{Config{Host: "mail", Port: 0}, false},
		{Config{Host: "mail", Port: 70000}, false},
	} {
		cfg := c.cfg
		if err := cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("Validate(%+v) = %v, want ok %v", c.cfg, err, c.ok)
		}
	}
}

// TestAllowedDomains: a login outside the allowed domains is refused
// without asking the server (none listens on the port given).
func TestAllowedDomains(t *testing.T) {
	cfg := &Config{Auth: "PLAIN", Host: "127.0.0.1", Port: 1, AllowedDomains: "example.com, example.org"}
	for _, login := range []string{"someone@other.net", "no-domain", "x@example.com.evil"} {
		if _, err := cfg.Authenticate(context.Background(), login, "pw"); !errors.Is(err, authsource.ErrRejected) {
			t.Errorf("%s: %v, want ErrRejected", login, err)
		}
	}
	if _, err := cfg.Authenticate(context.Background(), "someone@Example.ORG", "pw"); err == nil || errors.Is(err, authsource.ErrRejected) {
		t.Errorf("an allowed login was not sent to the server: %v", err)
	}
}
