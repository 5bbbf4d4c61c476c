package web

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"

	"github.com/pquerna/otp"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/securitykey"
)

// securityPage is the data of /user/settings/security.
type securityPage struct {
	Tabs    []settingsTab
	Enabled bool
	// SecurityKeys shows the keys' section, KeysWork its form (ROOT_URL
	// names a domain); Keys are the account's.
	SecurityKeys, KeysWork bool
	Keys                   []*securitykey.Key
	// ScratchCode is a scratch code just made, shown this once.
	ScratchCode string
	Error       string
}

func (h *Handler) renderSecurity(w http.ResponseWriter, r *http.Request, status int, data securityPage) error {
	on, err := h.TwoFA.Enabled(r.Context(), doer(r).ID)
	if err != nil {
		return err
	}
	data.Enabled = on
	if h.SecurityKeys != nil {
		data.SecurityKeys, data.KeysWork = true, h.SecurityKeys.Unavailable() == nil
		if data.Keys, err = h.SecurityKeys.List(r.Context(), doer(r).ID); err != nil {
			return err
		}
	}
	data.Tabs = settingsTabs("/user/settings/security")
	return h.render(w, r, status, "user_settings_security", "Security", data)
}

// securitySettings serves GET /user/settings/security.
func (h *Handler) securitySettings(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	return h.renderSecurity(w, r, http.StatusOK, securityPage{})
}

// enrolPage is the data of the enrolment form.
type enrolPage struct {
	Tabs        []settingsTab
	Secret, URI string
	// QR is the URI as a PNG QR code (a data: URL made here).
	QR    template.URL
	Error string
}

// renderEnrol shows the secret on offer (the same until confirmed).
func (h *Handler) renderEnrol(w http.ResponseWriter, r *http.Request, status int, msg string) error {
	e, err := h.TwoFA.Begin(r.Context(), doer(r))
	if errs.Is(err, errs.KindConflict) {
		h.flash(w, "error", "Two-factor authentication is already enabled.")
		http.Redirect(w, r, "/user/settings/security", http.StatusSeeOther)
		return nil
	}
	if err != nil {
		return err
	}
	data := enrolPage{Tabs: settingsTabs("/user/settings/security"), Secret: e.Secret, URI: e.URI, Error: msg}
	if key, err := otp.NewKeyFromURL(e.URI); err == nil {
		if img, err := key.Image(200, 200); err == nil {
			var buf bytes.Buffer
			if png.Encode(&buf, img) == nil {
				data.QR = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()))
			}
		}
	}
	return h.render(w, r, status, "twofa_enroll", "Enable two-factor authentication", data)
}

// enrolForm serves GET /user/settings/security/two_factor/enroll.
func (h *Handler) enrolForm(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	return h.renderEnrol(w, r, http.StatusOK, "")
}

// enrol serves POST /user/settings/security/two_factor/enroll: a first
// correct code turns two-factor sign-in on; the answer shows the scratch
// code once.
func (h *Handler) enrol(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	scratch, err := h.TwoFA.Confirm(r.Context(), doer(r).ID, r.PostFormValue("passcode"))
	if errs.Is(err, errs.KindInvalid) {
		return h.renderEnrol(w, r, http.StatusUnprocessableEntity, "The passcode is not correct: enter the code your application shows now.")
	}
	if err != nil {
		return err
	}
	return h.renderSecurity(w, r, http.StatusOK, securityPage{ScratchCode: scratch})
}

// regenerateScratch serves POST
// /user/settings/security/two_factor/regenerate_scratch.
func (h *Handler) regenerateScratch(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	scratch, err := h.TwoFA.RegenerateScratch(r.Context(), doer(r).ID)
	if errs.IsNotFound(err) {
		return h.renderSecurity(w, r, http.StatusUnprocessableEntity, securityPage{Error: "Two-factor authentication is not enabled."})
	}
	if err != nil {
		return err
	}
	return h.renderSecurity(w, r, http.StatusOK, securityPage{ScratchCode: scratch})
}

// disableTwoFactor serves POST /user/settings/security/two_factor/disable:
// the account's password or a current code proves it is the holder.
func (h *Handler) disableTwoFactor(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	u := doer(r)
	var err error
	if code := r.PostFormValue("passcode"); code != "" {
		err = h.TwoFA.Verify(r.Context(), u.ID, code)
	} else {
		au, aerr := h.Users.Authenticate(r.Context(), u.Name, r.PostFormValue("password"), r.RemoteAddr)
		if aerr == nil && au.ID != u.ID {
			aerr = errs.Unauthorized("wrong account")
		}
		err = aerr
	}
	switch {
	case errs.Is(err, errs.KindUnauthorized):
		return h.renderSecurity(w, r, http.StatusUnprocessableEntity, securityPage{Error: "The password or passcode is not correct."})
	case errs.Is(err, errs.KindTooManyRequests):
		return h.renderSecurity(w, r, http.StatusTooManyRequests, securityPage{Error: "Too many failed attempts: try again later."})
	case err != nil:
		return err
	}
	if err := h.TwoFA.Disable(r.Context(), u.ID); err != nil {
		return err
	}
	h.flash(w, "success", "Two-factor authentication has been disabled.")
	http.Redirect(w, r, "/user/settings/security", http.StatusSeeOther)
	return nil
}
