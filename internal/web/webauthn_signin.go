package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/securitykey"
	"github.com/cairn-forge/cairn/internal/user"
)

// A WebAuthn ceremony (registering a key, or the sign-in's second step)
// runs in two requests: the first returns the options for the browser and
// sets a cookie naming the ceremony the server keeps (its challenge); the
// second carries the browser's answer, which the service checks against
// that ceremony and uses it up. The answers are JSON, sent by
// static/webauthn.js with the page's CSRF token in X-Csrf-Token.
const (
	webauthnCookie = "cairn_webauthn"
	// webauthnBodyLimit bounds a browser's answer.
	webauthnBodyLimit = 64 << 10
)

// setCeremony sets the cookie that names the ceremony key.
func (h *Handler) setCeremony(w http.ResponseWriter, key string) {
	http.SetCookie(w, &http.Cookie{Name: webauthnCookie, Value: key, Path: "/user/", HttpOnly: true, Secure: h.sessions.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: int(5 * time.Minute / time.Second)})
}

// ceremonyOf reads the request's ceremony key and clears its cookie (a
// ceremony is answered once).
func (h *Handler) ceremonyOf(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(webauthnCookie)
	if err != nil {
		return ""
	}
	http.SetCookie(w, &http.Cookie{Name: webauthnCookie, Value: "", Path: "/user/", HttpOnly: true, Secure: h.sessions.secure,
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
	return c.Value
}

// replaceCeremony ends the ceremony the browser had, if any, before a new
// one starts.
func (h *Handler) replaceCeremony(r *http.Request) error {
	if c, err := r.Cookie(webauthnCookie); err == nil {
		return h.SecurityKeys.EndCeremony(r.Context(), c.Value)
	}
	return nil
}

// writeJSON writes v as a JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// jsonMessage is the answer of a refused ceremony step, in Gitea's error
// shape.
type jsonMessage struct {
	Message string `json:"message"`
}

// failJSON answers err as JSON: its message and the status of its kind
// (500, logged, for unexpected errors).
func failJSON(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	switch {
	case errs.IsNotFound(err):
		status = http.StatusNotFound
	case errs.Is(err, errs.KindUnauthorized):
		status = http.StatusUnauthorized
	case errs.Is(err, errs.KindForbidden):
		status = http.StatusForbidden
	case errs.Is(err, errs.KindConflict), errs.Is(err, errs.KindAlreadyExists):
		status = http.StatusConflict
	case errs.Is(err, errs.KindInvalid), errs.Is(err, errs.KindBadRequest):
		status = http.StatusUnprocessableEntity
	}
	if status == http.StatusInternalServerError {
		slog.Error("web: security key step failed", "path", r.URL.Path, "err", err)
		writeJSON(w, status, jsonMessage{"Something went wrong on our side; it has been logged."})
		return
	}
	if d := securitykey.Detail(err); d != "" {
		slog.Info("web: security key answer refused", "path", r.URL.Path, "detail", d)
	}
	writeJSON(w, status, jsonMessage{errMessage(err, "The request is not valid.")})
}

// readCeremonyBody reads a browser's answer, bounded.
func readCeremonyBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, webauthnBodyLimit))
	if err != nil {
		return nil, errs.Invalid("the security key's answer is too large or was cut off")
	}
	return b, nil
}

// webauthnStepPage is the data of the security key's sign-in page.
type webauthnStepPage struct {
	// TOTP links to the code form (the account also has a code).
	TOTP bool
	// Unavailable is set when no ceremony can run (ROOT_URL names no
	// domain): the page says so instead of offering the key.
	Unavailable bool
}

// webauthnForm serves GET /user/webauthn: the second step with a key.
func (h *Handler) webauthnForm(w http.ResponseWriter, r *http.Request) error {
	p := h.pendingOrRestart(w, r)
	if p == nil {
		return nil
	}
	totp, _, err := h.secondFactors(r, p.UID)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "webauthn_signin", "Security key",
		webauthnStepPage{TOTP: totp, Unavailable: h.SecurityKeys.Unavailable() != nil})
}

// pendingAccount loads the account of a sign-in waiting for its second
// step, refusing one that may no longer sign in.
func (h *Handler) pendingAccount(r *http.Request, p *twoFactorPending) (*user.User, error) {
	u, err := h.Users.Store.GetByID(r.Context(), p.UID)
	if err == nil && !u.CanSignIn() {
		err = errs.Forbidden("This account may not sign in. Ask an administrator.")
	}
	return u, err
}

// webauthnAssertion serves GET /user/webauthn/assertion: the options for
// navigator.credentials.get() of the account signing in.
func (h *Handler) webauthnAssertion(w http.ResponseWriter, r *http.Request) {
	p := h.twoFactorPendingOf(r)
	if p == nil {
		writeJSON(w, http.StatusUnauthorized, jsonMessage{"The sign-in expired or was not started: sign in again."})
		return
	}
	u, err := h.pendingAccount(r, p)
	if err == nil {
		err = h.replaceCeremony(r)
	}
	if err != nil {
		failJSON(w, r, err)
		return
	}
	options, key, err := h.SecurityKeys.BeginLogin(r.Context(), u)
	if err != nil {
		failJSON(w, r, err)
		return
	}
	h.setCeremony(w, key)
	writeJSON(w, http.StatusOK, options)
}

// webauthnRedirect is the answer of a successful sign-in step: where the
// browser goes next (Gitea's JSON redirect).
type webauthnRedirect struct {
	Redirect string `json:"redirect"`
}

// webauthnSignIn serves POST /user/webauthn/assertion: a verified
// assertion of one of the account's keys starts the session.
func (h *Handler) webauthnSignIn(w http.ResponseWriter, r *http.Request) {
	p := h.twoFactorPendingOf(r)
	key := h.ceremonyOf(w, r)
	if p == nil {
		writeJSON(w, http.StatusUnauthorized, jsonMessage{"The sign-in expired or was not started: sign in again."})
		return
	}
	u, err := h.pendingAccount(r, p)
	var body []byte
	if err == nil {
		body, err = readCeremonyBody(w, r)
	}
	if err == nil {
		_, err = h.SecurityKeys.FinishLogin(r.Context(), u, key, body)
	}
	if err != nil {
		failJSON(w, r, err)
		return
	}
	to, err := h.completeSecondStep(w, r, u, p)
	if err != nil {
		failJSON(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, webauthnRedirect{to})
}
