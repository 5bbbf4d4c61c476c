package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/signature"
	"github.com/cairn-forge/cairn/internal/user"
)

// keysSettingsPage is the data of /user/settings/keys.
type keysSettingsPage struct {
	Tabs    []settingsTab
	SSHKeys []*user.PublicKey
	GPGKeys []*signature.Key
	// SSHError and GPGError are the last refusal of each form, with what
	// was typed (Title, Content).
	SSHError, GPGError string
	Title, Content     string
}

func (h *Handler) renderKeysSettings(w http.ResponseWriter, r *http.Request, status int, data keysSettingsPage) error {
	ctx := r.Context()
	uid := doer(r).ID
	var err error
	if data.SSHKeys, _, err = h.Users.ListKeys(ctx, uid, "", 1000, 0); err != nil {
		return err
	}
	if data.GPGKeys, _, err = h.GPGKeys.ListKeys(ctx, uid, 1000, 0); err != nil {
		return err
	}
	data.Tabs = settingsTabs("/user/settings/keys")
	return h.render(w, r, status, "user_settings_keys", "SSH / GPG keys", data)
}

// keysSettings serves GET /user/settings/keys.
func (h *Handler) keysSettings(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	return h.renderKeysSettings(w, r, http.StatusOK, keysSettingsPage{})
}

// addKey serves POST /user/settings/keys: type=ssh (title, content) adds an
// SSH key as the API's POST /user/keys does, type=gpg (content) a GPG key
// as POST /user/gpg_keys does.
func (h *Handler) addKey(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	ctx := r.Context()
	u := doer(r)
	data := keysSettingsPage{Title: strings.TrimSpace(r.PostFormValue("title")), Content: strings.TrimSpace(r.PostFormValue("content"))}
	switch r.PostFormValue("type") {
	case "ssh":
		if data.Title == "" || data.Content == "" {
			data.SSHError = "An SSH key needs a title and its content."
			return h.renderKeysSettings(w, r, http.StatusUnprocessableEntity, data)
		}
		k, err := h.Users.AddKey(ctx, u.ID, data.Title, data.Content)
		if err != nil {
			if !userError(err) {
				return err
			}
			data.SSHError = errMessage(err, "The key was refused.")
			return h.renderKeysSettings(w, r, http.StatusUnprocessableEntity, data)
		}
		h.flash(w, "success", "The SSH key “"+k.Name+"” has been added.")
	case "gpg":
		if data.Content == "" {
			data.GPGError = "Paste the armored public key."
			return h.renderKeysSettings(w, r, http.StatusUnprocessableEntity, data)
		}
		k, err := h.GPGKeys.AddKey(ctx, u, data.Content, "")
		if err != nil {
			if !userError(err) {
				return err
			}
			data.GPGError = errMessage(err, "The key was refused.")
			return h.renderKeysSettings(w, r, http.StatusUnprocessableEntity, data)
		}
		h.flash(w, "success", "The GPG key "+k.KeyID+" has been added.")
	default:
		return errs.Invalid("unknown key type %q", r.PostFormValue("type"))
	}
	http.Redirect(w, r, "/user/settings/keys", http.StatusSeeOther)
	return nil
}

// deleteKey serves POST /user/settings/keys/delete (type ssh or gpg, id):
// only the doer's own keys.
func (h *Handler) deleteKey(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return errs.NotFound("no such key")
	}
	uid := doer(r).ID
	switch r.PostFormValue("type") {
	case "ssh":
		err = h.Users.DeleteKey(r.Context(), uid, id)
	case "gpg":
		err = h.GPGKeys.DeleteKey(r.Context(), uid, id)
	default:
		return errs.Invalid("unknown key type %q", r.PostFormValue("type"))
	}
	if err != nil {
		return err
	}
	h.flash(w, "success", "The key has been removed.")
	http.Redirect(w, r, "/user/settings/keys", http.StatusSeeOther)
	return nil
}
