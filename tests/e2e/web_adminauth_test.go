package e2e

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ldapSourceForm is the web form of a bind DN source for d (StartTLS on its
// plain port, the reader account), in Gitea's field names.
func ldapSourceForm(d *Directory, name string) url.Values {
	return url.Values{
		"type": {"2"}, "name": {name}, "security_protocol": {"2"}, "host": {"127.0.0.1"}, "port": {strconv.Itoa(d.Port)},
		"bind_dn": {d.ReaderDN}, "bind_password": {d.Reader}, "user_base": {"ou=people," + d.Base},
		"filter":       {ldapUserFilter},
		"admin_filter": {"(memberOf=cn=admins,ou=groups," + d.Base + ")"}, "restricted_filter": {"(memberOf=cn=restricted,ou=groups," + d.Base + ")"},
		"attribute_username": {"uid"}, "attribute_name": {"givenName"}, "attribute_surname": {"sn"}, "attribute_mail": {"mail"},
		"attribute_ssh_public_key": {"sshPublicKey"}, "attribute_avatar": {"jpegPhoto"}, "search_page_size": {"100"},
		"is_active": {"on"}, "is_sync_enabled": {"on"},
	}
}

// withForm is form with the fields of change replaced (and without the
// CSRF token an earlier Post put in).
func withForm(form url.Values, change url.Values) url.Values {
	out := url.Values{}
	for k, v := range form {
		if k != "_csrf" {
			out[k] = v
		}
	}
	for k, v := range change {
		out[k] = v
	}
	return out
}

var authEditLink = regexp.MustCompile(`^/-/admin/auths/(\d+)$`)

// webAuthList is the output of 'cairn admin auth list'.
func webAuthList(t *testing.T, s *Server) string {
	t.Helper()
	out, err := s.Cairn("admin", "auth", "list")
	if err != nil {
		t.Fatalf("auth list: %v\n%s", err, out)
	}
	return out
}

// TestWebAdminAuthSources: an administrator adds an LDAP source (bind DN)
// and an LDAP simple-auth source with the web forms against a real slapd,
// whose users then sign in; a refused form keeps its values but never the
// bind password; an edit with a blank password keeps the stored one, a new
// one replaces it; deleting is refused while accounts use the source; and
// no one else reaches the pages or their forms.
func TestWebAdminAuthSources(t *testing.T) {
	d := StartDirectory(t, "")
	alice := d.AddUser("alice", "alice-secret", "Alice", "Liddell", "alice@example.org")
	d.AddUser("bob", "bob-secret", "Bob", "Builder", "bob@example.org")
	d.AddUser("carol", "carol-secret", "Carol", "Danvers", "carol@example.org")
	d.AddUser("dave", "dave-secret", "Dave", "Lister", "dave@example.org")
	d.AddGroup("admins", alice)
	s := StartServer(t, WithEnv("SSL_CERT_FILE="+d.CAFile))
	eve := s.CreateUser("eve")
	w := s.Web(t)
	w.SignIn(adminName, adminPassword)

	// The new page: the bind DN form by default, every LDAP field; the
	// simple-auth form on ?type=5; kinds this binary lacks do not exist.
	p := w.Get("-/admin/auths/new")
	p.MustContain(t, http.StatusOK, `name="type" value="2"`, `<option value="2" selected>LDAP (via BindDN)</option>`,
		`<option value="5">LDAP (simple auth)</option>`, `<option value="2">StartTLS</option>`, `name="bind_password" type="password" value=""`)
	for _, field := range []string{"name", "security_protocol", "host", "port", "skip_verify", "bind_dn", "bind_password", "user_base", "filter",
		"admin_filter", "restricted_filter", "attribute_username", "attribute_name", "attribute_surname", "attribute_mail",
		"attribute_ssh_public_key", "attribute_avatar", "attributes_in_bind", "search_page_size", "allow_deactivate_all", "is_sync_enabled", "is_active"} {
		if !strings.Contains(p.Body, `name="`+field+`"`) {
			t.Errorf("the bind DN form lacks %s", field)
		}
	}
	if strings.Contains(p.Body, `name="user_dn"`) {
		t.Error("the bind DN form asks for a user DN template")
	}
	p = w.Get("-/admin/auths/new?type=5")
	p.MustContain(t, http.StatusOK, `name="type" value="5"`, `name="user_dn"`, `name="filter"`)
	for _, field := range []string{"bind_dn", "bind_password", "user_base", "is_sync_enabled"} {
		if strings.Contains(p.Body, `name="`+field+`"`) {
			t.Errorf("the simple-auth form has %s", field)
		}
	}
	for _, typ := range []string{"4", "6", "x"} { // PAM only with the pam build tag
		if p := w.Get("-/admin/auths/new?type=" + typ); p.Status != http.StatusNotFound {
			t.Errorf("new source of type %s: %d, want 404", typ, p.Status)
		}
	}

	// Refusals: the form again, values kept, the bind password not echoed,
	// nothing stored.
	form := ldapSourceForm(d, "corp")
	w.Get("-/admin/auths/new")
	for _, c := range []struct {
		change url.Values
		field  string
		msg    string
	}{
		{url.Values{"filter": {"(uid=alice)"}}, "filter", "must contain %s"},
		{url.Values{"port": {"ldap"}}, "port", "port must be a number"},
		{url.Values{"port": {"70000"}}, "port", "between 1 and 65535"},
		{url.Values{"attribute_mail": {""}}, "attribute_mail", "e-mail attribute is required"},
		{url.Values{"admin_filter": {"(memberOf=cn=admins"}}, "admin_filter", "not a valid LDAP filter"},
		{url.Values{"security_protocol": {"7"}}, "security_protocol", "choose a security protocol"},
		{url.Values{"name": {"  "}}, "name", "needs a name"},
		{url.Values{"type": {"6"}}, "", ""},
	} {
		p := w.Post("-/admin/auths/new", withForm(form, c.change))
		if c.field == "" {
			if p.Status != http.StatusUnprocessableEntity {
				t.Errorf("a source of a type this binary lacks: %d", p.Status)
			}
			continue
		}
		p.MustContain(t, http.StatusUnprocessableEntity, pageText(c.msg), `value="`+d.ReaderDN+`"`, `value="ou=people,`+d.Base+`"`,
			`id="`+c.field+`"`)
		if !regexp.MustCompile(`id="` + c.field + `"[^>]*aria-invalid="true"`).MatchString(p.Body) {
			t.Errorf("refused %s: the field is not marked invalid", c.field)
		}
		if strings.Contains(p.Body, d.Reader) {
			t.Fatalf("refused %s: the page shows the bind password", c.field)
		}
	}
	if out := webAuthList(t, s); strings.Contains(out, "corp") || strings.Contains(out, "LDAP") {
		t.Fatalf("a refused form stored a source:\n%s", out)
	}

	// Added: the edit page shows the settings, not the password.
	p = w.Post("-/admin/auths/new", form)
	m := authEditLink.FindStringSubmatch(p.Location)
	if p.Status != http.StatusSeeOther || m == nil {
		t.Fatalf("add the source: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	edit := "-/admin/auths/" + m[1]
	p = w.Get(edit)
	p.MustContain(t, http.StatusOK, "The authentication source corp has been added.", `value="`+d.ReaderDN+`"`, `value="`+pageText(ldapUserFilter)+`"`,
		`<option value="2" selected>StartTLS</option>`, `name="search_page_size" type="number" value="100"`, "0 accounts sign in through it")
	if strings.Contains(p.Body, d.Reader) {
		t.Fatal("the edit page shows the bind password")
	}
	if !regexp.MustCompile(`id="is_sync_enabled" name="is_sync_enabled" checked`).MatchString(p.Body) {
		t.Error("synchronisation is not shown enabled")
	}
	if !regexp.MustCompile(`(?m)^` + m[1] + `\s+corp\s+LDAP \(via BindDN\)\s+true\s*$`).MatchString(webAuthList(t, s)) {
		t.Fatalf("the CLI does not list the source:\n%s", webAuthList(t, s))
	}
	w.Get("-/admin/auths").MustContain(t, http.StatusOK, `<a href="/-/admin/auths/`+m[1]+`">corp</a>`, `href="/-/admin/auths/new"`)
	if p := w.Post("-/admin/auths/new", form); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "already exists") {
		t.Fatalf("a second source named corp: %d %.1000s", p.Status, p.Body)
	}

	// The directory's users sign in through it.
	s.Web(t).SignIn("alice", "alice-secret")
	if u, ok := adminGetUser(t, s, "alice"); !ok || u.SourceID != id || !u.IsAdmin || u.FullName != "Alice Liddell" {
		t.Fatalf("alice after signing in: %+v (found %v)", u, ok)
	}

	// Edited with the password blank: renamed, the stored password still binds.
	w.Get(edit)
	p = w.Post(edit, withForm(form, url.Values{"name": {"corp-directory"}, "bind_password": {""}, "is_sync_enabled": {""}}))
	if p.Status != http.StatusSeeOther || p.Location != "/"+edit {
		t.Fatalf("edit with a blank password: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	p = w.Get(edit)
	p.MustContain(t, http.StatusOK, "has been updated", "Authentication source corp-directory")
	if regexp.MustCompile(`id="is_sync_enabled" name="is_sync_enabled" checked`).MatchString(p.Body) {
		t.Error("synchronisation still enabled after unticking it")
	}
	s.Web(t).SignIn("bob", "bob-secret")
	if u, ok := adminGetUser(t, s, "bob"); !ok || u.SourceID != id {
		t.Fatalf("bob after the edit: %+v (found %v)", u, ok)
	}
	// A new password replaces it: a wrong one stops the search, the right
	// one again restores it.
	w.Get(edit)
	if p := w.Post(edit, withForm(form, url.Values{"name": {"corp-directory"}, "bind_password": {"not-the-password"}})); p.Status != http.StatusSeeOther {
		t.Fatalf("edit with a wrong password: %d %.2000s", p.Status, p.Body)
	}
	c := s.Web(t)
	c.Get("user/login")
	if p := c.Post("user/login", url.Values{"user_name": {"carol"}, "password": {"carol-secret"}}); p.Status == http.StatusSeeOther {
		t.Fatal("carol signed in while the source's bind password was wrong")
	}
	// A refused edit changes nothing either.
	w.Get(edit)
	if p := w.Post(edit, withForm(form, url.Values{"name": {"corp-directory"}, "user_base": {" "}})); p.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.Body, "search base is required") || strings.Contains(p.Body, d.Reader) {
		t.Fatalf("edit without a search base: %d %.2000s", p.Status, p.Body)
	}
	w.Get(edit)
	if p := w.Post(edit, withForm(form, url.Values{"name": {"corp-directory"}})); p.Status != http.StatusSeeOther {
		t.Fatalf("edit with the right password: %d %.2000s", p.Status, p.Body)
	}
	s.Web(t).SignIn("carol", "carol-secret")

	// A simple-auth source: dave signs in by the DN template. (The bind DN
	// source comes first and would take him: it is deactivated.)
	w.Get(edit)
	if p := w.Post(edit, withForm(form, url.Values{"name": {"corp-directory"}, "is_active": {""}, "bind_password": {""}})); p.Status != http.StatusSeeOther {
		t.Fatalf("deactivate: %d %.2000s", p.Status, p.Body)
	}
	w.Get("-/admin/auths/new?type=5")
	p = w.Post("-/admin/auths/new", url.Values{"type": {"5"}, "name": {"simple"}, "security_protocol": {"0"}, "host": {"127.0.0.1"},
		"port": {strconv.Itoa(d.Port)}, "user_dn": {"uid=%s,ou=people," + d.Base}, "filter": {"(&(objectClass=inetOrgPerson)(uid=%s))"},
		"attribute_username": {"uid"}, "attribute_name": {"givenName"}, "attribute_surname": {"sn"}, "attribute_mail": {"mail"},
		"is_active": {"on"}, "is_sync_enabled": {"on"}})
	ms := authEditLink.FindStringSubmatch(p.Location)
	if p.Status != http.StatusSeeOther || ms == nil {
		t.Fatalf("add the simple-auth source: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	simpleID, _ := strconv.ParseInt(ms[1], 10, 64)
	w.Get(p.Location).MustContain(t, http.StatusOK, `value="uid=%s,ou=people,`+d.Base+`"`, "LDAP (simple auth)")
	s.Web(t).SignIn("dave", "dave-secret")
	if u, ok := adminGetUser(t, s, "dave"); !ok || u.SourceID != simpleID || u.FullName != "Dave Lister" || u.Email != "dave@example.org" {
		t.Fatalf("dave: %+v (found %v)", u, ok)
	}
	if !regexp.MustCompile(`(?m)^` + ms[1] + `\s+simple\s+LDAP \(simple auth\)\s+true\s*$`).MatchString(webAuthList(t, s)) {
		t.Fatalf("the CLI does not list the simple-auth source:\n%s", webAuthList(t, s))
	}

	// Nobody else reaches the pages or their forms; a forged form is refused.
	ew := s.Web(t)
	ew.SignIn(eve.Name, eve.Password)
	anon := s.Web(t)
	for _, pg := range []string{"-/admin/auths", "-/admin/auths/new", "-/admin/auths/new?type=5", edit} {
		for who, c := range map[string]*Web{"signed out": anon, "eve": ew} {
			if p := c.Get(pg); p.Status != http.StatusNotFound {
				t.Errorf("%s GET %s: %d, want 404", who, pg, p.Status)
			}
		}
	}
	ew.Get("/")
	for _, post := range []struct {
		path string
		form url.Values
	}{
		{"-/admin/auths/new", withForm(form, url.Values{"name": {"eves"}})},
		{edit, withForm(form, url.Values{"name": {"eves"}})},
		{edit + "/delete", url.Values{}},
	} {
		if p := ew.Post(post.path, post.form); p.Status != http.StatusNotFound {
			t.Errorf("eve POST %s: %d, want 404", post.path, p.Status)
		}
	}
	if p := w.Post(edit, withForm(form, url.Values{"name": {"forged"}, "_csrf": {"forged"}})); p.Status != http.StatusBadRequest {
		t.Errorf("a form with a forged CSRF token: %d", p.Status)
	}
	if out := webAuthList(t, s); strings.Contains(out, "eves") || strings.Contains(out, "forged") || !strings.Contains(out, "corp-directory") {
		t.Fatalf("a refused form changed the sources:\n%s", out)
	}

	// Deleting is refused while accounts sign in through the source.
	w.Get(edit)
	p = w.Post(edit+"/delete", nil)
	p.MustContain(t, http.StatusUnprocessableEntity, "still used by 3 users", "3 accounts still do")
	for _, name := range []string{"alice", "bob", "carol"} {
		mustStatus(t, s.Do("DELETE", "api/v1/admin/users/"+name+"?purge=true", Token(s.AdminTok)), http.StatusNoContent, "delete "+name)
	}
	w.Get(edit)
	p = w.Post(edit+"/delete", nil)
	if p.Status != http.StatusSeeOther || p.Location != "/-/admin/auths" {
		t.Fatalf("delete the unused source: %d %q %.1000s", p.Status, p.Location, p.Body)
	}
	w.Get("-/admin/auths").MustContain(t, http.StatusOK, "The authentication source corp-directory has been deleted.", ">simple</a>")
	if p := w.Get(edit); p.Status != http.StatusNotFound {
		t.Fatalf("the deleted source's page: %d", p.Status)
	}
	if out := webAuthList(t, s); strings.Contains(out, "corp-directory") {
		t.Fatalf("the CLI still lists the deleted source:\n%s", out)
	}
	if strings.Contains(s.Logs(), d.Reader) {
		t.Fatal("the bind password was logged")
	}

	// Sources this binary cannot use (a kind it lacks: Gitea's OAuth2 type
	// 6; settings it cannot read) are listed, shown and deletable.
	db := fndServerDB(t, s)
	defer db.Close()
	for _, row := range []string{"6, 'github', TRUE, FALSE, '{}'", "2, 'broken', FALSE, FALSE, 'not json'"} {
		if _, err := db.Exec("INSERT INTO login_source (type, name, is_active, is_sync_enabled, cfg, created_unix, updated_unix) VALUES (" + row + ", 1, 1)"); err != nil {
			t.Fatal(err)
		}
	}
	if out := webAuthList(t, s); !regexp.MustCompile(`(?m)^\d+\s+github\s+Unknown\s+true\s+login source \d+ \(github\): type 6 .*not supported`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^\d+\s+broken\s+LDAP .*\s+false\s+login source \d+ \(broken\): .*cannot be read`).MatchString(out) {
		t.Fatalf("the CLI does not list the unusable sources:\n%s", out)
	}
	p = w.Get("-/admin/auths")
	p.MustContain(t, http.StatusOK, ">github</a>", ">broken</a>", "not usable by this binary")
	for _, name := range []string{"github", "broken"} {
		m := regexp.MustCompile(`href="(/-/admin/auths/\d+)">` + name + `<`).FindStringSubmatch(p.Body)
		if m == nil {
			t.Fatalf("no link to %s", name)
		}
		page := w.Get(m[1])
		page.MustContain(t, http.StatusOK, "Authentication source "+name, "This binary cannot use this source")
		if strings.Contains(page.Body, `name="host"`) {
			t.Errorf("%s: a form for a source this binary cannot use", name)
		}
		if p := w.Post(m[1], withForm(form, url.Values{"name": {"renamed"}})); p.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: an edit was not refused: %d", name, p.Status)
		}
		w.Get(m[1])
		if p := w.Post(m[1]+"/delete", nil); p.Status != http.StatusSeeOther {
			t.Fatalf("delete %s: %d %.1000s", name, p.Status, p.Body)
		}
	}
	if out := webAuthList(t, s); strings.Contains(out, "github") || strings.Contains(out, "broken") || strings.Contains(out, "renamed") {
		t.Fatalf("after deleting the unusable sources:\n%s", out)
	}
	if p := w.Get("-/admin/auths"); strings.Contains(p.Body, ">github</a>") || strings.Contains(p.Body, ">broken</a>") || !strings.Contains(p.Body, ">simple</a>") {
		t.Fatalf("the list after deleting the unusable sources: %.2000s", p.Body)
	}
}

// TestWebAdminSMTPSource: an administrator adds an SMTP source with the web
// form (the kind's own fields), whose users then sign in; a refused form
// keeps its values; the edit page shows the settings.
func TestWebAdminSMTPSource(t *testing.T) {
	mail := StartSMTPAuthServer(t, false)
	mail.AddUser("alice@example.org", "alice-secret")
	s := StartServer(t, WithEnv("SSL_CERT_FILE="+mail.CAFile))
	w := s.Web(t)
	w.SignIn(adminName, adminPassword)
	p := w.Get("-/admin/auths/new?type=3")
	p.MustContain(t, http.StatusOK, `name="type" value="3"`, `<option value="CRAM-MD5">CRAM-MD5</option>`)
	for _, field := range []string{"auth_type", "host", "port", "allowed_domains", "force_smtps", "skip_verify", "helo_hostname", "disable_helo", "skip_local_2fa"} {
		if !strings.Contains(p.Body, `name="`+field+`"`) {
			t.Errorf("the SMTP form lacks %s", field)
		}
	}
	form := url.Values{"type": {"3"}, "name": {"mail"}, "auth_type": {"LOGIN"}, "host": {"127.0.0.1"}, "port": {strconv.Itoa(mail.Port)},
		"allowed_domains": {"example.org"}, "helo_hostname": {"cairn.example"}, "is_active": {"on"}}
	w.Post("-/admin/auths/new", withForm(form, url.Values{"allowed_domains": {"not a domain"}})).
		MustContain(t, http.StatusUnprocessableEntity, "is not an e-mail domain", `value="cairn.example"`)
	p = w.Post("-/admin/auths/new", form)
	m := authEditLink.FindStringSubmatch(p.Location)
	if p.Status != http.StatusSeeOther || m == nil {
		t.Fatalf("create: %d %q %.2000s", p.Status, p.Location, p.Body)
	}
	w.Get(strings.TrimPrefix(p.Location, "/")).MustContain(t, http.StatusOK, `value="cairn.example"`, `<option value="LOGIN" selected>LOGIN</option>`)

	// alice signs in through it: LOGIN over STARTTLS, with the HELO name.
	s.Web(t).SignIn("alice@example.org", "alice-secret")
	if at := mail.LastAttempt(); at.Mechanism != "LOGIN" || !at.TLS || at.Helo != "cairn.example" || !at.OK {
		t.Fatalf("the server saw %+v", at)
	}
	if u, ok := adminGetUser(t, s, "alice"); !ok || u.LoginName != "alice@example.org" || strconv.FormatInt(u.SourceID, 10) != m[1] {
		t.Fatalf("alice: %+v (found %v)", u, ok)
	}
}
