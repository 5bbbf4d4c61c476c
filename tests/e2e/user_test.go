package e2e

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"golang.org/x/crypto/ssh"
)

// --- helpers shared by the foundation tests (prefixed fnd to stay clear of other files) ---

// fndStatus fails the test unless r has the wanted status.
func fndStatus(t testing.TB, r *Response, want int, what string) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("%s: status %d, want %d; body: %s", what, r.Status, want, r.Body)
	}
}

// fndAPIError checks that r is a Gitea-shaped error ({"message","url"}) with
// the wanted status and returns the message.
func fndAPIError(t testing.TB, s *Server, r *Response, want int, what string) string {
	t.Helper()
	fndStatus(t, r, want, what)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: error Content-Type %q, want application/json; body %s", what, ct, r.Body)
	}
	var e map[string]any
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatalf("%s: error body is not JSON: %q", what, r.Body)
	}
	msg, _ := e["message"].(string)
	if msg == "" {
		t.Fatalf("%s: error without a message: %s", what, r.Body)
	}
	if u, _ := e["url"].(string); u != s.URL+"api/swagger" {
		t.Fatalf("%s: error url = %q, want %q", what, u, s.URL+"api/swagger")
	}
	return msg
}

// fndMsgHas checks that an error message mentions each of the fragments (case-insensitive).
func fndMsgHas(t testing.TB, what, msg string, frags ...string) {
	t.Helper()
	for _, f := range frags {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(f)) {
			t.Errorf("%s: message %q does not mention %q", what, msg, f)
		}
	}
}

// fndUser is the subset of Gitea's User the tests read.
type fndUser struct {
	ID            int64  `json:"id"`
	Login         string `json:"login"`
	LoginName     string `json:"login_name"`
	FullName      string `json:"full_name"`
	Email         string `json:"email"`
	IsAdmin       bool   `json:"is_admin"`
	Restricted    bool   `json:"restricted"`
	Active        bool   `json:"active"`
	ProhibitLogin bool   `json:"prohibit_login"`
	Visibility    string `json:"visibility"`
	Followers     int    `json:"followers_count"`
	Following     int    `json:"following_count"`
	Created       string `json:"created"`
	LastLogin     string `json:"last_login"`
	UserName      string `json:"username"`
	Website       string `json:"website"`
	Location      string `json:"location"`
	Description   string `json:"description"`
}

func fndDecodeUser(t testing.TB, r *Response) fndUser {
	t.Helper()
	var u fndUser
	r.Decode(t, &u)
	return u
}

func fndDecodeUsers(t testing.TB, r *Response) []fndUser {
	t.Helper()
	var list []fndUser
	r.Decode(t, &list)
	return list
}

func fndLogins(list []fndUser) []string {
	out := make([]string, 0, len(list))
	for _, u := range list {
		out = append(out, u.Login)
	}
	return out
}

func fndContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fndSearch runs GET /users/search and returns the logins, checking the envelope.
func fndSearch(t testing.TB, s *Server, query string, opts ...RequestOption) []string {
	t.Helper()
	r := s.Do("GET", "api/v1/users/search?"+query, opts...)
	fndStatus(t, r, 200, "search "+query)
	var env struct {
		OK   *bool            `json:"ok"`
		Data []map[string]any `json:"data"`
	}
	r.Decode(t, &env)
	if env.OK == nil || !*env.OK || env.Data == nil {
		t.Fatalf("search %s: envelope is not {\"ok\":true,\"data\":[...]}: %s", query, r.Body)
	}
	var out []string
	for _, u := range env.Data {
		if _, ok := u["full_name"]; !ok {
			t.Fatalf("search %s: result without full_name: %s", query, r.Body)
		}
		out = append(out, u["login"].(string))
	}
	if tc := r.Header.Get("X-Total-Count"); tc == "" {
		t.Fatalf("search %s: no X-Total-Count", query)
	} else if query == "" || !strings.Contains(query, "limit") {
		if tc != fmt.Sprint(len(out)) {
			t.Fatalf("search %s: X-Total-Count %s but %d results", query, tc, len(out))
		}
	}
	return out
}

// fndPatchSettings changes a user's settings with their token.
func fndPatchSettings(t testing.TB, s *Server, tok string, body map[string]any) {
	t.Helper()
	fndStatus(t, s.Do("PATCH", "api/v1/user/settings", Token(tok), JSON(body)), 200, "patch settings")
}

var rfc3339 = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)

// fndRecent checks that v is an RFC 3339 time within a few minutes of now.
func fndRecent(t testing.TB, what, v string) {
	t.Helper()
	if !rfc3339.MatchString(v) {
		t.Fatalf("%s = %q is not an RFC 3339 time", what, v)
	}
	tm, err := time.Parse(time.RFC3339, v)
	if err != nil {
		t.Fatalf("%s = %q: %v", what, v, err)
	}
	if d := time.Since(tm); d < -time.Minute || d > 5*time.Minute {
		t.Fatalf("%s = %q is not recent", what, v)
	}
}

// fndHasRoute reports whether the server's API document lists method path.
func fndHasRoute(t testing.TB, s *Server, method, path string) bool {
	t.Helper()
	r := s.Do("GET", "swagger.v1.json")
	fndStatus(t, r, 200, "swagger")
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	r.Decode(t, &doc)
	_, ok := doc.Paths[path][strings.ToLower(method)]
	return ok
}

