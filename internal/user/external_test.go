package user

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/password"
)

// fakeSources is a directory of one source (id 7) with fixed passwords;
// down makes it unreachable.
type fakeSources struct {
	users map[string]*ExternalAccount
	pw    map[string]string
	down  bool
	asked []string
}

func (f *fakeSources) check(login, pw string) (*ExternalAccount, error) {
	f.asked = append(f.asked, login)
	if f.down {
		return nil, fmt.Errorf("%w: connection refused", ErrSourceUnavailable)
	}
	ea, ok := f.users[login]
	if !ok || f.pw[login] != pw {
		return nil, errs.Unauthorized("user does not exist or password is wrong")
	}
	cp := *ea
	cp.LoginName = login
	return &cp, nil
}

func (f *fakeSources) Check(_ context.Context, sourceID int64, loginName, pw string) (*ExternalAccount, error) {
	if sourceID != 7 {
		return nil, errs.Unauthorized("no such source")
	}
	return f.check(loginName, pw)
}

func (f *fakeSources) CheckAny(_ context.Context, login, pw string) (*ExternalAccount, error) {
	return f.check(login, pw)
}

// countingThrottle records what each check reported.
type countingThrottle struct{ failed, ok int }

func (c *countingThrottle) Begin(context.Context, string, string) (func(bool), error) {
	return func(failed bool) {
		if failed {
			c.failed++
		} else {
			c.ok++
		}
	}, nil
}

func TestAuthenticateExternal(t *testing.T) {
	ctx := context.Background()
	yes, no := true, false
	src := &fakeSources{
		users: map[string]*ExternalAccount{
			"ann": {SourceID: 7, SourceType: 2, Name: "ann", FullName: "Ann A", Email: "ann@example.org", IsAdmin: &yes, IsRestricted: &no},
			"ben": {SourceID: 7, SourceType: 2, Name: "local", Email: "ben@example.org"},
		},
		pw: map[string]string{"ann": "ann-pw", "ben": "ben-pw"},
	}
	th := &countingThrottle{}
	s := NewService(dbtest.Open(t), Options{Throttle: th, PasswordParams: password.Params{MemoryKiB: 64, Time: 1, Threads: 1}})
	s.SetExternalSources(src)
	if _, err := s.Create(ctx, CreateOptions{Name: "local", Email: "local@example.org", Password: "local-pw", Active: true}); err != nil {
		t.Fatal(err)
	}

	// An unknown login accepted by a source is registered from it.
	u, err := s.Authenticate(ctx, "ann", "ann-pw", "c")
	if err != nil {
		t.Fatal(err)
	}
	if u.LoginSource != 7 || u.LoginType != 2 || u.LoginName != "ann" || !u.IsAdmin || u.PasswdHash != "" || u.FullName != "Ann A" {
		t.Fatalf("registered: %+v", u)
	}
	// Its flags follow the source at the next sign-in.
	src.users["ann"].IsAdmin = &no
	if u, err = s.Authenticate(ctx, "ann", "ann-pw", "c"); err != nil || u.IsAdmin {
		t.Fatalf("after the source dropped admin: %+v %v", u, err)
	}
	if stored, _ := s.Store.GetByName(ctx, "ann"); stored.IsAdmin {
		t.Fatal("admin flag not stored")
	}
	// The same directory user reached by another login (an address the
	// account does not have) signs into the account of the source.
	src.users["ann@corp.example"] = src.users["ann"]
	src.pw["ann@corp.example"] = "ann-pw"
	if u2, err := s.Authenticate(ctx, "ann@corp.example", "ann-pw", "c"); err != nil || u2.ID != u.ID {
		t.Fatalf("ann by another address: %+v %v", u2, err)
	}
	// A local account is never asked of the sources, and a name the source
	// gives that an account already has is refused, not taken over.
	src.asked = nil
	if _, err := s.Authenticate(ctx, "local", "local-pw", "c"); err != nil || len(src.asked) != 0 {
		t.Fatalf("local sign-in: %v, sources asked %v", err, src.asked)
	}
	if _, err := s.Authenticate(ctx, "ben", "ben-pw", "c"); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("ben, whose name is taken: %v", err)
	}
	// Wrong password and unknown login: 401, counted.
	th.failed = 0
	for _, login := range []string{"ann", "nobody"} {
		if _, err := s.Authenticate(ctx, login, "bad", "c"); !errs.Is(err, errs.KindUnauthorized) {
			t.Fatalf("%s: %v", login, err)
		}
	}
	if th.failed != 2 {
		t.Fatalf("failures counted: %d, want 2", th.failed)
	}
	// Empty password: refused without asking.
	src.asked = nil
	if _, err := s.Authenticate(ctx, "ann", "", "c"); !errs.Is(err, errs.KindUnauthorized) || len(src.asked) != 0 {
		t.Fatalf("empty password: %v, asked %v", err, src.asked)
	}
	// Source down: 401, not counted; local accounts unaffected.
	src.down = true
	th.failed = 0
	for _, login := range []string{"ann", "nobody"} {
		_, err := s.Authenticate(ctx, login, "ann-pw", "c")
		if !errs.Is(err, errs.KindUnauthorized) || errors.Is(err, ErrSourceUnavailable) {
			t.Fatalf("%s with the source down: %v", login, err)
		}
	}
	if th.failed != 0 {
		t.Fatalf("an unreachable source fed the throttle %d times", th.failed)
	}
	if _, err := s.Authenticate(ctx, "local", "local-pw", "c"); err != nil {
		t.Fatalf("local with the source down: %v", err)
	}
}

func TestReplaceSourceKeysKeepsTheUsersOwn(t *testing.T) {
	ctx := context.Background()
	s := NewService(dbtest.Open(t), Options{})
	u, err := s.Create(ctx, CreateOptions{Name: "kim", Email: "kim@example.org", SourceID: 7, LoginType: 2, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	own, k1, k2 := testKey(t), testKey(t), testKey(t)
	if _, err := s.AddKey(ctx, u.ID, "mine", own); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		keys    []string
		changed bool
		want    int
	}{{[]string{k1, k2, "not a key"}, true, 3}, {[]string{k2, k1}, false, 3}, {[]string{k2}, true, 2}, {[]string{}, true, 1}} {
		changed, err := s.replaceSourceKeys(ctx, u.ID, 7, tc.keys)
		if err != nil {
			t.Fatal(err)
		}
		_, n, err := s.ListKeys(ctx, u.ID, "", 50, 0)
		if err != nil {
			t.Fatal(err)
		}
		if changed != tc.changed || int(n) != tc.want {
			t.Fatalf("keys %d: changed %v (want %v), %d keys (want %d)", len(tc.keys), changed, tc.changed, n, tc.want)
		}
	}
}

func testKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(ssh.MarshalAuthorizedKey(sp))
}
