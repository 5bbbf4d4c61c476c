package web

import (
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// accountSettingsPage is the data of /user/settings/account.
type accountSettingsPage struct {
	Tabs   []settingsTab
	Emails []user.Email
	// OtherSessions counts the user's other live sign-in sessions.
	OtherSessions int64
	// PasswordError and EmailError are the last refusal of each form.
	PasswordError, EmailError string
	NewEmail                  string
	// EmailPreference is the e-mail notification preference; MailOn
	// tells whether notification mails are sent at all.
	EmailPreference string
	MailOn          bool
}

func (h *Handler) renderAccountSettings(w http.ResponseWriter, r *http.Request, status int, data accountSettingsPage) error {
	ctx := r.Context()
	u := doer(r)
	var err error
	if data.Emails, err = h.Users.ListEmails(ctx, u.ID); err != nil {
		return err
	}
	if data.OtherSessions, err = h.DB.Count(ctx, "SELECT COUNT(*) FROM web_session WHERE uid = ? AND id <> ? AND expires_unix > ?",
		u.ID, visitorOf(r).sess.ID, h.Now().Unix()); err != nil {
		return err
	}
	if data.EmailPreference, err = h.Users.EmailNotifications(ctx, u.ID); err != nil {
		return err
	}
	data.MailOn = h.Mail != nil && h.Config.Service.EnableNotifyMail
	data.Tabs = settingsTabs("/user/settings/account")
	return h.render(w, r, status, "user_settings_account", "Account settings", data)
}

// accountSettings serves GET /user/settings/account.
func (h *Handler) accountSettings(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	return h.renderAccountSettings(w, r, http.StatusOK, accountSettingsPage{})
}

// changeAccountPassword serves POST /user/settings/account: the old
// password is checked (throttled like a sign-in) and, once the new one is
// set, every other session of the account ends.
func (h *Handler) changeAccountPassword(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	u := doer(r)
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("retype") {
		return h.renderAccountSettings(w, r, http.StatusUnprocessableEntity, accountSettingsPage{PasswordError: "The new passwords do not match."})
	}
	err := h.Users.ChangePassword(r.Context(), u, r.PostFormValue("old_password"), pw, r.RemoteAddr)
	switch {
	case errs.Is(err, errs.KindTooManyRequests):
		return h.renderAccountSettings(w, r, http.StatusTooManyRequests,
			accountSettingsPage{PasswordError: errMessage(err, "Too many failed attempts: try again later.")})
	case err != nil && userError(err):
		return h.renderAccountSettings(w, r, http.StatusUnprocessableEntity,
			accountSettingsPage{PasswordError: errMessage(err, "The password was refused.")})
	case err != nil:
		return err
	}
	if err := h.sessions.EndOthers(r.Context(), u.ID, visitorOf(r).sess.ID); err != nil {
		return err
	}
	h.flash(w, "success", "Your password has been changed; your other sessions have been signed out.")
	http.Redirect(w, r, "/user/settings/account", http.StatusSeeOther)
	return nil
}

// endOtherSessions serves POST /user/settings/account/sessions/delete:
// sign out everywhere but here.
func (h *Handler) endOtherSessions(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	if err := h.sessions.EndOthers(r.Context(), doer(r).ID, visitorOf(r).sess.ID); err != nil {
		return err
	}
	h.flash(w, "success", "Your other sessions have been signed out.")
	http.Redirect(w, r, "/user/settings/account", http.StatusSeeOther)
	return nil
}

// emailAction serves POST /user/settings/account/email: add an address
// (email), or make one of the account's addresses primary (action=primary, id).
func (h *Handler) emailAction(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	ctx := r.Context()
	u := doer(r)
	if r.PostFormValue("_method") == "NOTIFICATION" { // Gitea's form for the e-mail notification preference
		if err := h.Users.SetEmailNotifications(ctx, u.ID, r.PostFormValue("preference")); err != nil {
			if !userError(err) {
				return err
			}
			return h.renderAccountSettings(w, r, http.StatusUnprocessableEntity, accountSettingsPage{EmailError: errMessage(err, "The preference was refused.")})
		}
		h.flash(w, "success", "Your e-mail notification preference has been saved.")
		http.Redirect(w, r, "/user/settings/account", http.StatusSeeOther)
		return nil
	}
	if r.PostFormValue("action") == "primary" {
		addr, err := h.ownEmail(r, r.PostFormValue("email"))
		if err != nil {
			return err
		}
		if err := h.Users.SetPrimaryEmail(ctx, u, addr); err != nil {
			if !userError(err) {
				return err
			}
			return h.renderAccountSettings(w, r, http.StatusUnprocessableEntity, accountSettingsPage{EmailError: errMessage(err, "The address was refused.")})
		}
		h.flash(w, "success", addr+" is now your primary e-mail address.")
		http.Redirect(w, r, "/user/settings/account", http.StatusSeeOther)
		return nil
	}
	addr := strings.TrimSpace(r.PostFormValue("email"))
	if _, err := h.Users.AddEmails(ctx, u, []string{addr}); err != nil {
		if !userError(err) {
			return err
		}
		return h.renderAccountSettings(w, r, http.StatusUnprocessableEntity,
			accountSettingsPage{EmailError: errMessage(err, "The address was refused."), NewEmail: addr})
	}
	h.flash(w, "success", addr+" has been added.")
	http.Redirect(w, r, "/user/settings/account", http.StatusSeeOther)
	return nil
}

// deleteEmail serves POST /user/settings/account/email/delete (email).
func (h *Handler) deleteEmail(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	addr, err := h.ownEmail(r, r.PostFormValue("email"))
	if err != nil {
		return err
	}
	if err := h.Users.DeleteEmails(r.Context(), doer(r), []string{addr}); err != nil {
		if !userError(err) {
			return err
		}
		return h.renderAccountSettings(w, r, http.StatusUnprocessableEntity, accountSettingsPage{EmailError: errMessage(err, "The address could not be removed.")})
	}
	h.flash(w, "success", addr+" has been removed.")
	http.Redirect(w, r, "/user/settings/account", http.StatusSeeOther)
	return nil
}

// ownEmail returns addr as stored among the doer's addresses, or not found.
func (h *Handler) ownEmail(r *http.Request, addr string) (string, error) {
	list, err := h.Users.ListEmails(r.Context(), doer(r).ID)
	if err != nil {
		return "", err
	}
	for _, e := range list {
		if strings.EqualFold(e.Email, strings.TrimSpace(addr)) {
			return e.Email, nil
		}
	}
	return "", errs.NotFound("no such e-mail address")
}