// fndNewSSHKey returns a fresh ed25519 authorized_keys line and its fingerprint.
func fndNewSSHKey(t testing.TB, comment string) (string, string) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " " + comment
	return line, ssh.FingerprintSHA256(pk)
}

// fndCreateOrg creates an organization with the given token, or skips the test
// when POST /orgs is not routed yet.
func fndCreateOrg(t testing.TB, s *Server, tok, name string, extra map[string]any) {
	t.Helper()
	if !fndHasRoute(t, s, "POST", "/orgs") {
		t.Skip("POST /api/v1/orgs is not routed yet")
	}
	body := map[string]any{"username": name}
	for k, v := range extra {
		body[k] = v
	}
	fndStatus(t, s.Do("POST", "api/v1/orgs", Token(tok), JSON(body)), 201, "create org "+name)
}

// fndAddOrgMember adds user to the org's Owners team (or skips when the team routes are missing).
func fndAddOrgMember(t testing.TB, s *Server, ownerTok, org, user string) {
	t.Helper()
	if !fndHasRoute(t, s, "GET", "/orgs/{org}/teams") || !fndHasRoute(t, s, "PUT", "/teams/{id}/members/{username}") {
		t.Skip("GET /api/v1/orgs/{org}/teams or PUT /api/v1/teams/{id}/members/{username} is not routed yet")
	}
	r := s.Do("GET", "api/v1/orgs/"+org+"/teams", Token(ownerTok))
	fndStatus(t, r, 200, "list teams of "+org)
	var teams []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	r.Decode(t, &teams)
	if len(teams) == 0 {
		t.Fatalf("org %s has no team", org)
	}
	fndStatus(t, s.Do("PUT", fmt.Sprintf("api/v1/teams/%d/members/%s", teams[0].ID, user), Token(ownerTok)), 204, "add "+user+" to "+org)
}

// --- tests ---

func TestUserGetAuthenticated(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")

	msg := fndAPIError(t, s, s.Do("GET", "api/v1/user"), 401, "signed-out GET /user")
	fndMsgHas(t, "signed-out GET /user", msg, "token is required")

	r := s.Do("GET", "api/v1/user", Token(alice.Token))
	fndStatus(t, r, 200, "GET /user")
	me := fndDecodeUser(t, r)
	if me.ID != alice.ID || me.Login != "alice" || me.UserName != "alice" || me.Email != "alice@example.com" ||
		me.LoginName != "alice" || me.IsAdmin || !me.Active || me.Visibility != "public" {
		t.Fatalf("GET /user = %+v", me)
	}
	fndRecent(t, "created", me.Created)
	if !rfc3339.MatchString(me.LastLogin) {
		t.Fatalf("last_login %q is not RFC 3339", me.LastLogin)
	}

	// The SDK reads the same.
	sdkMe, _, err := s.Client(alice.Token).GetMyUserInfo()
	if err != nil || sdkMe.UserName != "alice" || sdkMe.Email != "alice@example.com" || sdkMe.Created.IsZero() {
		t.Fatalf("SDK GetMyUserInfo = %+v, %v", sdkMe, err)
	}

	// Admins see themselves as admins.
	root := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(s.AdminTok)))
	if !root.IsAdmin || root.Login != adminName || root.Email != adminEmail {
		t.Fatalf("GET /user as admin = %+v", root)
	}
}

