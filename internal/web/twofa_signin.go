package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// The second step of signing in: after a correct password, an account with
// two-factor sign-in gets no session yet but a short-lived signed cookie
// naming it; only a correct one-time code (or the scratch code) on
// /user/two_factor (/user/two_factor_scratch) starts the session.
const (
	twoFactorCookie = "cairn_twofa"
	// twoFactorPendingLife is how long the second step may take.
	twoFactorPendingLife = 5 * time.Minute
	// twoFactorPendingLabel derives the cookie's signing key from the
	// instance secret: HMAC-SHA256(secret, label).
	twoFactorPendingLabel = "cairn web twofa pending"
)

// twoFactorPending is the state between the password and the code.
type twoFactorPending struct {
	UID        int64
	Expires    int64 // Unix seconds
	RedirectTo string
}

// twoFactorKey is the pending cookie's signing key.
func (h *Handler) twoFactorKey() []byte {
	m := hmac.New(sha256.New, h.Secret)
	m.Write([]byte(twoFactorPendingLabel))
	return m.Sum(nil)
}

// encodeTwoFactorPending is the cookie value of p: base64url of
// "uid|expires|redirect", a dot and base64url of its HMAC-SHA256.
func (h *Handler) encodeTwoFactorPending(p twoFactorPending) string {
	body := strconv.FormatInt(p.UID, 10) + "|" + strconv.FormatInt(p.Expires, 10) + "|" + p.RedirectTo
	m := hmac.New(sha256.New, h.twoFactorKey())
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString([]byte(body)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// twoFactorPendingOf reads the request's pending state: nil when there is
// none, it was forged or it expired.
func (h *Handler) twoFactorPendingOf(r *http.Request) *twoFactorPending {
	c, err := r.Cookie(twoFactorCookie)
	if err != nil || len(c.Value) > 4096 {
		return nil
	}
	enc, sig, ok := strings.Cut(c.Value, ".")
	if !ok {
		return nil
	}
	body, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return nil
	}
	m := hmac.New(sha256.New, h.twoFactorKey())
	m.Write(body)
	if !hmac.Equal([]byte(sig), []byte(base64.RawURLEncoding.EncodeToString(m.Sum(nil)))) {
		return nil
	}
	parts := strings.SplitN(string(body), "|", 3)
	if len(parts) != 3 {
		return nil
	}
	var p twoFactorPending
	p.UID, err = strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return nil
	}
	if p.Expires, err = strconv.ParseInt(parts[1], 10, 64); err != nil || h.Now().Unix() >= p.Expires {
		return nil
	}
	p.RedirectTo = safeRedirect(parts[2])
	return &p
}

