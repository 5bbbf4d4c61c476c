package ldap

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/authsource"
)

func TestUserFilterAndDNEscapeTheLogin(t *testing.T) {
	c := &Config{Filter: "(&(objectClass=person)(uid=%s))", UserDN: "uid=%s,ou=people,dc=example,dc=org"}
	for _, tc := range []struct{ login, filter, dn string }{
		{"alice", "(&(objectClass=person)(uid=alice))", "uid=alice,ou=people,dc=example,dc=org"},
		{"*", `(&(objectClass=person)(uid=\2a))`, "uid=*,ou=people,dc=example,dc=org"},
		{"a)(uid=*", `(&(objectClass=person)(uid=a\29\28uid=\2a))`, `uid=a)(uid=*,ou=people,dc=example,dc=org`},
		{"x\x00", `(&(objectClass=person)(uid=x\00))`, `uid=x\00,ou=people,dc=example,dc=org`},
		{`a\b`, `(&(objectClass=person)(uid=a\5cb))`, `uid=a\\b,ou=people,dc=example,dc=org`},
		{"erin,ou=contractors", "(&(objectClass=person)(uid=erin,ou=contractors))", `uid=erin\,ou=contractors,ou=people,dc=example,dc=org`},
		{"a+cn=b", "(&(objectClass=person)(uid=a+cn=b))", `uid=a\+cn=b,ou=people,dc=example,dc=org`},
		{"#x ", "(&(objectClass=person)(uid=#x ))", `uid=\#x\ ,ou=people,dc=example,dc=org`},
	} {
		if got := c.userFilter(tc.login); got != tc.filter {
			t.Errorf("userFilter(%q) = %q, want %q", tc.login, got, tc.filter)
		}
		if got := c.userDN(tc.login); got != tc.dn {
			t.Errorf("userDN(%q) = %q, want %q", tc.login, got, tc.dn)
		}
	}
	// Only the synchronisation's listing puts a wildcard in.
	if got := c.allUsersFilter(); got != "(&(objectClass=person)(uid=*))" {
		t.Errorf("allUsersFilter = %q", got)
	}
}

func TestEmptyPasswordOrNULIsRejectedWithoutAsking(t *testing.T) {
	c := &Config{Mode: authsource.TypeLDAP, Host: "192.0.2.1", Port: 1, Filter: "(uid=%s)"}
	for _, tc := range []struct{ login, pw string }{{"alice", ""}, {"", "pw"}, {"al\x00ice", "pw"}} {
		if _, err := c.Authenticate(context.Background(), tc.login, tc.pw); !errors.Is(err, authsource.ErrRejected) {
			t.Errorf("Authenticate(%q, %q) = %v, want ErrRejected (no connection attempt)", tc.login, tc.pw, err)
		}
	}
}

type fakeBox struct{}

func (fakeBox) Seal(p string) (string, error) { return "sealed:" + strings.ToUpper(p), nil }
func (fakeBox) Open(s string) (string, error) {
	return strings.ToLower(strings.TrimPrefix(s, "sealed:")), nil
}

func TestBindPasswordIsStoredSealed(t *testing.T) {
	c := &Config{Mode: authsource.TypeLDAP, Host: "h", Port: 389, BindDN: "cn=r", BindPassword: "s3cret", Filter: "(uid=%s)", UserBase: "dc=x"}
	raw, err := c.Encode(fakeBox{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "s3cret") || !strings.Contains(string(raw), "sealed:S3CRET") {
		t.Fatalf("stored settings: %s", raw)
	}
	back, err := decoder(authsource.TypeLDAP)(raw, fakeBox{})
	if err != nil {
		t.Fatal(err)
	}
	if got := back.(*Config); got.BindPassword != "s3cret" || got.Mode != authsource.TypeLDAP || got.Host != "h" {
		t.Fatalf("decoded: %+v", got)
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Mode: authsource.TypeLDAP, Host: "h", Port: 389, Filter: "(uid=%s)", UserBase: "dc=x"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Config){
		"no host":        func(c *Config) { c.Host = "" },
		"bad port":       func(c *Config) { c.Port = 0 },
		"no %s":          func(c *Config) { c.Filter = "(uid=x)" },
		"bad filter":     func(c *Config) { c.Filter = "(uid=%s" },
		"bad admin":      func(c *Config) { c.AdminFilter = "memberOf=x)" },
		"no base":        func(c *Config) { c.UserBase = "" },
		"protocol":       func(c *Config) { c.SecurityProtocol = 7 },
		"simple, no %s":  func(c *Config) { c.Mode = authsource.TypeDLDAP; c.UserDN = "uid=x,dc=x" },
		"simple, bad DN": func(c *Config) { c.Mode = authsource.TypeDLDAP; c.UserDN = "uid=%s,,=" },
	} {
		c := ok
		mutate(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
