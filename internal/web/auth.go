package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// loginPage is the sign-in form's data.
type loginPage struct {
	Name       string
	RedirectTo string
	Error      string
	// ForgotPassword shows the link to password recovery (mail is on).
	ForgotPassword bool
}

func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request) error {
	if doer(r) != nil {
		http.Redirect(w, r, safeRedirect(r.URL.Query().Get("redirect_to")), http.StatusSeeOther)
		return nil
	}
	return h.render(w, r, http.StatusOK, "login", "Sign in", loginPage{RedirectTo: safeRedirect(r.URL.Query().Get("redirect_to")),
		ForgotPassword: h.Mail != nil})
}

// login checks a user name or e-mail and password (throttled like every
// password check) and starts a session.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) error {
	name := strings.TrimSpace(r.PostFormValue("user_name"))
	data := loginPage{Name: name, RedirectTo: safeRedirect(r.PostFormValue("redirect_to")), ForgotPassword: h.Mail != nil}
	u, err := h.Users.Authenticate(r.Context(), name, r.PostFormValue("password"), r.RemoteAddr)
	switch {
	case errs.Is(err, errs.KindUnauthorized):
		data.Error = "The user name or password is incorrect."
		return h.render(w, r, http.StatusOK, "login", "Sign in", data)
	case errs.Is(err, errs.KindTooManyRequests):
		data.Error = errMessage(err, "Too many failed sign-ins: try again later.")
		return h.render(w, r, http.StatusTooManyRequests, "login", "Sign in", data)
	case err != nil:
		return err
	case !u.IsActive && !u.ProhibitLogin && u.Type == user.TypeIndividual && h.confirmRegistration():
		// The password is right but the account awaits activation: a new
		// activation mail (unless one is still waiting to go out).
		if err := h.Mail.SendActivation(r.Context(), u); err != nil {
			return err
		}
		return h.activationSent(w, r, u)
	case !u.CanSignIn():
		data.Error = "This account may not sign in. Ask an administrator."
		return h.render(w, r, http.StatusOK, "login", "Sign in", data)
	}
	// An account with two-factor sign-in needs its code or key first,
	// unless its sign-in source is set to skip it.
	totp, key, err := h.secondFactors(r, u.ID)
	if err != nil {
		return err
	}
	if (totp || key) && (h.Sources == nil || !h.Sources.SkipsLocalTwoFA(r.Context(), u)) {
		h.beginSecondStep(w, r, u, data.RedirectTo, key)
		return nil
	}
	if old := visitorOf(r).sess; old != nil {
		if err := h.sessions.End(r.Context(), w, old); err != nil {
			return err
		}
	}
	if _, err := h.sessions.Create(r.Context(), w, u); err != nil {
		return err
	}
	if u.MustChangePassword {
		http.Redirect(w, r, "/user/change_password", http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, data.RedirectTo, http.StatusSeeOther)
	return nil
}

// signUpPage is the sign-up form's data.
type signUpPage struct {
	Name, Email string
	Error       string
}

func (h *Handler) signUpForm(w http.ResponseWriter, r *http.Request) error {
	if h.Config.Service.DisableRegistration {
		return errs.Forbidden("Registration is disabled on this instance. Ask an administrator for an account.")
	}
	if doer(r) != nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	return h.render(w, r, http.StatusOK, "signup", "Sign up", signUpPage{})
}

// signUp creates an account and signs it in.
func (h *Handler) signUp(w http.ResponseWriter, r *http.Request) error {
	if h.Config.Service.DisableRegistration {
		return errs.Forbidden("Registration is disabled on this instance. Ask an administrator for an account.")
	}
	data := signUpPage{Name: strings.TrimSpace(r.PostFormValue("user_name")), Email: strings.TrimSpace(r.PostFormValue("email"))}
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("retype") {
		data.Error = "The passwords do not match."
		return h.render(w, r, http.StatusUnprocessableEntity, "signup", "Sign up", data)
	}
	vis, _ := user.ParseVisibility(h.Config.Service.DefaultUserVisibility)
	confirm := h.confirmRegistration()
	var u *user.User
	// With REGISTER_EMAIL_CONFIRM the account starts inactive and its
	// activation mail is queued in the same transaction.
	err := h.DB.WithTx(r.Context(), func(ctx context.Context) error {
		var err error
		u, err = h.Users.Create(ctx, user.CreateOptions{Name: data.Name, Email: data.Email, Password: pw, Active: !confirm, Visibility: vis})
		if err != nil || !confirm {
			return err
		}
		return h.Mail.SendActivation(ctx, u)
	})
	if err != nil {
		if !userError(err) {
			return err
		}
		data.Error = errMessage(err, "The account could not be created.")
		return h.render(w, r, http.StatusUnprocessableEntity, "signup", "Sign up", data)
	}
	if confirm {
		return h.activationSent(w, r, u)
	}
	if _, err := h.sessions.Create(r.Context(), w, u); err != nil {
		return err
	}
	h.flash(w, "success", "Welcome to Cairn, "+u.Name+"! Your account is ready.")
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// logout ends the visitor's session.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) error {
	if err := h.sessions.End(r.Context(), w, visitorOf(r).sess); err != nil {
		return err
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// changePasswordPage is the forced password change's data.
type changePasswordPage struct{ Error string }

func (h *Handler) changePasswordForm(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	if !doer(r).MustChangePassword {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	return h.render(w, r, http.StatusOK, "change_password", "Change your password", changePasswordPage{})
}

// changePassword sets the password of a user who must change it and ends
// their other sessions.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	u := doer(r)
	if !u.MustChangePassword {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("retype") {
		return h.render(w, r, http.StatusUnprocessableEntity, "change_password", "Change your password", changePasswordPage{Error: "The passwords do not match."})
	}
	if err := h.Users.SetPassword(r.Context(), u, pw, false); err != nil {
		if !userError(err) {
			return err
		}
		return h.render(w, r, http.StatusUnprocessableEntity, "change_password", "Change your password", changePasswordPage{Error: errMessage(err, "The password was refused.")})
	}
	if err := h.sessions.EndOthers(r.Context(), u.ID, visitorOf(r).sess.ID); err != nil {
		return err
	}
	h.flash(w, "success", "Your password has been changed.")
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// userError reports whether err is a domain error whose message may be shown
// (bad input, a taken name); anything else is a failure of ours.
func userError(err error) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Kind != errs.KindInternal
}
