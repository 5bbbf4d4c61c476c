package authsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/dbtest"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// fakeConfig is a source kind for tests: a directory in memory.
type fakeConfig struct {
	Secret string `json:"-"`
	Sealed string
	dir    *fakeDir
}

type fakeDir struct {
	users   []*ExternalUser
	pw      map[string]string
	listErr error
	down    bool
}

func (c *fakeConfig) Authenticate(_ context.Context, login, pw string) (*ExternalUser, error) {
	if c.dir.down {
		return nil, errors.New("connection refused")
	}
	for _, u := range c.dir.users {
		if u.Name == login && c.dir.pw[login] == pw {
			return u, nil
		}
	}
	return nil, ErrRejected
}

func (c *fakeConfig) Encode(box Sealer) ([]byte, error) {
	sealed, err := box.Seal(c.Secret)
	if err != nil {
		return nil, err
	}
	return json.Marshal(fakeConfig{Sealed: sealed})
}

func (c *fakeConfig) Validate() error        { return nil }
func (c *fakeConfig) CanList() bool          { return true }
func (c *fakeConfig) MayDeactivateAll() bool { return false }

func (c *fakeConfig) ListUsers(_ context.Context, each func(*ExternalUser) error) error {
	for i, u := range c.dir.users {
		if c.dir.listErr != nil && i == len(c.dir.users)/2 {
			return c.dir.listErr // fails half-way
		}
		if err := each(u); err != nil {
			return err
		}
	}
	return nil
}

type reverseBox struct{}

