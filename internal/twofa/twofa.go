// Package twofa is two-factor sign-in with a time-based one-time password
// (TOTP, RFC 6238: 30-second steps, 6 digits, SHA-1, one step of clock skew
// either way) and a one-time scratch code, as Gitea offers it. The TOTP
// secret is stored sealed with the instance secret, the scratch code only as
// an argon2id hash. A code is accepted once: its time step is recorded and
// an older or equal step is refused afterwards. Wrong codes are counted per
// account; too many in a window are refused (429) before any check.
package twofa

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"encoding/base32"
	"errors"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/password"
	"github.com/cairn-forge/cairn/internal/user"
)

// The TOTP parameters (what every authenticator application assumes).
const (
	period = 30
	skew   = 1
	digits = otp.DigitsSix
)

// Sealer encrypts values at rest (webhook.SecretBox).
type Sealer interface {
	Seal(plain string) (string, error)
	Open(sealed string) (string, error)
}

// Options configure a Service.
type Options struct {
	// Issuer names the instance in authenticator applications.
	Issuer string
	// MaxFailures wrong codes per account within FailureWindow are allowed
	// before further codes are refused until the window ends (defaults: 10
	// in 10 minutes).
	MaxFailures   int
	FailureWindow time.Duration
	// PendingEnrolment is how long an unconfirmed secret is offered again
	// (default 30 minutes); afterwards a new one is made.
	PendingEnrolment time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Service keeps accounts' second factors.
type Service struct {
	db  *db.DB
	box Sealer
	o   Options
}

// NewService returns the two-factor service.
func NewService(d *db.DB, box Sealer, o Options) *Service {
	if o.Issuer == "" {
		o.Issuer = "Cairn"
	}
	o.Issuer = strings.ReplaceAll(o.Issuer, ":", "") // the URI's label separator
	if o.MaxFailures <= 0 {
		o.MaxFailures = 10
	}
	if o.FailureWindow <= 0 {
		o.FailureWindow = 10 * time.Minute
	}
	if o.PendingEnrolment <= 0 {
		o.PendingEnrolment = 30 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{db: d, box: box, o: o}
}

// row is an account's two_factor row.
type row struct {
	secret, scratchHash string
	enabled             bool
	lastStep            int64
	failures, since     int64
	created             int64
}

func (s *Service) load(ctx context.Context, uid int64) (*row, error) {
	var r row
	var sealed string
	err := s.db.QueryRow(ctx, "SELECT secret, scratch_hash, enabled, last_step, failures, failures_since, created_unix FROM two_factor WHERE uid = ?", uid).
		Scan(&sealed, &r.scratchHash, &r.enabled, &r.lastStep, &r.failures, &r.since, &r.created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.secret, err = s.box.Open(sealed); err != nil {
		return nil, err
	}
	return &r, nil
}

// Enabled reports whether the account with id uid signs in with a second
// factor.
func (s *Service) Enabled(ctx context.Context, uid int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM two_factor WHERE uid = ? AND enabled = ?", uid, true)
}

// Enrolment is a secret offered to an account, to be confirmed with a
// first code.
type Enrolment struct {
	// Secret is the base32 secret; URI the otpauth:// address that
	// authenticator applications read (as text or a QR code).
	Secret, URI string
}

// Begin offers u a secret: the one offered recently if u has not confirmed
// it yet, else a new one. An account that already has two-factor sign-in
// is refused (409).
func (s *Service) Begin(ctx context.Context, u *user.User) (*Enrolment, error) {
	r, err := s.load(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	now := s.o.Now()
	if r != nil && r.enabled {
		return nil, errs.Conflict("two-factor authentication is already enabled")
	}
	if r != nil && now.Sub(time.Unix(r.created, 0)) < s.o.PendingEnrolment {
		return s.enrolment(u, r.secret), nil
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.o.Issuer, AccountName: u.Name, Period: period, Digits: digits,
		Algorithm: otp.AlgorithmSHA1, SecretSize: 20})
	if err != nil {
		return nil, err
	}
	sealed, err := s.box.Seal(key.Secret())
	if err != nil {
		return nil, err
	}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "DELETE FROM two_factor WHERE uid = ? AND enabled = ?", u.ID, false); err != nil {
			return err
		}
		_, err := s.db.Insert(ctx, `INSERT INTO two_factor (uid, secret, scratch_hash, enabled, last_step, failures, failures_since, created_unix, updated_unix)
			VALUES (?, ?, '', ?, 0, 0, 0, ?, ?)`, u.ID, sealed, false, now.Unix(), now.Unix())
		if db.IsUniqueViolation(err) {
			return errs.Conflict("two-factor authentication is already enabled")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.enrolment(u, key.Secret()), nil
}

func (s *Service) enrolment(u *user.User, secret string) *Enrolment {
	key, _ := totp.Generate(totp.GenerateOpts{Issuer: s.o.Issuer, AccountName: u.Name, Period: period, Digits: digits,
		Algorithm: otp.AlgorithmSHA1, Secret: decodeSecret(secret)})
	return &Enrolment{Secret: secret, URI: key.URL()}
}

// decodeSecret is the raw secret behind its base32 text (the library's
// encoding, without padding).
func decodeSecret(secret string) []byte {
	raw, _ := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	return raw
}

// Confirm enables two-factor sign-in for the account with id uid when code
// is valid for the secret Begin offered, and returns the scratch code (shown
// once). A wrong code is refused (422) and the offer stays.
func (s *Service) Confirm(ctx context.Context, uid int64, code string) (string, error) {
	r, err := s.load(ctx, uid)
	if err != nil {
		return "", err
	}
	if r == nil || r.enabled {
		return "", errs.Invalid("there is no enrolment to confirm: start again")
	}
	step, ok := match(r.secret, code, s.o.Now())
	if !ok {
		return "", errs.InvalidField("passcode", "the passcode is not correct")
	}
	scratch, hash, err := newScratch()
	if err != nil {
		return "", err
	}
	res, err := s.db.Exec(ctx, "UPDATE two_factor SET enabled = ?, scratch_hash = ?, last_step = ?, updated_unix = ? WHERE uid = ? AND enabled = ?",
		true, hash, step, s.o.Now().Unix(), uid, false)
	if err != nil {
		return "", err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return "", errs.Invalid("there is no enrolment to confirm: start again")
	}
	return scratch, nil
}

// Verify checks a TOTP code of the account with id uid and uses it up. It
// returns 401 for a wrong, reused or missing code (and for an account
// without two-factor sign-in), 429 while the account has too many recent
// wrong codes.
func (s *Service) Verify(ctx context.Context, uid int64, code string) error {
	r, err := s.enabledRow(ctx, uid)
	if err != nil {
		return err
	}
	step, ok := match(r.secret, code, s.o.Now())
	if ok && step > r.lastStep {
		res, err := s.db.Exec(ctx, "UPDATE two_factor SET last_step = ?, failures = 0, failures_since = 0 WHERE uid = ? AND last_step < ?",
			step, uid, step)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
	}
	return s.fail(ctx, uid, "the passcode is not correct")
}

// UseScratch checks the scratch code of the account with id uid. A correct
// code is used up: it is replaced by a new random one that nobody knows
// (the account holder makes and reads a new one in the settings), as Gitea
// does. Errors as Verify.
func (s *Service) UseScratch(ctx context.Context, uid int64, code string) error {
	r, err := s.enabledRow(ctx, uid)
	if err != nil {
		return err
	}
	code = strings.TrimSpace(code)
	if code == "" || len(code) > 64 || !password.Verify(r.scratchHash, code) {
		return s.fail(ctx, uid, "the scratch code is not correct")
	}
	_, hash, err := newScratch()
	if err != nil {
		return err
	}
	res, err := s.db.Exec(ctx, "UPDATE two_factor SET scratch_hash = ?, failures = 0, failures_since = 0, updated_unix = ? WHERE uid = ? AND scratch_hash = ?",
		hash, s.o.Now().Unix(), uid, r.scratchHash)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 { // used by a concurrent request
		return s.fail(ctx, uid, "the scratch code is not correct")
	}
	return nil
}

// RegenerateScratch replaces the scratch code of the account with id uid
// and returns the new one.
func (s *Service) RegenerateScratch(ctx context.Context, uid int64) (string, error) {
	scratch, hash, err := newScratch()
	if err != nil {
		return "", err
	}
	res, err := s.db.Exec(ctx, "UPDATE two_factor SET scratch_hash = ?, updated_unix = ? WHERE uid = ? AND enabled = ?",
		hash, s.o.Now().Unix(), uid, true)
	if err != nil {
		return "", err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return "", errs.NotFound("two-factor authentication is not enabled")
	}
	return scratch, nil
}

// Disable removes the second factor (and any pending enrolment) of the
// account with id uid.
func (s *Service) Disable(ctx context.Context, uid int64) error {
	_, err := s.db.Exec(ctx, "DELETE FROM two_factor WHERE uid = ?", uid)
	return err
}

// enabledRow loads an enabled row and applies the throttle.
func (s *Service) enabledRow(ctx context.Context, uid int64) (*row, error) {
	r, err := s.load(ctx, uid)
	if err != nil {
		return nil, err
	}
	if r == nil || !r.enabled {
		return nil, errs.Unauthorized("two-factor authentication is not enabled")
	}
	now := s.o.Now()
	if ends := time.Unix(r.since, 0).Add(s.o.FailureWindow); r.failures >= int64(s.o.MaxFailures) && now.Before(ends) {
		wait := int(ends.Sub(now)/time.Second) + 1
		return nil, errs.TooManyRequests(wait, "too many wrong two-factor codes: try again in %d seconds", wait)
	}
	return r, nil
}

// fail counts a wrong code (a new window starts when the last one ended)
// and returns a 401 error with msg.
func (s *Service) fail(ctx context.Context, uid int64, msg string) error {
	now := s.o.Now().Unix()
	windowStart := now - int64(s.o.FailureWindow/time.Second)
	if _, err := s.db.Exec(ctx, `UPDATE two_factor SET
		failures = CASE WHEN failures_since <= ? THEN 1 ELSE failures + 1 END,
		failures_since = CASE WHEN failures_since <= ? THEN ? ELSE failures_since END
		WHERE uid = ?`, windowStart, windowStart, now, uid); err != nil {
		return err
	}
	return errs.Unauthorized("%s", msg)
}

// match reports the time step, within one step of now, for which code is
// the TOTP of secret. Every candidate is computed and compared in constant
// time, so timing tells nothing about which step matched.
func match(secret, code string, now time.Time) (int64, bool) {
	code = strings.TrimSpace(code)
	if len(code) != digits.Length() {
		return 0, false
	}
	cur := now.Unix() / period
	var found int64
	ok := 0
	for d := int64(-skew); d <= skew; d++ {
		step := cur + d
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*period, 0), totp.ValidateOpts{
			Period: period, Digits: digits, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			found, ok = step, 1 // the latest matching step wins
		}
	}
	return found, ok == 1
}

// scratchAlphabet has 32 letters and digits, so every random byte maps
// to one without bias.
const scratchAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// newScratch returns a random 10-character scratch code and its hash.
func newScratch() (code, hash string, err error) {
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	for i := range b {
		b[i] = scratchAlphabet[int(b[i])%len(scratchAlphabet)]
	}
	code = string(b)
	hash, err = password.Hash(code, password.Default)
	return code, hash, err
}

// UserDeleteHook removes the second factor of a deleted account.
func (s *Service) UserDeleteHook() user.DeleteHook { return deleteHook{s} }

type deleteHook struct{ s *Service }

func (h deleteHook) CheckDelete(context.Context, *user.User) error { return nil }

func (h deleteHook) Purge(ctx context.Context, u *user.User) error { return h.s.Disable(ctx, u.ID) }
