package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAdminAuthSources: the site administration's list of sign-in
// sources, its new-source forms (bind DN and simple auth), a refused form
// and a source's edit page, as an administrator's browser shows and sends
// them, pass axe-core.
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

	// The bind DN source's edit page: its settings, not its password.
	Submit(t, ctx, "open corp", "#bind_dn", chromedp.Click(chromedp.CSS("main table a")))
	bindDN, err1 := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#bind_dn")))
	bindPassword, err2 := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#bind_password")))
	if err1 != nil || err2 != nil {
		t.Fatalf("read the edit form: %v %v", err1, err2)
	}
	if bindDN != "cn=reader,dc=example,dc=org" || bindPassword != "" {
		t.Fatalf("the edit form shows bind DN %q, password %q", bindDN, bindPassword)
	}
	CheckAccessibility(t, ctx, "bind DN source edit page")

	// A new simple-auth source through the form: the type chosen first, a
	// refusal shown on the form, then added.
	Do(t, ctx, "authentication sources again", chromedp.Navigate(s.URL+"-/admin/auths"), chromedp.WaitVisible(chromedp.CSS("main table")))
	Submit(t, ctx, "new source", "#bind_dn", chromedp.Click(chromedp.CSS(`a[href="/-/admin/auths/new"]`)))
	CheckAccessibility(t, ctx, "new bind DN source form")
	Submit(t, ctx, "choose simple auth", "#user_dn",
		chromedp.SetValue(chromedp.CSS("#choose_type"), "5"),
		chromedp.Click(chromedp.CSS(`form[method="get"] button[type=submit]`)))
	CheckAccessibility(t, ctx, "new simple-auth source form")
	Do(t, ctx, "a filter without %s",
		chromedp.SendKeys(chromedp.CSS("#name"), "people"),
		chromedp.SendKeys(chromedp.CSS("#host"), "ldap.example.org"),
		chromedp.SendKeys(chromedp.CSS("#user_dn"), "uid=%s,ou=people,dc=example,dc=org"),
		chromedp.SendKeys(chromedp.CSS("#filter"), "(objectClass=inetOrgPerson)"),
		chromedp.SendKeys(chromedp.CSS("#attribute_mail"), "mail"),
		chromedp.Click(chromedp.CSS(`form[method="post"] button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(".flash-error")))
	if text := brText(t, ctx, ".flash-error"); !strings.Contains(text, "must contain %s") {
		t.Fatalf("the refusal: %q", text)
	}
	CheckAccessibility(t, ctx, "refused simple-auth source form")
	Submit(t, ctx, "add the simple-auth source", "#user_dn",
		chromedp.SetValue(chromedp.CSS("#filter"), "(&(objectClass=inetOrgPerson)(uid=%s))"),
		chromedp.Click(chromedp.CSS(`form[method="post"] button.primary`)))
	if text := brText(t, ctx, "main"); !strings.Contains(text, "The authentication source people has been added.") || !strings.Contains(text, "LDAP (simple auth)") {
		t.Fatalf("after adding: %s", text)
	}
	Screenshot(t, ctx, "admin-auth-edit")
	CheckAccessibility(t, ctx, "simple-auth source edit page")
}
