package oauth2

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Provider is the OAuth2 authorization server (RFC 6749, authorization code
// grant with PKCE, RFC 7636): it records users' consent (grants), issues
// one-time authorization codes, exchanges them for access and refresh
// tokens, rotates refresh tokens, and recognizes its access tokens for
// internal/auth. Codes and tokens are opaque random strings stored only as
// hashes.
type Provider struct {
	db    *db.DB
	apps  *Service
	store grantStore
	now   func() time.Time
	// accessTTL and refreshTTL are the tokens' lifetimes.
	accessTTL, refreshTTL time.Duration
	// idTokens signs OpenID Connect ID tokens; nil issues none.
	idTokens IDTokenIssuer
}

// IDTokenIssuer makes the OpenID Connect ID token (OpenID Connect Core
// section 2) of a token response whose scope has "openid".
type IDTokenIssuer interface {
	IDToken(ctx context.Context, req IDTokenRequest) (string, error)
}

// IDTokenRequest is what an ID token is made of: the client and the
// secret it authenticated with (the key of HMAC-signed tokens), the user,
// the grant's scope, the authorization request's nonce, the time the user
// signed in, and the time of issue.
type IDTokenRequest struct {
	App          *Application
	ClientSecret string
	UserID       int64
	Scope        string
	Nonce        string
	AuthTime     time.Time
	Issued       time.Time
	Expires      time.Time
}

// SetIDTokens makes the provider issue ID tokens with issuer.
func (p *Provider) SetIDTokens(issuer IDTokenIssuer) { p.idTokens = issuer }

// codeTTL is how long an authorization code may be exchanged.
const codeTTL = 10 * time.Minute

// Token prefixes tell the provider's strings apart from personal access
// tokens (40 hex digits) and client secrets (gto_).
const (
	accessPrefix  = "gtoa_"
	refreshPrefix = "gtor_"
	codePrefix    = "gtoc_"
)

// NewProvider returns the provider of apps' applications. accessTTL and
// refreshTTL come from [oauth2] ACCESS_TOKEN_EXPIRATION_TIME and
// REFRESH_TOKEN_EXPIRATION_TIME.
func NewProvider(d *db.DB, apps *Service, accessTTL, refreshTTL time.Duration) *Provider {
	return &Provider{db: d, apps: apps, store: grantStore{d}, now: time.Now, accessTTL: accessTTL, refreshTTL: refreshTTL}
}

// AccessTTL is the lifetime of the access tokens issued.
func (p *Provider) AccessTTL() time.Duration { return p.accessTTL }

// Error is an OAuth2 error (RFC 6749 sections 4.1.2.1 and 5.2): Code is the
// "error" value, Description the "error_description".
type Error struct {
	Code        string
	Description string
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

// The error codes of RFC 6749.
const (
	ErrInvalidRequest          = "invalid_request"
	ErrInvalidClient           = "invalid_client"
	ErrInvalidGrant            = "invalid_grant"
	ErrUnsupportedGrantType    = "unsupported_grant_type"
	ErrUnsupportedResponseType = "unsupported_response_type"
	ErrInvalidScope            = "invalid_scope"
	ErrAccessDenied            = "access_denied"
)

func oauthErr(code, desc string) *Error { return &Error{Code: code, Description: desc} }

// AuthRequest is a checked authorization request (the query of
// /login/oauth/authorize, or the consent form that repeats it).
type AuthRequest struct {
	App                 *Application
	RedirectURI         string
	State               string
	Scope               string
	CodeChallenge       string
	CodeChallengeMethod string
	// Nonce is OpenID Connect's nonce, repeated in the ID token.
	Nonce string
}

// identityScopes are the OpenID Connect scopes: they grant no API access of
// their own (as Gitea's provider treats them).
var identityScopes = []string{"openid", "profile", "email", "groups"}

// normalizeScope returns the requested scope as a space-separated list
// without repeats.
func normalizeScope(raw string) string {
	var out []string
	for _, s := range strings.Fields(raw) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

// TokenScope maps a grant's OAuth2 scope onto Cairn's token scopes as
// Gitea 1.23 does: the OpenID Connect scopes grant nothing, the
// personal-access-token scope names (read:repository, public-only, ...)
// grant what they name, and a request without any of those grants "all".
// Names neither kind knows are ignored (Gitea falls back to "all" then).
func TokenScope(scope string) auth.Scope {
	var names []string
	for _, s := range strings.Fields(scope) {
		if slices.Contains(identityScopes, s) {
			continue
		}
		if _, err := auth.ParseScopes([]string{s}); err == nil && !strings.Contains(s, ",") {
			names = append(names, s)
		}
	}
	if len(names) > 0 {
		if sc, err := auth.ParseScopes(names); err == nil {
			return sc // "public-only" alone grants no category, as in Gitea
		}
	}
	all, _ := auth.ParseScopes([]string{"all"})
	return all
}

// CheckClient finds the application of an authorization request and checks
// its redirect URI. Its errors must be shown to the user, never redirected:
// the redirect URI is not trusted.
func (p *Provider) CheckClient(ctx context.Context, clientID, redirectURI string) (*Application, error) {
	if clientID == "" {
		return nil, errs.Invalid("the client_id parameter is missing")
	}
	app, err := p.apps.ByClientID(ctx, clientID)
	if errs.IsNotFound(err) {
		return nil, errs.Invalid("the client_id %q names no application", clientID)
	}
	if err != nil {
		return nil, err
	}
	if redirectURI == "" || !app.AllowsRedirect(redirectURI) {
		return nil, errs.Invalid("the redirect_uri %q is not registered for this application", redirectURI)
	}
	return app, nil
}

// CheckRequest checks the rest of an authorization request of app (its
// client and redirect URI already checked): these errors are redirected to
// the client.
func CheckRequest(app *Application, redirectURI, responseType, state, scope, challenge, method, nonce string) (*AuthRequest, *Error) {
	if responseType != "code" {
		return nil, oauthErr(ErrUnsupportedResponseType, "only response_type=code is supported")
	}
	if challenge == "" {
		if method != "" {
			return nil, oauthErr(ErrInvalidRequest, "code_challenge_method without code_challenge")
		}
		if !app.ConfidentialClient {
			return nil, oauthErr(ErrInvalidRequest, "PKCE is required for public clients")
		}
	} else {
		if method == "" {
			method = "plain" // RFC 7636 section 4.3
		}
		if method != "S256" && method != "plain" {
			return nil, oauthErr(ErrInvalidRequest, "unsupported code_challenge_method")
		}
		if !validVerifier(challenge) {
			return nil, oauthErr(ErrInvalidRequest, "invalid code_challenge")
		}
	}
	if len(state) > 1024 || len(scope) > 1024 {
		return nil, oauthErr(ErrInvalidRequest, "state or scope too long")
	}
	if len(nonce) > maxNonceLength {
		return nil, oauthErr(ErrInvalidRequest, "nonce too long")
	}
	return &AuthRequest{App: app, RedirectURI: redirectURI, State: state, Scope: normalizeScope(scope),
		CodeChallenge: challenge, CodeChallengeMethod: method, Nonce: nonce}, nil
}

// maxNonceLength bounds the nonce kept with a code.
const maxNonceLength = 255

// validVerifier checks the form of a PKCE code verifier or challenge
// (RFC 7636 section 4.1: 43 to 128 unreserved characters).
func validVerifier(s string) bool {
	if len(s) < 43 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// NeedsConsent reports whether uid must be asked before the request is
// granted. The first authorization of an application is always asked, as
// is any with another scope than the one granted. A confidential client
// (its redirects go to a server that holds a secret), or an application
// marked skip_secondary_authorization, is not asked again for the scope
// uid already granted; other public clients always are (RFC 6749 section
// 10.2: anyone can pose as a public client), as in Gitea.
func (p *Provider) NeedsConsent(ctx context.Context, uid int64, req *AuthRequest) (bool, error) {
	if !req.App.ConfidentialClient && !req.App.SkipSecondaryAuthorization {
		return true, nil
	}
	g, err := p.store.grantOf(ctx, uid, req.App.ID)
	if err != nil || g == nil {
		return true, err
	}
	return g.scope != req.Scope, nil
}

// Authorize records uid's consent to req (a grant) and returns a one-time
// authorization code bound to the client, redirect URI, user, scope, PKCE
// challenge and nonce. authTime is when uid signed in.
func (p *Provider) Authorize(ctx context.Context, uid int64, req *AuthRequest, authTime time.Time) (string, error) {
	code, hash, err := newOpaque(codePrefix)
	if err != nil {
		return "", err
	}
	now := p.now()
	err = p.db.WithTx(ctx, func(ctx context.Context) error {
		gid, err := p.store.upsertGrant(ctx, uid, req.App.ID, req.Scope, now.Unix())
		if err != nil {
			return err
		}
		return p.store.insertCode(ctx, gid, codeInsert{hash: hash, redirectURI: req.RedirectURI, scope: req.Scope,
			challenge: req.CodeChallenge, method: req.CodeChallengeMethod, nonce: req.Nonce,
			expires: now.Add(codeTTL).Unix(), authTime: authTime.Unix()})
	})
	return code, err
}

// TokenResponse is a successful token endpoint answer (RFC 6749 section 5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope,omitempty"`
	// IDToken is the OpenID Connect ID token, for an "openid" scope.
	IDToken string `json:"id_token,omitempty"`
}

// ClientCredentials are what a token request says of its client: a
// confidential client gives its secret, a public one its id only.
type ClientCredentials struct {
	ClientID, Secret string
	// Basic: they came in the Authorization header (the 401 then names
	// the Basic scheme).
	Basic bool
}

// authenticateClient checks a token request's client: a secret, when
// given, must be the client's; a confidential client must give it.
func (p *Provider) authenticateClient(ctx context.Context, c ClientCredentials) (*Application, *Error) {
	if c.ClientID == "" {
		return nil, oauthErr(ErrInvalidClient, "client authentication is required")
	}
	if c.Secret != "" {
		app, err := p.apps.VerifySecret(ctx, c.ClientID, c.Secret)
		if err != nil {
			return nil, oauthErr(ErrInvalidClient, "invalid client credentials")
		}
		return app, nil
	}
	app, err := p.apps.ByClientID(ctx, c.ClientID)
	if err != nil || app.ConfidentialClient {
		return nil, oauthErr(ErrInvalidClient, "invalid client credentials")
	}
	return app, nil
}

// ExchangeCode redeems an authorization code (grant_type=authorization_code).
// The code is used once: a second use revokes every token it led to.
// Whenever the authorization request had a PKCE challenge, the verifier
// must match it, whatever the client.
func (p *Provider) ExchangeCode(ctx context.Context, c ClientCredentials, code, redirectURI, verifier string) (*TokenResponse, error) {
	app, oerr := p.authenticateClient(ctx, c)
	if oerr != nil {
		return nil, oerr
	}
	if code == "" {
		return nil, oauthErr(ErrInvalidRequest, "the code parameter is missing")
	}
	var resp *TokenResponse
	var reused bool
	var id IDTokenRequest
	err := p.db.WithTx(ctx, func(ctx context.Context) error {
		ac, err := p.store.codeByHash(ctx, hashSecret(code))
		if err != nil {
			return err
		}
		if ac == nil || ac.appID != app.ID {
			return oauthErr(ErrInvalidGrant, "invalid authorization code")
		}
		if ac.used {
			reused = true
			return p.store.revokeChain(ctx, ac.grantID, ac.id)
		}
		now := p.now()
		if now.Unix() >= ac.expires {
			return oauthErr(ErrInvalidGrant, "the authorization code has expired")
		}
		if ac.redirectURI != redirectURI {
			return oauthErr(ErrInvalidGrant, "redirect_uri does not match the authorization request")
		}
		if ac.challenge != "" && !verifierMatches(ac.challenge, ac.method, verifier) {
			return oauthErr(ErrInvalidGrant, "the code_verifier does not match the code_challenge")
		}
		if !app.ConfidentialClient && ac.challenge == "" {
			return oauthErr(ErrInvalidGrant, "PKCE is required for public clients")
		}
		if ok, err := p.store.useCode(ctx, ac.id); err != nil || !ok {
			if err == nil {
				err = oauthErr(ErrInvalidGrant, "invalid authorization code")
			}
			return err
		}
		resp, err = p.issue(ctx, ac.grantID, ac.id, ac.scope, now, ac.authTime)
		id = IDTokenRequest{App: app, ClientSecret: c.Secret, UserID: ac.uid, Scope: ac.scope, Nonce: ac.nonce,
			AuthTime: time.Unix(ac.authTime, 0), Issued: now}
		return err
	})
	if reused && err == nil {
		err = oauthErr(ErrInvalidGrant, "the authorization code has already been used")
	}
	if err != nil {
		return nil, err
	}
	return resp, p.addIDToken(ctx, resp, id)
}

// addIDToken adds the ID token to resp when its scope asks for one.
func (p *Provider) addIDToken(ctx context.Context, resp *TokenResponse, id IDTokenRequest) error {
	if p.idTokens == nil || !slices.Contains(strings.Fields(id.Scope), "openid") {
		return nil
	}
	id.Expires = id.Issued.Add(p.accessTTL)
	tok, err := p.idTokens.IDToken(ctx, id)
	if err != nil {
		return err
	}
	resp.IDToken = tok
	return nil
}

// verifierMatches checks a PKCE verifier against its challenge (RFC 7636
// section 4.6), in constant time.
func verifierMatches(challenge, method, verifier string) bool {
	if !validVerifier(verifier) {
		return false
	}
	want := verifier
	if method == "S256" {
		sum := sha256.Sum256([]byte(verifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

// Refresh exchanges a refresh token for a new pair (grant_type=refresh_token).
// Refresh tokens rotate: each works once. A refresh token used again (a
// sign that it leaked) revokes the whole grant: every token of it stops
// working, and the user is asked for consent again.
func (p *Provider) Refresh(ctx context.Context, c ClientCredentials, refresh string) (*TokenResponse, error) {
	app, oerr := p.authenticateClient(ctx, c)
	if oerr != nil {
		return nil, oerr
	}
	if refresh == "" {
		return nil, oauthErr(ErrInvalidRequest, "the refresh_token parameter is missing")
	}
	if !strings.HasPrefix(refresh, refreshPrefix) {
		return nil, oauthErr(ErrInvalidGrant, "invalid refresh token")
	}
	var resp *TokenResponse
	var reused bool
	var id IDTokenRequest
	err := p.db.WithTx(ctx, func(ctx context.Context) error {
		t, err := p.store.tokenByHash(ctx, hashSecret(refresh), kindRefresh)
		if err != nil {
			return err
		}
		if t == nil || t.appID != app.ID {
			return oauthErr(ErrInvalidGrant, "invalid refresh token")
		}
		if t.revoked {
			return oauthErr(ErrInvalidGrant, "the refresh token has been revoked")
		}
		if t.replaced {
			reused = true
			return p.store.removeGrant(ctx, t.grantID)
		}
		now := p.now()
		if now.Unix() >= t.expires {
			return oauthErr(ErrInvalidGrant, "the refresh token has expired")
		}
		if ok, err := p.store.replaceToken(ctx, t.id); err != nil || !ok {
			if err == nil {
				err = oauthErr(ErrInvalidGrant, "invalid refresh token")
			}
			return err
		}
		resp, err = p.issue(ctx, t.grantID, t.chainID, t.scope, now, t.authTime)
		// A refreshed ID token has no nonce (OpenID Connect Core
		// section 12.2) and the original sign-in's auth_time.
		id = IDTokenRequest{App: app, ClientSecret: c.Secret, UserID: t.uid, Scope: t.scope,
			AuthTime: time.Unix(t.authTime, 0), Issued: now}
		return err
	})
	if reused && err == nil {
		err = oauthErr(ErrInvalidGrant, "the refresh token has already been used; the grant is revoked")
	}
	if err != nil {
		return nil, err
	}
	return resp, p.addIDToken(ctx, resp, id)
}

// issue stores a new access and refresh token of grant gid in chain.
func (p *Provider) issue(ctx context.Context, gid, chain int64, scope string, now time.Time, authTime int64) (*TokenResponse, error) {
	access, accessHash, err := newOpaque(accessPrefix)
	if err != nil {
		return nil, err
	}
	refresh, refreshHash, err := newOpaque(refreshPrefix)
	if err != nil {
		return nil, err
	}
	if err := p.store.insertToken(ctx, gid, chain, accessHash, kindAccess, scope, now.Add(p.accessTTL).Unix(), now.Unix(), authTime); err != nil {
		return nil, err
	}
	if err := p.store.insertToken(ctx, gid, chain, refreshHash, kindRefresh, scope, now.Add(p.refreshTTL).Unix(), now.Unix(), authTime); err != nil {
		return nil, err
	}
	return &TokenResponse{AccessToken: access, TokenType: "bearer", ExpiresIn: int64(p.accessTTL / time.Second),
		RefreshToken: refresh, Scope: scope}, nil
}

// IsAccessToken reports whether s has the form of the provider's access
// tokens (auth.OAuth2Tokens).
func (p *Provider) IsAccessToken(s string) bool {
	return strings.HasPrefix(s, accessPrefix) && len(s) == len(accessPrefix)+opaqueLength
}

// LookupAccessToken returns the user of a live access token and the token
// scope its OAuth2 scope maps to (auth.OAuth2Tokens). An expired or revoked token,
// or one whose user may not sign in, is a 401.
func (p *Provider) LookupAccessToken(ctx context.Context, plain string) (*user.User, *auth.Token, error) {
	if !p.IsAccessToken(plain) {
		return nil, nil, errs.Unauthorized("invalid token")
	}
	u, t, err := p.store.accessToken(ctx, hashSecret(plain))
	if err != nil {
		return nil, nil, err
	}
	if u == nil || t.revoked || p.now().Unix() >= t.expires || !u.CanSignIn() {
		return nil, nil, errs.Unauthorized("invalid token")
	}
	return u, &auth.Token{UserID: u.ID, Name: "oauth2", Scope: TokenScope(t.scope), Created: time.Unix(t.created, 0)}, nil
}

// TokenUser returns the user of a live access token and the token's OAuth2
// scope, for the userinfo endpoint.
func (p *Provider) TokenUser(ctx context.Context, plain string) (*user.User, string, error) {
	if !p.IsAccessToken(plain) {
		return nil, "", errs.Unauthorized("invalid token")
	}
	u, t, err := p.store.accessToken(ctx, hashSecret(plain))
	if err != nil {
		return nil, "", err
	}
	if u == nil || t.revoked || p.now().Unix() >= t.expires || !u.CanSignIn() {
		return nil, "", errs.Unauthorized("invalid token")
	}
	return u, t.scope, nil
}

// opaqueLength is the length of the random part of codes and tokens:
// 256 bits in unpadded base32.
const opaqueLength = 52

// newOpaque returns a random string with prefix and its stored hash.
func newOpaque(prefix string) (plain, hash string, err error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", err
	}
	plain = prefix + secretEncoding.EncodeToString(raw)
	return plain, hashSecret(plain), nil
}

// Prune deletes the codes and tokens that have expired: an expired code or
// token is refused whatever its state, so its row serves no purpose.
// Grants stay: they record the user's consent.
func (p *Provider) Prune(ctx context.Context) error {
	return p.store.prune(ctx, p.now().Unix())
}
