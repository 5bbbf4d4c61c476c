package e2e

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// ldapUserFilter finds a person by uid or mail.
const ldapUserFilter = "(&(objectClass=inetOrgPerson)(|(uid=%s)(mail=%s)))"

var sourceAdded = regexp.MustCompile(`Authentication source (\d+) \(`)

// addLDAPSource runs 'cairn admin auth add-ldap…' and returns the new source's id.
// sourceSkipVerify checks that source id of s, whose server's certificate
// is of a CA s does not know, refuses login (the log names the
// certificate) until `cairn admin auth <update> --id id <flag>` turns the
// verification off.
func sourceSkipVerify(t *testing.T, s *Server, id int64, update, flag, login, password string) {
	t.Helper()
	if r := s.Do("GET", "api/v1/user", Basic(login, password)); r.Status != 401 || !s.LogsContain("certificate", 5*time.Second) {
		t.Fatalf("an unknown CA was accepted: %d %s", r.Status, r.Body)
	}
	if out, err := s.Cairn("admin", "auth", update, "--id", strconv.FormatInt(id, 10), flag); err != nil {
		t.Fatalf("%s %s: %v\n%s", update, flag, err, out)
	}
	if r := s.Do("GET", "api/v1/user", Basic(login, password)); r.Status != 200 {
		t.Fatalf("%s with %s: %d %s", login, flag, r.Status, r.Body)
	}
}

func addLDAPSource(t *testing.T, s *Server, args ...string) int64 {
	t.Helper()
	out, err := s.Cairn(append([]string{"admin", "auth"}, args...)...)
	if err != nil {
		t.Fatalf("cairn admin auth %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	m := sourceAdded.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no source id in %q", out)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

// bindDNSourceArgs are add-ldap flags for d with its reader account.
func bindDNSourceArgs(d *Directory, name, protocol string, port int) []string {
	return []string{"add-ldap", "--name", name, "--security-protocol", protocol, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--bind-dn", d.ReaderDN, "--bind-password", d.Reader, "--user-search-base", "ou=people," + d.Base,
		"--user-filter", ldapUserFilter,
		"--admin-filter", "(memberOf=cn=admins,ou=groups," + d.Base + ")",
		"--restricted-filter", "(memberOf=cn=restricted,ou=groups," + d.Base + ")",
		"--username-attribute", "uid", "--firstname-attribute", "givenName", "--surname-attribute", "sn",
		"--email-attribute", "mail", "--public-ssh-key-attribute", "sshPublicKey", "--avatar-attribute", "jpegPhoto"}
}

// jpegOf is a small JPEG image of one colour.
func jpegOf(t *testing.T, c color.RGBA) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := range 30 {
		for x := range 40 {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// apiUser is the part of the API's user the LDAP tests read.
type apiUser struct {
	ID         int64  `json:"id"`
	Login      string `json:"login"`
	FullName   string `json:"full_name"`
	Email      string `json:"email"`
	IsAdmin    bool   `json:"is_admin"`
	Restricted bool   `json:"restricted"`
	Active     bool   `json:"active"`
	AvatarURL  string `json:"avatar_url"`
	SourceID   int64  `json:"source_id"`
	LoginName  string `json:"login_name"`
}

func adminGetUser(t *testing.T, s *Server, name string) (apiUser, bool) {
	t.Helper()
	r := s.API("GET", "admin/users?login_name=&limit=50", s.AdminTok, nil)
	if r.Status != 200 {
		t.Fatalf("admin list users: %d %s", r.Status, r.Body)
	}
	var list []apiUser
	r.Decode(t, &list)
	for _, u := range list {
		if strings.EqualFold(u.Login, name) {
			return u, true
		}
	}
	return apiUser{}, false
}

func newSSHKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp)))
}