func (reverseBox) Seal(p string) (string, error) { return "sealed:" + reverse(p), nil }
func (reverseBox) Open(s string) (string, error) {
	return reverse(strings.TrimPrefix(s, "sealed:")), nil
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func newTestService(t *testing.T, dir *fakeDir) (*Service, *user.Service, *db.DB) {
	t.Helper()
	d := dbtest.Open(t)
	kind := Kind{Type: TypeLDAP, Decode: func(raw []byte, box Sealer) (Config, error) {
		var c fakeConfig
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
		secret, err := box.Open(c.Sealed)
		if err != nil {
			return nil, err
		}
		c.Secret, c.dir = secret, dir
		return &c, nil
	}}
	users := user.NewService(d, user.Options{})
	s := NewService(d, reverseBox{}, NewRegistry(kind), users, nil)
	users.SetExternalSources(s)
	return s, users, d
}

func TestSourcesStoreSealedAndSkipUnreadable(t *testing.T) {
	ctx := context.Background()
	dir := &fakeDir{users: []*ExternalUser{{Name: "ann", Email: "ann@example.org"}}, pw: map[string]string{"ann": "pw"}}
	s, users, d := newTestService(t, dir)
	src := &Source{Type: TypeLDAP, Name: "corp", IsActive: true, Config: &fakeConfig{Secret: "bind-secret"}}
	if err := s.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	var cfg string
	if err := d.QueryRow(ctx, "SELECT cfg FROM login_source WHERE id = ?", src.ID).Scan(&cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cfg, "bind-secret") {
		t.Fatalf("the secret is stored in the clear: %s", cfg)
	}
	if got, err := s.Get(ctx, src.ID); err != nil || got.Config.(*fakeConfig).Secret != "bind-secret" {
		t.Fatalf("Get: %+v %v", got, err)
	}
	if err := s.Create(ctx, &Source{Type: TypeLDAP, Name: "corp", Config: &fakeConfig{}}); !errs.Is(err, errs.KindAlreadyExists) {
		t.Fatalf("duplicate name: %v", err)
	}
	if err := s.Create(ctx, &Source{Type: TypeSMTP, Name: "mail", Config: &fakeConfig{}}); err == nil {
		t.Fatal("a type without a kind was stored")
	}
	if _, ok, _ := s.Exists(ctx, 999); ok {
		t.Fatal("source 999 exists")
	}
	// A row of a kind this binary lacks (a newer Cairn's SMTP source) is
	// skipped, not an error for every unknown login.
	if _, err := d.Insert(ctx, "INSERT INTO login_source (type, name, is_active, is_sync_enabled, cfg, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?)",
		TypeSMTP, "smtp", true, false, "{}", 1, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Authenticate(ctx, "nobody", "pw", "c"); !errs.Is(err, errs.KindUnauthorized) {
		t.Fatalf("unknown login with an unreadable source: %v", err)
	}
	if u, err := users.Authenticate(ctx, "ann", "pw", "c"); err != nil || u.LoginSource != src.ID {
		t.Fatalf("ann: %+v %v", u, err)
	}
	if err := s.Delete(ctx, src.ID); err == nil || !strings.Contains(err.Error(), "still used") {
		t.Fatalf("delete a source in use: %v", err)
	}
}

func TestSyncNeverDeactivatesAfterAFailedOrEmptyListing(t *testing.T) {
	ctx := context.Background()
	yes := true
	dir := &fakeDir{pw: map[string]string{}}
	for _, n := range []string{"ann", "ben", "cat", "dan"} {
		dir.users = append(dir.users, &ExternalUser{Name: n, FullName: strings.ToUpper(n), Email: n + "@example.org"})
	}
	dir.users[0].IsAdmin = &yes
	s, users, _ := newTestService(t, dir)
	src := &Source{Type: TypeLDAP, Name: "corp", IsActive: true, IsSyncEnabled: true, Config: &fakeConfig{}}
	if err := s.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	src, _ = s.Get(ctx, src.ID)
	res, err := s.Sync(ctx, src, true)
	if err != nil || res.Created != 4 || res.Deactivated != 0 {
		t.Fatalf("first sync: %+v %v", res, err)
	}
	if ann, _ := users.Store.GetByName(ctx, "ann"); !ann.IsAdmin || ann.LoginSource != src.ID || ann.FullName != "ANN" {
		t.Fatalf("ann: %+v", ann)
	}
	active := func(name string) bool {
		u, err := users.Store.GetByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return u.IsActive
	}
	// A listing that fails half-way deactivates nobody.
	dir.users = dir.users[:3] // dan left
	dir.listErr = errors.New("connection reset")
	if res, err := s.Sync(ctx, src, true); err == nil || !res.DeactivationSkipped || !active("dan") {
		t.Fatalf("failed listing: %+v %v, dan active %v", res, err, active("dan"))
	}
	// An empty listing neither.
	dir.listErr = nil
	all := dir.users
	dir.users = nil
	if res, err := s.Sync(ctx, src, true); err != nil || !res.DeactivationSkipped || !active("ann") {
		t.Fatalf("empty listing: %+v %v", res, err)
	}
	// A complete listing deactivates the one gone, updates, and a second
	// run changes nothing.
	dir.users = all
	dir.users[1].Email = "benjamin@example.org"
	res, err = s.Sync(ctx, src, true)
	if err != nil || res.Deactivated != 1 || res.Updated != 1 || active("dan") || !active("ann") {
		t.Fatalf("complete listing: %+v %v", res, err)
	}
	if ben, _ := users.Store.GetByName(ctx, "ben"); ben.Email != "benjamin@example.org" {
		t.Fatalf("ben: %+v", ben)
	}
	if res, err := s.Sync(ctx, src, true); err != nil || res.Updated != 0 || res.Created != 0 || res.Deactivated != 0 {
		t.Fatalf("nothing changed: %+v %v", res, err)
	}
	// Without UPDATE_EXISTING, changes wait; back in the directory, dan is active again.
	dir.users[2].FullName = "Catherine"
	dir.users = append(dir.users, &ExternalUser{Name: "dan", FullName: "DAN", Email: "dan@example.org"})
	if res, err := s.Sync(ctx, src, false); err != nil || res.Updated != 0 {
		t.Fatalf("without update: %+v %v", res, err)
	}
	if cat, _ := users.Store.GetByName(ctx, "cat"); cat.FullName != "CAT" {
		t.Fatalf("cat updated without UPDATE_EXISTING: %+v", cat)
	}
	if res, err := s.Sync(ctx, src, true); err != nil || !active("dan") || res.Updated != 2 {
		t.Fatalf("dan back: %+v %v", res, err)
	}
}

// A stored source of a kind this binary was built without (PAM without the
// pam tag) is reported as such, and does not stop the other sources.
func TestSourceNotBuiltIsReported(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t)
	notBuilt := Kind{Type: TypePAM, Decode: func([]byte, Sealer) (Config, error) {
		return nil, fmt.Errorf("PAM is missing: %w", ErrNotBuilt)
	}}
	s := NewService(d, reverseBox{}, NewRegistry(notBuilt), user.NewService(d, user.Options{}), nil)
	id, err := d.Insert(ctx, "INSERT INTO login_source (type, name, is_active, is_sync_enabled, cfg, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?)",
		TypePAM, "host", true, false, "{}", 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, id)
	if err == nil || !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "type 4 (PAM) cannot be used: PAM is missing") {
		t.Fatalf("Get: %v", err)
	}
	if list, err := s.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("List: %v %v", list, err)
	}
}

