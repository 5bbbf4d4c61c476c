package twofa

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
	"github.com/cairn-forge/cairn/internal/webhook"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestService(t *testing.T) (*Service, *clock) {
	t.Helper()
	box, err := webhook.NewSecretBox([]byte("test instance secret"))
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Unix(1_800_000_000, 0)} // a step boundary
	return NewService(dbtest.Open(t), box, Options{Issuer: "Cairn (example.org)", Now: c.now}), c
}

func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wrongCode is a six-digit code valid at none of the steps around at.
func wrongCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	for _, w := range []string{"000000", "111111", "222222"} {
		if w != codeAt(t, secret, at) && w != codeAt(t, secret, at.Add(-30*time.Second)) && w != codeAt(t, secret, at.Add(30*time.Second)) {
			return w
		}
	}
	t.Fatal("no wrong code")
	return ""
}

// enrol enables two-factor sign-in for u and returns the secret and scratch code.
func enrol(t *testing.T, s *Service, c *clock, u *user.User) (string, string) {
	t.Helper()
	ctx := context.Background()
	e, err := s.Begin(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := s.Confirm(ctx, u.ID, codeAt(t, e.Secret, c.t))
	if err != nil {
		t.Fatal(err)
	}
	return e.Secret, scratch
}

func TestEnrolment(t *testing.T) {
	s, c := newTestService(t)
	ctx := context.Background()
	u := &user.User{ID: 7, Name: "alice"}
	e, err := s.Begin(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.URI, "otpauth://totp/") || !strings.Contains(e.URI, "secret="+e.Secret) ||
		!strings.Contains(e.URI, "alice") || !strings.Contains(e.URI, "example.org") {
		t.Fatalf("URI %q", e.URI)
	}
	var stored string
	if err := s.db.QueryRow(ctx, "SELECT secret FROM two_factor WHERE uid = ?", u.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == "" || strings.Contains(stored, e.Secret) {
		t.Fatalf("the secret is stored in the clear: %q", stored)
	}
	again, err := s.Begin(ctx, u)
	if err != nil || again.Secret != e.Secret {
		t.Fatalf("a pending enrolment is offered again: %v %v", again, err)
	}
	if on, _ := s.Enabled(ctx, u.ID); on {
		t.Fatal("enabled before confirmation")
	}
	if _, err := s.Confirm(ctx, u.ID, wrongCode(t, e.Secret, c.t)); !errs.Is(err, errs.KindInvalid) {
		t.Fatalf("a wrong first code: %v", err)
	}
	scratch, err := s.Confirm(ctx, u.ID, codeAt(t, e.Secret, c.t))
	if err != nil || len(scratch) != 10 {
		t.Fatalf("confirm: %q %v", scratch, err)
	}
	var hash string
	if err := s.db.QueryRow(ctx, "SELECT scratch_hash FROM two_factor WHERE uid = ?", u.ID).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(hash, scratch) || !strings.HasPrefix(hash, "$argon2id$") {
		t.Fatalf("the scratch code is not hashed: %q", hash)
	}
	if on, _ := s.Enabled(ctx, u.ID); !on {
		t.Fatal("not enabled after confirmation")
	}
	if _, err := s.Begin(ctx, u); !errs.Is(err, errs.KindConflict) {
		t.Fatalf("enrolling twice: %v", err)
	}
	// An old unconfirmed offer is replaced by a new secret.
	v := &user.User{ID: 8, Name: "bob"}
	first, _ := s.Begin(ctx, v)
	c.t = c.t.Add(time.Hour)
	second, _ := s.Begin(ctx, v)
	if first.Secret == second.Secret {
		t.Fatal("a stale offer was kept")
	}
}

func TestVerifyReplayAndSkew(t *testing.T) {
	s, c := newTestService(t)
	ctx := context.Background()
	u := &user.User{ID: 7, Name: "alice"}
	secret, _ := enrol(t, s, c, u)
	// The confirmation used the current step: the same code is refused.
	if err := s.Verify(ctx, u.ID, codeAt(t, secret, c.t)); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("replayed confirmation code: %v", err)
	}
	c.t = c.t.Add(30 * time.Second)
	code := codeAt(t, secret, c.t)
	if err := s.Verify(ctx, u.ID, " "+code+" "); err != nil {
		t.Fatalf("a fresh code: %v", err)
	}
	if err := s.Verify(ctx, u.ID, code); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("a replayed code: %v", err)
	}
	// One step of skew: the next step's code is accepted now (a fast
	// phone clock), a code two steps away is not.
	if err := s.Verify(ctx, u.ID, codeAt(t, secret, c.t.Add(60*time.Second))); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("a code two steps ahead: %v", err)
	}
	if err := s.Verify(ctx, u.ID, codeAt(t, secret, c.t.Add(30*time.Second))); err != nil {
		t.Fatalf("a code one step ahead: %v", err)
	}
	// After a later step was used, an earlier step's code is refused.
	c.t = c.t.Add(30 * time.Second)
	if err := s.Verify(ctx, u.ID, codeAt(t, secret, c.t.Add(-30*time.Second))); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("a code older than the last one used: %v", err)
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
		if err := s.Verify(ctx, u.ID, bad); !errs.Is(err, errs.KindUnauthorized) {
			t.Fatalf("code %q: %v", bad, err)
		}
	}
	if err := s.Verify(ctx, 99, "123456"); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("an account without two-factor: %v", err)
	}
}