func TestUserProfileVisibility(t *testing.T) {
	s := StartServer(t)
	pub := s.CreateUser("pub")
	s.CreateUser("lim", "limited")
	priv := s.CreateUser("priv", "private")
	viewer := s.CreateUser("viewer")
	other := s.CreateUser("other")
	restr := s.CreateUser("restr", "restricted")

	type who struct {
		name string
		tok  string
	}
	viewers := []who{{"signed out", ""}, {"user", viewer.Token}, {"restricted", restr.Token}, {"admin", s.AdminTok}}
	want := map[string]map[string]bool{
		"pub":  {"signed out": true, "user": true, "restricted": true, "admin": true},
		"lim":  {"signed out": false, "user": true, "restricted": false, "admin": true},
		"priv": {"signed out": false, "user": false, "restricted": false, "admin": true},
	}
	for target, byViewer := range want {
		for _, v := range viewers {
			r := s.Do("GET", "api/v1/users/"+target, Token(v.tok))
			what := fmt.Sprintf("GET /users/%s as %s", target, v.name)
			if byViewer[v.name] {
				fndStatus(t, r, 200, what)
				u := fndDecodeUser(t, r)
				if u.Login != target || u.Visibility != map[string]string{"pub": "public", "lim": "limited", "priv": "private"}[target] {
					t.Fatalf("%s = %+v", what, u)
				}
				wantEmail := target + "@example.com"
				if v.tok == "" {
					wantEmail = target + "@noreply.127.0.0.1"
				}
				if u.Email != wantEmail {
					t.Fatalf("%s: email %q, want %q", what, u.Email, wantEmail)
				}
				// Private account fields only for the user and admins.
				if v.name != "admin" && (u.LoginName != "" || u.Active) {
					t.Fatalf("%s: private fields shown: %s", what, r.Body)
				}
				continue
			}
			fndAPIError(t, s, r, 404, what)
			if strings.Contains(string(r.Body), "@example.com") {
				t.Fatalf("%s: 404 leaks an e-mail: %s", what, r.Body)
			}
		}
	}
	// A user that does not exist answers exactly like a hidden one.
	fndAPIError(t, s, s.Do("GET", "api/v1/users/nobody-here", Token(viewer.Token)), 404, "unknown user")

	// A private user is visible to those they follow ...
	fndStatus(t, s.Do("PUT", "api/v1/user/following/viewer", Token(priv.Token)), 204, "priv follows viewer")
	fndStatus(t, s.Do("GET", "api/v1/users/priv", Token(viewer.Token)), 200, "viewer sees priv who follows them")
	fndStatus(t, s.Do("GET", "api/v1/users/priv", Token(other.Token)), 404, "other still does not see priv")
	fndStatus(t, s.Do("GET", "api/v1/users/priv"), 404, "signed out still does not see priv")
	if l := fndSearch(t, s, "q=priv", Token(viewer.Token)); !fndContains(l, "priv") {
		t.Fatalf("search by viewer misses priv who follows them: %v", l)
	}
	if l := fndSearch(t, s, "q=priv", Token(other.Token)); fndContains(l, "priv") {
		t.Fatalf("search by other shows private priv: %v", l)
	}
	// ... but following the restricted user does not open the profile to them.
	fndStatus(t, s.Do("PUT", "api/v1/user/following/restr", Token(priv.Token)), 204, "priv follows restr")
	fndStatus(t, s.Do("GET", "api/v1/users/priv", Token(restr.Token)), 404, "restricted does not see priv")
	// Following the other way round does not matter.
	fndStatus(t, s.Do("PUT", "api/v1/user/following/priv", Token(other.Token)), 404, "other cannot even follow invisible priv")
	fndStatus(t, s.Do("DELETE", "api/v1/user/following/viewer", Token(priv.Token)), 204, "priv unfollows viewer")
	fndStatus(t, s.Do("GET", "api/v1/users/priv", Token(viewer.Token)), 404, "viewer no longer sees priv")
	_ = pub
}

func TestUserPrivateVisibleThroughOrg(t *testing.T) {
	s := StartServer(t)
	priv := s.CreateUser("priv", "private")
	viewer := s.CreateUser("viewer")
	other := s.CreateUser("other")
	// A private user is visible to those who share an organization with them.
	fndCreateOrg(t, s, priv.Token, "shared-org", nil)
	fndStatus(t, s.Do("GET", "api/v1/users/priv", Token(other.Token)), 404, "other does not see priv before joining the org")
	fndAddOrgMember(t, s, priv.Token, "shared-org", "other")
	fndStatus(t, s.Do("GET", "api/v1/users/priv", Token(other.Token)), 200, "other sees priv after joining the org")
	if l := fndSearch(t, s, "q=priv", Token(other.Token)); !fndContains(l, "priv") {
		t.Fatalf("search by org mate misses priv: %v", l)
	}
	fndStatus(t, s.Do("GET", "api/v1/users/priv", Token(viewer.Token)), 404, "viewer (not in the org) still does not see priv")
}

