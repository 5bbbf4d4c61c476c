package user_test

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// TestTimeCodes: a code names its account until it expires, and using it
// (activating, a new password) voids it; forged or foreign codes never work.
func TestTimeCodes(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t)
	users := user.NewService(d, user.Options{MinPasswordLength: 8})
	now := time.Now()
	codes := user.NewTimeCodes([]byte("instance secret"), users.Store, func() time.Time { return now })
	u, err := users.Create(ctx, user.CreateOptions{Name: "coded", Email: "coded@example.com", Password: "coded-pw-1"})
	if err != nil {
		t.Fatal(err)
	}
	invalid := func(purpose, code, why string) {
		t.Helper()
		if _, err := codes.Check(ctx, purpose, code); !errs.Is(err, errs.KindUnauthorized) {
			t.Errorf("%s: %v, want Unauthorized", why, err)
		}
	}

	act := codes.Make(user.CodeActivate, u, time.Hour)
	if got, err := codes.Check(ctx, user.CodeActivate, act); err != nil || got.ID != u.ID {
		t.Fatalf("fresh activation code: %v %v", got, err)
	}
	invalid(user.CodeResetPassword, act, "an activation code used for a reset")
	invalid(user.CodeActivate, act+"x", "a tampered code")
	invalid(user.CodeActivate, "1-99999999999-AAAA", "a forged code")
	invalid(user.CodeActivate, "", "an empty code")
	other := user.NewTimeCodes([]byte("another secret"), users.Store, func() time.Time { return now })
	invalid(user.CodeActivate, other.Make(user.CodeActivate, u, time.Hour), "another instance's code")

	now = now.Add(2 * time.Hour)
	invalid(user.CodeActivate, act, "an expired code")
	now = now.Add(-2 * time.Hour)

	if err := users.Activate(ctx, u); err != nil {
		t.Fatal(err)
	}
	invalid(user.CodeActivate, act, "a used activation code")
	if err := users.Activate(ctx, u); !errs.Is(err, errs.KindUnauthorized) {
		t.Errorf("activating twice: %v", err)
	}

	fresh, err := users.Store.GetByID(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	reset := codes.Make(user.CodeResetPassword, fresh, time.Hour)
	if _, err := codes.Check(ctx, user.CodeResetPassword, reset); err != nil {
		t.Fatalf("fresh reset code: %v", err)
	}
	if err := users.ResetPassword(ctx, fresh, "short"); err == nil {
		t.Errorf("a short password was accepted")
	}
	stale := *fresh
	if err := users.ResetPassword(ctx, fresh, "brand-new-pw-1"); err != nil {
		t.Fatal(err)
	}
	invalid(user.CodeResetPassword, reset, "a used reset code")
	if err := users.ResetPassword(ctx, &stale, "another-pw-12"); !errs.Is(err, errs.KindUnauthorized) {
		t.Errorf("a second reset with the same code: %v", err)
	}
}
