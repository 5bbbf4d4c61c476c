package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// webauthnCeremonyJS is a script for the security key's sign-in page that
// runs the ceremony by hand (as static/webauthn.js does, but with control
// over what is sent): window.cairnKey.assert(challenge) asks the virtual
// authenticator for an assertion over the server's options, with the
// challenge replaced when one is given; post(body) sends an answer.
const webauthnCeremonyJS = `
window.cairnKey = (() => {
  const fromB64 = (s) => { const b = s.replace(/-/g, "+").replace(/_/g, "/"); const bin = atob(b + "===".slice((b.length + 3) % 4)); return Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer; };
  const toB64 = (buf) => { let bin = ""; for (const x of new Uint8Array(buf)) bin += String.fromCharCode(x); return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""); };
  const token = () => document.querySelector("#webauthn-signin input[name=_csrf]").value;
  return {
    options: async () => String((await fetch("/user/webauthn/assertion", {credentials: "same-origin"})).status),
    assert: async (wrongChallenge) => {
      const opts = await (await fetch("/user/webauthn/assertion", {credentials: "same-origin"})).json();
      const pk = opts.publicKey;
      pk.challenge = wrongChallenge ? crypto.getRandomValues(new Uint8Array(32)).buffer : fromB64(pk.challenge);
      pk.allowCredentials = (pk.allowCredentials || []).map((c) => ({...c, id: fromB64(c.id)}));
      const cred = await navigator.credentials.get({publicKey: pk});
      const r = cred.response;
      return JSON.stringify({id: cred.id, rawId: toB64(cred.rawId), type: cred.type, clientExtensionResults: {},
        response: {clientDataJSON: toB64(r.clientDataJSON), authenticatorData: toB64(r.authenticatorData), signature: toB64(r.signature),
          userHandle: r.userHandle ? toB64(r.userHandle) : undefined}});
    },
    post: async (body) => {
      const resp = await fetch("/user/webauthn/assertion", {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-Csrf-Token": token()}, body});
      return resp.status + " " + await resp.text();
    },
  };
})();
"ready"`

