package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

var (
	twoFASecret  = regexp.MustCompile(`id="twofa-secret">([A-Z2-7]+)<`)
	twoFAScratch = regexp.MustCompile(`id="scratch-code">([a-z2-7]+)<`)
)

// totpAt is the code of secret for TOTP step (30-second periods).
func totpAt(t *testing.T, secret string, step int64) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, time.Unix(step*30, 0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pendingCookie makes a two-factor pending cookie as the server signs it
// (HMAC-SHA256 keyed by HMAC-SHA256(instance secret, label)).
func pendingCookie(t *testing.T, s *Server, uid, expires int64, key []byte) *http.Cookie {
	t.Helper()
	if key == nil {
		secret, err := os.ReadFile(filepath.Join(s.DataDir, "instance_secret"))
		if err != nil {
			t.Fatal(err)
		}
		m := hmac.New(sha256.New, secret)
		m.Write([]byte("cairn web twofa pending"))
		key = m.Sum(nil)
	}
	body := strconv.FormatInt(uid, 10) + "|" + strconv.FormatInt(expires, 10) + "|/"
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return &http.Cookie{Name: "cairn_twofa", Path: "/user/",
		Value: base64.RawURLEncoding.EncodeToString([]byte(body)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))}
}

// TestWebTwoFA enrols an account in two-factor sign-in through the pages
// (codes computed here with the same library) and checks the second step
// of signing in, the scratch code, the API's X-Gitea-OTP, git over HTTP and
// turning it off.
func TestWebTwoFA(t *testing.T) {
	s := StartServer(t)
	u := s.CreateUser("tfa")
	if r := s.API("POST", "user/repos", u.Token, map[string]any{"name": "vault", "private": true, "auto_init": true}); r.Status != http.StatusCreated {
		t.Fatalf("create repo: %d %s", r.Status, r.Body)
	}
	w := s.Web(t)
	w.SignIn(u.Name, u.Password)
	w.Get("user/settings").MustContain(t, http.StatusOK, `href="/user/settings/security"`)
	w.Get("user/settings/security").MustContain(t, http.StatusOK, `aria-current="page">Security</a>`, "is <strong>not enabled</strong>",
		`href="/user/settings/security/two_factor/enroll"`)

	// A step well inside its 30 seconds, so the codes below stay valid.
	for time.Now().Unix()%30 > 20 {
		time.Sleep(time.Second)
	}
	base := time.Now().Unix() / 30

	enrol := w.Get("user/settings/security/two_factor/enroll")
	enrol.MustContain(t, http.StatusOK, "otpauth://totp/", "data:image/png;base64,", "tfa")
	m := twoFASecret.FindStringSubmatch(enrol.Body)
	if m == nil {
		t.Fatalf("no secret on the page: %s", enrol.Body)
	}
	secret := m[1]
	if again := w.Get("user/settings/security/two_factor/enroll"); !strings.Contains(again.Body, secret) {
		t.Fatal("reloading the form offered another secret")
	}
	wrongCode := "000000"
	for _, c := range []string{"000000", "111111", "222222"} {
		if c != totpAt(t, secret, base-1) && c != totpAt(t, secret, base) && c != totpAt(t, secret, base+1) && c != totpAt(t, secret, base+2) {
			wrongCode = c
			break
		}
	}
	w.Post("user/settings/security/two_factor/enroll", url.Values{"passcode": {wrongCode}}).
		MustContain(t, http.StatusUnprocessableEntity, "The passcode is not correct", secret)
	// Confirm with the previous step's code (one step of skew is allowed),
	// leaving the current and next steps for the checks below.
	done := w.Post("user/settings/security/two_factor/enroll", url.Values{"passcode": {totpAt(t, secret, base-1)}})
	done.MustContain(t, http.StatusOK, "is <strong>enabled</strong>", "will not be shown again")
	m = twoFAScratch.FindStringSubmatch(done.Body)
	if m == nil {
		t.Fatalf("no scratch code shown: %s", done.Body)
	}
	scratch := m[1]
	if !strings.Contains(w.Get("user/settings/security").Body, "is <strong>enabled</strong>") ||
		strings.Contains(w.Get("user/settings/security").Body, scratch) {
		t.Fatal("the settings do not show two-factor on, or show the scratch code again")
	}

	t.Run("API basic auth needs X-Gitea-OTP", func(t *testing.T) {
		r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password))
		if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "invalid provided OTP") {
			t.Fatalf("without OTP: %d %s", r.Status, r.Body)
		}
		r = s.Do("GET", "api/v1/user", Basic(u.Name, u.Password), Header("X-Gitea-OTP", wrongCode))
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("wrong OTP: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password), Header("X-Gitea-OTP", totpAt(t, secret, base))); r.Status != http.StatusOK ||
			!strings.Contains(string(r.Body), `"login":"tfa"`) {
			t.Fatalf("with OTP: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", "api/v1/user", Token(u.Token)); r.Status != http.StatusOK {
			t.Fatalf("token: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Token)); r.Status != http.StatusOK {
			t.Fatalf("token as basic password: %d %s", r.Status, r.Body)
		}
	})

	t.Run("git over HTTP refuses the password, takes a token", func(t *testing.T) {
		path := "tfa/vault.git/info/refs?service=git-upload-pack"
		r := s.Do("GET", path, Basic(u.Name, u.Password))
		if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "access token") {
			t.Fatalf("password: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", path, Basic(u.Name, u.Token)); r.Status != http.StatusOK || !strings.Contains(string(r.Body), "refs/heads/main") {
			t.Fatalf("token: %d %.300s", r.Status, r.Body)
		}
	})

	t.Run("sign-in asks for the code", func(t *testing.T) {
		b := s.Web(t)
		b.Get("user/login")
		p := b.Post("user/login", url.Values{"user_name": {u.Name}, "password": {u.Password}, "redirect_to": {"/tfa/vault"}})
		if p.Status != http.StatusSeeOther || p.Location != "/user/two_factor" {
			t.Fatalf("password step: %d %q", p.Status, p.Location)
		}
		if strings.Contains(b.Get("/").Body, "Sign out") {
			t.Fatal("signed in by the password alone")
		}
		b.Get("user/two_factor").MustContain(t, http.StatusOK, "Two-factor authentication", `name="passcode"`, `href="/user/two_factor_scratch"`)
		b.Post("user/two_factor", url.Values{"passcode": {wrongCode}}).MustContain(t, http.StatusOK, "The passcode is not correct.")
		if strings.Contains(b.Get("/").Body, "Sign out") {
			t.Fatal("signed in by a wrong code")
		}
		b.Get("user/two_factor")
		code := totpAt(t, secret, base+1)
		p = b.Post("user/two_factor", url.Values{"passcode": {code}})
		if p.Status != http.StatusSeeOther || p.Location != "/tfa/vault" {
			t.Fatalf("code step: %d %q %s", p.Status, p.Location, p.Body)
		}
		b.Get("/").MustContain(t, http.StatusOK, "Sign out")

		// The same code again (another browser, same step) is refused.
		c := s.Web(t)
		c.SignIn(u.Name, u.Password)
		c.Get("user/two_factor")
		c.Post("user/two_factor", url.Values{"passcode": {code}}).MustContain(t, http.StatusOK, "The passcode is not correct.")
		if strings.Contains(c.Get("/").Body, "Sign out") {
			t.Fatal("signed in by a replayed code")
		}
	})

	t.Run("scratch code works once", func(t *testing.T) {
		b := s.Web(t)
		b.SignIn(u.Name, u.Password)
		b.Get("user/two_factor_scratch").MustContain(t, http.StatusOK, "Scratch code")
		b.Post("user/two_factor_scratch", url.Values{"token": {"notthecode"}}).MustContain(t, http.StatusOK, "The scratch code is not correct.")
		p := b.Post("user/two_factor_scratch", url.Values{"token": {scratch}})
		if p.Status != http.StatusSeeOther || p.Location != "/user/settings/security" {
			t.Fatalf("scratch: %d %q %s", p.Status, p.Location, p.Body)
		}
		b.Get("user/settings/security").MustContain(t, http.StatusOK, "Sign out", "signed in with your scratch code", "is <strong>enabled</strong>")

		c := s.Web(t)
		c.SignIn(u.Name, u.Password)
		c.Get("user/two_factor_scratch")
		c.Post("user/two_factor_scratch", url.Values{"token": {scratch}}).MustContain(t, http.StatusOK, "The scratch code is not correct.")
		if strings.Contains(c.Get("/").Body, "Sign out") {
			t.Fatal("signed in by a used scratch code")
		}

		// A new scratch code from the settings works.
		fresh := b.Post("user/settings/security/two_factor/regenerate_scratch", nil)
		fresh.MustContain(t, http.StatusOK, "will not be shown again")
		m := twoFAScratch.FindStringSubmatch(fresh.Body)
		if m == nil || m[1] == scratch {
			t.Fatalf("no new scratch code: %s", fresh.Body)
		}
		c.Get("user/two_factor_scratch")
		if p := c.Post("user/two_factor_scratch", url.Values{"token": {m[1]}}); p.Status != http.StatusSeeOther {
			t.Fatalf("the new scratch code: %d %s", p.Status, p.Body)
		}
		scratch = m[1] // used up; kept for the disable check below
	})

	t.Run("the pending state expires and cannot be forged", func(t *testing.T) {
		root, _ := url.Parse(s.URL + "user/")
		for name, ck := range map[string]*http.Cookie{
			"expired": pendingCookie(t, s, u.ID, time.Now().Add(-time.Second).Unix(), nil),
			"forged":  pendingCookie(t, s, u.ID, time.Now().Add(time.Minute).Unix(), []byte("not the key")),
		} {
			b := s.Web(t)
			b.client.Jar.SetCookies(root, []*http.Cookie{ck})
			p := b.Get("user/two_factor")
			if p.Status != http.StatusSeeOther || p.Location != "/user/login" {
				t.Fatalf("%s: %d %q", name, p.Status, p.Location)
			}
			b.Get("user/login").MustContain(t, http.StatusOK, "expired or was not started")
			b.Get("user/login")
			b.client.Jar.SetCookies(root, []*http.Cookie{ck})
			if p := b.Post("user/two_factor", url.Values{"passcode": {totpAt(t, secret, time.Now().Unix()/30+1)}}); p.Status != http.StatusSeeOther || p.Location != "/user/login" {
				t.Fatalf("%s: posting a code: %d %q", name, p.Status, p.Location)
			}
			if strings.Contains(b.Get("/").Body, "Sign out") {
				t.Fatalf("%s: signed in", name)
			}
		}
		// The same cookie with a live expiry is accepted: the refusals
		// above are about expiry and signature, not the format.
		b := s.Web(t)
		b.client.Jar.SetCookies(root, []*http.Cookie{pendingCookie(t, s, u.ID, time.Now().Add(time.Minute).Unix(), nil)})
		b.Get("user/two_factor").MustContain(t, http.StatusOK, `name="passcode"`)
		// Without any pending state the forms send the visitor to sign in.
		if p := s.Web(t).Get("user/two_factor_scratch"); p.Status != http.StatusSeeOther || p.Location != "/user/login" {
			t.Fatalf("no pending state: %d %q", p.Status, p.Location)
		}
	})

	t.Run("disable restores plain sign-in", func(t *testing.T) {
		w.Get("user/settings/security")
		w.Post("user/settings/security/two_factor/disable", url.Values{"password": {"wrong-password"}}).
			MustContain(t, http.StatusUnprocessableEntity, "The password or passcode is not correct.")
		if p := w.Post("user/settings/security/two_factor/disable", url.Values{"password": {u.Password}}); p.Status != http.StatusSeeOther {
			t.Fatalf("disable: %d %s", p.Status, p.Body)
		}
		w.Get("user/settings/security").MustContain(t, http.StatusOK, "Two-factor authentication has been disabled.", "is <strong>not enabled</strong>")
		b := s.Web(t)
		b.Get("user/login")
		if p := b.Post("user/login", url.Values{"user_name": {u.Name}, "password": {u.Password}}); p.Status != http.StatusSeeOther || p.Location != "/" {
			t.Fatalf("plain sign-in: %d %q", p.Status, p.Location)
		}
		b.Get("/").MustContain(t, http.StatusOK, "Sign out")
		if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password)); r.Status != http.StatusOK {
			t.Fatalf("API password: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", "tfa/vault.git/info/refs?service=git-upload-pack", Basic(u.Name, u.Password)); r.Status != http.StatusOK {
			t.Fatalf("git password: %d %.300s", r.Status, r.Body)
		}
	})
}