// beginSecondStep is login's branch for an account with two-factor
// sign-in: the pending cookie, then the security key's page when the
// account has a key (it links to the code form when it also has TOTP, as
// Gitea), else the code form.
func (h *Handler) beginSecondStep(w http.ResponseWriter, r *http.Request, u *user.User, redirectTo string, securityKey bool) {
	p := twoFactorPending{UID: u.ID, Expires: h.Now().Add(twoFactorPendingLife).Unix(), RedirectTo: safeRedirect(redirectTo)}
	http.SetCookie(w, &http.Cookie{Name: twoFactorCookie, Value: h.encodeTwoFactorPending(p), Path: "/user/", HttpOnly: true,
		Secure: h.sessions.secure, SameSite: http.SameSiteLaxMode, MaxAge: int(twoFactorPendingLife / time.Second)})
	if securityKey {
		http.Redirect(w, r, "/user/webauthn", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/user/two_factor", http.StatusSeeOther)
}

// secondFactors reports which second factors the account with id uid has:
// a TOTP code, a security key.
func (h *Handler) secondFactors(r *http.Request, uid int64) (totp, securityKey bool, err error) {
	if h.TwoFA != nil {
		if totp, err = h.TwoFA.Enabled(r.Context(), uid); err != nil {
			return false, false, err
		}
	}
	if h.SecurityKeys != nil {
		if securityKey, err = h.SecurityKeys.Enabled(r.Context(), uid); err != nil {
			return false, false, err
		}
	}
	return totp, securityKey, nil
}

func (h *Handler) clearTwoFactorPending(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: twoFactorCookie, Value: "", Path: "/user/", HttpOnly: true, Secure: h.sessions.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// twoFactorStepPage is the data of the code forms.
type twoFactorStepPage struct {
	Error string
	// SecurityKey links to the security key's page (the account has one).
	SecurityKey bool
}

// pendingOrRestart returns the pending state, or sends the visitor back to
// the sign-in form (nil) when it is missing or expired.
func (h *Handler) pendingOrRestart(w http.ResponseWriter, r *http.Request) *twoFactorPending {
	if p := h.twoFactorPendingOf(r); p != nil {
		return p
	}
	h.clearTwoFactorPending(w)
	h.flash(w, "error", "The two-factor sign-in expired or was not started: sign in again.")
	http.Redirect(w, r, "/user/login", http.StatusSeeOther)
	return nil
}

// twoFactorForm serves GET /user/two_factor.
func (h *Handler) twoFactorForm(w http.ResponseWriter, r *http.Request) error {
	p := h.pendingOrRestart(w, r)
	if p == nil {
		return nil
	}
	_, key, err := h.secondFactors(r, p.UID)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "twofa_signin", "Two-factor authentication", twoFactorStepPage{SecurityKey: key})
}

// twoFactorScratchForm serves GET /user/two_factor_scratch.
func (h *Handler) twoFactorScratchForm(w http.ResponseWriter, r *http.Request) error {
	if h.pendingOrRestart(w, r) == nil {
		return nil
	}
	return h.render(w, r, http.StatusOK, "twofa_scratch", "Two-factor scratch code", twoFactorStepPage{})
}

// twoFactorSignIn serves POST /user/two_factor: a correct one-time code
// (not used before) starts the session.
func (h *Handler) twoFactorSignIn(w http.ResponseWriter, r *http.Request) error {
	return h.secondStep(w, r, "twofa_signin", "Two-factor authentication", "The passcode is not correct.",
		func(uid int64) error { return h.TwoFA.Verify(r.Context(), uid, r.PostFormValue("passcode")) })
}

// twoFactorScratchSignIn serves POST /user/two_factor_scratch: the scratch
// code signs in once and is used up; the visitor lands on the security
// settings to make a new one.
func (h *Handler) twoFactorScratchSignIn(w http.ResponseWriter, r *http.Request) error {
	return h.secondStep(w, r, "twofa_scratch", "Two-factor scratch code", "The scratch code is not correct.",
		func(uid int64) error { return h.TwoFA.UseScratch(r.Context(), uid, r.PostFormValue("token")) })
}

// secondStep checks a code with check and, when it holds, signs in.
func (h *Handler) secondStep(w http.ResponseWriter, r *http.Request, tmpl, title, wrong string, check func(uid int64) error) error {
	p := h.pendingOrRestart(w, r)
	if p == nil {
		return nil
	}
	u, err := h.Users.Store.GetByID(r.Context(), p.UID)
	if errs.IsNotFound(err) || (err == nil && !u.CanSignIn()) {
		h.clearTwoFactorPending(w)
		return h.render(w, r, http.StatusOK, "login", "Sign in", loginPage{Error: "This account may not sign in. Ask an administrator."})
	}
	if err != nil {
		return err
	}
	switch err := check(u.ID); {
	case errs.Is(err, errs.KindUnauthorized):
		return h.render(w, r, http.StatusOK, tmpl, title, twoFactorStepPage{Error: wrong})
	case errs.Is(err, errs.KindTooManyRequests):
		return h.render(w, r, http.StatusTooManyRequests, tmpl, title, twoFactorStepPage{Error: "Too many wrong codes for this account: try again later."})
	case err != nil:
		return err
	}
	to, err := h.completeSecondStep(w, r, u, p)
	if err != nil {
		return err
	}
	if tmpl == "twofa_scratch" && !u.MustChangePassword {
		h.flash(w, "info", "You signed in with your scratch code, so it no longer works: generate a new one here (or turn two-factor authentication off).")
		to = "/user/settings/security"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// completeSecondStep starts u's session once the second factor held and
// returns where the visitor goes next.
func (h *Handler) completeSecondStep(w http.ResponseWriter, r *http.Request, u *user.User, p *twoFactorPending) (string, error) {
	h.clearTwoFactorPending(w)
	if old := visitorOf(r).sess; old != nil {
		if err := h.sessions.End(r.Context(), w, old); err != nil {
			return "", err
		}
	}
	if _, err := h.sessions.Create(r.Context(), w, u); err != nil {
		return "", err
	}
	if u.MustChangePassword {
		return "/user/change_password", nil
	}
	return p.RedirectTo, nil
}
