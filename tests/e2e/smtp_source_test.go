package e2e

import (
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// smtpLogins counts the AUTH exchanges of login the server has seen.
func smtpLogins(a *SMTPAuthServer, login string) int {
	n := 0
	for _, at := range a.Attempts() {
		if at.Login == login {
			n++
		}
	}
	return n
}

// TestSMTPSignIn: an SMTP source over STARTTLS (certificate verified against
// the test CA) registers its users at first sign-in on the web, the API and
// git over HTTP, named after their address's local part; refuses wrong
// passwords, logins outside its allowed domains (without asking the
// server) and a taken name; with the server down refuses its users clearly
// while local accounts still sign in and the throttle is not fed; and
// signs in with each of PLAIN, LOGIN and CRAM-MD5.
func TestSMTPSignIn(t *testing.T) {
	mail := StartSMTPAuthServer(t, false)
	mail.AddUser("alice@example.org", "alice-secret")
	mail.AddUser("Bob.Builder@Example.NET", "bob-secret")
	mail.AddUser("carol@other.org", "carol-secret")
	mail.AddUser("dave@example.org", "dave-secret")
	mail.AddUser("alice@example.net", "other-alice-secret") // another person, the same local part

	// Six failures lock an account: one wrong password plus the five
	// refusals of the outage below would lock alice, were they counted.
	s := StartServer(t, WithEnv("SSL_CERT_FILE="+mail.CAFile, "CAIRN_SECURITY_LOGIN_FAILURES_PER_ACCOUNT=6",
		"CAIRN_SECURITY_LOGIN_FAILURES_PER_ADDRESS=0"))
	id := addLDAPSource(t, s, "add-smtp", "--name", "mail", "--host", "127.0.0.1", "--port", strconv.Itoa(mail.Port),
		"--allowed-domains", " example.org, EXAMPLE.net ", "--helo-hostname", "cairn.example")
	sid := strconv.FormatInt(id, 10)
	out, err := s.Cairn("admin", "auth", "list")
	if err != nil || !regexp.MustCompile(fmt.Sprintf(`(?m)^%d\s+mail\s+SMTP\s+true\s*$`, id)).MatchString(out) {
		t.Fatalf("auth list: %v\n%s", err, out)
	}

	// Web sign-in registers alice: name from the local part, the login as
	// e-mail address and login name; PLAIN, after STARTTLS, with our HELO.
	s.Web(t).SignIn("alice@example.org", "alice-secret")
	u, ok := adminGetUser(t, s, "alice")
	if !ok || u.Email != "alice@example.org" || u.SourceID != id || u.LoginName != "alice@example.org" || u.IsAdmin {
		t.Fatalf("alice after the first sign-in: %+v (found %v)", u, ok)
	}
	if at := mail.LastAttempt(); at.Mechanism != "PLAIN" || !at.TLS || at.Helo != "cairn.example" || !at.OK {
		t.Fatalf("the server saw %+v, want PLAIN over STARTTLS with HELO cairn.example", at)
	}
	// Signing in again (by address or by name) reaches the same account.
	if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "alice-secret")); r.Status != 200 || !strings.Contains(string(r.Body), `"login":"alice"`) {
		t.Fatalf("alice again by address: %d %s", r.Status, r.Body)
	}
	if r := s.Do("GET", "api/v1/user", Basic("alice", "alice-secret")); r.Status != 200 {
		t.Fatalf("alice by name: %d %s", r.Status, r.Body)
	}

	// API basic auth registers bob; the domain matches whatever its case.
	if r := s.Do("GET", "api/v1/user", Basic("Bob.Builder@Example.NET", "bob-secret")); r.Status != 200 {
		t.Fatalf("bob over the API: %d %s", r.Status, r.Body)
	}
	if u, ok := adminGetUser(t, s, "bob.builder"); !ok || u.Email != "Bob.Builder@Example.NET" {
		t.Fatalf("bob: %+v (found %v)", u, ok)
	}

	// git over HTTP with the mail password.
	if r := s.Do("POST", "api/v1/user/repos", Basic("alice@example.org", "alice-secret"), JSON(map[string]any{"name": "notes", "private": true, "auto_init": true})); r.Status != 201 {
		t.Fatalf("create repository as alice: %d %s", r.Status, r.Body)
	}
	dir := t.TempDir()
	for login, want := range map[string]bool{"alice%40example.org:alice-secret": true, "alice:alice-secret": true, "alice:wrong": false} {
		clone := exec.Command("git", "clone", "http://"+login+"@"+s.HTTPAddr+"/alice/notes.git", dir+"/"+url.PathEscape(login))
		clone.Env = rtGitEnv(dir)
		if out, err := clone.CombinedOutput(); (err == nil) != want {
			t.Fatalf("git clone as %s: %v (want success %v)\n%s", login, err, want, out)
		}
	}

	// Wrong password and unknown address: the same 401.
	wrong := s.Do("GET", "api/v1/user", Basic("alice@example.org", "not-her-password"))
	unknown := s.Do("GET", "api/v1/user", Basic("nobody@example.org", "whatever-secret"))
	if wrong.Status != 401 || unknown.Status != 401 || string(wrong.Body) != string(unknown.Body) {
		t.Fatalf("wrong password %d %s, unknown user %d %s", wrong.Status, wrong.Body, unknown.Status, unknown.Body)
	}
	// A domain not allowed, or no domain at all, is refused without asking
	// the server, even with the right password.
	for _, login := range []string{"carol@other.org", "carol", "carol@other.org@example.org.evil", "alice@example.org.evil"} {
		if r := s.Do("GET", "api/v1/user", Basic(login, "carol-secret")); r.Status != 401 {
			t.Fatalf("%s: %d %s", login, r.Status, r.Body)
		}
		if n := smtpLogins(mail, login); n != 0 {
			t.Fatalf("the server was asked about %s (%d times)", login, n)
		}
	}
	// A name taken by a local account is not handed to the mail user.
	if r := s.API("POST", "admin/users", s.AdminTok, map[string]any{"username": "dave", "email": "dave@local.test", "password": "dave-local-pw1", "must_change_password": false}); r.Status != 201 {
		t.Fatalf("create local dave: %d %s", r.Status, r.Body)
	}
	if r := s.Do("GET", "api/v1/user", Basic("dave@example.org", "dave-secret")); r.Status != 401 {
		t.Fatalf("mail dave took local dave's name: %d %s", r.Status, r.Body)
	}
	if !s.LogsContain("cannot be registered", 5*time.Second) {
		t.Fatalf("the refused registration is not logged:\n%s", s.Logs())
	}
	// alice@example.net is someone else: the name made from her address is
	// alice@example.org's, so she is refused rather than signed into it.
	if r := s.Do("GET", "api/v1/user", Basic("alice@example.net", "other-alice-secret")); r.Status != 401 {
		t.Fatalf("alice@example.net signed in (into alice@example.org's account?): %d %s", r.Status, r.Body)
	}
	if n := smtpLogins(mail, "alice@example.net"); n != 1 {
		t.Fatalf("the server was asked about alice@example.net %d times, want once", n)
	}
	if u, _ := adminGetUser(t, s, "alice"); u.LoginName != "alice@example.org" || u.Email != "alice@example.org" {
		t.Fatalf("alice's account changed: %+v", u)
	}

	// The server is down: its users are refused with a clear log line, not
	// counted toward the lock-out; the local administrator signs in.
	mail.Stop()
	for range 5 {
		if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "alice-secret")); r.Status != 401 {
			t.Fatalf("alice with the server down: %d %s", r.Status, r.Body)
		}
	}
	if !s.LogsContain("sign-in source cannot be asked", 5*time.Second) || !strings.Contains(s.Logs(), "connection refused") {
		t.Fatalf("no log line names the unreachable source:\n%s", s.Logs())
	}
	if r := s.Do("GET", "api/v1/user", Basic(adminName, adminPassword)); r.Status != 200 {
		t.Fatalf("local admin with the server down: %d %s", r.Status, r.Body)
	}
	s.Web(t).SignIn(adminName, adminPassword)
	mail.Start()
	if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "alice-secret")); r.Status != 200 {
		t.Fatalf("alice once the server is back (the outage must not lock her out): %d %s", r.Status, r.Body)
	}

	// Each mechanism: the right password signs in, a wrong one does not.
	for _, mech := range []string{"LOGIN", "CRAM-MD5", "PLAIN"} {
		if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", sid, "--auth-type", strings.ToLower(mech)); err != nil {
			t.Fatalf("update-smtp --auth-type %s: %v\n%s", mech, err, out)
		}
		if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "alice-secret")); r.Status != 200 {
			t.Fatalf("alice with %s: %d %s", mech, r.Status, r.Body)
		}
		if at := mail.LastAttempt(); at.Mechanism != mech || !at.OK || !at.TLS || at.Login != "alice@example.org" {
			t.Fatalf("the server saw %+v, want %s", at, mech)
		}
		if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "wrong-"+mech)); r.Status != 401 {
			t.Fatalf("a wrong password with %s: %d %s", mech, r.Status, r.Body)
		}
		if at := mail.LastAttempt(); at.Mechanism != mech || at.OK {
			t.Fatalf("the wrong password with %s was not asked of the server: %+v", mech, at)
		}
	}
	// --disable-helo leaves the greeting to net/smtp ("localhost").
	if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", sid, "--disable-helo"); err != nil {
		t.Fatalf("update-smtp --disable-helo: %v\n%s", err, out)
	}
	if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "alice-secret")); r.Status != 200 {
		t.Fatalf("alice with --disable-helo: %d %s", r.Status, r.Body)
	}
	if at := mail.LastAttempt(); at.Helo != "localhost" || !at.OK {
		t.Fatalf("with --disable-helo the server saw %+v", at)
	}
	if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", sid, "--auth-type", "DIGEST-MD5"); err == nil {
		t.Fatalf("update-smtp accepted DIGEST-MD5:\n%s", out)
	}

	// Implicit TLS (SMTPS) on another port; an unknown CA is refused
	// unless --skip-verify.
	smtps := mail.Sibling(true)
	smtps.AddUser("alice@example.org", "alice-secret")
	if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", sid, "--port", strconv.Itoa(smtps.Port), "--force-smtps", "--auth-type", "CRAM-MD5"); err != nil {
		t.Fatalf("update-smtp --force-smtps: %v\n%s", err, out)
	}
	if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "alice-secret")); r.Status != 200 {
		t.Fatalf("alice over SMTPS: %d %s\n%s", r.Status, r.Body, s.Logs())
	}
	if at := smtps.LastAttempt(); at.Mechanism != "CRAM-MD5" || !at.TLS || !at.OK {
		t.Fatalf("the SMTPS server saw %+v", at)
	}
	s2 := StartServer(t)
	id2 := addLDAPSource(t, s2, "add-smtp", "--name", "mail", "--host", "127.0.0.1", "--port", strconv.Itoa(smtps.Port), "--force-smtps")
	sourceSkipVerify(t, s2, id2, "update-smtp", "--skip-verify", "alice@example.org", "alice-secret")

	// A deactivated source refuses; the source cannot be deleted while used.
	if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", sid, "--active=false"); err != nil {
		t.Fatalf("update-smtp --active=false: %v\n%s", err, out)
	}
	before := len(smtps.Attempts())
	if r := s.Do("GET", "api/v1/user", Basic("alice@example.org", "alice-secret")); r.Status != 401 {
		t.Fatalf("alice with the source deactivated: %d %s", r.Status, r.Body)
	}
	if len(smtps.Attempts()) != before {
		t.Fatal("a deactivated source was asked")
	}
	if out, err := s.Cairn("admin", "auth", "delete", "--id", sid); err == nil || !strings.Contains(out, "still used") {
		t.Fatalf("delete of a source in use: %v\n%s", err, out)
	}
	if out, err := s.Cairn("admin", "auth", "update-ldap", "--id", sid, "--name", "x"); err == nil {
		t.Fatalf("update-ldap of an SMTP source succeeded:\n%s", out)
	}
	// The site administration lists it.
	admin := s.Web(t)
	admin.SignIn(adminName, adminPassword)
	admin.Get("-/admin/auths").MustContain(t, 200, "mail", "SMTP")
}

