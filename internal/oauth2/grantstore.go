package oauth2

import (
	"context"
	"database/sql"
	"errors"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/user"
)

// grantStore is the SQL of the provider's tables: oauth2_grant,
// oauth2_authorization_code and oauth2_token.
type grantStore struct{ db *db.DB }

// Token kinds.
const (
	kindAccess  = "access"
	kindRefresh = "refresh"
)

type grantRow struct {
	id    int64
	scope string
}

type codeRow struct {
	id, grantID, appID, uid int64
	scope                   string
	redirectURI             string
	challenge, method       string
	nonce                   string
	expires, authTime       int64
	used                    bool
}

// codeInsert is a new authorization code's columns.
type codeInsert struct {
	hash, redirectURI, scope, challenge, method, nonce string
	expires, authTime                                  int64
}

type tokenRow struct {
	id, grantID, chainID, appID, uid int64
	scope                            string
	kind                             string
	expires, created, authTime       int64
	revoked, replaced                bool
}

// grantOf returns uid's grant to application app, or nil.
func (s grantStore) grantOf(ctx context.Context, uid, app int64) (*grantRow, error) {
	g := &grantRow{}
	err := s.db.QueryRow(ctx, "SELECT id, scope FROM oauth2_grant WHERE uid = ? AND application_id = ?", uid, app).Scan(&g.id, &g.scope)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return g, err
}

// upsertGrant records uid's consent to app for scope and returns the grant's id.
func (s grantStore) upsertGrant(ctx context.Context, uid, app int64, scope string, now int64) (int64, error) {
	g, err := s.grantOf(ctx, uid, app)
	if err != nil {
		return 0, err
	}
	if g != nil {
		_, err := s.db.Exec(ctx, "UPDATE oauth2_grant SET scope = ?, updated_unix = ? WHERE id = ?", scope, now, g.id)
		return g.id, err
	}
	return s.db.Insert(ctx, "INSERT INTO oauth2_grant (uid, application_id, scope, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?)",
		uid, app, scope, now, now)
}

