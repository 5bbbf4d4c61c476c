package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/cairn-forge/cairn/internal/oauth2"
)

// oauth2ConsentPage is the data of the consent page: the checked request,
// repeated in the form's hidden fields, and what the scope grants.
type oauth2ConsentPage struct {
	Req   *oauth2.AuthRequest
	Owner string
	// Access names what the scope grants on the API ("all", "read:user", ...).
	Access []string
	// Identity lists the OpenID Connect scopes asked (profile, email, ...).
	Identity []string
}

// oauth2Authorize is GET /login/oauth/authorize: the authorization
// endpoint (RFC 6749 section 4.1.1). A signed-out visitor signs in first.
// A bad client or redirect URI is shown here, never redirected; other
// errors go back to the client. Without a prior grant of the same scope
// (or the application's skip_secondary_authorization), the user is asked.
func (h *Handler) oauth2Authorize(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	q := r.URL.Query()
	req, err := h.oauth2Request(w, r, q)
	if req == nil {
		return err
	}
	need, err := h.OAuth2Provider.NeedsConsent(r.Context(), doer(r).ID, req)
	if err != nil {
		return err
	}
	if !need {
		return h.oauth2IssueCode(w, r, req)
	}
	page := oauth2ConsentPage{Req: req}
	if !req.App.IsBuiltin() { // a built-in application is the instance's own
		owner, err := h.Users.Store.GetByID(r.Context(), req.App.OwnerID)
		if err != nil {
			return err
		}
		page.Owner = owner.Name
	}
	for _, s := range strings.Fields(req.Scope) {
		switch s {
		case "openid", "profile", "email", "groups":
			page.Identity = append(page.Identity, s)
		}
	}
	page.Access = oauth2.TokenScope(req.Scope).Names()
	// The consent form's answer redirects to the client: let the
	// Content-Security-Policy's form-action allow its origin.
	w.Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy,
		"form-action 'self'", "form-action 'self' "+redirectOrigin(req.RedirectURI), 1))
	return h.render(w, r, http.StatusOK, "oauth2_authorize", "Authorize "+req.App.Name, page)
}

// oauth2Grant is POST /login/oauth/grant: the consent form's answer.
// "granted=true" issues a code; anything else tells the client the user
// refused (access_denied).
func (h *Handler) oauth2Grant(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	req, err := h.oauth2Request(w, r, r.PostForm)
	if req == nil {
		return err
	}
	if r.PostFormValue("granted") != "true" {
		http.Redirect(w, r, oauth2RedirectURL(req.RedirectURI, url.Values{"error": {oauth2.ErrAccessDenied},
			"error_description": {"the user denied the request"}}, req.State), http.StatusSeeOther)
		return nil
	}
	return h.oauth2IssueCode(w, r, req)
}

// oauth2Request checks an authorization request's parameters. It returns
// nil and an error to show for a bad client or redirect URI, nil and nil
// when it has redirected another error to the client.
func (h *Handler) oauth2Request(w http.ResponseWriter, r *http.Request, q url.Values) (*oauth2.AuthRequest, error) {
	redirectURI := q.Get("redirect_uri")
	app, err := h.OAuth2Provider.CheckClient(r.Context(), q.Get("client_id"), redirectURI)
	if err != nil {
		return nil, err
	}
	req, oerr := oauth2.CheckRequest(app, redirectURI, q.Get("response_type"), q.Get("state"), q.Get("scope"),
		q.Get("code_challenge"), q.Get("code_challenge_method"), q.Get("nonce"))
	if oerr != nil {
		http.Redirect(w, r, oauth2RedirectURL(redirectURI, url.Values{"error": {oerr.Code},
			"error_description": {oerr.Description}}, q.Get("state")), http.StatusSeeOther)
		return nil, nil
	}
	return req, nil
}

// oauth2IssueCode records the grant and sends the user back to the client
// with a one-time code.
func (h *Handler) oauth2IssueCode(w http.ResponseWriter, r *http.Request, req *oauth2.AuthRequest) error {
	code, err := h.OAuth2Provider.Authorize(r.Context(), doer(r).ID, req, visitorOf(r).sess.Created)
	if err != nil {
		return err
	}
	http.Redirect(w, r, oauth2RedirectURL(req.RedirectURI, url.Values{"code": {code}}, req.State), http.StatusSeeOther)
	return nil
}

// oauth2RedirectURL adds params (and state, when given) to the query of a
// checked redirect URI, keeping the query it has.
func oauth2RedirectURL(redirectURI string, params url.Values, state string) string {
	u, err := url.Parse(redirectURI)
	if err != nil { // registered URIs parse; be safe anyway
		return "/"
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// redirectOrigin is what a Content-Security-Policy source list names for a
// redirect URI: its origin, or its scheme for a private-use scheme.
// Characters outside host names, ports and schemes are refused, so a URI
// cannot add to the policy.
func redirectOrigin(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return ""
	}
	src := u.Scheme + ":"
	if u.Scheme == "http" || u.Scheme == "https" {
		src = u.Scheme + "://" + u.Host
	}
	if strings.IndexFunc(src, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-+:/[]", c))
	}) >= 0 {
		return ""
	}
	return src
}