// TestBrowserSecurityKey registers a security key in a real browser with
// Chromium's virtual authenticator (CTAP2, built in, resident keys, user
// verification), signs out and in again with the password and the key,
// checks that a wrong challenge and a replayed assertion are refused and
// that the API and git refuse the password of an account with a key, then
// removes the key.
func TestBrowserSecurityKey(t *testing.T) {
	ctx := NewBrowser(t)
	// WebAuthn needs a domain name as relying party: localhost.
	s := StartServer(t, WithRootHost("localhost"))
	u := s.CreateUser("keyholder")
	if r := s.API("POST", "user/repos", u.Token, map[string]any{"name": "vault", "private": true, "auto_init": true}); r.Status != http.StatusCreated {
		t.Fatalf("create repo: %d %s", r.Status, r.Body)
	}

	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn.enable: %v", err)
	}
	va, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true}})
	if err != nil {
		t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
	}

	page := func(what, path, waitFor string) {
		t.Helper()
		Do(t, ctx, what, chromedp.Navigate(s.URL+strings.TrimPrefix(path, "/")), chromedp.WaitVisible(chromedp.CSS(waitFor)))
	}
	signInWithPassword := func(waitFor string) {
		t.Helper()
		page("sign-in page", "user/login", "#user_name")
		Submit(t, ctx, "sign in with the password", waitFor,
			chromedp.SendKeys(chromedp.CSS("#user_name"), u.Name),
			chromedp.SendKeys(chromedp.CSS("#password"), u.Password),
			chromedp.Click(chromedp.CSS("form[action='/user/login'] button[type=submit]")),
		)
	}
	signOut := func() {
		t.Helper()
		Submit(t, ctx, "sign out", "a[href^='/user/login']", chromedp.Click(chromedp.CSS("form[action='/user/logout'] button")))
	}
	signedInAs := func(what string) {
		t.Helper()
		Do(t, ctx, what, chromedp.WaitVisible(chromedp.CSS("header .account a.me")))
		if got := brText(t, ctx, "header .account a.me"); !strings.Contains(got, u.Name) {
			t.Fatalf("%s: signed in as %q", what, got)
		}
	}

	// Register a key.
	signInWithPassword("header .account a.me")
	page("security settings", "user/settings/security", "#webauthn-register")
	CheckAccessibility(t, ctx, "security settings without keys")
	Do(t, ctx, "register a key",
		chromedp.SendKeys(chromedp.CSS("#webauthn-name"), "Desk key"),
		chromedp.Click(chromedp.CSS("#webauthn-register button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#webauthn-keys .webauthn-key-name")),
	)
	if got := brText(t, ctx, "#webauthn-keys .webauthn-key-name"); got != "Desk key" {
		t.Fatalf("registered key named %q", got)
	}
	if got := brText(t, ctx, ".flash"); !strings.Contains(got, "has been added") {
		t.Fatalf("flash after registering: %q", got)
	}
	CheckAccessibility(t, ctx, "security settings with a key")
	Screenshot(t, ctx, "security-settings")
	creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: va.AuthenticatorID})
	if err != nil || len(creds.Credentials) != 1 || creds.Credentials[0].RpID != "localhost" {
		t.Fatalf("the authenticator holds %+v (%v), want one credential for localhost", creds, err)
	}
	// The same key again is refused by the browser (it is excluded).
	Do(t, ctx, "register the same key again",
		chromedp.SendKeys(chromedp.CSS("#webauthn-name"), "Same key"),
		chromedp.Click(chromedp.CSS("#webauthn-register button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#webauthn-register button[type=submit]:not([disabled])")),
	)
	if got := brText(t, ctx, "#webauthn-status"); !strings.Contains(got, "registered already") {
		t.Fatalf("registering a registered key: status %q", got)
	}

	t.Run("password over basic auth is refused", func(t *testing.T) {
		r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password))
		if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "security keys enrolled") {
			t.Fatalf("API with password: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", "api/v1/user", Token(u.Token)); r.Status != http.StatusOK {
			t.Fatalf("API with token: %d %s", r.Status, r.Body)
		}
		path := u.Name + "/vault.git/info/refs?service=git-upload-pack"
		if r := s.Do("GET", path, Basic(u.Name, u.Password)); r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Body), "access token") {
			t.Fatalf("git with password: %d %s", r.Status, r.Body)
		}
		if r := s.Do("GET", path, Basic(u.Name, u.Token)); r.Status != http.StatusOK {
			t.Fatalf("git with token: %d %.300s", r.Status, r.Body)
		}
	})

	// Sign in with the password and the key.
	signOut()
	signInWithPassword("#webauthn-signin")
	if got := brLocation(t, ctx); !strings.HasSuffix(got, "/user/webauthn") {
		t.Fatalf("after the password: %s", got)
	}
	CheckAccessibility(t, ctx, "security key sign-in")
	Screenshot(t, ctx, "security-key-sign-in")
	Do(t, ctx, "sign in with the key", chromedp.Click(chromedp.CSS("#webauthn-signin button[type=submit]")))
	signedInAs("after the key")

	// A wrong challenge and a replayed assertion are refused.
	signOut()
	signInWithPassword("#webauthn-signin")
	eval := func(what, script string) string {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return out
	}
	eval("load the ceremony script", webauthnCeremonyJS)
	wrong := eval("assert over a wrong challenge", "cairnKey.assert(true)")
	if got := eval("post it", "cairnKey.post("+jsString(wrong)+")"); !strings.HasPrefix(got, "401 ") {
		t.Fatalf("an assertion over another challenge: %s", got)
	}
	good := eval("assert", "cairnKey.assert(false)")
	if got := eval("post it", "cairnKey.post("+jsString(good)+")"); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, `"redirect"`) {
		t.Fatalf("a good assertion: %s", got)
	}
	page("home, signed in by the good assertion", "/", "header .account a.me")
	signOut()
	signInWithPassword("#webauthn-signin")
	eval("load the ceremony script", webauthnCeremonyJS)
	if got := eval("replay without a ceremony", "cairnKey.post("+jsString(good)+")"); !strings.HasPrefix(got, "401 ") {
		t.Fatalf("replayed assertion without a ceremony: %s", got)
	}
	if got := eval("start a ceremony", "cairnKey.options()"); got != "200" {
		t.Fatalf("assertion options: %s", got)
	}
	if got := eval("replay in a new ceremony", "cairnKey.post("+jsString(good)+")"); !strings.HasPrefix(got, "401 ") {
		t.Fatalf("replayed assertion in a new ceremony: %s", got)
	}
	Do(t, ctx, "sign in with the key after the refusals", chromedp.Click(chromedp.CSS("#webauthn-signin button[type=submit]")))
	signedInAs("after the refusals")

	// Remove the key: the password alone signs in again.
	page("security settings", "user/settings/security", "#webauthn-keys")
	Submit(t, ctx, "remove the key", "#webauthn-none", chromedp.Click(chromedp.CSS("#webauthn-keys button.danger")))
	signOut()
	signInWithPassword("header .account a.me")
	if r := s.Do("GET", "api/v1/user", Basic(u.Name, u.Password)); r.Status != http.StatusOK {
		t.Fatalf("API with password after removing the key: %d %s", r.Status, r.Body)
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
