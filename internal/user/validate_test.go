package user

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	good := []string{"a", "alice", "Alice_2", "a.b-c", "x1", strings.Repeat("a", 40)}
	bad := []string{"", "-a", "a-", ".a", "a.", "a..b", "a_-b", "with space", "ünï", "a/b",
		"admin", "API", "ghost", "user", "foo.keys", "bar.png", strings.Repeat("a", 41), "..", "a\x00"}
	for _, n := range good {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v, want ok", n, err)
		}
	}
	for _, n := range bad {
		if err := ValidateName(n); err == nil {
			t.Errorf("ValidateName(%q) accepted an illegal name", n)
		}
	}
}

func TestValidateEmail(t *testing.T) {
	good := []string{"a@b.c", "first.last+tag@example.org", strings.Repeat("a", 240) + "@example.org"}
	bad := []string{"", "plain", "@x.y", "a@", "A <a@b.c>", "a b@c.d", strings.Repeat("a", 250) + "@example.org"}
	for _, e := range good {
		if err := ValidateEmail(e); err != nil {
			t.Errorf("ValidateEmail(%q) = %v", e, err)
		}
	}
	for _, e := range bad {
		if err := ValidateEmail(e); err == nil {
			t.Errorf("ValidateEmail(%q) accepted", e)
		}
	}
}
