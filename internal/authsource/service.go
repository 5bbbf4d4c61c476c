package authsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Service stores the sign-in sources and asks them about their users.
type Service struct {
	db    *db.DB
	box   Sealer
	kinds *Registry
	users *user.Service
	log   *slog.Logger

	// outages limits the log lines of a source that cannot be asked to one
	// per source every outageLogEvery, counting the ones left out.
	mu      sync.Mutex
	outages map[int64]*outage
}

type outage struct {
	logged     time.Time
	suppressed int
}

// outageLogEvery is how often an unreachable source is logged again.
const outageLogEvery = 30 * time.Second

// NewService returns the sign-in source service; box seals the sources'
// secrets, kinds are the source kinds this instance knows, log receives
// the errors of sources that cannot be asked.
func NewService(d *db.DB, box Sealer, kinds *Registry, users *user.Service, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{db: d, box: box, kinds: kinds, users: users, log: log, outages: map[int64]*outage{}}
}

// ErrNotExist is the error for a source id that does not exist (Gitea's text).
func ErrNotExist(id int64) *errs.Error {
	return errs.NotFound("login source does not exist [id: %d]", id)
}

const columns = "id, type, name, is_active, is_sync_enabled, cfg, created_unix, updated_unix"

type scanner interface{ Scan(dest ...any) error }

// badSource is a stored source this binary cannot use: an unknown type or
// settings that do not decode (or unseal).
type badSource struct{ err error }

func (b *badSource) Error() string { return b.err.Error() }
func (b *badSource) Unwrap() error { return b.err }

func (s *Service) scan(row scanner) (*Source, error) {
	src := &Source{}
	var cfg string
	var created, updated int64
	if err := row.Scan(&src.ID, &src.Type, &src.Name, &src.IsActive, &src.IsSyncEnabled, &cfg, &created, &updated); err != nil {
		return nil, err
	}
	src.Created, src.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	kind, ok := s.kinds.Kind(src.Type)
	if !ok {
		return nil, &badSource{fmt.Errorf("login source %d (%s): type %d (%s) is not supported by this binary", src.ID, src.Name, src.Type, src.Type)}
	}
	c, err := kind.Decode([]byte(cfg), s.box)
	if errors.Is(err, ErrNotBuilt) {
		return nil, &badSource{fmt.Errorf("login source %d (%s): type %d (%s) cannot be used: %w", src.ID, src.Name, src.Type, src.Type, err)}
	}
	if err != nil {
		return nil, &badSource{fmt.Errorf("login source %d (%s): its settings cannot be read: %w", src.ID, src.Name, err)}
	}
	src.Config = c
	return src, nil
}

