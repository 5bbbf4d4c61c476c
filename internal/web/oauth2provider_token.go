package web

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/oauth2"
)

// tokenFormLimit bounds a token request's form: a few short fields.
const tokenFormLimit = 64 << 10

// oauth2AccessToken is POST /login/oauth/access_token: the token endpoint
// (RFC 6749 section 3.2), for clients, not browsers. The client
// authenticates with HTTP Basic or client_id and client_secret in the
// body; a public client gives its client_id and its PKCE verifier. Errors
// are RFC 6749 JSON; invalid_client answers 401.
func (h *Handler) oauth2AccessToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, tokenFormLimit)
	if err := r.ParseForm(); err != nil {
		writeOAuth2Error(w, &oauth2.Error{Code: oauth2.ErrInvalidRequest, Description: "the request body is not a valid form"}, false)
		return
	}
	creds, ok := clientCredentials(r)
	if !ok {
		writeOAuth2Error(w, &oauth2.Error{Code: oauth2.ErrInvalidRequest, Description: "invalid client authentication"}, false)
		return
	}
	var resp *oauth2.TokenResponse
	var err error
	switch r.PostFormValue("grant_type") {
	case "authorization_code":
		resp, err = h.OAuth2Provider.ExchangeCode(r.Context(), creds, r.PostFormValue("code"),
			r.PostFormValue("redirect_uri"), r.PostFormValue("code_verifier"))
	case "refresh_token":
		resp, err = h.OAuth2Provider.Refresh(r.Context(), creds, r.PostFormValue("refresh_token"))
	case "":
		err = &oauth2.Error{Code: oauth2.ErrInvalidRequest, Description: "the grant_type parameter is missing"}
	default:
		err = &oauth2.Error{Code: oauth2.ErrUnsupportedGrantType, Description: "only authorization_code and refresh_token are supported"}
	}
	var oerr *oauth2.Error
	switch {
	case errors.As(err, &oerr):
		writeOAuth2Error(w, oerr, creds.Basic)
		return
	case err != nil:
		slog.Error("web: oauth2 token endpoint", "err", err)
		writeOAuth2JSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	writeOAuth2JSON(w, http.StatusOK, resp)
}

// clientCredentials reads a token request's client authentication: HTTP
// Basic (its parts form-encoded, RFC 6749 section 2.3.1) or the body's
// client_id and client_secret. Both at once, or disagreeing ids, are
// refused (ok false).
func clientCredentials(r *http.Request) (oauth2.ClientCredentials, bool) {
	c := oauth2.ClientCredentials{ClientID: r.PostFormValue("client_id"), Secret: r.PostFormValue("client_secret")}
	h := r.Header.Get("Authorization")
	if h == "" {
		return c, true
	}
	scheme, rest, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "basic") {
		return c, false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return c, false
	}
	id, secret, found := strings.Cut(string(raw), ":")
	if !found {
		return c, false
	}
	if id, err = url.QueryUnescape(id); err != nil {
		return c, false
	}
	if secret, err = url.QueryUnescape(secret); err != nil {
		return c, false
	}
	if c.Secret != "" || (c.ClientID != "" && c.ClientID != id) {
		return c, false
	}
	return oauth2.ClientCredentials{ClientID: id, Secret: secret, Basic: true}, true
}

// writeOAuth2Error writes an RFC 6749 error: 401 with a Basic challenge
// for invalid_client when the client used Basic, else 400.
func writeOAuth2Error(w http.ResponseWriter, e *oauth2.Error, basic bool) {
	status := http.StatusBadRequest
	if e.Code == oauth2.ErrInvalidClient {
		status = http.StatusUnauthorized
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="Cairn"`)
		}
	}
	writeOAuth2JSON(w, status, map[string]string{"error": e.Code, "error_description": e.Description})
}

// writeOAuth2JSON writes v as JSON, never cached (RFC 6749 section 5.1).
func writeOAuth2JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauth2UserInfo is the answer of the userinfo endpoint (OpenID Connect
// Core section 5.3), with the claims Gitea's has.
type oauth2UserInfo struct {
	Sub               string   `json:"sub"`
	Name              string   `json:"name"`
	PreferredUsername string   `json:"preferred_username"`
	Email             string   `json:"email"`
	Picture           string   `json:"picture"`
	Groups            []string `json:"groups"`
}

// maxGroups bounds the organizations and teams userinfo lists.
const maxGroups = 500

// oauth2UserInfoEndpoint is GET /login/oauth/userinfo: who the bearer of
// an access token of the provider is. groups lists the user's
// organizations and "org:team" for their teams (public memberships only
// for a public-only grant).
func (h *Handler) oauth2UserInfoEndpoint(w http.ResponseWriter, r *http.Request) {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "bearer") || tok == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="Cairn"`)
		writeOAuth2JSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "a bearer access token is required"})
		return
	}
	u, scope, err := h.OAuth2Provider.TokenUser(r.Context(), strings.TrimSpace(tok))
	if errs.Is(err, errs.KindUnauthorized) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="Cairn", error="invalid_token"`)
		writeOAuth2JSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "the access token is invalid or expired"})
		return
	}
	if err != nil {
		slog.Error("web: oauth2 userinfo", "err", err)
		writeOAuth2JSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	info := oauth2UserInfo{Sub: strconv.FormatInt(u.ID, 10), Name: u.FullName, PreferredUsername: u.Name, Email: u.Email,
		Picture: h.rootURL + "avatars/" + url.PathEscape(u.LowerName), Groups: []string{}}
	if info.Name == "" {
		info.Name = u.Name
	}
	if u.Avatar != "" {
		info.Picture = h.rootURL + "avatars/custom/" + url.PathEscape(u.Avatar)
	}
	publicOnly := oauth2.TokenScope(scope).PublicOnly
	orgs, _, err := h.Orgs.ListUserOrgs(r.Context(), u.ID, !publicOnly, "", nil, maxGroups, 0)
	if err == nil {
		for _, o := range orgs {
			info.Groups = append(info.Groups, o.Name)
		}
		var names map[int64]string
		teams, orgsOfTeams, _, terr := h.Orgs.ListUserTeams(r.Context(), u.ID, "", nil, maxGroups, 0)
		err = terr
		if err == nil {
			names = map[int64]string{}
			for _, o := range orgs {
				names[o.ID] = o.Name
			}
			for _, t := range teams {
				// A team of an organization left out above (a private
				// membership under public-only) is left out too.
				if name, ok := names[t.OrgID]; ok && orgsOfTeams[t.OrgID] != nil {
					info.Groups = append(info.Groups, name+":"+t.LowerName)
				}
			}
		}
	}
	if err != nil {
		slog.Error("web: oauth2 userinfo groups", "err", err)
		writeOAuth2JSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	writeOAuth2JSON(w, http.StatusOK, info)
}
