package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAdminAuthSources: the site administration's list of sign-in
// sources, as an administrator's browser shows it, passes axe-core.
func TestBrowserAdminAuthSources(t *testing.T) {
	ctx := NewBrowser(t)
	s := StartServer(t)
	// Adding a source does not contact the directory: no slapd is needed.
	addLDAPSource(t, s, "add-ldap", "--name", "corp", "--security-protocol", "LDAPS", "--host", "ldap.example.org", "--port", "636",
		"--bind-dn", "cn=reader,dc=example,dc=org", "--bind-password", "reader-secret", "--user-search-base", "ou=people,dc=example,dc=org",
		"--user-filter", "(uid=%s)", "--email-attribute", "mail", "--synchronize-users")
	Do(t, ctx, "sign-in page", chromedp.Navigate(s.URL+"user/login"), chromedp.WaitVisible(chromedp.CSS("#user_name")))
	Submit(t, ctx, "sign in as the administrator", "form[action='/user/logout']",
		chromedp.SendKeys(chromedp.CSS("#user_name"), adminName),
		chromedp.SendKeys(chromedp.CSS("#password"), adminPassword),
		chromedp.Click(chromedp.CSS("form button[type=submit]")))
	Do(t, ctx, "authentication sources", chromedp.Navigate(s.URL+"-/admin/auths"), chromedp.WaitVisible(chromedp.CSS("main table")))
	text := brText(t, ctx, "main")
	for _, want := range []string{"corp", "LDAP (via BindDN)", "Authentication sources"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the page lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "reader-secret") {
		t.Fatal("the page shows the bind password")
	}
	Screenshot(t, ctx, "admin-auths")
	CheckAccessibility(t, ctx, "authentication sources")
}