func TestThrottle(t *testing.T) {
	s, c := newTestService(t)
	ctx := context.Background()
	u := &user.User{ID: 7, Name: "alice"}
	secret, _ := enrol(t, s, c, u)
	wrong := wrongCode(t, secret, c.t)
	for i := 0; i < 10; i++ {
		if err := s.Verify(ctx, u.ID, wrong); !errs.Is(err, errs.KindUnauthorized) {
			t.Fatalf("wrong code %d: %v", i, err)
		}
	}
	c.t = c.t.Add(30 * time.Second)
	if err := s.Verify(ctx, u.ID, codeAt(t, secret, c.t)); !errs.Is(err, errs.KindTooManyRequests) {
		t.Fatalf("a right code after 10 wrong ones: %v", err)
	}
	c.t = c.t.Add(10 * time.Minute)
	if err := s.Verify(ctx, u.ID, codeAt(t, secret, c.t)); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	// Success reset the count: one wrong code does not lock.
	_ = s.Verify(ctx, u.ID, wrong)
	c.t = c.t.Add(30 * time.Second)
	if err := s.Verify(ctx, u.ID, codeAt(t, secret, c.t)); err != nil {
		t.Fatalf("after one wrong code: %v", err)
	}
}

func TestScratchAndDisable(t *testing.T) {
	s, c := newTestService(t)
	ctx := context.Background()
	u := &user.User{ID: 7, Name: "alice"}
	_, scratch := enrol(t, s, c, u)
	if err := s.UseScratch(ctx, u.ID, "notthecode"); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("a wrong scratch code: %v", err)
	}
	if err := s.UseScratch(ctx, u.ID, scratch); err != nil {
		t.Fatalf("the scratch code: %v", err)
	}
	if err := s.UseScratch(ctx, u.ID, scratch); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("the scratch code twice: %v", err)
	}
	if on, _ := s.Enabled(ctx, u.ID); !on {
		t.Fatal("using the scratch code turned two-factor off")
	}
	fresh, err := s.RegenerateScratch(ctx, u.ID)
	if err != nil || fresh == scratch {
		t.Fatalf("regenerate: %q %v", fresh, err)
	}
	if err := s.UseScratch(ctx, u.ID, fresh); err != nil {
		t.Fatalf("the new scratch code: %v", err)
	}
	if _, err := s.RegenerateScratch(ctx, 99); !errs.IsNotFound(err) {
		t.Fatalf("regenerate without two-factor: %v", err)
	}
	if err := s.UserDeleteHook().Purge(ctx, u); err != nil {
		t.Fatal(err)
	}
	if on, _ := s.Enabled(ctx, u.ID); on {
		t.Fatal("still enabled after the account was deleted")
	}
	if n, _ := s.db.Count(ctx, "SELECT COUNT(*) FROM two_factor WHERE uid = ?", u.ID); n != 0 {
		t.Fatalf("%d rows left", n)
	}
}
