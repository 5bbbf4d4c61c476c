package v1

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/oauth2"
)

// oauth2AppRoutes serves the signed-in user's OAuth2 applications
// (/user/applications/oauth2; the /user group's scope, user, applies).
func (a *API) oauth2AppRoutes(r chi.Router) {
	if a.OAuth2 == nil {
		return
	}
	r.Get("/applications/oauth2", a.listOAuth2Apps)
	r.Post("/applications/oauth2", a.createOAuth2App)
	r.Get("/applications/oauth2/{id}", a.getOAuth2App)
	r.Patch("/applications/oauth2/{id}", a.updateOAuth2App)
	r.Delete("/applications/oauth2/{id}", a.deleteOAuth2App)
}

// toOAuth2App converts app; secret is the plaintext only when just issued.
func toOAuth2App(app *oauth2.Application, secret string) *types.OAuth2Application {
	uris := app.RedirectURIs
	if uris == nil {
		uris = []string{}
	}
	return &types.OAuth2Application{ID: app.ID, Name: app.Name, ClientID: app.ClientID, ClientSecret: secret,
		ConfidentialClient: app.ConfidentialClient, SkipSecondaryAuthorization: app.SkipSecondaryAuthorization,
		RedirectURIs: uris, Created: types.Time(app.Created)}
}

func oauth2Options(o types.CreateOAuth2ApplicationOptions) oauth2.Options {
	return oauth2.Options{Name: o.Name, RedirectURIs: o.RedirectURIs, ConfidentialClient: o.ConfidentialClient,
		SkipSecondaryAuthorization: o.SkipSecondaryAuthorization}
}

// listOAuth2Apps serves GET /user/applications/oauth2: secrets are never shown.
func (a *API) listOAuth2Apps(w http.ResponseWriter, r *http.Request) {
	pg := a.paging(r)
	list, total, err := a.OAuth2.List(r.Context(), doer(r).ID, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]*types.OAuth2Application, 0, len(list))
	for _, app := range list {
		out = append(out, toOAuth2App(app, ""))
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// createOAuth2App serves POST /user/applications/oauth2: the answer shows
// the client secret, this once.
func (a *API) createOAuth2App(w http.ResponseWriter, r *http.Request) {
	var o types.CreateOAuth2ApplicationOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	app, secret, err := a.OAuth2.Create(r.Context(), doer(r).ID, oauth2Options(o))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toOAuth2App(app, secret))
}

// getOAuth2App serves GET /user/applications/oauth2/{id} (404 for another
// user's application), without the secret.
func (a *API) getOAuth2App(w http.ResponseWriter, r *http.Request) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	app, err := a.OAuth2.Get(r.Context(), doer(r).ID, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toOAuth2App(app, ""))
}

// updateOAuth2App serves PATCH /user/applications/oauth2/{id}: the body
// replaces the settings and, as in Gitea, a new client secret is issued
// and shown in the answer.
func (a *API) updateOAuth2App(w http.ResponseWriter, r *http.Request) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	var o types.CreateOAuth2ApplicationOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if _, err := a.OAuth2.Get(r.Context(), doer(r).ID, id); err != nil { // 404 before 422
		a.fail(w, r, err)
		return
	}
	app, secret, err := a.OAuth2.Update(r.Context(), doer(r).ID, id, oauth2Options(o), true)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toOAuth2App(app, secret))
}

// deleteOAuth2App serves DELETE /user/applications/oauth2/{id}.
func (a *API) deleteOAuth2App(w http.ResponseWriter, r *http.Request) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	if err := a.OAuth2.Delete(r.Context(), doer(r).ID, id); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}
