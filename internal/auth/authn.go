package auth

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Method tells how a caller authenticated.
type Method int

// Authentication methods.
const (
	MethodNone Method = iota
	// MethodPassword is basic auth with a user name (or e-mail) and password.
	MethodPassword
	// MethodToken is an access token, from a header, basic auth or (API only) the URL.
	MethodToken
	// MethodSession is the web interface's session cookie, read for GET and
	// HEAD requests only (they change nothing, so need no CSRF token): a
	// signed-in browser reads attachments, release assets and the API.
	MethodSession
)

// Identity is an authenticated caller.
type Identity struct {
	User   *user.User
	Token  *Token // set for MethodToken
	Method Method
}

// Authenticator reads the credentials a request carries.
type Authenticator struct {
	users  *user.Service
	tokens *Tokens
	// session reads the web session of a request (nil: none).
	session func(r *http.Request) (*user.User, error)
}

// SetSessionReader lets GET and HEAD requests without credentials be
// identified by the web interface's session cookie.
func (a *Authenticator) SetSessionReader(f func(r *http.Request) (*user.User, error)) { a.session = f }

// NewAuthenticator returns an Authenticator.
func NewAuthenticator(users *user.Service, tokens *Tokens) *Authenticator {
	return &Authenticator{users: users, tokens: tokens}
}

// Authenticate returns the caller's identity, nil when the request carries no
// credentials, a 401 error when it carries wrong ones, or a 429 error while
// password checks for the account or address are throttled. URL tokens
// (?token=, ?access_token=) are read only when allowURLToken is set: API routes.
func (a *Authenticator) Authenticate(r *http.Request, allowURLToken bool) (*Identity, error) {
	ctx := r.Context()
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, _ := strings.Cut(h, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToLower(scheme) {
		case "token", "bearer":
			return a.byToken(ctx, rest)
		case "basic":
			raw, err := base64.StdEncoding.DecodeString(rest)
			if err != nil {
				return nil, errs.Unauthorized("invalid basic authentication header")
			}
			name, pw, ok := strings.Cut(string(raw), ":")
			if !ok {
				return nil, errs.Unauthorized("invalid basic authentication header")
			}
			return a.Basic(ctx, r.RemoteAddr, name, pw)
		default:
			return nil, errs.Unauthorized("unsupported authorization scheme")
		}
	}
	if allowURLToken {
		q := r.URL.Query()
		for _, k := range []string{"token", "access_token"} {
			if v := q.Get(k); v != "" {
				return a.byToken(ctx, v)
			}
		}
	}
	if a.session != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		u, err := a.session(r)
		if err != nil || u == nil {
			return nil, err
		}
		return &Identity{User: u, Method: MethodSession}, nil
	}
	return nil, nil
}

// Basic checks a basic-auth pair: a token as password (any user name), a
// token as user name with an empty or "x-oauth-basic" password, or a user name
// or e-mail with the account's password, throttled per account and per
// client (the caller's address, http.Request.RemoteAddr). Tokens come first,
// so a valid token is never throttled.
func (a *Authenticator) Basic(ctx context.Context, client, name, pw string) (*Identity, error) {
	if looksLikeToken(pw) {
		if id, err := a.byToken(ctx, pw); err == nil {
			return id, nil
		}
	}
	if looksLikeToken(name) && (pw == "" || pw == "x-oauth-basic") {
		return a.byToken(ctx, name)
	}
	u, err := a.users.Authenticate(ctx, name, pw, client)
	if err != nil {
		return nil, err
	}
	return &Identity{User: u, Method: MethodPassword}, nil
}

func (a *Authenticator) byToken(ctx context.Context, plain string) (*Identity, error) {
	tok, u, err := a.tokens.Lookup(ctx, plain)
	if err != nil {
		return nil, err
	}
	return &Identity{User: u, Token: tok, Method: MethodToken}, nil
}
