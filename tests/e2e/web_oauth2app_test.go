package e2e

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var (
	webOAuth2Secret   = regexp.MustCompile(`id="client-secret">(gto_[a-z2-7]{52})<`)
	webOAuth2ClientID = regexp.MustCompile(`id="client-id">([0-9a-f-]{36})<`)
	webOAuth2EditLink = regexp.MustCompile(`/user/settings/applications/oauth2/(\d+)"`)
)

func TestWebOAuth2Applications(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	w := s.Web(t)
	w.SignIn(alice.Name, alice.Password)

	w.Get("user/settings/applications").MustContain(t, 200, "OAuth2 applications", "You have no OAuth2 applications.",
		`action="/user/settings/applications/oauth2"`, `name="redirect_uris"`, `name="confidential_client" value="on" checked`)

	// Without the CSRF token nothing is created.
	p := w.Post("user/settings/applications/oauth2", url.Values{"_csrf": {"forged"}, "application_name": {"Forged"}, "redirect_uris": {"https://f.example/cb"}})
	if p.Status != 400 {
		t.Fatalf("forged POST: %d", p.Status)
	}
	w.Get("user/settings/applications")

	// A bad redirect URI is refused, the form kept.
	w.Post("user/settings/applications/oauth2", url.Values{"application_name": {"Bad <app>"}, "redirect_uris": {"https://ok.example/cb\njavascript:alert(1)"}}).
		MustContain(t, 422, "is not a valid redirect URI", "Bad &lt;app&gt;", "You have no OAuth2 applications.")

	// Create: the page shows the client id and the secret, this once.
	p = w.Post("user/settings/applications/oauth2", url.Values{"application_name": {"My <CI>"},
		"redirect_uris": {"https://ci.example.org/cb\r\n\r\nhttp://127.0.0.1/cb\r\n"}, "confidential_client": {"on"}})
	p.MustContain(t, 200, "The application has been created.", "My &lt;CI&gt;", "Regenerate secret", "https://ci.example.org/cb\nhttp://127.0.0.1/cb")
	if cc := p.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Fatalf("Cache-Control %q", cc)
	}
	m := webOAuth2Secret.FindStringSubmatch(p.Body)
	cid := webOAuth2ClientID.FindStringSubmatch(p.Body)
	if m == nil || cid == nil {
		t.Fatalf("no client id or secret shown: %.3000s", p.Body)
	}
	secret, clientID := m[1], cid[1]

	// The API sees it (without the secret).
	r := s.API("GET", "user/applications/oauth2", alice.Token, nil)
	var apps []struct {
		ID           int64    `json:"id"`
		Name         string   `json:"name"`
		ClientID     string   `json:"client_id"`
		Secret       string   `json:"client_secret"`
		Confidential bool     `json:"confidential_client"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	r.Decode(t, &apps)
	if len(apps) != 1 || apps[0].ClientID != clientID || apps[0].Name != "My <CI>" || !apps[0].Confidential ||
		len(apps[0].RedirectURIs) != 2 || apps[0].Secret != "" {
		t.Fatalf("API list %s", r.Body)
	}
	id := apps[0].ID
	if oauth2StoredSecret(t, s, id) != sha256Hex(secret) {
		t.Fatal("stored secret is not the hash of the one shown")
	}
	edit := fmt.Sprintf("user/settings/applications/oauth2/%d", id)

	// Lists and the edit page never show the secret again.
	p = w.Get("user/settings/applications")
	p.MustContain(t, 200, "My &lt;CI&gt;", clientID, "/"+edit+`"`, "Confidential")
	if strings.Contains(p.Body, secret) || webOAuth2EditLink.FindStringSubmatch(p.Body)[1] != fmt.Sprint(id) {
		t.Fatal("list shows the secret or links elsewhere")
	}
	p = w.Get(edit)
	p.MustContain(t, 200, clientID, "Hidden: it was shown once", `value="My &lt;CI&gt;"`)
	if strings.Contains(p.Body, secret) {
		t.Fatal("edit page shows the secret")
	}

	// Edit: name, URIs, public client; the secret stays.
	p = w.Post(edit, url.Values{"application_name": {"Renamed"}, "redirect_uris": {"app.example:/cb"}})
	if p.Status != 303 || p.Location != "/user/settings/applications" {
		t.Fatalf("edit: %d %q %.1000s", p.Status, p.Location, p.Body)
	}
	w.Get("user/settings/applications").MustContain(t, 200, "The OAuth2 application has been updated.", "Renamed", "Public")
	r = s.API("GET", fmt.Sprintf("user/applications/oauth2/%d", id), alice.Token, nil)
	fndStatus(t, r, 200, "API get")
	if !strings.Contains(string(r.Body), `"name":"Renamed"`) || !strings.Contains(string(r.Body), `"confidential_client":false`) ||
		!strings.Contains(string(r.Body), `"redirect_uris":["app.example:/cb"]`) {
		t.Fatalf("after edit %s", r.Body)
	}
	if oauth2StoredSecret(t, s, id) != sha256Hex(secret) {
		t.Fatal("editing changed the secret")
	}
	w.Get(edit)
	w.Post(edit, url.Values{"application_name": {"Renamed"}, "redirect_uris": {"https://x.example/#frag"}}).
		MustContain(t, 422, "must not contain a fragment", "https://x.example/#frag")

	// Regenerate: a new secret, shown once, and only its hash kept.
	w.Get(edit)
	p = w.Post(edit+"/regenerate_secret", nil)
	p.MustContain(t, 200, "A new client secret has been generated")
	m = webOAuth2Secret.FindStringSubmatch(p.Body)
	if m == nil || m[1] == secret {
		t.Fatalf("no new secret: %.2000s", p.Body)
	}
	if oauth2StoredSecret(t, s, id) != sha256Hex(m[1]) {
		t.Fatal("regenerated secret not stored")
	}

	// Another user: 404 on every page and form of alice's application.
	wb := s.Web(t)
	wb.SignIn(bob.Name, bob.Password)
	wb.Get(edit).MustContain(t, 404)
	wb.Get("user/settings/applications")
	wb.Post(edit, url.Values{"application_name": {"Hijack"}, "redirect_uris": {"https://evil.example/cb"}}).MustContain(t, 404)
	wb.Post(edit+"/regenerate_secret", nil).MustContain(t, 404)
	wb.Post(edit+"/delete", nil).MustContain(t, 404)
	if p := wb.Get("user/settings/applications"); strings.Contains(p.Body, "Renamed") || strings.Contains(p.Body, clientID) {
		t.Fatal("bob sees alice's application")
	}
	if oauth2StoredSecret(t, s, id) != sha256Hex(m[1]) {
		t.Fatal("bob changed alice's application")
	}
	// Signed out: sent to sign in.
	if p := s.Web(t).Get(edit); p.Status < 300 || p.Status > 399 || !strings.Contains(p.Location, "/user/login") {
		t.Fatalf("signed out: %d %q", p.Status, p.Location)
	}

	// Delete (with the CSRF token only).
	w.Get("user/settings/applications")
	if p := w.Post(edit+"/delete", url.Values{"_csrf": {"forged"}}); p.Status != 400 {
		t.Fatalf("forged delete: %d", p.Status)
	}
	w.Get("user/settings/applications")
	if p := w.Post(edit+"/delete", nil); p.Status != 303 || p.Location != "/user/settings/applications" {
		t.Fatalf("delete: %d %q", p.Status, p.Location)
	}
	w.Get("user/settings/applications").MustContain(t, 200, "The OAuth2 application has been deleted", "You have no OAuth2 applications.")
	w.Get(edit).MustContain(t, 404)
	fndStatus(t, s.API("GET", fmt.Sprintf("user/applications/oauth2/%d", id), alice.Token, nil), 404, "API after delete")
}
