package oauth2

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Introspection is what the introspection endpoint says of a token
// (RFC 7662 section 2.2). An inactive token says nothing else.
type Introspection struct {
	Active    bool
	Scope     string
	ClientID  string
	Username  string
	UserID    int64
	TokenType string // "access_token" or "refresh_token"
	Expires   time.Time
	Issued    time.Time
}

// tokenKind tells an access token from a refresh token by its prefix, "" for neither.
func tokenKind(s string) string {
	switch {
	case strings.HasPrefix(s, accessPrefix) && len(s) == len(accessPrefix)+opaqueLength:
		return kindAccess
	case strings.HasPrefix(s, refreshPrefix) && len(s) == len(refreshPrefix)+opaqueLength:
		return kindRefresh
	}
	return ""
}

// Introspect describes token to a confidential client that authenticated
// with its secret (RFC 7662; as Gitea's, any client may ask about any
// token: resource servers check tokens issued to others). A token that is
// unknown, expired, revoked, already refreshed, or whose user may no
// longer sign in is inactive.
func (p *Provider) Introspect(ctx context.Context, clientID, secret, token string) (*Introspection, error) {
	if _, err := p.apps.VerifySecret(ctx, clientID, secret); err != nil {
		return nil, oauthErr(ErrInvalidClient, "invalid client credentials")
	}
	kind := tokenKind(token)
	if kind == "" {
		return &Introspection{}, nil
	}
	var in Introspection
	var expires, created int64
	var revoked, replaced, prohibit, active bool
	err := p.db.QueryRow(ctx, `SELECT t.scope, t.expires_unix, t.created_unix, t.revoked, t.replaced, a.client_id,
		u.id, u.name, u.prohibit_login, u.is_active FROM oauth2_token t JOIN oauth2_grant g ON g.id = t.grant_id
		JOIN oauth2_application a ON a.id = g.application_id JOIN users u ON u.id = g.uid
		WHERE t.token_hash = ? AND t.kind = ?`, hashSecret(token), kind).
		Scan(&in.Scope, &expires, &created, &revoked, &replaced, &in.ClientID, &in.UserID, &in.Username, &prohibit, &active)
	if errors.Is(err, sql.ErrNoRows) {
		return &Introspection{}, nil
	}
	if err != nil {
		return nil, err
	}
	if revoked || replaced || p.now().Unix() >= expires || prohibit || !active {
		return &Introspection{}, nil
	}
	in.Active = true
	in.TokenType = kind + "_token"
	in.Expires, in.Issued = time.Unix(expires, 0), time.Unix(created, 0)
	return &in, nil
}

// Revoke is the revocation endpoint's work (RFC 7009): a client revokes
// an access or refresh token it was issued, and with it the whole grant
// (every token of the user's consent to the client, as when the user
// revokes the application in their settings). A token that is unknown or
// another client's is left alone, and the answer is the same, so the
// endpoint tells nothing about tokens.
func (p *Provider) Revoke(ctx context.Context, c ClientCredentials, token string) error {
	app, oerr := p.authenticateClient(ctx, c)
	if oerr != nil {
		return oerr
	}
	kind := tokenKind(token)
	if kind == "" {
		return nil
	}
	return p.db.WithTx(ctx, func(ctx context.Context) error {
		t, err := p.store.tokenByHash(ctx, hashSecret(token), kind)
		if err != nil || t == nil || t.appID != app.ID {
			return err
		}
		return p.store.removeGrant(ctx, t.grantID)
	})
}
