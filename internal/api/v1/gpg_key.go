package v1

import (
	"net/http"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/signature"
	"github.com/cairn-forge/cairn/internal/user"
)

// toGPGKey renders a key; shown are the activated addresses of its owner.
func toGPGKey(k *signature.Key, shown map[string]bool, packets map[string]string) *types.GPGKey {
	out := &types.GPGKey{
		ID: k.ID, PrimaryKeyID: k.PrimaryKeyID, KeyID: k.KeyID, PublicKey: packets[k.KeyID],
		Emails: []*types.GPGKeyEmail{}, SubKeys: []*types.GPGKey{},
		CanSign: k.CanSign, CanEncryptComms: k.CanEncryptComms, CanEncryptStorage: k.CanEncryptStorage,
		CanCertify: k.CanCertify, Verified: k.Verified, Created: k.Created.UTC(), Expires: k.Expires.UTC(),
	}
	for _, e := range k.Emails {
		if shown[e] {
			out.Emails = append(out.Emails, &types.GPGKeyEmail{Email: e, Verified: true})
		}
	}
	for _, sk := range k.SubKeys {
		out.SubKeys = append(out.SubKeys, toGPGKey(sk, nil, packets))
	}
	return out
}

// writeGPGKey answers one key of owner.
func (a *API) writeGPGKey(w http.ResponseWriter, r *http.Request, status int, owner *user.User, k *signature.Key) {
	shown, err := a.GPGKeys.ShownEmails(r.Context(), owner.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, toGPGKey(k, shown, signature.PacketContents(k)))
}

func (a *API) writeGPGKeys(w http.ResponseWriter, r *http.Request, owner *user.User) {
	pg := a.paging(r)
	list, total, err := a.GPGKeys.ListKeys(r.Context(), owner.ID, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	shown, err := a.GPGKeys.ShownEmails(r.Context(), owner.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]*types.GPGKey, 0, len(list))
	for _, k := range list {
		out = append(out, toGPGKey(k, shown, signature.PacketContents(k)))
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// listMyGPGKeys serves GET /user/gpg_keys.
func (a *API) listMyGPGKeys(w http.ResponseWriter, r *http.Request) { a.writeGPGKeys(w, r, doer(r)) }

// listUserGPGKeys serves GET /users/{username}/gpg_keys.
func (a *API) listUserGPGKeys(w http.ResponseWriter, r *http.Request) {
	u, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	a.writeGPGKeys(w, r, u)
}

// getMyGPGKey serves GET /user/gpg_keys/{id}.
func (a *API) getMyGPGKey(w http.ResponseWriter, r *http.Request) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	k, err := a.GPGKeys.GetKey(r.Context(), doer(r).ID, id)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeGPGKey(w, r, http.StatusOK, doer(r), k)
}

// createMyGPGKey serves POST /user/gpg_keys.
func (a *API) createMyGPGKey(w http.ResponseWriter, r *http.Request) {
	var o types.CreateGPGKeyOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := required("armored_public_key", o.ArmoredKey); err != nil {
		a.fail(w, r, err)
		return
	}
	k, err := a.GPGKeys.AddKey(r.Context(), doer(r), o.ArmoredKey, o.Signature)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeGPGKey(w, r, http.StatusCreated, doer(r), k)
}

// deleteMyGPGKey serves DELETE /user/gpg_keys/{id}.
func (a *API) deleteMyGPGKey(w http.ResponseWriter, r *http.Request) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	if err := a.GPGKeys.DeleteKey(r.Context(), doer(r).ID, id); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// getGPGKeyToken serves GET /user/gpg_key_token.
func (a *API) getGPGKeyToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(a.GPGKeys.Token(doer(r))))
}

// verifyMyGPGKey serves POST /user/gpg_key_verify.
func (a *API) verifyMyGPGKey(w http.ResponseWriter, r *http.Request) {
	var o types.VerifyGPGKeyOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	k, err := a.GPGKeys.VerifyKey(r.Context(), doer(r), o.KeyID, o.Signature)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeGPGKey(w, r, http.StatusOK, doer(r), k)
}

// getSigningKey serves GET /signing-key.gpg and GET
// /repos/{owner}/{repo}/signing-key.gpg: the instance's armored public key,
// or (as Gitea) an empty 200 answer when it signs nothing.
func (a *API) getSigningKey(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if a.Signer != nil {
		_, _ = w.Write([]byte(a.Signer.PublicKey()))
	}
}
