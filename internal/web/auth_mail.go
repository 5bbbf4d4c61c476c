package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// The pages of account mails, at Gitea's URLs: activation after sign-up
// ([service] REGISTER_EMAIL_CONFIRM) and password recovery. They exist only
// while [mailer] is on; otherwise they answer 404.
func (h *Handler) accountMailRoutes(r chi.Router) {
	r.Get("/user/forgot_password", h.page(h.withMail(h.forgotPasswordForm)))
	r.Post("/user/forgot_password", h.page(h.withMail(h.forgotPassword)))
	r.Get("/user/recover_account", h.page(h.withMail(h.recoverAccountForm)))
	r.Post("/user/recover_account", h.page(h.withMail(h.recoverAccount)))
	r.Get("/user/activate", h.page(h.withMail(h.activateForm)))
	r.Post("/user/activate", h.page(h.withMail(h.activate)))
	r.Post("/user/activate/resend", h.page(h.withMail(h.resendActivation)))
}

// isAccountMailPage reports whether path is one of those pages, which a
// signed-out visitor reaches even under REQUIRE_SIGNIN_VIEW.
func isAccountMailPage(path string) bool {
	switch path {
	case "/user/forgot_password", "/user/recover_account", "/user/activate", "/user/activate/resend":
		return true
	}
	return false
}

// withMail answers 404 while mail is off.
func (h *Handler) withMail(f func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if h.Mail == nil {
			return errs.NotFound("no such page")
		}
		return f(w, r)
	}
}

// confirmRegistration reports whether sign-up creates inactive accounts
// that are activated by mail.
func (h *Handler) confirmRegistration() bool {
	return h.Config.Service.RegisterEmailConfirm && h.Mail != nil
}

// forgotPasswordPage is the data of the recovery request form.
type forgotPasswordPage struct {
	Email string
	Sent  bool
	Life  string
}

func (h *Handler) forgotPasswordForm(w http.ResponseWriter, r *http.Request) error {
	return h.render(w, r, http.StatusOK, "forgot_password", "Forgot password", forgotPasswordPage{})
}

// forgotPassword queues a reset mail for the account of an address. The
// answer is the same whether or not an account has it, so the form cannot
// be used to find out who has an account.
func (h *Handler) forgotPassword(w http.ResponseWriter, r *http.Request) error {
	email := strings.TrimSpace(r.PostFormValue("email"))
	data := forgotPasswordPage{Email: email, Sent: true, Life: lifeText(h.Mail.ResetLife().Minutes())}
	if email == "" || len(email) > 255 || !strings.Contains(email, "@") {
		data.Sent = false
		return h.render(w, r, http.StatusUnprocessableEntity, "forgot_password", "Forgot password", data)
	}
	u, err := h.Users.Store.GetByEmail(r.Context(), email)
	switch {
	case errs.IsNotFound(err):
	case err != nil:
		return err
	case u.Type == user.TypeIndividual && !u.ProhibitLogin && u.LoginSource == 0:
		if err := h.Mail.SendResetPassword(r.Context(), u); err != nil {
			return err
		}
	}
	return h.render(w, r, http.StatusOK, "forgot_password", "Forgot password", data)
}

