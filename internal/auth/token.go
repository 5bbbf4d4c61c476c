// Package auth authenticates callers: access tokens with their scopes, and the
// credentials a request carries (basic auth, token headers, URL tokens on API
// routes only).
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Token is a personal access token. The plaintext is never stored: only its
// SHA-256 (tokens are 160 random bits, so a fast hash is safe) and last eight characters.
type Token struct {
	ID        int64
	UserID    int64
	Name      string
	LastEight string
	Scope     Scope
	Created   time.Time
	LastUsed  time.Time
}

// Tokens stores and checks access tokens.
type Tokens struct {
	db *db.DB

	mu      sync.Mutex
	pending map[int64]int64 // token id -> last-used unix time, not yet written
}

// NewTokens returns the token service.
func NewTokens(d *db.DB) *Tokens {
	return &Tokens{db: d, pending: map[int64]int64{}}
}

func hashToken(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// looksLikeToken reports whether s has the form of a Cairn token (40 hex digits).
func looksLikeToken(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Create issues a new token for uid and returns it with its plaintext.
func (t *Tokens) Create(ctx context.Context, uid int64, name string, scopes []string) (*Token, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, "", errs.InvalidField("name", "[Name]: Required")
	}
	if utf8.RuneCountInString(name) > 255 {
		return nil, "", errs.InvalidField("name", "[Name]: MaxSize")
	}
	scope, err := ParseScopes(scopes)
	if err != nil {
		return nil, "", errs.BadRequest("invalid access token scope provided: %v", err)
	}
	if scope.Empty() {
		return nil, "", errs.BadRequest("access token must have a scope")
	}
	raw := make([]byte, 20)
	if _, err := rand.Read(raw); err != nil {
		return nil, "", err
	}
	plain := hex.EncodeToString(raw)
	now := time.Now()
	tok := &Token{UserID: uid, Name: name, LastEight: plain[32:], Scope: scope, Created: now}
	err = t.db.WithTx(ctx, func(ctx context.Context) error {
		exists, err := t.db.Exists(ctx, "SELECT 1 FROM access_token WHERE uid = ? AND name = ?", uid, name)
		if err != nil {
			return err
		}
		if exists {
			return errs.BadRequest("access token name has been used already")
		}
		id, err := t.db.Insert(ctx, `INSERT INTO access_token (uid, name, token_hash, token_last_eight, scope, created_unix, updated_unix)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, uid, name, hashToken(plain), tok.LastEight, scope.String(), now.Unix(), now.Unix())
		if db.IsUniqueViolation(err) {
			return errs.BadRequest("access token name has been used already")
		}
		tok.ID = id
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return tok, plain, nil
}

const tokenColumns = "t.id, t.uid, t.name, t.token_last_eight, t.scope, t.created_unix, t.updated_unix"

func scanToken(row interface{ Scan(...any) error }, extra ...any) (*Token, error) {
	tok := &Token{}
	var scope string
	var c, u int64
	if err := row.Scan(append([]any{&tok.ID, &tok.UserID, &tok.Name, &tok.LastEight, &scope, &c, &u}, extra...)...); err != nil {
		return nil, err
	}
	tok.Scope, _ = ParseScopes([]string{scope})
	tok.Created, tok.LastUsed = time.Unix(c, 0), time.Unix(u, 0)
	return tok, nil
}

// List returns a page of uid's tokens and the total.
func (t *Tokens) List(ctx context.Context, uid int64, limit, offset int) ([]*Token, int64, error) {
	total, err := t.db.Count(ctx, "SELECT COUNT(*) FROM access_token WHERE uid = ?", uid)
	if err != nil {
		return nil, 0, err
	}
	rows, err := t.db.Query(ctx, "SELECT "+tokenColumns+" FROM access_token t WHERE t.uid = ? ORDER BY t.id DESC"+db.LimitOffset(limit, offset), uid)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*Token
	for rows.Next() {
		tok, err := scanToken(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, tok)
	}
	return out, total, rows.Err()
}

// Delete removes a token of uid named by id (a number) or by name.
func (t *Tokens) Delete(ctx context.Context, uid int64, idOrName string) error {
	if id, err := strconv.ParseInt(idOrName, 0, 64); err == nil && id != 0 {
		res, err := t.db.Exec(ctx, "DELETE FROM access_token WHERE id = ? AND uid = ?", id, uid)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFound("access token does not exist [id: %d]", id)
		}
		return nil
	}
	n, err := t.db.Count(ctx, "SELECT COUNT(*) FROM access_token WHERE uid = ? AND name = ?", uid, idOrName)
	if err != nil {
		return err
	}
	switch {
	case n == 0:
		return errs.NotFound("access token does not exist [name: %s]", idOrName)
	case n > 1:
		return errs.Invalid("multiple matches for token name '%s'", idOrName)
	}
	_, err = t.db.Exec(ctx, "DELETE FROM access_token WHERE uid = ? AND name = ?", uid, idOrName)
	return err
}

// Lookup finds the token with this plaintext and its owner in one query, and
// notes its use (written later in a batch).
func (t *Tokens) Lookup(ctx context.Context, plain string) (*Token, *user.User, error) {
	if !looksLikeToken(plain) {
		return nil, nil, errs.Unauthorized("invalid token")
	}
	tok := &Token{}
	var scope string
	var created, used int64
	u, err := user.Scan(t.db.QueryRow(ctx, "SELECT t.id, t.name, t.token_last_eight, t.scope, t.created_unix, t.updated_unix, "+
		user.Columns+" FROM access_token t JOIN users u ON u.id = t.uid WHERE t.token_hash = ?", hashToken(plain)),
		&tok.ID, &tok.Name, &tok.LastEight, &scope, &created, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, errs.Unauthorized("invalid token")
	}
	if err != nil {
		return nil, nil, err
	}
	tok.UserID = u.ID
	tok.Scope, _ = ParseScopes([]string{scope})
	tok.Created, tok.LastUsed = time.Unix(created, 0), time.Unix(used, 0)
	t.touch(tok.ID)
	return tok, u, nil
}

func (t *Tokens) touch(id int64) {
	now := time.Now().Unix()
	t.mu.Lock()
	t.pending[id] = now
	t.mu.Unlock()
}

// FlushLastUsed writes the pending last-used times: one statement per token
// used since the previous flush, instead of one per request.
func (t *Tokens) FlushLastUsed(ctx context.Context) error {
	t.mu.Lock()
	pending := t.pending
	t.pending = make(map[int64]int64, len(pending))
	t.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	return t.db.WithTx(ctx, func(ctx context.Context) error {
		for id, ts := range pending {
			if _, err := t.db.Exec(ctx, "UPDATE access_token SET updated_unix = ? WHERE id = ? AND updated_unix < ?", ts, id, ts); err != nil {
				return err
			}
		}
		return nil
	})
}

// RunLastUsedFlusher flushes every interval until ctx ends, then once more.
func (t *Tokens) RunLastUsedFlusher(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			_ = t.FlushLastUsed(context.Background())
			return
		case <-tick.C:
			_ = t.FlushLastUsed(ctx)
		}
	}
}
