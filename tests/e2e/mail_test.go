package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
)

// webPath is the path and query of a link the binary mailed.
func webPath(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.RequestURI(), "/")
}

// TestMailActivation signs up with REGISTER_EMAIL_CONFIRM against a real
// SMTP server (STARTTLS, the test CA trusted through SSL_CERT_FILE, AUTH
// PLAIN only): the account stays inactive until the mailed link is used,
// once.
func TestMailActivation(t *testing.T) {
	m := startMailServer(t, mailServerOptions{Mechanisms: []string{sasl.Plain}})
	s := StartServer(t, WithEnv(m.Env("smtp+starttls", "CAIRN_SERVICE_REGISTER_EMAIL_CONFIRM=true")...))

	w := s.Web(t)
	w.Get("user/sign_up")
	p := w.Post("user/sign_up", url.Values{"user_name": {"newbie"}, "email": {"newbie@example.com"},
		"password": {"newbie-pw-123"}, "retype": {"newbie-pw-123"}})
	p.MustContain(t, http.StatusOK, "is not active yet", "newbie@example.com")
	if strings.Contains(w.Get("/").Body, "Sign out") {
		t.Fatal("an account awaiting activation was signed in")
	}
	// Signing in with the right password does not work yet; it resends.
	w.Get("user/login")
	w.Post("user/login", url.Values{"user_name": {"newbie"}, "password": {"newbie-pw-123"}}).
		MustContain(t, http.StatusOK, "is not active yet")

	got := m.WaitFor("newbie@example.com", "Please activate your account", 30*time.Second)
	if !got.TLS || got.AuthUser != m.User {
		t.Fatalf("mail sent without TLS (%v) or authentication (%q)", got.TLS, got.AuthUser)
	}
	if from := got.Header.Get("From"); !strings.Contains(from, "noreply@example.com") {
		t.Fatalf("From = %q", from)
	}
	link := got.Link(t)
	if !strings.HasPrefix(link, s.URL) || !strings.Contains(got.HTML, pageText(link)) {
		t.Fatalf("link %q not under %s or missing from the HTML part:\n%s", link, s.URL, got.HTML)
	}
	// A forged code is refused; the real one shows a button (GET changes nothing).
	w.Get("user/activate?code=2-99999999999-forged").MustContain(t, http.StatusOK, "invalid or has expired")
	page := w.Get(webPath(t, link))
	page.MustContain(t, http.StatusOK, "Activate the account <strong>newbie</strong>")
	code := strings.TrimPrefix(link[strings.Index(link, "code="):], "code=")
	code, _ = url.QueryUnescape(code)
	done := w.Post("user/activate", url.Values{"code": {code}})
	if done.Status != http.StatusSeeOther {
		t.Fatalf("activate: %d %s", done.Status, done.Body)
	}
	w.Get("/").MustContain(t, http.StatusOK, "Sign out", "Your account is activated")
	// The link is single use.
	s.Web(t).Get(webPath(t, link)).MustContain(t, http.StatusOK, "invalid or has expired")
	other := s.Web(t)
	other.Get("user/login")
	other.Post("user/activate", url.Values{"code": {code}}).MustContain(t, http.StatusOK, "invalid or has expired")
	other.SignIn("newbie", "newbie-pw-123")

	// Accounts made by an administrator are active at once; with
	// send_notify they get Gitea's welcome mail.
	admin := s.CreateUser("made")
	s.Web(t).SignIn(admin.Name, admin.Password)
	if r := s.API("POST", "admin/users", s.AdminTok, map[string]any{"username": "welcomed", "email": "welcomed@example.com",
		"password": "welcomed-pw-1", "must_change_password": false, "send_notify": true}); r.Status != http.StatusCreated {
		t.Fatalf("create with send_notify: %d %s", r.Status, r.Body)
	}
	welcome := m.WaitFor("welcomed@example.com", "Welcome to Cairn", 30*time.Second)
	if !strings.Contains(welcome.Text, "Your user name is welcomed") || !strings.Contains(welcome.Text, s.URL+"user/login") {
		t.Fatalf("welcome mail:\n%s", welcome.Text)
	}
	for _, got := range m.Received() {
		if got.To[0] == "made@example.com" {
			t.Fatal("an account created without send_notify got a mail")
		}
	}
}

