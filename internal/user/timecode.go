package user

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Purposes of time-limited codes.
const (
	CodeActivate      = "activate"
	CodeResetPassword = "reset_password"
)

// TimeCodes makes and checks the codes of account activation and password
// reset links. Nothing is stored: a code is the account id, an expiry and
// an HMAC (keyed by the instance secret) over them, the purpose and the
// account's e-mail address, password hash and activation state (and, for
// activation, its last update time). So it
// cannot be guessed or forged, it ends at its expiry, and it is single use:
// activating the account, or setting a new password, changes what it
// signed and so voids every code made before.
type TimeCodes struct {
	key   []byte
	users *Store
	now   func() time.Time
}

// NewTimeCodes returns the codes of users signed with a key derived from secret.
func NewTimeCodes(secret []byte, users *Store, now func() time.Time) *TimeCodes {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("cairn account time codes"))
	if now == nil {
		now = time.Now
	}
	return &TimeCodes{key: m.Sum(nil), users: users, now: now}
}

func (t *TimeCodes) sign(purpose string, u *User, expires int64) string {
	m := hmac.New(sha256.New, t.key)
	parts := []string{purpose, strconv.FormatInt(u.ID, 10), strconv.FormatInt(expires, 10),
		strings.ToLower(u.Email), u.PasswdHash, strconv.FormatBool(u.IsActive)}
	if purpose == CodeActivate {
		// Activating (or an administrator's change) moves the update time,
		// so a code used once stays void even if the account is made
		// inactive again.
		parts = append(parts, strconv.FormatInt(u.Updated.Unix(), 10))
	}
	for _, part := range parts {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Make returns a code for purpose and u, valid for life.
func (t *TimeCodes) Make(purpose string, u *User, life time.Duration) string {
	exp := t.now().Add(life).Unix()
	return strconv.FormatInt(u.ID, 10) + "-" + strconv.FormatInt(exp, 10) + "-" + t.sign(purpose, u, exp)
}

// Check returns the account a code of purpose was made for, or an
// Unauthorized error when it is malformed, forged, expired or used.
func (t *TimeCodes) Check(ctx context.Context, purpose, code string) (*User, error) {
	invalid := errs.Unauthorized("the link is invalid or has expired")
	parts := strings.SplitN(code, "-", 3)
	if len(code) > 200 || len(parts) != 3 {
		return nil, invalid
	}
	uid, err1 := strconv.ParseInt(parts[0], 10, 64)
	exp, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil || t.now().Unix() >= exp {
		return nil, invalid
	}
	u, err := t.users.GetByID(ctx, uid)
	if errs.IsNotFound(err) {
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	if u.Type != TypeIndividual || !hmac.Equal([]byte(parts[2]), []byte(t.sign(purpose, u, exp))) {
		return nil, invalid
	}
	return u, nil
}