func (s grantStore) insertCode(ctx context.Context, gid int64, c codeInsert) error {
	_, err := s.db.Exec(ctx, `INSERT INTO oauth2_authorization_code (grant_id, code_hash, redirect_uri, scope, code_challenge,
		code_challenge_method, nonce, expires_unix, auth_time_unix, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		gid, c.hash, c.redirectURI, c.scope, c.challenge, c.method, c.nonce, c.expires, c.authTime, false)
	return err
}

// codeByHash returns the authorization code with this hash and its grant's
// application, or nil.
func (s grantStore) codeByHash(ctx context.Context, hash string) (*codeRow, error) {
	c := &codeRow{}
	err := s.db.QueryRow(ctx, `SELECT c.id, c.grant_id, g.application_id, g.uid, c.scope, c.redirect_uri, c.code_challenge,
		c.code_challenge_method, c.nonce, c.expires_unix, c.auth_time_unix, c.used
		FROM oauth2_authorization_code c JOIN oauth2_grant g ON g.id = c.grant_id
		WHERE c.code_hash = ?`, hash).Scan(&c.id, &c.grantID, &c.appID, &c.uid, &c.scope, &c.redirectURI, &c.challenge, &c.method,
		&c.nonce, &c.expires, &c.authTime, &c.used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// useCode marks code id used and reports whether this call did (not a
// concurrent one).
func (s grantStore) useCode(ctx context.Context, id int64) (bool, error) {
	res, err := s.db.Exec(ctx, "UPDATE oauth2_authorization_code SET used = ? WHERE id = ? AND used = ?", true, id, false)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// revokeChain revokes every token that code chain led to.
func (s grantStore) revokeChain(ctx context.Context, gid, chain int64) error {
	_, err := s.db.Exec(ctx, "UPDATE oauth2_token SET revoked = ? WHERE grant_id = ? AND chain_id = ?", true, gid, chain)
	return err
}

func (s grantStore) insertToken(ctx context.Context, gid, chain int64, hash, kind, scope string, expires, now, authTime int64) error {
	_, err := s.db.Exec(ctx, `INSERT INTO oauth2_token (grant_id, chain_id, token_hash, kind, scope, expires_unix, revoked, replaced,
		created_unix, auth_time_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, gid, chain, hash, kind, scope, expires, false, false, now, authTime)
	return err
}

// tokenByHash returns the token of this kind and hash with its grant's
// application, or nil.
func (s grantStore) tokenByHash(ctx context.Context, hash, kind string) (*tokenRow, error) {
	t := &tokenRow{kind: kind}
	err := s.db.QueryRow(ctx, `SELECT t.id, t.grant_id, t.chain_id, g.application_id, g.uid, t.scope, t.expires_unix, t.created_unix,
		t.auth_time_unix, t.revoked, t.replaced FROM oauth2_token t JOIN oauth2_grant g ON g.id = t.grant_id
		WHERE t.token_hash = ? AND t.kind = ?`, hash, kind).Scan(&t.id, &t.grantID, &t.chainID, &t.appID, &t.uid, &t.scope,
		&t.expires, &t.created, &t.authTime, &t.revoked, &t.replaced)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return t, err
}

// replaceToken marks refresh token id used and reports whether this call did.
func (s grantStore) replaceToken(ctx context.Context, id int64) (bool, error) {
	res, err := s.db.Exec(ctx, "UPDATE oauth2_token SET replaced = ? WHERE id = ? AND replaced = ? AND revoked = ?", true, id, false, false)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// accessToken returns the user of the access token with this hash and the
// token's scope and state in one query, or nil.
func (s grantStore) accessToken(ctx context.Context, hash string) (*user.User, *tokenRow, error) {
	t := &tokenRow{}
	u, err := user.Scan(s.db.QueryRow(ctx, `SELECT t.id, t.grant_id, t.scope, t.expires_unix, t.created_unix, t.revoked, `+
		user.Columns+` FROM oauth2_token t JOIN oauth2_grant g ON g.id = t.grant_id JOIN users u ON u.id = g.uid
		WHERE t.token_hash = ? AND t.kind = ?`, hash, kindAccess),
		&t.id, &t.grantID, &t.scope, &t.expires, &t.created, &t.revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return u, t, nil
}

// removeGrant deletes grant gid with its codes and tokens.
func (s grantStore) removeGrant(ctx context.Context, gid int64) error {
	for _, q := range []string{
		"DELETE FROM oauth2_token WHERE grant_id = ?",
		"DELETE FROM oauth2_authorization_code WHERE grant_id = ?",
		"DELETE FROM oauth2_grant WHERE id = ?",
	} {
		if _, err := s.db.Exec(ctx, q, gid); err != nil {
			return err
		}
	}
	return nil
}

// removeGrantsWhere deletes the grants matching cond (a condition on
// oauth2_grant's columns, with args) with their codes and tokens.
func (s grantStore) removeGrantsWhere(ctx context.Context, cond string, args ...any) error {
	for _, q := range []string{
		"DELETE FROM oauth2_token WHERE grant_id IN (SELECT id FROM oauth2_grant WHERE " + cond + ")",
		"DELETE FROM oauth2_authorization_code WHERE grant_id IN (SELECT id FROM oauth2_grant WHERE " + cond + ")",
		"DELETE FROM oauth2_grant WHERE " + cond,
	} {
		if _, err := s.db.Exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// prune deletes the codes and tokens expired at now.
func (s grantStore) prune(ctx context.Context, now int64) error {
	if _, err := s.db.Exec(ctx, "DELETE FROM oauth2_authorization_code WHERE expires_unix <= ?", now); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "DELETE FROM oauth2_token WHERE expires_unix <= ?", now)
	return err
}