// TestMailPasswordReset recovers an account by mail over implicit TLS
// (FORCE_TRUST_SERVER_CERT, AUTH LOGIN only): the form answers the same for
// unknown addresses, the link works once, a two-factor account must give a
// code too, and an expired link is refused.
func TestMailPasswordReset(t *testing.T) {
	m := startMailServer(t, mailServerOptions{ImplicitTLS: true, Mechanisms: []string{sasl.Login}})
	env := m.Env("smtps", "CAIRN_MAILER_FORCE_TRUST_SERVER_CERT=true", "SSL_CERT_FILE=/nonexistent", "CAIRN_SECURITY_MIN_PASSWORD_LENGTH=8")
	s := StartServer(t, WithEnv(env...))
	u := s.CreateUser("forgetful")

	w := s.Web(t)
	w.Get("user/login").MustContain(t, http.StatusOK, `href="/user/forgot_password"`)
	w.Get("user/forgot_password")
	unknown := w.Post("user/forgot_password", url.Values{"email": {"nobody@example.com"}})
	known := w.Post("user/forgot_password", url.Values{"email": {"forgetful@example.com"}})
	unknown.MustContain(t, http.StatusOK, "If an account uses")
	known.MustContain(t, http.StatusOK, "If an account uses")
	if strip := func(p *Page) string {
		return strings.ReplaceAll(csrfInput.ReplaceAllString(p.Body, ""), "forgetful@example.com", "nobody@example.com")
	}; strip(unknown) != strip(known) {
		t.Fatal("the answer differs for a known and an unknown address")
	}

	got := m.WaitFor("forgetful@example.com", "Recover your account", 30*time.Second)
	if !got.TLS || got.AuthUser != m.User {
		t.Fatalf("TLS %v, auth %q", got.TLS, got.AuthUser)
	}
	link := got.Link(t)
	w.Get(webPath(t, link)).MustContain(t, http.StatusOK, "Choose a new password for <strong>forgetful</strong>")
	code, _ := url.QueryUnescape(link[strings.Index(link, "code=")+5:])
	w.Post("user/recover_account", url.Values{"code": {code}, "password": {"new-secret-pw-1"}, "retype": {"other"}}).
		MustContain(t, http.StatusUnprocessableEntity, "The passwords do not match.")
	w.Post("user/recover_account", url.Values{"code": {code}, "password": {"short"}, "retype": {"short"}}).
		MustContain(t, http.StatusUnprocessableEntity, "too short")
	done := w.Post("user/recover_account", url.Values{"code": {code}, "password": {"new-secret-pw-1"}, "retype": {"new-secret-pw-1"}})
	if done.Status != http.StatusSeeOther {
		t.Fatalf("reset: %d %s", done.Status, done.Body)
	}
	w.Get("/").MustContain(t, http.StatusOK, "Sign out", "Your password has been changed.")
	if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password)); r.Status != http.StatusUnauthorized {
		t.Fatalf("the old password still works: %d", r.Status)
	}
	if r := s.Do("GET", "api/v1/user", Basic(u.Name, "new-secret-pw-1")); r.Status != http.StatusOK {
		t.Fatalf("the new password does not work: %d", r.Status)
	}
	// Used: refused, and the password stays.
	again := s.Web(t)
	again.Get(webPath(t, link)).MustContain(t, http.StatusOK, "invalid or has expired")
	again.Get("user/forgot_password") // a form, for the CSRF token
	again.Post("user/recover_account", url.Values{"code": {code}, "password": {"third-pw-123"}, "retype": {"third-pw-123"}}).
		MustContain(t, http.StatusOK, "invalid or has expired")
	if r := s.Do("GET", "api/v1/user", Basic(u.Name, "new-secret-pw-1")); r.Status != http.StatusOK {
		t.Fatalf("a used link changed the password: %d", r.Status)
	}
	if n := len(m.Received()); n != 1 {
		t.Fatalf("%d mails, want the one to the known address", n)
	}

	t.Run("two-factor account needs its code", func(t *testing.T) {
		tf := s.CreateUser("guarded")
		tw := s.Web(t)
		tw.SignIn(tf.Name, tf.Password)
		for time.Now().Unix()%30 > 20 {
			time.Sleep(time.Second)
		}
		enrol := tw.Get("user/settings/security/two_factor/enroll")
		sec := twoFASecret.FindStringSubmatch(enrol.Body)
		if sec == nil {
			t.Fatalf("no secret: %s", enrol.Body)
		}
		doneEnrol := tw.Post("user/settings/security/two_factor/enroll", url.Values{"passcode": {totpAt(t, sec[1], time.Now().Unix()/30)}})
		scratch := twoFAScratch.FindStringSubmatch(doneEnrol.Body)
		if scratch == nil {
			t.Fatalf("no scratch code: %s", doneEnrol.Body)
		}
		rw := s.Web(t)
		rw.Get("user/forgot_password")
		rw.Post("user/forgot_password", url.Values{"email": {"guarded@example.com"}})
		link := m.WaitFor("guarded@example.com", "Recover your account", 30*time.Second).Link(t)
		code, _ := url.QueryUnescape(link[strings.Index(link, "code=")+5:])
		rw.Get(webPath(t, link)).MustContain(t, http.StatusOK, `name="passcode"`, `name="scratch_code"`)
		rw.Post("user/recover_account", url.Values{"code": {code}, "password": {"guarded-new-1"}, "retype": {"guarded-new-1"}}).
			MustContain(t, http.StatusUnprocessableEntity, "passcode or scratch code is not correct")
		rw.Post("user/recover_account", url.Values{"code": {code}, "password": {"guarded-new-1"}, "retype": {"guarded-new-1"},
			"scratch_code": {scratch[1]}}).MustContain(t, http.StatusSeeOther)
	})

	t.Run("expired link", func(t *testing.T) {
		s2 := StartServer(t, WithEnv(append(env, "CAIRN_SERVICE_RESET_PASSWD_CODE_LIVE_MINUTES=0")...))
		s2.CreateUser("late")
		w2 := s2.Web(t)
		w2.Get("user/forgot_password")
		w2.Post("user/forgot_password", url.Values{"email": {"late@example.com"}})
		link := m.WaitFor("late@example.com", "Recover your account", 30*time.Second).Link(t)
		w2.Get(webPath(t, link)).MustContain(t, http.StatusOK, "invalid or has expired")
	})
}

