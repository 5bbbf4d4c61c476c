package web

import (
	"net/http"
	"strconv"

	"github.com/cairn-forge/cairn/internal/errs"
)

// webauthnRequestRegister serves POST
// /user/settings/security/webauthn/request_register: the form's key name
// checked, the options for navigator.credentials.create().
func (h *Handler) webauthnRequestRegister(w http.ResponseWriter, r *http.Request) {
	u := doer(r)
	if u == nil {
		writeJSON(w, http.StatusUnauthorized, jsonMessage{"Sign in first."})
		return
	}
	if err := h.replaceCeremony(r); err != nil {
		failJSON(w, r, err)
		return
	}
	options, key, err := h.SecurityKeys.BeginRegistration(r.Context(), u, r.PostFormValue("name"))
	if err != nil {
		failJSON(w, r, err)
		return
	}
	h.setCeremony(w, key)
	writeJSON(w, http.StatusOK, options)
}

// registeredKey is the answer of a registration: the key as stored.
type registeredKey struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// webauthnRegister serves POST /user/settings/security/webauthn/register:
// the browser's attestation, verified, becomes a key of the account (201).
func (h *Handler) webauthnRegister(w http.ResponseWriter, r *http.Request) {
	key := h.ceremonyOf(w, r)
	u := doer(r)
	if u == nil {
		writeJSON(w, http.StatusUnauthorized, jsonMessage{"Sign in first."})
		return
	}
	body, err := readCeremonyBody(w, r)
	if err != nil {
		failJSON(w, r, err)
		return
	}
	k, err := h.SecurityKeys.FinishRegistration(r.Context(), u, key, body)
	if err != nil {
		failJSON(w, r, err)
		return
	}
	h.flash(w, "success", "The security key \""+k.Name+"\" has been added.")
	writeJSON(w, http.StatusCreated, registeredKey{ID: k.ID, Name: k.Name})
}

// webauthnDelete serves POST /user/settings/security/webauthn/delete: the
// account's key with the form's id is removed.
func (h *Handler) webauthnDelete(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return errs.InvalidField("id", "no security key chosen")
	}
	if err := h.SecurityKeys.Delete(r.Context(), doer(r).ID, id); err != nil {
		return err
	}
	h.flash(w, "success", "The security key has been removed.")
	http.Redirect(w, r, "/user/settings/security", http.StatusSeeOther)
	return nil
}
