package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/oauth2"
)

// oauth2AppListLimit bounds the applications listed in the settings.
const oauth2AppListLimit = 200

// oauth2Form is what the create and edit forms hold.
type oauth2Form struct {
	Name         string
	RedirectURIs string // one per line
	Confidential bool
	Error        string
}

// oauth2Section is the OAuth2 part of /user/settings/applications.
type oauth2Section struct {
	Enabled bool
	Apps    []*oauth2.Application
	Total   int64
	Form    oauth2Form
	// Grants are the applications the user authorized (the provider on).
	Grants []oauth2.AuthorizedApp
}

// oauth2AppPage is the data of /user/settings/applications/oauth2/{id}.
type oauth2AppPage struct {
	Tabs []settingsTab
	App  *oauth2.Application
	Form oauth2Form
	// Secret is a client secret just issued, shown this once.
	Secret string
	// Created: the application was just created.
	Created bool
}

// loadOAuth2Section fills the doer's applications into s (two queries).
func (h *Handler) loadOAuth2Section(r *http.Request, s *oauth2Section) error {
	if h.OAuth2 == nil {
		return nil
	}
	s.Enabled = true
	if s.Form.RedirectURIs == "" && s.Form.Name == "" && s.Form.Error == "" {
		s.Form.Confidential = true // the usual kind: a server that keeps its secret
	}
	var err error
	if s.Apps, s.Total, err = h.OAuth2.List(r.Context(), doer(r).ID, oauth2AppListLimit, 0); err != nil {
		return err
	}
	if h.OAuth2Provider != nil && h.Config.OAuth2.Enabled {
		s.Grants, err = h.OAuth2Provider.ListGrants(r.Context(), doer(r).ID)
	}
	return err
}

// revokeOAuth2Grant serves POST
// /user/settings/applications/oauth2/{id}/revoke/{grantId} (Gitea's path):
// the user withdraws their consent to application id; its tokens stop
// working at once.
func (h *Handler) revokeOAuth2Grant(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	app, err1 := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	grant, err2 := strconv.ParseInt(chi.URLParam(r, "grantId"), 10, 64)
	if err1 != nil || err2 != nil {
		return errs.NotFound("OAuth2 grant not found")
	}
	if err := h.OAuth2Provider.RevokeGrant(r.Context(), doer(r).ID, app, grant); err != nil {
		return err
	}
	h.flash(w, "success", "The application's access has been revoked: its tokens no longer work.")
	http.Redirect(w, r, "/user/settings/applications#authorized-oauth2", http.StatusSeeOther)
	return nil
}

// readOAuth2Form reads the form fields of a create or edit.
func readOAuth2Form(r *http.Request) oauth2Form {
	return oauth2Form{Name: strings.TrimSpace(r.PostFormValue("application_name")),
		RedirectURIs: r.PostFormValue("redirect_uris"), Confidential: r.PostFormValue("confidential_client") != ""}
}

func (f oauth2Form) options(skipSecondary bool) oauth2.Options {
	return oauth2.Options{Name: f.Name, RedirectURIs: strings.Split(f.RedirectURIs, "\n"),
		ConfidentialClient: f.Confidential, SkipSecondaryAuthorization: skipSecondary}
}

func formOf(a *oauth2.Application) oauth2Form {
	return oauth2Form{Name: a.Name, RedirectURIs: strings.Join(a.RedirectURIs, "\n"), Confidential: a.ConfidentialClient}
}

// formError is the message of a refused form, without the API's
// "[Field]: " prefix.
func formError(err error, def string) string {
	msg := errMessage(err, def)
	if strings.HasPrefix(msg, "[") {
		if _, rest, ok := strings.Cut(msg, "]: "); ok {
			return rest
		}
	}
	return msg
}

// loadOAuth2App returns the doer's application named by {id}; another
// account's, or none, is 404.
func (h *Handler) loadOAuth2App(r *http.Request) (*oauth2.Application, error) {
	if err := signedIn(r); err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, errs.NotFound("no such application")
	}
	return h.OAuth2.Get(r.Context(), doer(r).ID, id)
}

func (h *Handler) renderOAuth2App(w http.ResponseWriter, r *http.Request, status int, data oauth2AppPage) error {
	data.Tabs = settingsTabs("/user/settings/applications")
	return h.render(w, r, status, "user_settings_oauth2_app", "OAuth2 application", data)
}

// createOAuth2App serves POST /user/settings/applications/oauth2: the new
// application's page shows its client secret once (not stored: no-store).
func (h *Handler) createOAuth2App(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	form := readOAuth2Form(r)
	app, secret, err := h.OAuth2.Create(r.Context(), doer(r).ID, form.options(false))
	if err != nil {
		if !userError(err) {
			return err
		}
		form.Error = formError(err, "The application could not be created.")
		return h.renderApplications(w, r, http.StatusUnprocessableEntity, applicationsPage{OAuth2: oauth2Section{Form: form}})
	}
	return h.renderOAuth2App(w, r, http.StatusOK, oauth2AppPage{App: app, Form: formOf(app), Secret: secret, Created: true})
}

// editOAuth2AppForm serves GET /user/settings/applications/oauth2/{id}.
func (h *Handler) editOAuth2AppForm(w http.ResponseWriter, r *http.Request) error {
	app, err := h.loadOAuth2App(r)
	if err != nil {
		return err
	}
	return h.renderOAuth2App(w, r, http.StatusOK, oauth2AppPage{App: app, Form: formOf(app)})
}

// editOAuth2App serves POST /user/settings/applications/oauth2/{id}: the
// name, redirect URIs and client type change; the secret stays.
func (h *Handler) editOAuth2App(w http.ResponseWriter, r *http.Request) error {
	app, err := h.loadOAuth2App(r)
	if err != nil {
		return err
	}
	form := readOAuth2Form(r)
	if _, _, err := h.OAuth2.Update(r.Context(), doer(r).ID, app.ID, form.options(app.SkipSecondaryAuthorization), false); err != nil {
		if !userError(err) || errs.IsNotFound(err) {
			return err
		}
		form.Error = formError(err, "The application could not be saved.")
		return h.renderOAuth2App(w, r, http.StatusUnprocessableEntity, oauth2AppPage{App: app, Form: form})
	}
	h.flash(w, "success", "The OAuth2 application has been updated.")
	http.Redirect(w, r, "/user/settings/applications", http.StatusSeeOther)
	return nil
}

// regenerateOAuth2Secret serves POST
// /user/settings/applications/oauth2/{id}/regenerate_secret: a new secret,
// shown once; the old one stops working.
func (h *Handler) regenerateOAuth2Secret(w http.ResponseWriter, r *http.Request) error {
	app, err := h.loadOAuth2App(r)
	if err != nil {
		return err
	}
	app, secret, err := h.OAuth2.RegenerateSecret(r.Context(), doer(r).ID, app.ID)
	if err != nil {
		return err
	}
	return h.renderOAuth2App(w, r, http.StatusOK, oauth2AppPage{App: app, Form: formOf(app), Secret: secret})
}

// deleteOAuth2App serves POST /user/settings/applications/oauth2/{id}/delete.
func (h *Handler) deleteOAuth2App(w http.ResponseWriter, r *http.Request) error {
	app, err := h.loadOAuth2App(r)
	if err != nil {
		return err
	}
	if err := h.OAuth2.Delete(r.Context(), doer(r).ID, app.ID); err != nil {
		return err
	}
	h.flash(w, "success", "The OAuth2 application has been deleted: its clients can no longer sign in with it.")
	http.Redirect(w, r, "/user/settings/applications", http.StatusSeeOther)
	return nil
}
