package oidc

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/cors"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/oauth2"
)

// Endpoints serves the OpenID Connect provider's endpoints for clients:
// token, userinfo, keys, introspection, revocation and discovery. Each
// carries its own credentials (client secret, PKCE verifier, bearer
// token), never a session cookie, so none needs a CSRF token, and with
// [cors] ENABLED a browser application on another origin may call them.
type Endpoints struct {
	Provider *oauth2.Provider
	Issuer   *Issuer
	// RootURL is the issuer, ending in "/".
	RootURL string
	CORS    config.CORSSection
}

// formLimit bounds the forms of token, introspection and revocation
// requests: a few short fields.
const formLimit = 64 << 10

// Paths are the endpoints' paths: with the provider off ([oauth2] ENABLED
// = false) they answer 404 rather than reach the web interface.
func Paths() []string {
	return []string{"/login/oauth/access_token", "/login/oauth/userinfo", "/login/oauth/keys", "/login/oauth/introspect",
		"/login/oauth/revoke", "/.well-known/openid-configuration"}
}

// Register adds the endpoints with handle, at Gitea's paths.
func (e *Endpoints) Register(handle func(pattern string, h http.Handler)) {
	handle("/login/oauth/access_token", e.endpoint(e.token, http.MethodPost))
	handle("/login/oauth/userinfo", e.endpoint(e.userInfo, http.MethodGet, http.MethodPost))
	handle("/login/oauth/keys", e.endpoint(e.keys, http.MethodGet, http.MethodHead))
	handle("/login/oauth/introspect", e.endpoint(e.introspect, http.MethodPost))
	handle("/login/oauth/revoke", e.endpoint(e.revoke, http.MethodPost))
	handle("/.well-known/openid-configuration", e.endpoint(e.discovery, http.MethodGet, http.MethodHead))
}

// endpoint wraps h: other methods answer 405, the security headers are
// set, and with [cors] ENABLED cross-origin requests and their preflight
// get the CORS headers. Without it an OPTIONS request answers 405, as in
// Gitea.
func (e *Endpoints) endpoint(h http.HandlerFunc, methods ...string) http.Handler {
	allow := strings.Join(methods, ", ")
	var next http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if xfo := e.CORS.XFrameOptions; xfo != "" && !strings.EqualFold(xfo, "unset") {
			w.Header().Set("X-Frame-Options", xfo)
		}
		if !slices.Contains(methods, r.Method) {
			w.Header().Set("Allow", allow)
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "invalid_request",
				"error_description": "this endpoint accepts " + allow})
			return
		}
		h(w, r)
	})
	if mw := cors.Middleware(e.CORS, "Authorization"); mw != nil {
		return mw(next)
	}
	return next
}

// token is POST /login/oauth/access_token: the token endpoint (RFC 6749
// section 3.2). The client authenticates with HTTP Basic or client_id
// and client_secret in the body; a public client gives its client_id and
// its PKCE verifier. Errors are RFC 6749 JSON; invalid_client answers 401.
func (e *Endpoints) token(w http.ResponseWriter, r *http.Request) {
	creds, ok := clientForm(w, r)
	if !ok {
		return
	}
	var resp *oauth2.TokenResponse
	var err error
	switch r.PostFormValue("grant_type") {
	case "authorization_code":
		resp, err = e.Provider.ExchangeCode(r.Context(), creds, r.PostFormValue("code"),
			r.PostFormValue("redirect_uri"), r.PostFormValue("code_verifier"))
	case "refresh_token":
		resp, err = e.Provider.Refresh(r.Context(), creds, r.PostFormValue("refresh_token"))
	case "":
		err = &oauth2.Error{Code: oauth2.ErrInvalidRequest, Description: "the grant_type parameter is missing"}
	default:
		err = &oauth2.Error{Code: oauth2.ErrUnsupportedGrantType, Description: "only authorization_code and refresh_token are supported"}
	}
	if !writeFailure(w, "token", err, creds.Basic) {
		writeJSON(w, http.StatusOK, resp)
	}
}

// writeFailure writes err (an RFC 6749 error, else a server error) and
// reports whether there was one.
func writeFailure(w http.ResponseWriter, endpoint string, err error, basic bool) bool {
	var oerr *oauth2.Error
	switch {
	case err == nil:
		return false
	case errors.As(err, &oerr):
		writeError(w, oerr, basic)
	default:
		slog.Error("oidc: "+endpoint+" endpoint", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
	}
	return true
}

// parseClientForm reads a client's form body (at most formLimit bytes),
// answering invalid_request when it is no form.
func parseClientForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, formLimit)
	if err := r.ParseForm(); err != nil {
		writeError(w, &oauth2.Error{Code: oauth2.ErrInvalidRequest, Description: "the request body is not a valid form"}, false)
		return false
	}
	return true
}