// lifeText writes minutes as the pages tell a link's lifetime.
func lifeText(minutes float64) string {
	m := int(minutes)
	switch {
	case m%60 == 0 && m >= 120:
		return strconv.Itoa(m/60) + " hours"
	case m == 60:
		return "1 hour"
	case m == 1:
		return "1 minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// recoverAccountPage is the data of the new-password form of a reset link.
type recoverAccountPage struct {
	Code      string
	Name      string
	TwoFactor bool
	Invalid   bool
	Error     string
}

// recoverUser checks the reset code of the request: the account, or nil
// when the link is invalid, expired or used.
func (h *Handler) recoverUser(ctx context.Context, code string) (*user.User, error) {
	u, err := h.TimeCodes.Check(ctx, user.CodeResetPassword, code)
	if errs.Is(err, errs.KindUnauthorized) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if u.ProhibitLogin || u.LoginSource != 0 {
		return nil, nil
	}
	return u, nil
}

func (h *Handler) twoFactorOn(ctx context.Context, uid int64) (bool, error) {
	if h.TwoFA == nil {
		return false, nil
	}
	return h.TwoFA.Enabled(ctx, uid)
}

func (h *Handler) recoverAccountForm(w http.ResponseWriter, r *http.Request) error {
	data, _, err := h.recoverPageOf(r.Context(), r.URL.Query().Get("code"))
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "recover_account", "Recover your account", data)
}

// recoverPageOf is the recovery page of a reset link's code with the
// account it was made for, or the page saying the link is invalid (nil).
func (h *Handler) recoverPageOf(ctx context.Context, code string) (recoverAccountPage, *user.User, error) {
	u, err := h.recoverUser(ctx, code)
	if err != nil || u == nil {
		return recoverAccountPage{Invalid: true}, nil, err
	}
	tf, err := h.twoFactorOn(ctx, u.ID)
	return recoverAccountPage{Code: code, Name: u.Name, TwoFactor: tf}, u, err
}

// recoverAccount sets the new password of a reset link (and, for an
// account with two-factor sign-in, checks its passcode or scratch code
// first), ends the account's sessions and signs the visitor in.
func (h *Handler) recoverAccount(w http.ResponseWriter, r *http.Request) error {
	data, u, err := h.recoverPageOf(r.Context(), r.PostFormValue("code"))
	if err != nil {
		return err
	}
	if u == nil {
		return h.render(w, r, http.StatusOK, "recover_account", "Recover your account", data)
	}
	refuse := func(status int, msg string) error {
		data.Error = msg
		return h.render(w, r, status, "recover_account", "Recover your account", data)
	}
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("retype") {
		return refuse(http.StatusUnprocessableEntity, "The passwords do not match.")
	}
	if data.TwoFactor {
		var err error
		if scratch := strings.TrimSpace(r.PostFormValue("scratch_code")); scratch != "" {
			err = h.TwoFA.UseScratch(r.Context(), u.ID, scratch)
		} else {
			err = h.TwoFA.Verify(r.Context(), u.ID, strings.TrimSpace(r.PostFormValue("passcode")))
		}
		switch {
		case errs.Is(err, errs.KindUnauthorized):
			return refuse(http.StatusUnprocessableEntity, "The two-factor passcode or scratch code is not correct.")
		case errs.Is(err, errs.KindTooManyRequests):
			return refuse(http.StatusTooManyRequests, "Too many wrong codes for this account: try again later.")
		case err != nil:
			return err
		}
	}
	err = h.DB.WithTx(r.Context(), func(ctx context.Context) error {
		if err := h.Users.ResetPassword(ctx, u, pw); err != nil {
			return err
		}
		return h.sessions.EndAll(ctx, u.ID)
	})
	switch {
	case errs.Is(err, errs.KindUnauthorized):
		return h.render(w, r, http.StatusOK, "recover_account", "Recover your account", recoverAccountPage{Invalid: true})
	case err != nil && userError(err):
		return refuse(http.StatusUnprocessableEntity, errMessage(err, "The password was refused."))
	case err != nil:
		return err
	}
	if old := visitorOf(r).sess; old != nil {
		if err := h.sessions.End(r.Context(), w, old); err != nil {
			return err
		}
	}
	// A security key is not asked here: such an account signs in anew,
	// with its key.
	_, key, err := h.secondFactors(r, u.ID)
	if err != nil {
		return err
	}
	switch {
	case key:
		h.flash(w, "success", "Your password has been changed: sign in with it and your security key.")
		http.Redirect(w, r, "/user/login", http.StatusSeeOther)
		return nil
	case !u.CanSignIn(): // not activated yet: the sign-in page leads there
		h.flash(w, "success", "Your password has been changed: sign in with it.")
		http.Redirect(w, r, "/user/login", http.StatusSeeOther)
		return nil
	}
	if _, err := h.sessions.Create(r.Context(), w, u); err != nil {
		return err
	}
	h.flash(w, "success", "Your password has been changed.")
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// activatePage is the data of the activation pages.
type activatePage struct {
	Code    string
	Name    string
	Email   string
	Sent    bool // an activation mail was just queued
	Invalid bool
	Life    string
}

// activationSent renders the page that tells an activation mail is on its way.
func (h *Handler) activationSent(w http.ResponseWriter, r *http.Request, u *user.User) error {
	return h.render(w, r, http.StatusOK, "activate", "Activate your account",
		activatePage{Sent: true, Name: u.Name, Email: u.Email, Life: lifeText(h.Mail.ActivateLife().Minutes())})
}

// activateForm shows the button that activates the account of a link (a
// GET changes nothing, so mail scanners that open links do not activate).
func (h *Handler) activateForm(w http.ResponseWriter, r *http.Request) error {
	code := r.URL.Query().Get("code")
	u, err := h.activationUser(r.Context(), code)
	if err != nil {
		return err
	}
	if u == nil {
		return h.render(w, r, http.StatusOK, "activate", "Activate your account", activatePage{Invalid: true})
	}
	return h.render(w, r, http.StatusOK, "activate", "Activate your account", activatePage{Code: code, Name: u.Name})
}

func (h *Handler) activationUser(ctx context.Context, code string) (*user.User, error) {
	u, err := h.TimeCodes.Check(ctx, user.CodeActivate, code)
	if errs.Is(err, errs.KindUnauthorized) || (err == nil && (u.IsActive || u.ProhibitLogin)) {
		return nil, nil
	}
	return u, err
}

// activate activates the account of a link and signs it in.
func (h *Handler) activate(w http.ResponseWriter, r *http.Request) error {
	u, err := h.activationUser(r.Context(), r.PostFormValue("code"))
	if err != nil {
		return err
	}
	if u != nil {
		err = h.Users.Activate(r.Context(), u)
		if errs.Is(err, errs.KindUnauthorized) {
			u = nil
		} else if err != nil {
			return err
		}
	}
	if u == nil {
		return h.render(w, r, http.StatusOK, "activate", "Activate your account", activatePage{Invalid: true})
	}
	if old := visitorOf(r).sess; old != nil {
		if err := h.sessions.End(r.Context(), w, old); err != nil {
			return err
		}
	}
	if _, err := h.sessions.Create(r.Context(), w, u); err != nil {
		return err
	}
	h.flash(w, "success", "Your account is activated. Welcome to Cairn, "+u.Name+"!")
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// resendActivation queues a new activation mail for the inactive account
// of an address; like the recovery form, it answers the same for any
// address.
func (h *Handler) resendActivation(w http.ResponseWriter, r *http.Request) error {
	email := strings.TrimSpace(r.PostFormValue("email"))
	if h.confirmRegistration() && email != "" && len(email) <= 255 {
		u, err := h.Users.Store.GetByEmail(r.Context(), email)
		switch {
		case errs.IsNotFound(err):
		case err != nil:
			return err
		case u.Type == user.TypeIndividual && !u.IsActive && !u.ProhibitLogin && strings.EqualFold(u.Email, email):
			if err := h.Mail.SendActivation(r.Context(), u); err != nil {
				return err
			}
		}
	}
	return h.render(w, r, http.StatusOK, "activate", "Activate your account",
		activatePage{Sent: true, Email: email, Life: lifeText(h.Mail.ActivateLife().Minutes())})
}
