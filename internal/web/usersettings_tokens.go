package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
)

// tokenScopeCategories are the scope categories the form offers, in
// Gitea's order (each at none, read or write).
func tokenScopeCategories() []string {
	return []string{"activitypub", "admin", "issue", "misc", "notification", "organization", "package", "repository", "user"}
}

// applicationsPage is the data of /user/settings/applications.
type applicationsPage struct {
	Tabs   []settingsTab
	Tokens []*auth.Token
	// Categories are the scope categories; Levels what the form had chosen.
	Categories []string
	Levels     map[string]string
	PublicOnly bool
	Name       string
	Error      string
	// NewToken is the plaintext of a token just created, shown this once.
	NewToken, NewTokenName string
	// OAuth2 is the OAuth2 applications section (oauth2apps_settings.go).
	OAuth2 oauth2Section
}

// tokenListLimit bounds the tokens listed (more is not a realistic account).
const tokenListLimit = 200

func (h *Handler) renderApplications(w http.ResponseWriter, r *http.Request, status int, data applicationsPage) error {
	var err error
	if data.Tokens, _, err = h.Tokens.List(r.Context(), doer(r).ID, tokenListLimit, 0); err != nil {
		return err
	}
	if err = h.loadOAuth2Section(r, &data.OAuth2); err != nil {
		return err
	}
	data.Tabs = settingsTabs("/user/settings/applications")
	data.Categories = tokenScopeCategories()
	if data.Levels == nil {
		data.Levels = map[string]string{}
	}
	return h.render(w, r, status, "user_settings_applications", "Applications", data)
}

// applications serves GET /user/settings/applications.
func (h *Handler) applications(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	return h.renderApplications(w, r, http.StatusOK, applicationsPage{})
}

// createToken serves POST /user/settings/applications: a token named name
// with the chosen scopes (scope-<category> = read or write, public-only),
// created as the API's POST /users/{username}/tokens does; the answer shows
// the plaintext once (the page is not stored: Cache-Control no-store).
func (h *Handler) createToken(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	data := applicationsPage{Name: strings.TrimSpace(r.PostFormValue("name")), Levels: map[string]string{},
		PublicOnly: r.PostFormValue("public_only") != ""}
	var scopes []string
	for _, c := range tokenScopeCategories() {
		switch lvl := r.PostFormValue("scope-" + c); lvl {
		case "read", "write":
			scopes = append(scopes, lvl+":"+c)
			data.Levels[c] = lvl
		}
	}
	if data.PublicOnly {
		scopes = append(scopes, "public-only")
	}
	tok, plain, err := h.Tokens.Create(r.Context(), doer(r).ID, data.Name, scopes)
	if err != nil {
		if !userError(err) {
			return err
		}
		data.Error = errMessage(err, "The token could not be created.")
		return h.renderApplications(w, r, http.StatusUnprocessableEntity, data)
	}
	return h.renderApplications(w, r, http.StatusOK, applicationsPage{NewToken: plain, NewTokenName: tok.Name})
}

// deleteToken serves POST /user/settings/applications/delete (id): only
// the doer's own tokens.
func (h *Handler) deleteToken(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return errs.NotFound("no such token")
	}
	if err := h.Tokens.Delete(r.Context(), doer(r).ID, strconv.FormatInt(id, 10)); err != nil {
		return err
	}
	h.flash(w, "success", "The token has been deleted: applications using it lose access.")
	http.Redirect(w, r, "/user/settings/applications", http.StatusSeeOther)
	return nil
}