// TestMailDurable: while the SMTP server refuses mail, the mail waits in
// the queue, through a crash of the server; once the SMTP server accepts
// again, it arrives.
func TestMailDurable(t *testing.T) {
	m := startMailServer(t, mailServerOptions{})
	m.Refuse.Store(true)
	s := StartServer(t, WithEnv(m.Env("smtp+starttls", "CAIRN_MAILER_FORCE_TRUST_SERVER_CERT=true",
		"CAIRN_WEBHOOK_RETRY_BACKOFF=1s", "CAIRN_WEBHOOK_DELIVERY_ATTEMPTS=20")...))
	s.CreateUser("patient")
	w := s.Web(t)
	w.Get("user/forgot_password")
	w.Post("user/forgot_password", url.Values{"email": {"patient@example.com"}}).MustContain(t, http.StatusOK, "If an account uses")
	deadline := time.Now().Add(20 * time.Second)
	for m.Refused.Load() < 2 && time.Now().Before(deadline) { // the first attempt and a retry
		time.Sleep(100 * time.Millisecond)
	}
	if n := m.Refused.Load(); n < 2 {
		t.Fatalf("%d attempts refused, want at least 2", n)
	}
	if n := len(m.Received()); n != 0 {
		t.Fatalf("%d mails accepted by a refusing server", n)
	}
	// Between two attempts (back-off 1 s, 2 s, ...): a crash during an
	// attempt would leave the job leased for the queue's lease (75 s).
	time.Sleep(time.Second)
	s.Kill()
	s.Restart()
	m.Refuse.Store(false)
	got := m.WaitFor("patient@example.com", "Recover your account", 60*time.Second)
	got.Link(t)
}

// TestMailResetSecurityKey: recovering an account with a security key sets
// the password but signs nobody in: the next sign-in still asks for the key.
func TestMailResetSecurityKey(t *testing.T) {
	m := startMailServer(t, mailServerOptions{})
	s := StartServer(t, WithRootHost("localhost"), WithEnv(m.Env("smtp+starttls", "CAIRN_MAILER_FORCE_TRUST_SERVER_CERT=true")...))
	u := s.CreateUser("keyed")
	key := newSoftKey(t, s.URL)
	w := s.Web(t)
	w.SignIn(u.Name, u.Password)
	w.Get("user/settings/security")
	o := w.Post("user/settings/security/webauthn/request_register", url.Values{"name": {"Soft key"}}).options(t)
	w.postJSON("user/settings/security/webauthn/register", key.create(o, key.origin)).MustContain(t, http.StatusCreated, `"name":"Soft key"`)

	r := s.Web(t)
	r.Get("user/forgot_password")
	r.Post("user/forgot_password", url.Values{"email": {"keyed@example.com"}})
	link := m.WaitFor("keyed@example.com", "Recover your account", 30*time.Second).Link(t)
	code, _ := url.QueryUnescape(link[strings.Index(link, "code=")+5:])
	r.Get(webPath(t, link)).MustContain(t, http.StatusOK, "Choose a new password")
	done := r.Post("user/recover_account", url.Values{"code": {code}, "password": {"keyed-new-pw-1"}, "retype": {"keyed-new-pw-1"}})
	if done.Status != http.StatusSeeOther || done.Location != "/user/login" {
		t.Fatalf("reset: %d %q", done.Status, done.Location)
	}
	if strings.Contains(r.Get("/").Body, "Sign out") {
		t.Fatal("the reset signed an account with a security key in")
	}
	r.Get("user/login")
	if p := r.Post("user/login", url.Values{"user_name": {"keyed"}, "password": {"keyed-new-pw-1"}}); p.Status != http.StatusSeeOther || p.Location != "/user/webauthn" {
		t.Fatalf("sign-in with the new password: %d %q", p.Status, p.Location)
	}
}