// clientForm reads a client's form body and its client authentication
// (clientCredentials), answering invalid_request when either is wrong.
func clientForm(w http.ResponseWriter, r *http.Request) (oauth2.ClientCredentials, bool) {
	if !parseClientForm(w, r) {
		return oauth2.ClientCredentials{}, false
	}
	creds, ok := clientCredentials(r)
	if !ok {
		writeError(w, &oauth2.Error{Code: oauth2.ErrInvalidRequest, Description: "invalid client authentication"}, false)
	}
	return creds, ok
}

// clientCredentials reads a request's client authentication: HTTP Basic
// (its parts form-encoded, RFC 6749 section 2.3.1) or the body's client_id
// and client_secret. Both at once, or disagreeing ids, are refused (ok
// false).
func clientCredentials(r *http.Request) (oauth2.ClientCredentials, bool) {
	c := oauth2.ClientCredentials{ClientID: r.PostFormValue("client_id"), Secret: r.PostFormValue("client_secret")}
	h := r.Header.Get("Authorization")
	if h == "" {
		return c, true
	}
	id, secret, ok := basicAuth(h)
	if !ok || c.Secret != "" || (c.ClientID != "" && c.ClientID != id) {
		return c, false
	}
	return oauth2.ClientCredentials{ClientID: id, Secret: secret, Basic: true}, true
}

// basicAuth decodes an HTTP Basic Authorization header whose parts are
// form-encoded (RFC 6749 section 2.3.1).
func basicAuth(h string) (id, secret string, ok bool) {
	scheme, rest, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return "", "", false
	}
	id, secret, found := strings.Cut(string(raw), ":")
	if !found {
		return "", "", false
	}
	if id, err = url.QueryUnescape(id); err != nil {
		return "", "", false
	}
	if secret, err = url.QueryUnescape(secret); err != nil {
		return "", "", false
	}
	return id, secret, true
}