// Get loads the source id.
func (s *Service) Get(ctx context.Context, id int64) (*Source, error) {
	src, err := s.scan(s.db.QueryRow(ctx, "SELECT "+columns+" FROM login_source WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotExist(id)
	}
	return src, err
}

// Exists reports whether a source id exists (the admin API's check of source_id).
func (s *Service) Exists(ctx context.Context, id int64) (Type, bool, error) {
	var t Type
	err := s.db.QueryRow(ctx, "SELECT type FROM login_source WHERE id = ?", id).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return t, err == nil, err
}

// List returns every source, by id.
func (s *Service) List(ctx context.Context) ([]*Source, error) {
	return s.list(ctx, "")
}

func (s *Service) list(ctx context.Context, where string, args ...any) ([]*Source, error) {
	rows, err := s.db.Query(ctx, "SELECT "+columns+" FROM login_source "+where+" ORDER BY id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Source
	for rows.Next() {
		src, err := s.scan(rows)
		var bad *badSource
		if errors.As(err, &bad) {
			// One source this binary cannot read must not stop the others
			// (nor the sign-in of unknown logins).
			s.log.Error("sign-in source skipped", "err", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, rows.Err()
}

// validate checks a source before it is stored.
func (s *Service) validate(src *Source) error {
	src.Name = strings.TrimSpace(src.Name)
	if src.Name == "" {
		return errs.InvalidField("name", "the source needs a name")
	}
	if len(src.Name) > 255 {
		return errs.InvalidField("name", "the name is too long: at most 255 characters")
	}
	if _, ok := s.kinds.Kind(src.Type); !ok {
		return errs.Invalid("source type %d (%s) is not supported", src.Type, src.Type)
	}
	if src.Config == nil {
		return errs.Invalid("the source has no settings")
	}
	if src.IsSyncEnabled {
		if l, ok := src.Config.(Lister); !ok || !l.CanList() {
			return errs.Invalid("a %s source cannot synchronise its users", src.Type)
		}
	}
	return src.Config.Validate()
}

// checkedSettings validates src and returns its settings as stored
// (secrets sealed).
func (s *Service) checkedSettings(src *Source) ([]byte, error) {
	if err := s.validate(src); err != nil {
		return nil, err
	}
	return src.Config.Encode(s.box)
}

// Create stores a new source.
func (s *Service) Create(ctx context.Context, src *Source) error {
	cfg, err := s.checkedSettings(src)
	if err != nil {
		return err
	}
	now := db.Now()
	id, err := s.db.Insert(ctx, "INSERT INTO login_source (type, name, is_active, is_sync_enabled, cfg, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?)",
		src.Type, src.Name, src.IsActive, src.IsSyncEnabled, string(cfg), now, now)
	if db.IsUniqueViolation(err) {
		return errs.AlreadyExists("login source already exists [name: %s]", src.Name)
	}
	if err != nil {
		return err
	}
	src.ID = id
	src.Created, src.Updated = time.Unix(now, 0), time.Unix(now, 0)
	return nil
}

// Update stores the changed source src (its type cannot change).
func (s *Service) Update(ctx context.Context, src *Source) error {
	cfg, err := s.checkedSettings(src)
	if err != nil {
		return err
	}
	now := db.Now()
	res, err := s.db.Exec(ctx, "UPDATE login_source SET name = ?, is_active = ?, is_sync_enabled = ?, cfg = ?, updated_unix = ? WHERE id = ? AND type = ?",
		src.Name, src.IsActive, src.IsSyncEnabled, string(cfg), now, src.ID, src.Type)
	if db.IsUniqueViolation(err) {
		return errs.AlreadyExists("login source already exists [name: %s]", src.Name)
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, ok, err := s.Exists(ctx, src.ID); err != nil || !ok {
			return ErrNotExist(src.ID)
		}
	}
	src.Updated = time.Unix(now, 0)
	return nil
}

// Delete removes the source id; it refuses while accounts sign in through it.
func (s *Service) Delete(ctx context.Context, id int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, ok, err := s.Exists(ctx, id); err != nil {
			return err
		} else if !ok {
			return ErrNotExist(id)
		}
		n, err := s.db.Count(ctx, "SELECT COUNT(*) FROM users WHERE login_source = ?", id)
		if err != nil {
			return err
		}
		if n > 0 {
			return errs.Invalid("login source is still used by %d users [id: %d]", n, id)
		}
		_, err = s.db.Exec(ctx, "DELETE FROM login_source WHERE id = ?", id)
		return err
	})
}

// SkipsLocalTwoFA tells whether u, an account of an active source whose
// settings say so, signs in without its local second factor. A local
// account, or a source that cannot be read, answers false: the second
// factor is asked.
func (s *Service) SkipsLocalTwoFA(ctx context.Context, u *user.User) bool {
	if u == nil || u.LoginSource == 0 {
		return false
	}
	src, err := s.Get(ctx, u.LoginSource)
	if err != nil || !src.IsActive {
		return false
	}
	sk, ok := src.Config.(TwoFactorSkipper)
	return ok && sk.SkipsLocalTwoFA()
}

// Check checks an account of the source sourceID (user.ExternalSources).
func (s *Service) Check(ctx context.Context, sourceID int64, loginName, pw string) (*user.ExternalAccount, error) {
	src, err := s.Get(ctx, sourceID)
	if err != nil {
		if errs.IsNotFound(err) {
			s.log.Error("sign-in refused: the account's sign-in source does not exist", "source_id", sourceID, "login", loginName)
			return nil, errs.Unauthorized("user does not exist or password is wrong")
		}
		s.log.Error("sign-in refused: cannot read the sign-in source", "source_id", sourceID, "err", err)
		return nil, fmt.Errorf("%w: %v", user.ErrSourceUnavailable, err)
	}
	if !src.IsActive {
		return nil, errs.Unauthorized("user does not exist or password is wrong")
	}
	return s.ask(ctx, src, loginName, pw)
}

// CheckAny tries login and pw against every active source in turn, in id
// order (user.ExternalSources). When none accepts and one could not be
// asked, the refusal is that source's unavailability.
func (s *Service) CheckAny(ctx context.Context, login, pw string) (*user.ExternalAccount, error) {
	srcs, err := s.list(ctx, "WHERE is_active = ?", true)
	if err != nil {
		return nil, err
	}
	var unavailable error
	for _, src := range srcs {
		ea, err := s.ask(ctx, src, login, pw)
		if err == nil {
			return ea, nil
		}
		if errors.Is(err, user.ErrSourceUnavailable) {
			unavailable = err
		}
	}
	if unavailable != nil {
		return nil, unavailable
	}
	return nil, errs.Unauthorized("user does not exist or password is wrong")
}

// ask checks login and pw against src and turns its answer into an account.
func (s *Service) ask(ctx context.Context, src *Source, login, pw string) (*user.ExternalAccount, error) {
	if pw == "" || login == "" {
		return nil, errs.Unauthorized("user does not exist or password is wrong")
	}
	eu, err := src.Config.Authenticate(ctx, login, pw)
	if errors.Is(err, ErrRejected) {
		return nil, errs.Unauthorized("user does not exist or password is wrong")
	}
	if err != nil {
		s.logOutage(src, err)
		return nil, fmt.Errorf("%w: %s: %v", user.ErrSourceUnavailable, src.Name, err)
	}
	if eu.Name == "" {
		eu.Name = login
	}
	if err := user.ValidateName(eu.Name); err != nil {
		s.log.Warn("sign-in refused: the source's user name is not a valid account name", "source", src.Name, "name", eu.Name, "err", err)
		return nil, errs.Unauthorized("user does not exist or password is wrong")
	}
	return s.account(src, login, eu), nil
}

// logOutage logs that src cannot be asked, at most once per
// outageLogEvery, with the number of refusals left out since.
func (s *Service) logOutage(src *Source, err error) {
	s.mu.Lock()
	o := s.outages[src.ID]
	if o == nil {
		o = &outage{}
		s.outages[src.ID] = o
	}
	now := time.Now()
	if now.Sub(o.logged) < outageLogEvery {
		o.suppressed++
		s.mu.Unlock()
		return
	}
	suppressed := o.suppressed
	o.logged, o.suppressed = now, 0
	s.mu.Unlock()
	s.log.Error("sign-in source cannot be asked: refusing its users' sign-ins", "source", src.Name, "source_id", src.ID,
		"type", src.Type.String(), "err", err, "not_logged_since", suppressed)
}

// account is the user package's view of a source's user.
func (s *Service) account(src *Source, loginName string, eu *ExternalUser) *user.ExternalAccount {
	ea := &user.ExternalAccount{
		SourceID: src.ID, SourceType: int(src.Type), LoginName: loginName, Name: eu.Name, FullName: eu.FullName,
		Email: eu.Email, IsAdmin: eu.IsAdmin, IsRestricted: eu.IsRestricted, Avatar: eu.Avatar, NameFromLogin: eu.NameFromLogin,
	}
	if eu.KeysManaged {
		ea.SSHKeys = eu.SSHKeys
		if ea.SSHKeys == nil {
			ea.SSHKeys = []string{}
		}
	}
	return ea
}
