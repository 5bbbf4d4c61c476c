package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/user"
)

// Sessions keeps the web interface's sign-in sessions in the database. The
// cookie holds a random key; the table holds only the key's SHA-256.
type Sessions struct {
	db     *db.DB
	users  *user.Store
	cookie string
	secure bool
	life   time.Duration
	now    func() time.Time
}

// Session is a signed-in visitor's session.
type Session struct {
	ID   int64
	Key  string // the cookie value
	User *user.User
	// Created is when the user signed in (OpenID Connect's auth_time).
	Created time.Time
}

// sessionTouchEvery is how stale seen_unix may get before a request
// refreshes it (and the expiry), so that most requests only read.
const sessionTouchEvery = time.Minute

func newKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Create starts a session for u and sets its cookie.
func (s *Sessions) Create(ctx context.Context, w http.ResponseWriter, u *user.User) (*Session, error) {
	key := newKey()
	now := s.now()
	id, err := s.db.Insert(ctx, "INSERT INTO web_session (key_hash, uid, created_unix, seen_unix, expires_unix) VALUES (?, ?, ?, ?, ?)",
		hashKey(key), u.ID, now.Unix(), now.Unix(), now.Add(s.life).Unix())
	if err != nil {
		return nil, err
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: key, Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(s.life / time.Second)})
	return &Session{ID: id, Key: key, User: u, Created: now}, nil
}

// Lookup returns the session the request's cookie names, or nil when there
// is none, it expired, or its account may no longer sign in.
func (s *Sessions) Lookup(r *http.Request) (*Session, error) {
	c, err := r.Cookie(s.cookie)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return nil, nil
	}
	ctx := r.Context()
	now := s.now()
	var id, uid, created, seen, expires int64
	err = s.db.QueryRow(ctx, "SELECT id, uid, created_unix, seen_unix, expires_unix FROM web_session WHERE key_hash = ?", hashKey(c.Value)).
		Scan(&id, &uid, &created, &seen, &expires)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && expires <= now.Unix()) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u, err := s.users.GetByID(ctx, uid)
	if err != nil || !u.CanSignIn() {
		return nil, nil
	}
	if now.Sub(time.Unix(seen, 0)) >= sessionTouchEvery {
		if _, err := s.db.Exec(ctx, "UPDATE web_session SET seen_unix = ?, expires_unix = ? WHERE id = ?",
			now.Unix(), now.Add(s.life).Unix(), id); err != nil {
			return nil, err
		}
	}
	return &Session{ID: id, Key: c.Value, User: u, Created: time.Unix(created, 0)}, nil
}

// SessionUser is the signed-in user of the request's session cookie, or
// nil: how the API and downloads recognize a browser's GET requests.
func (h *Handler) SessionUser(r *http.Request) (*user.User, error) {
	sess, err := h.sessions.Lookup(r)
	if err != nil || sess == nil {
		return nil, err
	}
	return sess.User, nil
}

// End deletes one session and clears its cookie.
func (s *Sessions) End(ctx context.Context, w http.ResponseWriter, sess *Session) error {
	s.clearCookie(w)
	if sess == nil {
		return nil
	}
	_, err := s.db.Exec(ctx, "DELETE FROM web_session WHERE id = ?", sess.ID)
	return err
}

// EndAll deletes every session of the account with id uid (sign-out
// everywhere, a password change, a deleted account).
func (s *Sessions) EndAll(ctx context.Context, uid int64) error {
	_, err := s.db.Exec(ctx, "DELETE FROM web_session WHERE uid = ?", uid)
	return err
}

// EndOthers deletes every session of uid but keep.
func (s *Sessions) EndOthers(ctx context.Context, uid, keep int64) error {
	_, err := s.db.Exec(ctx, "DELETE FROM web_session WHERE uid = ? AND id <> ?", uid, keep)
	return err
}

// Prune deletes expired sessions.
func (s *Sessions) Prune(ctx context.Context) error {
	_, err := s.db.Exec(ctx, "DELETE FROM web_session WHERE expires_unix <= ?", s.now().Unix())
	return err
}

func (s *Sessions) clearCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: "", Path: "/", HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// sessionPurger ends an account's sessions when it is deleted.
type sessionPurger struct{ s *Sessions }

func (p sessionPurger) CheckDelete(context.Context, *user.User) error { return nil }

func (p sessionPurger) Purge(ctx context.Context, u *user.User) error { return p.s.EndAll(ctx, u.ID) }