// TestLDAPSignIn: a bind DN source over StartTLS (certificate verified
// against the test CA) registers its users at first sign-in on the web, the
// API and git over HTTP, re-syncs the admin and restricted flags at every
// sign-in, refuses wrong passwords and filter or DN injection alike, and,
// with the directory down, refuses its users clearly while local accounts
// still sign in and the throttle is not fed.
func TestLDAPSignIn(t *testing.T) {
	d := StartDirectory(t, "")
	aliceKey := newSSHKey(t)
	alice := d.AddUser("alice", "alice-secret", "Alice", "Liddell", "alice@example.org", aliceKey)
	bob := d.AddUser("bob", "bob-secret", "Bob", "Builder", "bob@example.org")
	d.AddUser("carol", "carol-secret", "", "Carol", "carol@example.org")
	admins := d.AddGroup("admins", alice)
	d.AddGroup("restricted", bob)
	d.Modify(alice, "add", "jpegPhoto", jpegOf(t, color.RGBA{200, 10, 10, 255}))

	s := StartServer(t, WithEnv("SSL_CERT_FILE="+d.CAFile, "CAIRN_SECURITY_LOGIN_FAILURES_PER_ACCOUNT=3",
		"CAIRN_SECURITY_LOGIN_FAILURES_PER_ADDRESS=0"))
	id := addLDAPSource(t, s, bindDNSourceArgs(d, "corp", "StartTLS", d.Port)...)

	out, err := s.Cairn("admin", "auth", "list")
	if err != nil || !regexp.MustCompile(fmt.Sprintf(`(?m)^%d\s+corp\s+LDAP \(via BindDN\)\s+true\s*$`, id)).MatchString(out) {
		t.Fatalf("auth list: %v\n%s", err, out)
	}
	if strings.Contains(s.Logs()+out, d.Reader) {
		t.Fatal("the bind password was printed or logged")
	}

	// Web sign-in registers alice: names, e-mail, key, admin from the group.
	w := s.Web(t)
	w.SignIn("alice", "alice-secret")
	u, ok := adminGetUser(t, s, "alice")
	if !ok || u.FullName != "Alice Liddell" || u.Email != "alice@example.org" || !u.IsAdmin || u.Restricted ||
		u.SourceID != id || u.LoginName != "alice" {
		t.Fatalf("alice after the first sign-in: %+v (found %v)", u, ok)
	}
	// The directory's photo is her avatar; signing in again keeps the same
	// file, a new photo replaces it.
	if !strings.Contains(u.AvatarURL, "/avatars/custom/") {
		t.Fatalf("alice's avatar: %q", u.AvatarURL)
	}
	if r := s.Do("GET", strings.TrimPrefix(u.AvatarURL, s.URL)); r.Status != 200 || r.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("alice's avatar file: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	s.Do("GET", "api/v1/user", Basic("alice", "alice-secret"))
	if again, _ := adminGetUser(t, s, "alice"); again.AvatarURL != u.AvatarURL {
		t.Fatalf("unchanged photo, new avatar: %q then %q", u.AvatarURL, again.AvatarURL)
	}
	d.Modify(alice, "replace", "jpegPhoto", jpegOf(t, color.RGBA{10, 10, 200, 255}))
	s.Do("GET", "api/v1/user", Basic("alice", "alice-secret"))
	if again, _ := adminGetUser(t, s, "alice"); again.AvatarURL == u.AvatarURL || !strings.Contains(again.AvatarURL, "/avatars/custom/") {
		t.Fatalf("new photo, avatar %q then %q", u.AvatarURL, again.AvatarURL)
	} else if r := s.Do("GET", strings.TrimPrefix(u.AvatarURL, s.URL)); r.Status != 404 {
		t.Fatalf("the previous avatar file is still served: %d", r.Status)
	}
	keys := s.API("GET", "users/alice/keys", s.AdminTok, nil)
	if keys.Status != 200 || !strings.Contains(string(keys.Body), strings.Fields(aliceKey)[1]) {
		t.Fatalf("alice's key from the directory: %d %s", keys.Status, keys.Body)
	}

	// API basic auth registers bob, restricted; by e-mail works too.
	r := s.Do("GET", "api/v1/user", Basic("bob", "bob-secret"))
	if r.Status != 200 {
		t.Fatalf("bob over the API: %d %s", r.Status, r.Body)
	}
	if u, _ := adminGetUser(t, s, "bob"); !u.Restricted || u.IsAdmin {
		t.Fatalf("bob: %+v", u)
	}
	if r := s.Do("GET", "api/v1/user", Basic("carol@example.org", "carol-secret")); r.Status != 200 {
		t.Fatalf("carol by e-mail: %d %s", r.Status, r.Body)
	}
	if u, _ := adminGetUser(t, s, "carol"); u.FullName != "Carol" || u.LoginName != "carol@example.org" {
		t.Fatalf("carol: %+v", u)
	}

	// git over HTTP with the directory's password.
	if r := s.Do("POST", "api/v1/user/repos", Basic("bob", "bob-secret"), JSON(map[string]any{"name": "plans", "private": true, "auto_init": true})); r.Status != 201 {
		t.Fatalf("create repository as bob: %d %s", r.Status, r.Body)
	}
	dir := t.TempDir()
	clone := exec.Command("git", "clone", "http://bob:bob-secret@"+s.HTTPAddr+"/bob/plans.git", dir+"/plans")
	clone.Env = rtGitEnv(dir)
	if out, err := clone.CombinedOutput(); err != nil {
		t.Fatalf("git clone as bob: %v\n%s", err, out)
	}
	clone = exec.Command("git", "clone", "http://bob:wrong@"+s.HTTPAddr+"/bob/plans.git", dir+"/denied")
	clone.Env = rtGitEnv(dir)
	if out, err := clone.CombinedOutput(); err == nil {
		t.Fatalf("git clone with a wrong password succeeded:\n%s", out)
	}

	// Wrong password and unknown user: the same 401.
	wrong := s.Do("GET", "api/v1/user", Basic("alice", "not-her-password"))
	unknown := s.Do("GET", "api/v1/user", Basic("nobody", "whatever-secret"))
	if wrong.Status != 401 || unknown.Status != 401 || string(wrong.Body) != string(unknown.Body) {
		t.Fatalf("wrong password %d %s, unknown user %d %s", wrong.Status, wrong.Body, unknown.Status, unknown.Body)
	}
	if p := s.Web(t).Post("user/login", url.Values{"user_name": {"alice"}, "password": {""}}); p.Status == http.StatusSeeOther {
		t.Fatal("an empty password signed in (an unauthenticated LDAP bind)")
	}

	// Filter injection: with the login unescaped, "ali*" or "alice)(uid=*"
	// would find alice and her password would sign in as someone new.
	for _, login := range []string{"ali*", "*", "alice)(uid=*", "*)(|(uid=*", "alice\x00", `alice\2a`, "al(ice)"} {
		if r := s.Do("GET", "api/v1/user", Basic(login, "alice-secret")); r.Status != 401 {
			t.Fatalf("login %q with alice's password: %d %s", login, r.Status, r.Body)
		}
	}

	// Admin flag re-synced at every sign-in, both ways (gitea #13419).
	d.Modify(admins, "add", "member", bob)
	d.Modify(admins, "delete", "member", alice)
	s.Do("GET", "api/v1/user", Basic("alice", "alice-secret"))
	s.Do("GET", "api/v1/user", Basic("bob", "bob-secret"))
	if a, _ := adminGetUser(t, s, "alice"); a.IsAdmin {
		t.Fatal("alice left the admins group but is still an administrator")
	}
	if b, _ := adminGetUser(t, s, "bob"); !b.IsAdmin {
		t.Fatal("bob joined the admins group but is not an administrator")
	}
	d.Modify(admins, "add", "member", alice)
	s.Do("GET", "api/v1/user", Basic("alice", "alice-secret"))
	if a, _ := adminGetUser(t, s, "alice"); !a.IsAdmin {
		t.Fatal("alice is back in the admins group but not an administrator")
	}

	// source_id of the admin API names an existing source (Gitea's 422).
	if r := s.API("POST", "admin/users", s.AdminTok, map[string]any{"username": "dave", "email": "dave@example.org", "source_id": 999, "login_name": "dave"}); r.Status != 422 {
		t.Fatalf("unknown source_id: %d %s", r.Status, r.Body)
	}
	if r := s.API("POST", "admin/users", s.AdminTok, map[string]any{"username": "dave", "email": "dave@example.org", "source_id": id, "login_name": "dave", "must_change_password": false}); r.Status != 201 {
		t.Fatalf("source_id %d: %d %s", id, r.Status, r.Body)
	}
	if r := s.API("PATCH", "admin/users/dave", s.AdminTok, map[string]any{"source_id": 998, "login_name": "dave"}); r.Status != 422 {
		t.Fatalf("edit with an unknown source_id: %d %s", r.Status, r.Body)
	}
	d.AddUser("dave", "dave-secret", "Dave", "Doe", "dave@example.org")
	if r := s.Do("GET", "api/v1/user", Basic("dave", "dave-secret")); r.Status != 200 {
		t.Fatalf("dave, created by the admin API for the source: %d %s", r.Status, r.Body)
	}

	// The directory is down: its users are refused with a clear log line,
	// not counted toward the lock-out; the local administrator signs in.
	d.Stop()
	for range 5 {
		if r := s.Do("GET", "api/v1/user", Basic("alice", "alice-secret")); r.Status != 401 {
			t.Fatalf("alice with the directory down: %d %s", r.Status, r.Body)
		}
	}
	if !s.LogsContain("sign-in source cannot be asked", 5*time.Second) {
		t.Fatalf("no log line names the unreachable source:\n%s", s.Logs())
	}
	if n := strings.Count(s.Logs(), "sign-in source cannot be asked"); n != 1 {
		t.Fatalf("the outage was logged %d times for 5 refusals, want once (then at most every 30 s)", n)
	}
	if r := s.Do("GET", "api/v1/user", Basic(adminName, adminPassword)); r.Status != 200 {
		t.Fatalf("local admin with the directory down: %d %s", r.Status, r.Body)
	}
	s.Web(t).SignIn(adminName, adminPassword)
	d.Start()
	if r := s.Do("GET", "api/v1/user", Basic("alice", "alice-secret")); r.Status != 200 {
		t.Fatalf("alice once the directory is back (the outage must not lock her out): %d %s", r.Status, r.Body)
	}

	// CLI: update changes only what is given; delete refuses a source in use.
	if out, err := s.Cairn("admin", "auth", "update-ldap", "--id", strconv.FormatInt(id, 10), "--name", "corporate"); err != nil {
		t.Fatalf("update-ldap: %v\n%s", err, out)
	}
	if r := s.Do("GET", "api/v1/user", Basic("alice", "alice-secret")); r.Status != 200 {
		t.Fatalf("alice after the rename of the source: %d %s", r.Status, r.Body)
	}
	if out, err := s.Cairn("admin", "auth", "update-ldap-simple", "--id", strconv.FormatInt(id, 10), "--name", "x"); err == nil {
		t.Fatalf("update-ldap-simple of a bind DN source succeeded:\n%s", out)
	}
	if out, err := s.Cairn("admin", "auth", "delete", "--id", strconv.FormatInt(id, 10)); err == nil || !strings.Contains(out, "still used") {
		t.Fatalf("delete of a source in use: %v\n%s", err, out)
	}
	out, _ = s.Cairn("admin", "auth", "list")
	if !strings.Contains(out, "corporate") {
		t.Fatalf("list after the update:\n%s", out)
	}
	// The site administration lists the source (never its secret); to
	// anyone else the page does not exist.
	admin := s.Web(t)
	admin.SignIn(adminName, adminPassword)
	page := admin.Get("-/admin/auths")
	page.MustContain(t, 200, "corporate", "LDAP (via BindDN)", "<td>4</td>")
	if strings.Contains(page.Body, d.Reader) || strings.Contains(page.Body, d.ReaderDN) {
		t.Fatal("the administration page shows the bind DN or its password")
	}
	bobWeb := s.Web(t)
	bobWeb.SignIn("carol", "carol-secret")
	if p := bobWeb.Get("-/admin/auths"); p.Status != 404 {
		t.Fatalf("a non-admin sees the sources: %d", p.Status)
	}
}

// TestLDAPSimpleAuth: a simple-auth source over LDAPS binds with the DN
// template; DN specials in the login are escaped, never injected.
func TestLDAPSimpleAuth(t *testing.T) {
	d := StartDirectory(t, "")
	d.AddUser("erin", "erin-secret", "Erin", "Example", "erin@example.org")
	s := StartServer(t, WithEnv("SSL_CERT_FILE="+d.CAFile))
	id := addLDAPSource(t, s, "add-ldap-simple", "--name", "simple", "--security-protocol", "LDAPS", "--host", "127.0.0.1",
		"--port", strconv.Itoa(d.TLSPort), "--user-dn", "uid=%s,ou=people,"+d.Base,
		"--user-filter", "(&(objectClass=inetOrgPerson)(uid=%s))", "--username-attribute", "uid",
		"--firstname-attribute", "givenName", "--surname-attribute", "sn", "--email-attribute", "mail")
	if r := s.Do("GET", "api/v1/user", Basic("erin", "erin-secret")); r.Status != 200 {
		t.Fatalf("erin: %d %s", r.Status, r.Body)
	}
	if u, _ := adminGetUser(t, s, "erin"); u.SourceID != id || u.FullName != "Erin Example" {
		t.Fatalf("erin: %+v", u)
	}
	// "erin,ou=people,dc=example,dc=org" unescaped would be another DN
	// (and the root DN's password the way in); escaped it is no entry.
	for _, login := range []string{"erin,ou=people," + d.Base, "cn=admin,dc=example,dc=org", `erin\`, "erin+cn=x", "#erin", "erin\x00", "*"} {
		for _, pw := range []string{"erin-secret", d.RootPW} {
			if r := s.Do("GET", "api/v1/user", Basic(login, pw)); r.Status != 401 {
				t.Fatalf("login %q: %d %s", login, r.Status, r.Body)
			}
		}
	}
	if r := s.Do("GET", "api/v1/user", Basic("erin", "wrong")); r.Status != 401 {
		t.Fatalf("wrong password: %d", r.Status)
	}
	// Without the CA the certificate is refused, with --skip-tls-verify it is not.
	s2 := StartServer(t)
	id2 := addLDAPSource(t, s2, "add-ldap-simple", "--name", "simple", "--security-protocol", "LDAPS", "--host", "127.0.0.1",
		"--port", strconv.Itoa(d.TLSPort), "--user-dn", "uid=%s,ou=people,"+d.Base,
		"--user-filter", "(uid=%s)", "--email-attribute", "mail")
	sourceSkipVerify(t, s2, id2, "update-ldap-simple", "--skip-tls-verify", "erin", "erin-secret")
	// A source no account uses can be deleted.
	if out, err := s.Cairn("admin", "user", "delete", "--username", "erin"); err != nil {
		t.Fatalf("delete erin: %v\n%s", err, out)
	}
	if out, err := s.Cairn("admin", "auth", "delete", "--id", strconv.FormatInt(id, 10)); err != nil {
		t.Fatalf("delete the source: %v\n%s", err, out)
	}
	if out, _ := s.Cairn("admin", "auth", "list"); strings.Contains(out, "simple") {
		t.Fatalf("deleted source still listed:\n%s", out)
	}
}
