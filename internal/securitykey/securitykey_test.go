package securitykey

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

func TestNewServiceRelyingParty(t *testing.T) {
	for _, c := range []struct {
		root, rpID, origin string
	}{
		{"http://localhost:3000/", "localhost", "http://localhost:3000"},
		{"https://git.example.org/cairn/", "git.example.org", "https://git.example.org"},
		{"http://127.0.0.1:3000/", "", ""}, // browsers refuse IP addresses
		{"http://[::1]:3000/", "", ""},
		{"", "", ""},
	} {
		s := NewService(nil, Options{RootURL: c.root})
		err := s.Unavailable()
		if c.rpID == "" {
			if err == nil {
				t.Errorf("%q: accepted", c.root)
			}
			if _, _, err := s.BeginLogin(context.Background(), &user.User{ID: 1}); !errs.Is(err, errs.KindForbidden) {
				t.Errorf("%q: a sign-in ceremony began: %v", c.root, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.root, err)
			continue
		}
		if got := s.wa.Config.RPID; got != c.rpID {
			t.Errorf("%q: RP ID %q, want %q", c.root, got, c.rpID)
		}
		if got := s.wa.Config.RPOrigins; len(got) != 1 || got[0] != c.origin {
			t.Errorf("%q: origins %v, want %q", c.root, got, c.origin)
		}
	}
}

func TestCleanName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"  Desk key ", "Desk key", true},
		{"Clé de bureau", "Clé de bureau", true},
		{"", "", false},
		{"   ", "", false},
		{"tab\there", "", false},
		{"bad\xffutf8", "", false},
		{strings.Repeat("é", MaxNameLength), strings.Repeat("é", MaxNameLength), true},
		{strings.Repeat("a", MaxNameLength+1), "", false},
	} {
		got, err := CleanName(c.in)
		if c.ok != (err == nil) || got != c.want {
			t.Errorf("CleanName(%q) = %q, %v", c.in, got, err)
		}
		if err != nil && !errs.Is(err, errs.KindInvalid) {
			t.Errorf("CleanName(%q): %v is not a validation error", c.in, err)
		}
	}
}

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestCeremonyIsSingleUseOwnedAndShortLived(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t)
	c := &clock{t: time.Now()}
	s := NewService(d, Options{RootURL: "http://localhost:3000/", Now: c.now, CeremonyLife: time.Minute})
	alice, bob := &user.User{ID: 1, Name: "alice"}, &user.User{ID: 2, Name: "bob"}
	gone := func(what string, err error, kind errs.Kind) {
		t.Helper()
		if !errs.Is(err, kind) || !strings.Contains(err.Error(), "expired or was not started") {
			t.Errorf("%s: %v, want the ceremony gone", what, err)
		}
	}

	// Another account cannot answer alice's ceremony, and the attempt
	// uses it up.
	_, key, err := s.BeginRegistration(ctx, alice, "Desk key")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.FinishRegistration(ctx, bob, key, []byte("{}"))
	gone("another account", err, errs.KindInvalid)
	_, err = s.FinishRegistration(ctx, alice, key, []byte("{}"))
	gone("after another account's attempt", err, errs.KindInvalid)

	// An answer that cannot be read uses the ceremony up too.
	_, key, err = s.BeginRegistration(ctx, alice, "Desk key")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRegistration(ctx, alice, key, []byte("{}")); !errs.Is(err, errs.KindInvalid) || strings.Contains(err.Error(), "expired") {
		t.Errorf("unreadable answer: %v", err)
	}
	_, err = s.FinishRegistration(ctx, alice, key, []byte("{}"))
	gone("second answer", err, errs.KindInvalid)

	// A registration ceremony does not answer a sign-in.
	_, key, err = s.BeginRegistration(ctx, alice, "Desk key")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.FinishLogin(ctx, alice, key, []byte("{}"))
	gone("registration ceremony for a sign-in", err, errs.KindUnauthorized)

	// An expired ceremony is refused, and deleted when the next one starts.
	_, key, err = s.BeginRegistration(ctx, alice, "Desk key")
	if err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(2 * time.Minute)
	_, err = s.FinishRegistration(ctx, alice, key, []byte("{}"))
	gone("expired", err, errs.KindInvalid)
	_, stale, err := s.BeginRegistration(ctx, bob, "Phone")
	if err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(2 * time.Minute)
	if _, _, err := s.BeginRegistration(ctx, bob, "Phone"); err != nil {
		t.Fatal(err)
	}
	if n, err := d.Count(ctx, "SELECT COUNT(*) FROM webauthn_ceremony"); err != nil || n != 1 {
		t.Errorf("ceremonies kept: %d (%v), want only the live one", n, err)
	}
	_, err = s.FinishRegistration(ctx, bob, stale, []byte("{}"))
	gone("pruned", err, errs.KindInvalid)

	// Without keys there is no sign-in ceremony, and nothing to delete.
	if _, _, err := s.BeginLogin(ctx, alice); !errs.IsNotFound(err) {
		t.Errorf("sign-in without keys: %v", err)
	}
	if err := s.Delete(ctx, alice.ID, 1); !errs.IsNotFound(err) {
		t.Errorf("deleting a missing key: %v", err)
	}
	if on, err := s.Enabled(ctx, alice.ID); err != nil || on {
		t.Errorf("Enabled without keys: %v %v", on, err)
	}
}
