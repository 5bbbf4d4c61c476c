package v1

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

func (a *API) writeKeys(w http.ResponseWriter, r *http.Request, owner *user.User) {
	pg := a.paging(r)
	list, total, err := a.Users.ListKeys(r.Context(), owner.ID, r.URL.Query().Get("fingerprint"), pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]*types.PublicKey, 0, len(list))
	for _, k := range list {
		out = append(out, a.toKey(k, owner, doer(r)))
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// listMyKeys serves GET /user/keys.
func (a *API) listMyKeys(w http.ResponseWriter, r *http.Request) { a.writeKeys(w, r, doer(r)) }

// listUserKeys serves GET /users/{username}/keys.
func (a *API) listUserKeys(w http.ResponseWriter, r *http.Request) {
	if !a.requireSignedIn(w, r) {
		return
	}
	u, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	a.writeKeys(w, r, u)
}

// getMyKey serves GET /user/keys/{id}.
func (a *API) getMyKey(w http.ResponseWriter, r *http.Request) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	k, err := a.Users.GetKey(r.Context(), id)
	if err == nil && k.OwnerID != doer(r).ID {
		err = user.ErrKeyNotExist(id)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toKey(k, doer(r), doer(r)))
}

// createKeyFor adds a key to owner from the request body.
func (a *API) createKeyFor(w http.ResponseWriter, r *http.Request, owner *user.User) {
	var o types.CreateKeyOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := firstErr(required("title", o.Title), required("key", o.Key)); err != nil {
		a.fail(w, r, err)
		return
	}
	k, err := a.Users.AddKey(r.Context(), owner.ID, o.Title, o.Key)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, a.toKey(k, owner, doer(r)))
}

// createMyKey serves POST /user/keys.
func (a *API) createMyKey(w http.ResponseWriter, r *http.Request) { a.createKeyFor(w, r, doer(r)) }

// deleteKeyOf removes key {id} of owner: 404 when missing, 403 when someone
// else's, unless the caller may not see that someone: then 404 as if missing.
func (a *API) deleteKeyOf(w http.ResponseWriter, r *http.Request, owner *user.User) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	ctx := r.Context()
	k, err := a.Users.GetKey(ctx, id)
	if err == nil && k.OwnerID != owner.ID {
		var keyOwner *user.User
		if keyOwner, err = a.Users.Store.GetByID(ctx, k.OwnerID); err == nil {
			_, err = a.seen(r, keyOwner, user.ErrKeyNotExist(id), nil)
		}
		if errs.IsNotFound(err) {
			err = user.ErrKeyNotExist(id)
		} else if err == nil {
			err = errs.Forbidden("You do not have access to this key")
		}
	}
	if err == nil {
		err = a.Users.DeleteKey(r.Context(), owner.ID, id)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// deleteMyKey serves DELETE /user/keys/{id}.
func (a *API) deleteMyKey(w http.ResponseWriter, r *http.Request) { a.deleteKeyOf(w, r, doer(r)) }