func TestUserSearch(t *testing.T) {
	s := StartServer(t)
	s.CreateUser("pub")
	s.CreateUser("lim", "limited")
	s.CreateUser("priv", "private")
	viewer := s.CreateUser("viewer")
	restr := s.CreateUser("restr", "restricted")
	hid := s.CreateUser("hiddy")
	showy := s.CreateUser("showy")

	// Full name is returned and searchable.
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/pub", Token(s.AdminTok), JSON(map[string]any{"full_name": "Publius Searchable", "login_name": "pub"})), 200, "set full name")
	// Give hiddy and showy distinctive e-mails; hiddy hides hers.
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/hiddy", Token(s.AdminTok), JSON(map[string]any{"email": "zebra-mail@example.org", "login_name": "hiddy"})), 200, "hiddy email")
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/showy", Token(s.AdminTok), JSON(map[string]any{"email": "quokka-mail@example.org", "login_name": "showy"})), 200, "showy email")
	fndPatchSettings(t, s, hid.Token, map[string]any{"hide_email": true})
	_ = showy

	all := []string{"hiddy", "lim", "priv", "pub", "restr", adminName, "showy", "viewer"}
	cases := []struct {
		who  string
		opts []RequestOption
		want []string
	}{
		{"signed out", nil, []string{"hiddy", "pub", "restr", adminName, "showy", "viewer"}},
		{"user", []RequestOption{Token(viewer.Token)}, []string{"hiddy", "lim", "pub", "restr", adminName, "showy", "viewer"}},
		{"restricted", []RequestOption{Token(restr.Token)}, []string{"hiddy", "pub", "restr", adminName, "showy", "viewer"}},
		{"admin", []RequestOption{Token(s.AdminTok)}, all},
	}
	for _, c := range cases {
		got := fndSearch(t, s, "limit=50", c.opts...)
		sort.Strings(got)
		want := append([]string(nil), c.want...)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("search as %s = %v, want %v", c.who, got, want)
		}
		r := s.Do("GET", "api/v1/users/search?limit=50", c.opts...)
		if tc := r.Header.Get("X-Total-Count"); tc != fmt.Sprint(len(c.want)) {
			t.Errorf("search as %s: X-Total-Count %s, want %d", c.who, tc, len(c.want))
		}
		if c.who == "signed out" && strings.Contains(string(r.Body), "@example") {
			t.Errorf("signed-out search leaks e-mail addresses: %s", r.Body)
		}
	}

	// Search by name and full name.
	if got := fndSearch(t, s, "q=searchable"); strings.Join(got, ",") != "pub" {
		t.Errorf("search by full name = %v", got)
	}
	r := s.Do("GET", "api/v1/users/search?q=publius")
	if !strings.Contains(string(r.Body), `"full_name":"Publius Searchable"`) {
		t.Errorf("search result lacks the full name: %s", r.Body)
	}
	// Search by e-mail: never for signed-out callers, never hidden addresses except for admins.
	for _, c := range []struct {
		who  string
		opts []RequestOption
		q    string
		want string
	}{
		{"signed out", nil, "quokka", ""},
		{"signed out", nil, "zebra", ""},
		{"user", []RequestOption{Token(viewer.Token)}, "quokka", "showy"},
		{"user", []RequestOption{Token(viewer.Token)}, "zebra", ""},
		{"admin", []RequestOption{Token(s.AdminTok)}, "zebra", "hiddy"},
	} {
		if got := strings.Join(fndSearch(t, s, "q="+c.q, c.opts...), ","); got != c.want {
			t.Errorf("search %q as %s = %q, want %q", c.q, c.who, got, c.want)
		}
	}
	// LIKE wildcards in the keyword match themselves only.
	for _, q := range []string{"%25", "_", "%25%25", "!"} {
		if got := fndSearch(t, s, "q="+q, Token(s.AdminTok)); len(got) != 0 {
			t.Errorf("search %q = %v, want nothing", q, got)
		}
	}
	// uid finds one user, but not a hidden one.
	privID := fndDecodeUser(t, s.Do("GET", "api/v1/users/priv", Token(s.AdminTok))).ID
	if got := fndSearch(t, s, fmt.Sprintf("uid=%d", privID)); len(got) != 0 {
		t.Errorf("signed-out search by uid finds private user: %v", got)
	}
	if got := fndSearch(t, s, fmt.Sprintf("uid=%d", privID), Token(s.AdminTok)); strings.Join(got, ",") != "priv" {
		t.Errorf("admin search by uid = %v", got)
	}
	// The SDK parses the envelope.
	users, _, err := s.Client(viewer.Token).SearchUsers(gitea.SearchUsersOption{KeyWord: "lim"})
	if err != nil || len(users) != 1 || users[0].UserName != "lim" {
		t.Fatalf("SDK SearchUsers = %v, %v", users, err)
	}
	// Hidden e-mail is shown as the placeholder to others, the real one to admins.
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/hiddy", Token(viewer.Token))); u.Email != "hiddy@noreply.127.0.0.1" {
		t.Errorf("hidden e-mail shown to another user: %q", u.Email)
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/hiddy", Token(s.AdminTok))); u.Email != "zebra-mail@example.org" {
		t.Errorf("admin sees e-mail %q", u.Email)
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(hid.Token))); u.Email != "zebra-mail@example.org" {
		t.Errorf("user sees own e-mail %q", u.Email)
	}
}

