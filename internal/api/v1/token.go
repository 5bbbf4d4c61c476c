package v1

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// tokenOwner loads {username} for the token routes: only the user themself or
// a site administrator may manage a user's tokens.
func (a *API) tokenOwner(w http.ResponseWriter, r *http.Request) (*user.User, bool) {
	d := doer(r)
	name := chi.URLParam(r, "username")
	// Someone else's tokens: 403, but a user the caller may not see is missing.
	u, err := a.visibleIndividual(r, name)
	if err == nil && d.ID != u.ID && !d.IsAdmin {
		err = errs.Forbidden("doer should be the site admin or be same as the contextUser")
	}
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return u, true
}

func toToken(t *auth.Token, plain string) *types.AccessToken {
	return &types.AccessToken{ID: t.ID, Name: t.Name, Token: plain, TokenLastEight: t.LastEight, Scopes: t.Scope.Names()}
}

// listTokens serves GET /users/{username}/tokens.
func (a *API) listTokens(w http.ResponseWriter, r *http.Request) {
	u, ok := a.tokenOwner(w, r)
	if !ok {
		return
	}
	pg := a.paging(r)
	list, total, err := a.Tokens.List(r.Context(), u.ID, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]*types.AccessToken, 0, len(list))
	for _, t := range list {
		out = append(out, toToken(t, ""))
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// createToken serves POST /users/{username}/tokens: the plaintext is shown once.
func (a *API) createToken(w http.ResponseWriter, r *http.Request) {
	u, ok := a.tokenOwner(w, r)
	if !ok {
		return
	}
	var o types.CreateAccessTokenOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	t, plain, err := a.Tokens.Create(r.Context(), u.ID, o.Name, o.Scopes)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toToken(t, plain))
}

// deleteToken serves DELETE /users/{username}/tokens/{token} (by id or name).
func (a *API) deleteToken(w http.ResponseWriter, r *http.Request) {
	u, ok := a.tokenOwner(w, r)
	if !ok {
		return
	}
	if err := a.Tokens.Delete(r.Context(), u.ID, chi.URLParam(r, "token")); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}
