package auth

import (
	"context"
	"encoding/base64"
	"errors"
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
	// SecondFactor is set for a password sign-in that also gave a valid
	// one-time code (the account has two-factor sign-in).
	SecondFactor bool
}

// Authenticator reads the credentials a request carries.
type Authenticator struct {
	users  *user.Service
	tokens *Tokens
	// session reads the web session of a request (nil: none).
	session func(r *http.Request) (*user.User, error)
	// second checks accounts' second factor (nil: none has one).
	second SecondFactor
	// oauth2 finds the access tokens the OAuth2 provider issued (nil: none).
	oauth2 OAuth2Tokens
	// keys tells which accounts have security keys (nil: none has).
	keys SecurityKeys
	// skipper tells which accounts skip their second factor (nil: none).
	skipper LocalTwoFASkipper
}

// SecurityKeys are accounts' WebAuthn security keys (securitykey.Service):
// a basic-auth password is refused for an account that has one, with or
// without a one-time code, as Gitea (a key cannot answer in a header).
type SecurityKeys interface {
	Enabled(ctx context.Context, uid int64) (bool, error)
}

// SetSecurityKeys makes password sign-ins of accounts with security keys
// fail. Call it only while wiring.
func (a *Authenticator) SetSecurityKeys(k SecurityKeys) { a.keys = k }

// OAuth2Tokens are the access tokens of the OAuth2 provider
// (oauth2.Provider): opaque strings of their own form, accepted wherever a
// personal access token is, with the scope they were issued for.
type OAuth2Tokens interface {
	// IsAccessToken reports whether s has the form of such a token.
	IsAccessToken(s string) bool
	// LookupAccessToken returns the user and scope of a live (unexpired,
	// unrevoked) access token, or a 401 error.
	LookupAccessToken(ctx context.Context, plain string) (*user.User, *Token, error)
}

// SetOAuth2Tokens makes the OAuth2 provider's access tokens authenticate.
// Call it only while wiring.
func (a *Authenticator) SetOAuth2Tokens(t OAuth2Tokens) { a.oauth2 = t }

// isToken reports whether s has the form of an access token, personal or
// issued by the OAuth2 provider.
func (a *Authenticator) isToken(s string) bool {
	return looksLikeToken(s) || (a.oauth2 != nil && a.oauth2.IsAccessToken(s))
}

// SecondFactor is two-factor sign-in (twofa.Service): a password alone
// does not authenticate an account that has it.
type SecondFactor interface {
	Enabled(ctx context.Context, uid int64) (bool, error)
	// Verify checks and uses up a one-time code.
	Verify(ctx context.Context, uid int64, code string) error
}

// ErrSecondFactor is wrapped by the 401 error of a password sign-in of an
// account with two-factor sign-in that came without a valid one-time code
// (git over HTTP tells to use an access token instead).
var ErrSecondFactor = errors.New("two-factor authentication is enabled")

// OTPHeader carries the one-time code of a basic-auth password sign-in to
// the API of an account with two-factor sign-in, as in Gitea.
const OTPHeader = "X-Gitea-OTP"

// LocalTwoFASkipper tells which accounts sign in without their local
// second factor (authsource.Service: accounts of a source set so).
type LocalTwoFASkipper interface {
	SkipsLocalTwoFA(ctx context.Context, u *user.User) bool
}

// SetLocalTwoFASkipper lets accounts of sign-in sources set so skip their
// second factor. Call it only while wiring.
func (a *Authenticator) SetLocalTwoFASkipper(s LocalTwoFASkipper) { a.skipper = s }

// SetSecondFactor makes password sign-ins of accounts with two-factor
// sign-in require a one-time code. Call it only while wiring.
func (a *Authenticator) SetSecondFactor(f SecondFactor) { a.second = f }

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
			return a.Basic(ctx, r.RemoteAddr, name, pw, r.Header.Get(OTPHeader))
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
// so a valid token is never throttled. A password of an account with
// two-factor sign-in also needs its one-time code, otp; without a valid one
// the answer is 401 (wrapping ErrSecondFactor), as Gitea's. A password of
// an account with a security key is refused the same way, code or not.
// Accounts of a sign-in source set to skip the local second factor need
// neither.
func (a *Authenticator) Basic(ctx context.Context, client, name, pw, otp string) (*Identity, error) {
	if a.isToken(pw) {
		if id, err := a.byToken(ctx, pw); err == nil {
			return id, nil
		}
	}
	if a.isToken(name) && (pw == "" || pw == "x-oauth-basic") {
		return a.byToken(ctx, name)
	}
	u, err := a.users.Authenticate(ctx, name, pw, client)
	if err != nil {
		return nil, err
	}
	if a.skipper != nil && a.skipper.SkipsLocalTwoFA(ctx, u) {
		return &Identity{User: u, Method: MethodPassword}, nil
	}
	if a.keys != nil {
		on, err := a.keys.Enabled(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		if on {
			return nil, &errs.Error{Kind: errs.KindUnauthorized, Message: "Basic authorization is not allowed while having security keys enrolled",
				Err: ErrSecondFactor}
		}
	}
	if a.second != nil {
		on, err := a.second.Enabled(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		if on {
			if otp = strings.TrimSpace(otp); otp == "" {
				return nil, &errs.Error{Kind: errs.KindUnauthorized, Message: "invalid provided OTP", Err: ErrSecondFactor}
			}
			if err := a.second.Verify(ctx, u.ID, otp); err != nil {
				if errs.Is(err, errs.KindUnauthorized) {
					return nil, &errs.Error{Kind: errs.KindUnauthorized, Message: "invalid provided OTP", Err: ErrSecondFactor}
				}
				return nil, err
			}
		}
		return &Identity{User: u, Method: MethodPassword, SecondFactor: on}, nil
	}
	return &Identity{User: u, Method: MethodPassword}, nil
}

func (a *Authenticator) byToken(ctx context.Context, plain string) (*Identity, error) {
	if a.oauth2 != nil && a.oauth2.IsAccessToken(plain) {
		u, tok, err := a.oauth2.LookupAccessToken(ctx, plain)
		if err != nil {
			return nil, err
		}
		return &Identity{User: u, Token: tok, Method: MethodToken}, nil
	}
	tok, u, err := a.tokens.Lookup(ctx, plain)
	if err != nil {
		return nil, err
	}
	return &Identity{User: u, Token: tok, Method: MethodToken}, nil
}
