package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"
)

// TestBrowserOIDCConsent: in a real browser, a built-in application (a
// public client on a loopback port, as git-credential-oauth runs) asks for
// consent, the user grants it and the browser lands on the client with a
// code; the settings then list the application, and the revoke button
// removes it. The consent and settings pages pass axe-core.
func TestBrowserOIDCConsent(t *testing.T) {
	ctx := NewBrowser(t)
	s := StartServer(t)
	bob := s.CreateUser("bob")

	// The client's loopback listener: it records the query it is sent.
	got := make(chan url.Values, 1)
	client := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.URL.Query():
		default:
		}
		_, _ = w.Write([]byte("<!doctype html><title>done</title><p id=done>Signed in.</p>"))
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client.Listener = ln
	client.Start()
	defer client.Close()

	cfg := oauth2Config(s, "a4792ccc-144e-407e-86c9-5e7d8d9c3269", "", client.URL, oauth2.AuthStyleInParams, "openid", "profile")
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL("br-state", oauth2.S256ChallengeOption(verifier))

	Do(t, ctx, "sign in",
		chromedp.Navigate(s.URL+"user/login"),
		chromedp.WaitVisible(chromedp.CSS("#user_name")),
		chromedp.SendKeys(chromedp.CSS("#user_name"), bob.Name),
		chromedp.SendKeys(chromedp.CSS("#password"), bob.Password),
		chromedp.Click(chromedp.CSS("form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("form[action='/user/logout']")),
	)
	Do(t, ctx, "consent page", chromedp.Navigate(authURL), chromedp.WaitVisible(chromedp.CSS("form[action='/login/oauth/grant']")))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(text, "git-credential-oauth") || !strings.Contains(text, "built into this instance") || !strings.Contains(text, "profile") {
		t.Fatalf("consent page: %q %v", text, err)
	}
	Screenshot(t, ctx, "oidc-consent")
	CheckAccessibility(t, ctx, "consent page")
	Do(t, ctx, "grant", chromedp.Click(chromedp.CSS("button[name=granted][value=true]")), chromedp.WaitVisible(chromedp.CSS("#done")))
	q := <-got
	if q.Get("state") != "br-state" || q.Get("code") == "" {
		t.Fatalf("client got %v", q)
	}
	tok, err := cfg.Exchange(t.Context(), q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil || idTokenOf(tok) == "" {
		t.Fatalf("exchange: %v", err)
	}

	Do(t, ctx, "settings", chromedp.Navigate(s.URL+"user/settings/applications"), chromedp.WaitVisible(chromedp.CSS(".oauth2-grants")))
	text, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".oauth2-grants")))
	if err != nil || !strings.Contains(text, "git-credential-oauth") || !strings.Contains(text, "Built-in") || !strings.Contains(text, "openid profile") {
		t.Fatalf("authorized applications: %q %v", text, err)
	}
	CheckAccessibility(t, ctx, "settings with an authorized application")
	Do(t, ctx, "revoke", chromedp.Click(chromedp.CSS(".oauth2-grants button.danger")), chromedp.WaitVisible(chromedp.CSS(".flash-success")))
	if st := apiStatus(s, "GET", "user", tok.AccessToken); st != 401 {
		t.Fatalf("token after revoking in the browser: %d", st)
	}
}
