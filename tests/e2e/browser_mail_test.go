package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/emersion/go-sasl"
)

// TestBrowserMailPages walks the mail pages in a real browser, each checked
// with axe-core: sign-up with activation (the link from the SMTP server's
// mail), then "Forgot password?" from the sign-in page to a new password.
func TestBrowserMailPages(t *testing.T) {
	ctx := NewBrowser(t)
	m := startMailServer(t, mailServerOptions{Mechanisms: []string{sasl.Plain}})
	s := StartServer(t, WithEnv(m.Env("smtp+starttls", "CAIRN_SERVICE_REGISTER_EMAIL_CONFIRM=true")...))

	Do(t, ctx, "sign-up page", chromedp.Navigate(s.URL+"user/sign_up"), chromedp.WaitVisible(chromedp.CSS("#user_name")))
	Submit(t, ctx, "sign up", "form[action='/user/activate/resend']",
		chromedp.SendKeys(chromedp.CSS("#user_name"), "bella"),
		chromedp.SendKeys(chromedp.CSS("#email"), "bella@example.com"),
		chromedp.SendKeys(chromedp.CSS("#password"), "bella-pw-123"),
		chromedp.SendKeys(chromedp.CSS("#retype"), "bella-pw-123"),
		chromedp.Click(chromedp.CSS("form button[type=submit]")),
	)
	CheckAccessibility(t, ctx, "activation sent page")
	link := m.WaitFor("bella@example.com", "Please activate your account", 30*time.Second).Link(t)
	Do(t, ctx, "activation link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("form[action='/user/activate'] button")))
	CheckAccessibility(t, ctx, "activation page")
	Submit(t, ctx, "activate", ".flash-success", chromedp.Click(chromedp.CSS("form[action='/user/activate'] button")))
	Submit(t, ctx, "sign out", "a[href^='/user/login']", chromedp.Click(chromedp.CSS("form[action='/user/logout'] button")))

	Do(t, ctx, "sign-in page", chromedp.Navigate(s.URL+"user/login"), chromedp.WaitVisible(chromedp.CSS("a[href='/user/forgot_password']")))
	Submit(t, ctx, "forgot password link", "#email", chromedp.Click(chromedp.CSS("a[href='/user/forgot_password']")))
	CheckAccessibility(t, ctx, "forgot password page")
	Submit(t, ctx, "ask for a recovery mail", ".flash-info",
		chromedp.SendKeys(chromedp.CSS("#email"), "bella@example.com"),
		chromedp.Click(chromedp.CSS("form button[type=submit]")),
	)
	link = m.WaitFor("bella@example.com", "Recover your account", 30*time.Second).Link(t)
	Do(t, ctx, "recovery link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#password")))
	CheckAccessibility(t, ctx, "recover account page")
	Submit(t, ctx, "new password", ".flash-success",
		chromedp.SendKeys(chromedp.CSS("#password"), "bella-new-pw-1"),
		chromedp.SendKeys(chromedp.CSS("#retype"), "bella-new-pw-1"),
		chromedp.Click(chromedp.CSS("form[action='/user/recover_account'] button[type=submit]")),
	)
}
