package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAccount signs up, out and in again in a real browser, and
// checks the pages on the way with axe-core.
func TestBrowserAccount(t *testing.T) {
	ctx := NewBrowser(t)
	s := StartServer(t)

	Do(t, ctx, "landing page", chromedp.Navigate(s.URL), chromedp.WaitVisible(chromedp.CSS("main .hero")))
	Screenshot(t, ctx, "landing")
	CheckAccessibility(t, ctx, "landing page")

	Do(t, ctx, "sign up",
		chromedp.Navigate(s.URL+"user/sign_up"),
		chromedp.WaitVisible(chromedp.CSS("#user_name")),
	)
	CheckAccessibility(t, ctx, "sign-up page")
	Do(t, ctx, "fill the sign-up form",
		chromedp.SendKeys(chromedp.CSS("#user_name"), "browser"),
		chromedp.SendKeys(chromedp.CSS("#email"), "browser@example.com"),
		chromedp.SendKeys(chromedp.CSS("#password"), "browser-pw-123"),
		chromedp.SendKeys(chromedp.CSS("#retype"), "browser-pw-123"),
		chromedp.Click(chromedp.CSS("form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS(".flash-success")),
	)
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".flash-success")))
	if err != nil || !strings.Contains(flash, "Welcome to Cairn, browser!") {
		t.Fatalf("flash after sign-up: %q %v", flash, err)
	}
	Screenshot(t, ctx, "dashboard")
	CheckAccessibility(t, ctx, "dashboard")

	Do(t, ctx, "sign out",
		chromedp.Click(chromedp.CSS("form[action='/user/logout'] button")),
		chromedp.WaitVisible(chromedp.CSS("main .hero")),
	)
	Do(t, ctx, "sign in",
		chromedp.Navigate(s.URL+"user/login"),
		chromedp.WaitVisible(chromedp.CSS("#user_name")),
	)
	CheckAccessibility(t, ctx, "sign-in page")
	Do(t, ctx, "fill the sign-in form",
		chromedp.SendKeys(chromedp.CSS("#user_name"), "browser"),
		chromedp.SendKeys(chromedp.CSS("#password"), "browser-pw-123"),
		chromedp.Click(chromedp.CSS("form button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("form[action='/user/logout']")),
	)
	me, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".topbar .me")))
	if err != nil || strings.TrimSpace(me) != "browser" {
		t.Fatalf("signed-in name: %q %v", me, err)
	}
}