// skipConfig is a source kind whose accounts may skip their second factor.
type skipConfig struct{ Skip bool }

func (c *skipConfig) Authenticate(context.Context, string, string) (*ExternalUser, error) {
	return nil, ErrRejected
}
func (c *skipConfig) Encode(Sealer) ([]byte, error) { return json.Marshal(c) }
func (c *skipConfig) Validate() error               { return nil }
func (c *skipConfig) SkipsLocalTwoFA() bool         { return c.Skip }

// Only an account of an active source set so skips its second factor; a
// local account, an unknown or unreadable source asks for it.
func TestSkipsLocalTwoFAFailsClosed(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t)
	kind := Kind{Type: TypeSMTP, Decode: func(raw []byte, _ Sealer) (Config, error) {
		var c skipConfig
		return &c, json.Unmarshal(raw, &c)
	}}
	s := NewService(d, reverseBox{}, NewRegistry(kind), user.NewService(d, user.Options{}), nil)
	skip := &Source{Type: TypeSMTP, Name: "skip", IsActive: true, Config: &skipConfig{Skip: true}}
	ask := &Source{Type: TypeSMTP, Name: "ask", IsActive: true, Config: &skipConfig{}}
	for _, src := range []*Source{skip, ask} {
		if err := s.Create(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	if !s.SkipsLocalTwoFA(ctx, &user.User{LoginSource: skip.ID}) {
		t.Fatal("an account of a source set to skip is asked for its second factor")
	}
	for name, u := range map[string]*user.User{
		"local": {}, "source not set to skip": {LoginSource: ask.ID}, "unknown source": {LoginSource: 999}, "nil": nil,
	} {
		if s.SkipsLocalTwoFA(ctx, u) {
			t.Errorf("%s: skips its second factor", name)
		}
	}
	skip.IsActive = false
	if err := s.Update(ctx, skip); err != nil {
		t.Fatal(err)
	}
	if s.SkipsLocalTwoFA(ctx, &user.User{LoginSource: skip.ID}) {
		t.Fatal("an account of a deactivated source skips its second factor")
	}
	if _, err := d.Exec(ctx, "UPDATE login_source SET cfg = ? WHERE id = ?", "not json", skip.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(ctx, "UPDATE login_source SET is_active = ? WHERE id = ?", true, skip.ID); err != nil {
		t.Fatal(err)
	}
	if s.SkipsLocalTwoFA(ctx, &user.User{LoginSource: skip.ID}) {
		t.Fatal("an account of an unreadable source skips its second factor")
	}
}