// writeError writes an RFC 6749 error: 401 with a Basic challenge for
// invalid_client when the client used Basic, else 400.
func writeError(w http.ResponseWriter, e *oauth2.Error, basic bool) {
	status := http.StatusBadRequest
	if e.Code == oauth2.ErrInvalidClient {
		status = http.StatusUnauthorized
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="Cairn"`)
		}
	}
	writeJSON(w, status, map[string]string{"error": e.Code, "error_description": e.Description})
}

// writeJSON writes v as JSON, never cached (RFC 6749 section 5.1).
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// userInfoResponse is the answer of the userinfo endpoint (OpenID Connect
// Core section 5.3), with the claims Gitea's has.
type userInfoResponse struct {
	Sub               string   `json:"sub"`
	Name              string   `json:"name"`
	PreferredUsername string   `json:"preferred_username"`
	Email             string   `json:"email"`
	Picture           string   `json:"picture"`
	Groups            []string `json:"groups"`
}

// userInfo is GET or POST /login/oauth/userinfo: who the bearer of an
// access token of the provider is. groups lists the user's organizations
// and "org:team" for their teams (public memberships only for a
// public-only grant).
func (e *Endpoints) userInfo(w http.ResponseWriter, r *http.Request) {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || tok == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="Cairn"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "a bearer access token is required"})
		return
	}
	u, scope, err := e.Provider.TokenUser(r.Context(), strings.TrimSpace(tok))
	if errs.Is(err, errs.KindUnauthorized) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="Cairn", error="invalid_token"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "the access token is invalid or expired"})
		return
	}
	var info userInfoResponse
	if err == nil {
		c := e.Issuer.Claims
		info = userInfoResponse{Sub: strconv.FormatInt(u.ID, 10), Name: displayName(u), PreferredUsername: u.Name,
			Email: u.Email, Picture: c.avatarURL(u)}
		info.Groups, err = c.Groups(r.Context(), u.ID, oauth2.TokenScope(scope).PublicOnly)
	}
	if err != nil {
		slog.Error("oidc: userinfo", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	writeJSON(w, http.StatusOK, info)
}

// keys is GET /login/oauth/keys: the JSON Web Key Set that verifies ID
// tokens. HMAC-signed tokens have no public key: 404.
func (e *Endpoints) keys(w http.ResponseWriter, r *http.Request) {
	if e.Issuer.Key.Symmetric() {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not_found",
			"error_description": "ID tokens are signed with " + e.Issuer.Key.Algorithm() + ", which has no public key"})
		return
	}
	set, err := e.Issuer.Key.PublicKeySet()
	if err != nil {
		slog.Error("oidc: signing key", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(set)
}

// introspectionResponse is RFC 7662 section 2.2's answer, with Gitea's
// username and the JWT claims it adds.
type introspectionResponse struct {
	Active    bool     `json:"active"`
	Scope     string   `json:"scope,omitempty"`
	ClientID  string   `json:"client_id,omitempty"`
	Username  string   `json:"username,omitempty"`
	TokenType string   `json:"token_type,omitempty"`
	Expires   int64    `json:"exp,omitempty"`
	IssuedAt  int64    `json:"iat,omitempty"`
	Subject   string   `json:"sub,omitempty"`
	Audience  []string `json:"aud,omitempty"`
	Issuer    string   `json:"iss,omitempty"`
}

// introspect is POST /login/oauth/introspect (RFC 7662): a confidential
// client, authenticated with HTTP Basic as Gitea asks, learns whether a
// token is live and whose it is.
func (e *Endpoints) introspect(w http.ResponseWriter, r *http.Request) {
	if !parseClientForm(w, r) {
		return
	}
	id, secret, ok := basicAuth(r.Header.Get("Authorization"))
	if !ok {
		writeError(w, &oauth2.Error{Code: oauth2.ErrInvalidClient, Description: "client authentication with HTTP Basic is required"}, true)
		return
	}
	in, err := e.Provider.Introspect(r.Context(), id, secret, r.PostFormValue("token"))
	if writeFailure(w, "introspection", err, true) {
		return
	}
	resp := introspectionResponse{Active: in.Active}
	if in.Active {
		resp = introspectionResponse{Active: true, Scope: in.Scope, ClientID: in.ClientID, Username: in.Username,
			TokenType: in.TokenType, Expires: in.Expires.Unix(), IssuedAt: in.Issued.Unix(),
			Subject: strconv.FormatInt(in.UserID, 10), Audience: []string{in.ClientID}, Issuer: e.RootURL}
	}
	writeJSON(w, http.StatusOK, resp)
}

// revoke is POST /login/oauth/revoke (RFC 7009): a client revokes an
// access or refresh token it was issued, and with it the grant. Unknown
// tokens answer 200 too (section 2.2).
func (e *Endpoints) revoke(w http.ResponseWriter, r *http.Request) {
	creds, ok := clientForm(w, r)
	if !ok {
		return
	}
	token := r.PostFormValue("token")
	if token == "" {
		writeError(w, &oauth2.Error{Code: oauth2.ErrInvalidRequest, Description: "the token parameter is missing"}, false)
		return
	}
	if writeFailure(w, "revocation", e.Provider.Revoke(r.Context(), creds, token), creds.Basic) {
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// discoveryDocument is the OpenID Provider Metadata (OpenID Connect
// Discovery section 3) with Gitea's fields, plus the revocation endpoint.
type discoveryDocument struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	JWKSURI                           string   `json:"jwks_uri"`
	UserinfoEndpoint                  string   `json:"userinfo_endpoint"`
	IntrospectionEndpoint             string   `json:"introspection_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	IDTokenSigningAlgValuesSupported  []string `json:"id_token_signing_alg_values_supported"`
	SubjectTypesSupported             []string `json:"subject_types_supported"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ClaimsSupported                   []string `json:"claims_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
}

// discovery is GET /.well-known/openid-configuration.
func (e *Endpoints) discovery(w http.ResponseWriter, r *http.Request) {
	base := e.RootURL
	doc := discoveryDocument{
		Issuer:                            base,
		AuthorizationEndpoint:             base + "login/oauth/authorize",
		TokenEndpoint:                     base + "login/oauth/access_token",
		JWKSURI:                           base + "login/oauth/keys",
		UserinfoEndpoint:                  base + "login/oauth/userinfo",
		IntrospectionEndpoint:             base + "login/oauth/introspect",
		RevocationEndpoint:                base + "login/oauth/revoke",
		ResponseTypesSupported:            []string{"code"},
		IDTokenSigningAlgValuesSupported:  []string{e.Issuer.Key.Algorithm()},
		SubjectTypesSupported:             []string{"public"},
		ScopesSupported:                   []string{"openid", "profile", "email", "groups"},
		ClaimsSupported:                   []string{"aud", "exp", "iat", "iss", "sub", "auth_time", "nonce", "name", "preferred_username", "profile", "picture", "website", "locale", "updated_at", "email", "email_verified", "groups"},
		CodeChallengeMethodsSupported:     []string{"plain", "S256"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post", "none"},
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(doc)
}