func TestUserEmails(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	s.CreateUser("bob")
	type email struct {
		Email    string `json:"email"`
		Verified bool   `json:"verified"`
		Primary  bool   `json:"primary"`
		UserID   int64  `json:"user_id"`
		Username string `json:"username"`
	}
	list := func() []email {
		t.Helper()
		r := s.Do("GET", "api/v1/user/emails", Token(alice.Token))
		fndStatus(t, r, 200, "list emails")
		var l []email
		r.Decode(t, &l)
		return l
	}
	addrs := func(l []email) string {
		var out []string
		for _, e := range l {
			out = append(out, e.Email)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	l := list()
	if len(l) != 1 || l[0] != (email{"alice@example.com", true, true, alice.ID, "alice"}) {
		t.Fatalf("emails = %+v", l)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user/emails"), 401, "signed-out list")

	r := s.Do("POST", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": []string{"a2@example.com", "a3@example.com"}}))
	fndStatus(t, r, 201, "add emails")
	var added []email
	r.Decode(t, &added)
	if addrs(added) != "a2@example.com,a3@example.com,alice@example.com" {
		t.Fatalf("add answered %+v", added)
	}
	for _, e := range added {
		if e.Email != "alice@example.com" && (e.Primary || e.UserID != alice.ID || e.Username != "alice") {
			t.Fatalf("added address %+v", e)
		}
	}
	// Bad additions change nothing.
	for _, c := range []struct {
		what   string
		emails any
	}{
		{"another user's address", []string{"bob@example.com"}},
		{"own address again", []string{"A2@example.com"}},
		{"one good one used", []string{"a4@example.com", "bob@example.com"}},
		{"invalid", []string{"not-an-email"}},
		{"invalid chars", []string{"a b@example.com"}},
		{"too long", []string{strings.Repeat("x", 250) + "@example.com"}},
		{"empty list", []string{}},
		{"wrong type", "a5@example.com"},
	} {
		fndAPIError(t, s, s.Do("POST", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": c.emails})), 422, "add "+c.what)
	}
	if got := addrs(list()); got != "a2@example.com,a3@example.com,alice@example.com" {
		t.Fatalf("after bad additions emails = %s", got)
	}
	// An address of alice cannot become bob's.
	fndAPIError(t, s, s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "carl", "email": "a3@example.com", "password": "pw-pw-pw"})), 422, "create user with alice's secondary")

	// SDK adds too.
	if _, _, err := s.Client(alice.Token).AddEmail(gitea.CreateEmailOption{Emails: []string{"a6@example.com"}}); err != nil {
		t.Fatalf("SDK AddEmail: %v", err)
	}
	fndStatus(t, s.Do("DELETE", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": []string{"a2@example.com", "a6@example.com"}})), 204, "delete")
	if got := addrs(list()); got != "a3@example.com,alice@example.com" {
		t.Fatalf("after delete emails = %s", got)
	}
	fndAPIError(t, s, s.Do("DELETE", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": []string{"bob@example.com"}})), 404, "delete another's address")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": []string{"nobody@example.com"}})), 404, "delete unknown address")
	r = s.Do("DELETE", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": []string{"alice@example.com"}}))
	if r.Status < 400 || r.Status >= 500 {
		t.Fatalf("deleting the primary address: %d %s", r.Status, r.Body)
	}
	fndStatus(t, s.Do("DELETE", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": []string{}})), 204, "delete nothing")
	if got := addrs(list()); got != "a3@example.com,alice@example.com" {
		t.Fatalf("after refused deletes emails = %s", got)
	}
	// The removed address is free again.
	fndStatus(t, s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "carl", "email": "a2@example.com", "password": "pw-pw-pw"})), 201, "reuse a removed address")
}

func TestUserKeys(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	line, fp := fndNewSSHKey(t, "alice@laptop")
	if !strings.HasPrefix(fp, "SHA256:") {
		t.Fatalf("fingerprint %q", fp)
	}
	type key struct {
		ID          int64          `json:"id"`
		Key         string         `json:"key"`
		URL         string         `json:"url"`
		Title       string         `json:"title"`
		Fingerprint string         `json:"fingerprint"`
		Created     string         `json:"created_at"`
		User        *fndUser       `json:"user"`
		ReadOnly    bool           `json:"read_only"`
		KeyType     string         `json:"key_type"`
		Extra       map[string]any `json:"-"`
	}
	r := s.Do("POST", "api/v1/user/keys", Token(alice.Token), JSON(map[string]any{"title": "laptop", "key": line}))
	fndStatus(t, r, 201, "add key")
	var k key
	r.Decode(t, &k)
	if k.ID == 0 || k.Title != "laptop" || k.Fingerprint != fp || k.KeyType != "user" || k.User == nil || k.User.Login != "alice" ||
		k.URL != fmt.Sprintf("%sapi/v1/user/keys/%d", s.URL, k.ID) || !strings.HasPrefix(line, k.Key) || !strings.HasPrefix(k.Key, "ssh-ed25519 AAAA") {
		t.Fatalf("created key = %+v (sent %q)", k, line)
	}
	fndRecent(t, "key created_at", k.Created)

	// Duplicates and invalid keys are refused with 422 and nothing is stored.
	line2, _ := fndNewSSHKey(t, "other")
	for _, c := range []struct {
		what string
		tok  string
		body map[string]any
	}{
		{"same key, new title", alice.Token, map[string]any{"title": "again", "key": line}},
		{"same key by another user", bob.Token, map[string]any{"title": "stolen", "key": line}},
		{"same key without comment", alice.Token, map[string]any{"title": "bare", "key": k.Key}},
		{"same title", alice.Token, map[string]any{"title": "laptop", "key": line2}},
		{"garbage", alice.Token, map[string]any{"title": "junk", "key": "ssh-ed25519 AAAAnot-base64!!"}},
		{"not a key", alice.Token, map[string]any{"title": "junk", "key": "hello world"}},
		{"empty key", alice.Token, map[string]any{"title": "junk", "key": ""}},
		{"no title", alice.Token, map[string]any{"key": line2}},
		{"long title", alice.Token, map[string]any{"title": strings.Repeat("t", 51), "key": line2}},
		{"two keys", alice.Token, map[string]any{"title": "two", "key": line2 + "\n" + line}},
	} {
		fndAPIError(t, s, s.Do("POST", "api/v1/user/keys", Token(c.tok), JSON(c.body)), 422, "add key: "+c.what)
	}
	r = s.Do("GET", "api/v1/user/keys", Token(alice.Token))
	fndStatus(t, r, 200, "list keys")
	var keys []key
	r.Decode(t, &keys)
	if len(keys) != 1 || keys[0].Fingerprint != fp || r.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("keys after refusals = %+v (total %s)", keys, r.Header.Get("X-Total-Count"))
	}
	if r := s.Do("GET", "api/v1/user/keys", Token(bob.Token)); string(r.Body) != "[]\n" && string(r.Body) != "[]" {
		t.Fatalf("bob's keys = %s", r.Body)
	}
	// Filter by fingerprint.
	r = s.Do("GET", "api/v1/user/keys?fingerprint="+url.QueryEscape(fp), Token(alice.Token))
	keys = nil
	r.Decode(t, &keys)
	if len(keys) != 1 {
		t.Fatalf("filter by fingerprint = %s", r.Body)
	}
	r = s.Do("GET", "api/v1/user/keys?fingerprint=SHA256:nope", Token(alice.Token))
	keys = nil
	r.Decode(t, &keys)
	if len(keys) != 0 {
		t.Fatalf("filter by unknown fingerprint = %s", r.Body)
	}
	// Another user sees the public part only; signed-out callers need a token (as Gitea).
	r = s.Do("GET", "api/v1/users/alice/keys", Token(bob.Token))
	fndStatus(t, r, 200, "bob lists alice's keys")
	var raw []map[string]any
	r.Decode(t, &raw)
	if len(raw) != 1 || raw[0]["fingerprint"] != fp {
		t.Fatalf("bob sees %s", r.Body)
	}
	for _, private := range []string{"user", "read_only", "key_type"} {
		if _, ok := raw[0][private]; ok {
			t.Fatalf("bob sees owner-only key field %q: %s", private, r.Body)
		}
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/users/alice/keys"), 401, "signed-out lists keys")
	sdkKeys, _, err := s.Client(bob.Token).ListPublicKeys("alice", gitea.ListPublicKeysOptions{})
	if err != nil || len(sdkKeys) != 1 || sdkKeys[0].Fingerprint != fp {
		t.Fatalf("SDK ListPublicKeys = %v, %v", sdkKeys, err)
	}

	id := fmt.Sprint(k.ID)
	fndStatus(t, s.Do("GET", "api/v1/user/keys/"+id, Token(alice.Token)), 200, "get own key")
	fndAPIError(t, s, s.Do("GET", "api/v1/user/keys/"+id, Token(bob.Token)), 404, "get another's key")
	fndAPIError(t, s, s.Do("GET", "api/v1/user/keys/999999", Token(alice.Token)), 404, "get missing key")
	fndAPIError(t, s, s.Do("GET", "api/v1/user/keys/abc", Token(alice.Token)), 404, "get key by non-numeric id")
	msg := fndAPIError(t, s, s.Do("DELETE", "api/v1/user/keys/"+id, Token(bob.Token)), 403, "delete another's key")
	fndMsgHas(t, "delete another's key", msg, "You do not have access to this key")
	fndStatus(t, s.Do("DELETE", "api/v1/user/keys/"+id, Token(alice.Token)), 204, "delete own key")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/user/keys/"+id, Token(alice.Token)), 404, "delete again")
	// The key is free again, now for bob, through the SDK.
	sk, _, err := s.Client(bob.Token).CreatePublicKey(gitea.CreateKeyOption{Title: "mine now", Key: line})
	if err != nil || sk.Fingerprint != fp {
		t.Fatalf("SDK CreatePublicKey = %+v, %v", sk, err)
	}

	// RSA keys need at least 3071 bits (Gitea's default minimum); titles count characters.
	small, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	smallPub, _ := ssh.NewPublicKey(&small.PublicKey)
	msg = fndAPIError(t, s, s.Do("POST", "api/v1/user/keys", Token(alice.Token), JSON(map[string]any{"title": "rsa2048", "key": string(ssh.MarshalAuthorizedKey(smallPub))})), 422, "2048-bit RSA key")
	fndMsgHas(t, "2048-bit RSA key", msg, "key length")
	big, err := rsa.GenerateKey(rand.Reader, 3072)
	if err != nil {
		t.Fatal(err)
	}
	bigPub, _ := ssh.NewPublicKey(&big.PublicKey)
	r = s.Do("POST", "api/v1/user/keys", Token(alice.Token), JSON(map[string]any{"title": strings.Repeat("é", 50), "key": string(ssh.MarshalAuthorizedKey(bigPub))}))
	fndStatus(t, r, 201, "3072-bit RSA key with a 50-character title")
	var rk key
	r.Decode(t, &rk)
	if rk.Fingerprint != ssh.FingerprintSHA256(bigPub) || !strings.HasPrefix(rk.Key, "ssh-rsa ") {
		t.Fatalf("RSA key = %+v", rk)
	}

	// Admin adds and removes keys for others.
	r = s.Do("POST", "api/v1/admin/users/alice/keys", Token(s.AdminTok), JSON(map[string]any{"title": "by admin", "key": line2}))
	fndStatus(t, r, 201, "admin adds key")
	var ak key
	r.Decode(t, &ak)
	fndAPIError(t, s, s.Do("DELETE", fmt.Sprintf("api/v1/admin/users/bob/keys/%d", ak.ID), Token(s.AdminTok)), 403, "admin deletes alice's key as bob's")
	fndStatus(t, s.Do("DELETE", fmt.Sprintf("api/v1/admin/users/alice/keys/%d", ak.ID), Token(s.AdminTok)), 204, "admin deletes key")
	fndAPIError(t, s, s.Do("POST", "api/v1/admin/users/alice/keys", Token(bob.Token), JSON(map[string]any{"title": "x", "key": line2})), 403, "non-admin uses admin keys")
}

func TestUserSettings(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	get := func() map[string]any {
		t.Helper()
		r := s.Do("GET", "api/v1/user/settings", Token(alice.Token))
		fndStatus(t, r, 200, "get settings")
		var m map[string]any
		r.Decode(t, &m)
		return m
	}
	m := get()
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "description,diff_view_style,full_name,hide_activity,hide_email,language,location,theme,website" {
		t.Fatalf("settings keys = %s", got)
	}
	if m["hide_email"] != false || m["full_name"] != "" {
		t.Fatalf("default settings = %v", m)
	}

	r := s.Do("PATCH", "api/v1/user/settings", Token(alice.Token), JSON(map[string]any{
		"full_name": "Alice Liddell", "website": "https://alice.example", "description": "down the hole", "location": "Wonderland",
		"language": "en-US", "theme": "gitea-dark", "diff_view_style": "split", "hide_email": true, "hide_activity": true,
	}))
	fndStatus(t, r, 200, "patch settings")
	want := map[string]any{"full_name": "Alice Liddell", "website": "https://alice.example", "description": "down the hole",
		"location": "Wonderland", "language": "en-US", "theme": "gitea-dark", "diff_view_style": "split", "hide_email": true, "hide_activity": true}
	var patched map[string]any
	r.Decode(t, &patched)
	for k, v := range want {
		if patched[k] != v {
			t.Errorf("PATCH answer %s = %v, want %v", k, patched[k], v)
		}
	}
	m = get()
	for k, v := range want {
		if m[k] != v {
			t.Errorf("after PATCH %s = %v, want %v", k, m[k], v)
		}
	}
	// The profile follows.
	u := fndDecodeUser(t, s.Do("GET", "api/v1/users/alice", Token(s.AdminTok)))
	if u.FullName != "Alice Liddell" || u.Website != "https://alice.example" || u.Location != "Wonderland" || u.Description != "down the hole" {
		t.Errorf("profile after settings = %+v", u)
	}
	// Omitted fields stay.
	fndPatchSettings(t, s, alice.Token, map[string]any{"location": "Looking-Glass"})
	if m = get(); m["full_name"] != "Alice Liddell" || m["location"] != "Looking-Glass" || m["hide_email"] != true {
		t.Errorf("partial PATCH = %v", m)
	}
	// Bad input is refused and changes nothing.
	before := get()
	for _, c := range []struct {
		what string
		body string
	}{
		{"bad website", `{"website":"ftp://x.example","full_name":"Changed"}`},
		{"website with spaces", `{"website":"https://a b"}`},
		{"long full name", `{"full_name":"` + strings.Repeat("n", 101) + `"}`},
		{"long location", `{"location":"` + strings.Repeat("l", 51) + `"}`},
		{"long language", `{"language":"en-US-x"}`},
		{"long description", `{"description":"` + strings.Repeat("d", 256) + `"}`},
		{"wrong type", `{"hide_email":"yes"}`},
		{"wrong type string", `{"full_name":42}`},
		{"malformed", `{"full_name":"x"`},
	} {
		fndAPIError(t, s, s.Do("PATCH", "api/v1/user/settings", Token(alice.Token), RawBody(c.body)), 422, "settings "+c.what)
	}
	after := get()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("refused PATCH changed %s: %v -> %v", k, v, after[k])
		}
	}
	// The SDK round-trips.
	name := "Alice via SDK"
	st, _, err := s.Client(alice.Token).UpdateUserSettings(gitea.UserSettingsOptions{FullName: &name})
	if err != nil || st.FullName != name || !st.HideEmail {
		t.Fatalf("SDK UpdateUserSettings = %+v, %v", st, err)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user/settings"), 401, "signed-out settings")
	fndAPIError(t, s, s.Do("PATCH", "api/v1/user/settings", JSON(map[string]any{"full_name": "x"})), 401, "signed-out patch settings")
}

func TestUserFollow(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	counts := func(name string) (int, int) {
		t.Helper()
		u := fndDecodeUser(t, s.Do("GET", "api/v1/users/"+name, Token(alice.Token)))
		return u.Followers, u.Following
	}
	fndStatus(t, s.Do("GET", "api/v1/user/following/bob", Token(alice.Token)), 404, "not yet following")
	fndStatus(t, s.Do("PUT", "api/v1/user/following/bob", Token(alice.Token)), 204, "follow")
	fndStatus(t, s.Do("PUT", "api/v1/user/following/bob", Token(alice.Token)), 204, "follow again")
	fndStatus(t, s.Do("GET", "api/v1/user/following/bob", Token(alice.Token)), 204, "check following")
	fndStatus(t, s.Do("GET", "api/v1/users/alice/following/bob", Token(bob.Token)), 204, "check alice follows bob")
	fndStatus(t, s.Do("GET", "api/v1/users/bob/following/alice", Token(bob.Token)), 404, "bob does not follow alice")
	fndStatus(t, s.Do("GET", "api/v1/users/alice/following/nobody", Token(bob.Token)), 404, "unknown target")
	if f1, f2 := counts("bob"); f1 != 1 || f2 != 0 {
		t.Fatalf("bob counts = %d followers, %d following", f1, f2)
	}
	if f1, f2 := counts("alice"); f1 != 0 || f2 != 1 {
		t.Fatalf("alice counts = %d followers, %d following", f1, f2)
	}
	r := s.Do("GET", "api/v1/users/bob/followers", Token(bob.Token))
	fndStatus(t, r, 200, "bob's followers")
	if l := fndLogins(fndDecodeUsers(t, r)); strings.Join(l, ",") != "alice" || r.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("bob's followers = %v (total %s)", l, r.Header.Get("X-Total-Count"))
	}
	r = s.Do("GET", "api/v1/user/following", Token(alice.Token))
	if l := fndLogins(fndDecodeUsers(t, r)); strings.Join(l, ",") != "bob" {
		t.Fatalf("alice's following = %v", l)
	}
	r = s.Do("GET", "api/v1/user/followers", Token(bob.Token))
	if l := fndLogins(fndDecodeUsers(t, r)); strings.Join(l, ",") != "alice" {
		t.Fatalf("bob's own followers = %v", l)
	}
	if ok, _ := s.Client(alice.Token).IsFollowing("bob"); !ok {
		t.Fatal("SDK IsFollowing = false")
	}

	// Following yourself is a no-op.
	fndStatus(t, s.Do("PUT", "api/v1/user/following/alice", Token(alice.Token)), 204, "follow self")
	if f1, f2 := counts("alice"); f1 != 0 || f2 != 1 {
		t.Fatalf("after following self alice counts = %d, %d", f1, f2)
	}
	fndAPIError(t, s, s.Do("PUT", "api/v1/user/following/nobody", Token(alice.Token)), 404, "follow unknown")
	fndAPIError(t, s, s.Do("PUT", "api/v1/user/following/bob"), 401, "signed-out follow")

	fndStatus(t, s.Do("DELETE", "api/v1/user/following/bob", Token(alice.Token)), 204, "unfollow")
	fndStatus(t, s.Do("DELETE", "api/v1/user/following/bob", Token(alice.Token)), 204, "unfollow again")
	fndStatus(t, s.Do("GET", "api/v1/user/following/bob", Token(alice.Token)), 404, "no longer following")
	if f1, f2 := counts("bob"); f1 != 0 || f2 != 0 {
		t.Fatalf("after unfollow bob counts = %d, %d", f1, f2)
	}
	if f1, f2 := counts("alice"); f1 != 0 || f2 != 0 {
		t.Fatalf("after unfollow alice counts = %d, %d", f1, f2)
	}
	// Deleting a follower keeps the counters right.
	fndStatus(t, s.Do("PUT", "api/v1/user/following/alice", Token(bob.Token)), 204, "bob follows alice")
	fndStatus(t, s.Do("DELETE", "api/v1/admin/users/bob", Token(s.AdminTok)), 204, "delete bob")
	if f1, _ := counts("alice"); f1 != 0 {
		t.Fatalf("alice keeps %d followers after bob was deleted", f1)
	}
}

// TestUserConcurrentWrites: many writers at once (settings, follows, e-mails,
// keys) all succeed and the follow counters stay right.
func TestUserConcurrentWrites(t *testing.T) {
	s := StartServer(t)
	s.CreateUser("target")
	const n = 8
	users := make([]*User, n)
	for i := range users {
		users[i] = s.CreateUser(fmt.Sprintf("cw-%d", i))
	}
	type result struct {
		what   string
		status int
		body   string
	}
	results := make(chan result, n*200)
	done := make(chan struct{})
	client := &http.Client{Timeout: 30 * time.Second}
	do := func(method, path, tok, body string) result {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "token "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return result{method + " " + path, -1, err.Error()}
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return result{method + " " + path, resp.StatusCode, string(b)}
	}
	for i, u := range users {
		go func(i int, u *User) {
			defer func() { done <- struct{}{} }()
			for j := 0; j < 10; j++ {
				results <- do("PATCH", "api/v1/user/settings", u.Token, fmt.Sprintf(`{"full_name":"w%d-%d"}`, i, j))
				results <- do("PUT", "api/v1/user/following/target", u.Token, "")
				results <- do("DELETE", "api/v1/user/following/target", u.Token, "")
				results <- do("POST", "api/v1/user/emails", u.Token, fmt.Sprintf(`{"emails":["cw-%d-%d@example.net"]}`, i, j))
				line, _ := fndNewSSHKey(t, "cw")
				b, _ := json.Marshal(map[string]string{"title": fmt.Sprintf("k%d", j), "key": line})
				results <- do("POST", "api/v1/user/keys", u.Token, string(b))
				results <- do("GET", "api/v1/users/search?q=cw", u.Token, "")
			}
			results <- do("PUT", "api/v1/user/following/target", u.Token, "")
		}(i, u)
	}
	for range users {
		<-done
	}
	close(results)
	count := 0
	for r := range results {
		count++
		if r.status < 200 || r.status > 299 {
			t.Errorf("%s: %d %s", r.what, r.status, r.body)
		}
	}
	if count != n*(10*6+1) {
		t.Fatalf("%d results", count)
	}
	u := fndDecodeUser(t, s.Do("GET", "api/v1/users/target", Token(s.AdminTok)))
	if u.Followers != n {
		t.Fatalf("target has %d followers after the storm, want %d", u.Followers, n)
	}
	// The same follow sent many times at once is stored once.
	racer := s.CreateUser("racer")
	var wg sync.WaitGroup
	statuses := make(chan int, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- do("PUT", "api/v1/user/following/target", racer.Token, "").status
		}()
	}
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st != 204 {
			t.Errorf("parallel follow answered %d", st)
		}
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/target", Token(s.AdminTok))); u.Followers != n+1 {
		t.Fatalf("target has %d followers after parallel follows, want %d", u.Followers, n+1)
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/racer", Token(s.AdminTok))); u.Following != 1 {
		t.Fatalf("racer follows %d, want 1", u.Following)
	}
	if strings.Contains(s.Logs(), "database is locked") {
		t.Fatalf("database is locked in the logs:\n%s", s.Logs())
	}
}