// TestSMTPSourceCLI: add-smtp refuses what Gitea refuses; a binary without
// PAM says so when asked to add or change a PAM source, and reports a
// stored one (in the log and in 'auth list') while refusing its users.
func TestSMTPSourceCLI(t *testing.T) {
	s := StartServer(t)
	for _, args := range [][]string{
		{"add-smtp", "--host", "127.0.0.1", "--port", "25"},                                    // no name
		{"add-smtp", "--name", "m", "--port", "25"},                                            // no host
		{"add-smtp", "--name", "m", "--host", "127.0.0.1"},                                     // no port
		{"add-smtp", "--name", "m", "--host", "127.0.0.1", "--port", "70000"},                  // bad port
		{"add-smtp", "--name", "m", "--host", "127.0.0.1", "--port", "25", "--auth-type", "X"}, // bad mechanism
		{"add-smtp", "--name", "m", "--host", "127.0.0.1", "--port", "25", "--allowed-domains", "a@b.org"},
	} {
		if out, err := s.Cairn(append([]string{"admin", "auth"}, args...)...); err == nil {
			t.Fatalf("%v succeeded:\n%s", args, out)
		}
	}
	if out, _ := s.Cairn("admin", "auth", "list"); regexp.MustCompile(`(?m)^\d+\s+m\s+SMTP`).MatchString(out) {
		t.Fatalf("a refused source was stored:\n%s", out)
	}
	if pamBuilt {
		return
	}
	const notBuilt = "PAM is not built into this binary"
	if out, err := s.Cairn("admin", "auth", "add-pam", "--name", "p", "--service-name", "login"); err == nil || !strings.Contains(out, notBuilt) {
		t.Fatalf("add-pam without PAM: %v\n%s", err, out)
	}
	// A PAM source stored by a binary with PAM (written here directly) is
	// reported as not built into this one; its users are refused.
	db := fndServerDB(t, s)
	if _, err := db.Exec(`INSERT INTO login_source (type, name, is_active, is_sync_enabled, cfg, created_unix, updated_unix)
		VALUES (4, 'host', TRUE, FALSE, '{"ServiceName":"login"}', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := db.QueryRow("SELECT id FROM login_source WHERE name = 'host'").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if r := s.API("POST", "admin/users", s.AdminTok, map[string]any{"username": "pamuser", "email": "pamuser@example.org", "source_id": id, "login_name": "pamuser", "must_change_password": false}); r.Status != 201 {
		t.Fatalf("create an account of the PAM source: %d %s", r.Status, r.Body)
	}
	if r := s.Do("GET", "api/v1/user", Basic("pamuser", "some-password")); r.Status != 401 {
		t.Fatalf("an account of a PAM source without PAM: %d %s", r.Status, r.Body)
	}
	if !s.LogsContain("type 4 (PAM) cannot be used: "+notBuilt, 5*time.Second) {
		t.Fatalf("the server does not say PAM is missing:\n%s", s.Logs())
	}
	if out, _ := s.Cairn("admin", "auth", "list"); !strings.Contains(out, "login source "+strconv.FormatInt(id, 10)+" (host): type 4 (PAM) cannot be used: "+notBuilt) {
		t.Fatalf("auth list does not report the PAM source:\n%s", out)
	}
	if out, err := s.Cairn("admin", "auth", "update-pam", "--id", strconv.FormatInt(id, 10), "--name", "x"); err == nil || !strings.Contains(out, notBuilt) {
		t.Fatalf("update-pam without PAM: %v\n%s", err, out)
	}
}

// TestSourceSkipLocalTwoFA: an account of a source with --skip-local-2fa
// signs in with its password alone although it enrolled TOTP (web, API and
// git over HTTP); without the setting it is asked for its code.
func TestSourceSkipLocalTwoFA(t *testing.T) {
	mail := StartSMTPAuthServer(t, false)
	mail.AddUser("erin@example.org", "erin-secret")
	s := StartServer(t, WithEnv("SSL_CERT_FILE="+mail.CAFile))
	sid := strconv.FormatInt(addLDAPSource(t, s, "add-smtp", "--name", "mail", "--host", "127.0.0.1", "--port", strconv.Itoa(mail.Port)), 10)
	w := s.Web(t)
	w.SignIn("erin@example.org", "erin-secret")
	if r := s.Do("POST", "api/v1/user/repos", Basic("erin", "erin-secret"), JSON(map[string]any{"name": "vault", "private": true, "auto_init": true})); r.Status != 201 {
		t.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	for time.Now().Unix()%30 > 20 {
		time.Sleep(time.Second)
	}
	base := time.Now().Unix() / 30
	m := twoFASecret.FindStringSubmatch(w.Get("user/settings/security/two_factor/enroll").Body)
	if m == nil {
		t.Fatal("no TOTP secret on the enrolment page")
	}
	w.Post("user/settings/security/two_factor/enroll", url.Values{"passcode": {totpAt(t, m[1], base-1)}}).
		MustContain(t, 200, "is <strong>enabled</strong>")

	// webSignIn posts the form and returns where it sends erin.
	webSignIn := func() string {
		b := s.Web(t)
		b.Get("user/login")
		p := b.Post("user/login", url.Values{"user_name": {"erin@example.org"}, "password": {"erin-secret"}})
		if p.Status != 303 {
			t.Fatalf("sign-in: %d %s", p.Status, p.Body)
		}
		return p.Location
	}
	dir := t.TempDir()
	gitClone := func(name string) error {
		clone := exec.Command("git", "clone", "http://erin:erin-secret@"+s.HTTPAddr+"/erin/vault.git", dir+"/"+name)
		clone.Env = rtGitEnv(dir)
		out, err := clone.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	passwordAlone := func(want bool) {
		t.Helper()
		r := s.Do("GET", "api/v1/user", Basic("erin@example.org", "erin-secret"))
		loc := webSignIn()
		err := gitClone(fmt.Sprintf("c%d", time.Now().UnixNano()))
		if want && (r.Status != 200 || loc == "/user/two_factor" || err != nil) {
			t.Fatalf("with --skip-local-2fa: API %d %s, web to %s, git %v", r.Status, r.Body, loc, err)
		}
		if !want && (r.Status != 401 || loc != "/user/two_factor" || err == nil) {
			t.Fatalf("without --skip-local-2fa: API %d %s, web to %s, git %v", r.Status, r.Body, loc, err)
		}
	}
	passwordAlone(false)
	if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", sid, "--skip-local-2fa"); err != nil {
		t.Fatalf("update-smtp --skip-local-2fa: %v\n%s", err, out)
	}
	passwordAlone(true)
	if out, err := s.Cairn("admin", "auth", "update-smtp", "--id", sid, "--skip-local-2fa=false"); err != nil {
		t.Fatalf("update-smtp --skip-local-2fa=false: %v\n%s", err, out)
	}
	passwordAlone(false)
}
