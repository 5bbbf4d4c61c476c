package e2e

import (
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite" // to read the SQLite database of a stopped server
)

var tokenPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// fndToken is Gitea's AccessToken.
type fndToken struct {
	ID             int64    `json:"id"`
	Name           string   `json:"name"`
	SHA1           string   `json:"sha1"`
	TokenLastEight string   `json:"token_last_eight"`
	Scopes         []string `json:"scopes"`
}

func fndCreateToken(t testing.TB, s *Server, u *User, name string, scopes ...string) fndToken {
	t.Helper()
	r := s.Do("POST", "api/v1/users/"+u.Name+"/tokens", Basic(u.Name, u.Password), JSON(map[string]any{"name": name, "scopes": scopes}))
	fndStatus(t, r, 201, "create token "+name)
	var tok fndToken
	r.Decode(t, &tok)
	return tok
}

func TestAuthMethods(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	s.CreateUser("bob")
	login := func(r *Response, what string) {
		t.Helper()
		fndStatus(t, r, 200, what)
		if u := fndDecodeUser(t, r); u.Login != "alice" {
			t.Fatalf("%s: signed in as %q", what, u.Login)
		}
	}
	login(s.Do("GET", "api/v1/user", Basic("alice", alice.Password)), "basic with name")
	login(s.Do("GET", "api/v1/user", Basic("ALICE", alice.Password)), "basic with name in another case")
	login(s.Do("GET", "api/v1/user", Basic("alice@example.com", alice.Password)), "basic with e-mail")
	login(s.Do("GET", "api/v1/user", Basic("alice", alice.Token)), "basic with token as password")
	login(s.Do("GET", "api/v1/user", Header("Authorization", "token "+alice.Token)), "Authorization: token")
	login(s.Do("GET", "api/v1/user", Header("Authorization", "Bearer "+alice.Token)), "Authorization: Bearer")
	login(s.Do("GET", "api/v1/user?token="+alice.Token), "?token=")
	login(s.Do("GET", "api/v1/user?access_token="+alice.Token), "?access_token=")
	sdkMe, _, err := s.BasicClient("alice", alice.Password).GetMyUserInfo()
	if err != nil || sdkMe.UserName != "alice" {
		t.Fatalf("SDK basic auth: %v, %v", sdkMe, err)
	}

	// Wrong credentials are a 401 in Gitea's shape, also on public routes.
	bogus := strings.Repeat("0", 40)
	for _, c := range []struct {
		what string
		opts []RequestOption
		path string
	}{
		{"unknown token", []RequestOption{Header("Authorization", "token "+bogus)}, "api/v1/user"},
		{"unknown bearer", []RequestOption{Header("Authorization", "Bearer "+bogus)}, "api/v1/user"},
		{"malformed token", []RequestOption{Header("Authorization", "token not-a-token")}, "api/v1/user"},
		{"unknown ?token=", nil, "api/v1/user?token=" + bogus},
		{"unknown ?access_token=", nil, "api/v1/user?access_token=" + bogus},
		{"unknown token on a public route", []RequestOption{Header("Authorization", "token "+bogus)}, "api/v1/users/alice"},
		{"wrong password", []RequestOption{Basic("alice", "wrong-password")}, "api/v1/user"},
		{"wrong password on a public route", []RequestOption{Basic("alice", "wrong-password")}, "api/v1/users/alice"},
		{"unknown user", []RequestOption{Basic("nobody", "whatever")}, "api/v1/user"},
		{"e-mail with wrong password", []RequestOption{Basic("alice@example.com", "nope")}, "api/v1/user"},
		{"another user's password", []RequestOption{Basic("alice", "bob-pw-123")}, "api/v1/user"},
		{"another user's token as password", []RequestOption{Basic("bob", bogus)}, "api/v1/user"},
		{"empty basic", []RequestOption{Basic("", "")}, "api/v1/user"},
		{"garbage basic", []RequestOption{Header("Authorization", "Basic !!!")}, "api/v1/user"},
	} {
		fndAPIError(t, s, s.Do("GET", c.path, c.opts...), 401, c.what)
	}

	// Sudo: administrators act as another user; others are refused.
	r := s.Do("GET", "api/v1/user", Token(s.AdminTok), Header("Sudo", "alice"))
	login(r, "Sudo header")
	login(s.Do("GET", "api/v1/user?sudo=alice", Token(s.AdminTok)), "sudo parameter")
	login(s.Do("GET", "api/v1/user?sudo=alice", Basic(adminName, adminPassword)), "sudo with basic auth")
	// Acting as alice, the admin routes are closed.
	fndAPIError(t, s, s.Do("GET", "api/v1/admin/users", Token(s.AdminTok), Header("Sudo", "alice")), 403, "sudo alice uses admin route")
	for _, c := range []struct {
		what string
		opts []RequestOption
		path string
	}{
		{"non-admin Sudo header", []RequestOption{Token(alice.Token), Header("Sudo", "bob")}, "api/v1/user"},
		{"non-admin sudo parameter", []RequestOption{Token(alice.Token)}, "api/v1/user?sudo=bob"},
		{"signed-out sudo", nil, "api/v1/user?sudo=bob"},
		{"signed-out Sudo on a public route", []RequestOption{Header("Sudo", "bob")}, "api/v1/users/bob"},
	} {
		r := s.Do("GET", c.path, c.opts...)
		fndStatus(t, r, 403, c.what)
		if !strings.Contains(string(r.Body), "Only administrators allowed to sudo.") {
			t.Fatalf("%s: body %s", c.what, r.Body)
		}
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(s.AdminTok), Header("Sudo", "nobody")), 404, "sudo unknown user")
	// Sudo changes data as the target.
	fndStatus(t, s.Do("PATCH", "api/v1/user/settings", Token(s.AdminTok), Header("Sudo", "alice"), JSON(map[string]any{"full_name": "Set By Root"})), 200, "sudo patch")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(alice.Token))); u.FullName != "Set By Root" {
		t.Fatalf("sudo patch changed %q", u.FullName)
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(s.AdminTok))); u.FullName == "Set By Root" {
		t.Fatal("sudo patch changed the admin")
	}
}

func TestTokenLifecycle(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")

	tok := fndCreateToken(t, s, alice, "ci", "read:user")
	if !tokenPattern.MatchString(tok.SHA1) || tok.TokenLastEight != tok.SHA1[32:] || tok.ID == 0 || tok.Name != "ci" ||
		strings.Join(tok.Scopes, ",") != "read:user" {
		t.Fatalf("created token = %+v", tok)
	}
	fndStatus(t, s.Do("GET", "api/v1/user", Token(tok.SHA1)), 200, "new token works")
	// Scopes are normalized as Gitea does.
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"write:user", "read:user", "read:repository"}, "read:repository,write:user"},
		{[]string{"all"}, "all"},
		{[]string{"read:admin,write:issue"}, "read:admin,write:issue"},
		{[]string{"write:activitypub", "write:admin", "write:misc", "write:notification", "write:organization", "write:package", "write:issue", "write:repository", "write:user"}, "all"},
		{[]string{"public-only", "read:user"}, "public-only,read:user"},
	} {
		got := fndCreateToken(t, s, alice, "norm-"+strings.Join(c.in, "-"), c.in...)
		if strings.Join(got.Scopes, ",") != c.want {
			t.Errorf("scopes %v normalized to %v, want %s", c.in, got.Scopes, c.want)
		}
	}
	// The list never shows the token again.
	r := s.Do("GET", "api/v1/users/alice/tokens", Basic("alice", alice.Password))
	fndStatus(t, r, 200, "list tokens")
	var list []fndToken
	r.Decode(t, &list)
	if len(list) != 7 || r.Header.Get("X-Total-Count") != "7" {
		t.Fatalf("token list has %d (total %s): %s", len(list), r.Header.Get("X-Total-Count"), r.Body)
	}
	if strings.Contains(string(r.Body), tok.SHA1) {
		t.Fatal("token list shows a token's value")
	}
	for _, l := range list {
		if l.SHA1 != "" || len(l.TokenLastEight) != 8 || l.Name == "" || len(l.Scopes) == 0 {
			t.Fatalf("listed token = %+v", l)
		}
	}
	// The SDK lists and creates with basic auth.
	bc := s.BasicClient("alice", alice.Password)
	if sdkList, _, err := bc.ListAccessTokens(gitea.ListAccessTokensOptions{}); err != nil || len(sdkList) != 7 {
		t.Fatalf("SDK ListAccessTokens = %d, %v", len(sdkList), err)
	}
	sdkTok, _, err := bc.CreateAccessToken(gitea.CreateAccessTokenOption{Name: "sdk", Scopes: []gitea.AccessTokenScope{gitea.AccessTokenScopeReadUser}})
	if err != nil || !tokenPattern.MatchString(sdkTok.Token) {
		t.Fatalf("SDK CreateAccessToken = %+v, %v", sdkTok, err)
	}

	count := func() string {
		t.Helper()
		return s.Do("GET", "api/v1/users/alice/tokens", Basic("alice", alice.Password)).Header.Get("X-Total-Count")
	}
	before := count()
	// Refusals create nothing.
	for _, c := range []struct {
		what   string
		status int
		body   map[string]any
		frag   string
	}{
		{"duplicate name", 400, map[string]any{"name": "ci", "scopes": []string{"all"}}, "access token name has been used already"},
		{"no scopes", 400, map[string]any{"name": "none"}, "access token must have a scope"},
		{"empty scopes", 400, map[string]any{"name": "none", "scopes": []string{}}, "access token must have a scope"},
		{"only public-only", 400, map[string]any{"name": "none", "scopes": []string{"public-only"}}, "scope"},
		{"unknown scope", 400, map[string]any{"name": "bad", "scopes": []string{"read:everything"}}, "invalid access token scope"},
		{"made-up scope", 400, map[string]any{"name": "bad", "scopes": []string{"sudo"}}, "invalid access token scope"},
		{"no name", 422, map[string]any{"scopes": []string{"all"}}, "name"},
		{"blank name", 422, map[string]any{"name": "  ", "scopes": []string{"all"}}, "name"},
		{"scopes of the wrong type", 422, map[string]any{"name": "x", "scopes": "all"}, "scopes"},
	} {
		msg := fndAPIError(t, s, s.Do("POST", "api/v1/users/alice/tokens", Basic("alice", alice.Password), JSON(c.body)), c.status, "create token: "+c.what)
		fndMsgHas(t, "create token: "+c.what, msg, c.frag)
	}
	// Token management needs basic auth with a password.
	for _, c := range []struct {
		what string
		opts []RequestOption
	}{
		{"token header", []RequestOption{Token(alice.Token)}},
		{"bearer", []RequestOption{Header("Authorization", "Bearer "+alice.Token)}},
		{"token as basic password", []RequestOption{Basic("alice", alice.Token)}},
	} {
		msg := fndAPIError(t, s, s.Do("POST", "api/v1/users/alice/tokens", append(c.opts, JSON(map[string]any{"name": "via-token", "scopes": []string{"all"}}))...), 401, "create with "+c.what)
		fndMsgHas(t, "create with "+c.what, msg, "auth required")
		fndAPIError(t, s, s.Do("GET", "api/v1/users/alice/tokens", c.opts...), 401, "list with "+c.what)
	}
	fndAPIError(t, s, s.Do("POST", "api/v1/users/alice/tokens?token="+alice.Token, JSON(map[string]any{"name": "via-query", "scopes": []string{"all"}})), 401, "create with ?token=")
	fndAPIError(t, s, s.Do("POST", "api/v1/users/alice/tokens", JSON(map[string]any{"name": "anon", "scopes": []string{"all"}})), 401, "signed-out create")
	// Another user may not manage alice's tokens; an admin may.
	msg := fndAPIError(t, s, s.Do("POST", "api/v1/users/alice/tokens", Basic("bob", bob.Password), JSON(map[string]any{"name": "bobs", "scopes": []string{"all"}})), 403, "bob creates for alice")
	fndMsgHas(t, "bob creates for alice", msg, "site admin")
	fndAPIError(t, s, s.Do("GET", "api/v1/users/alice/tokens", Basic("bob", bob.Password)), 403, "bob lists alice's")
	if got := count(); got != before {
		t.Fatalf("refused creations changed the count: %s -> %s", before, got)
	}
	r = s.Do("POST", "api/v1/users/alice/tokens", Basic(adminName, adminPassword), JSON(map[string]any{"name": "by-admin", "scopes": []string{"read:user"}}))
	fndStatus(t, r, 201, "admin creates for alice")
	var adminMade fndToken
	r.Decode(t, &adminMade)
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(adminMade.SHA1))); u.Login != "alice" {
		t.Fatalf("admin-made token signs in as %q", u.Login)
	}
	// Token names count characters.
	fndCreateToken(t, s, alice, strings.Repeat("ß", 255), "read:user")
	// Token names are per user.
	fndCreateToken(t, s, bob, "ci", "all")

	// Delete by id and by name.
	fndStatus(t, s.Do("DELETE", fmt.Sprintf("api/v1/users/alice/tokens/%d", tok.ID), Basic("alice", alice.Password)), 204, "delete by id")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(tok.SHA1)), 401, "deleted token")
	fndAPIError(t, s, s.Do("DELETE", fmt.Sprintf("api/v1/users/alice/tokens/%d", tok.ID), Basic("alice", alice.Password)), 404, "delete by id again")
	fndStatus(t, s.Do("DELETE", "api/v1/users/alice/tokens/by-admin", Basic("alice", alice.Password)), 204, "delete by name")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(adminMade.SHA1)), 401, "token deleted by name")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/users/alice/tokens/no-such-token", Basic("alice", alice.Password)), 404, "delete unknown name")
	// Bob's token cannot be deleted through alice, by id or by name.
	bobs := s.Do("GET", "api/v1/users/bob/tokens", Basic("bob", bob.Password))
	var bobList []fndToken
	bobs.Decode(t, &bobList)
	fndAPIError(t, s, s.Do("DELETE", fmt.Sprintf("api/v1/users/alice/tokens/%d", bobList[0].ID), Basic("alice", alice.Password)), 404, "delete bob's token through alice")
	fndAPIError(t, s, s.Do("DELETE", fmt.Sprintf("api/v1/users/bob/tokens/%d", bobList[0].ID), Basic("alice", alice.Password)), 403, "alice deletes bob's token")
	fndStatus(t, s.Do("GET", "api/v1/user", Token(bob.Token)), 200, "bob's token survives")
	// The SDK deletes by name.
	if _, err := bc.DeleteAccessToken("sdk"); err != nil {
		t.Fatalf("SDK DeleteAccessToken: %v", err)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(sdkTok.Token)), 401, "SDK-deleted token")
}

func TestTokenScopes(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	root := &User{Name: adminName, Password: adminPassword}
	readUser := fndCreateToken(t, s, alice, "read-user", "read:user").SHA1
	writeUser := fndCreateToken(t, s, alice, "write-user", "write:user").SHA1
	repoOnly := fndCreateToken(t, s, alice, "repo", "read:repository").SHA1
	adminNoAdmin := fndCreateToken(t, s, root, "no-admin", "write:user", "write:organization").SHA1
	adminRead := fndCreateToken(t, s, root, "admin-read", "read:admin").SHA1

	fndStatus(t, s.Do("GET", "api/v1/user", Token(readUser)), 200, "read:user reads /user")
	fndStatus(t, s.Do("GET", "api/v1/user/settings", Token(readUser)), 200, "read:user reads settings")
	fndStatus(t, s.Do("GET", "api/v1/users/search", Token(readUser)), 200, "read:user searches")
	msg := fndAPIError(t, s, s.Do("PATCH", "api/v1/user/settings", Token(readUser), JSON(map[string]any{"full_name": "nope"})), 403, "read:user patches settings")
	if msg != "token does not have at least one of required scope(s), required=[write:user], token scope=read:user" {
		t.Errorf("scope message = %q", msg)
	}
	fndAPIError(t, s, s.Do("POST", "api/v1/user/emails", Token(readUser), JSON(map[string]any{"emails": []string{"x@example.com"}})), 403, "read:user adds e-mail")
	fndAPIError(t, s, s.Do("PUT", "api/v1/user/following/root", Token(readUser)), 403, "read:user follows")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(writeUser))); u.FullName == "nope" {
		t.Fatal("a refused PATCH changed the full name")
	}
	fndStatus(t, s.Do("PATCH", "api/v1/user/settings", Token(writeUser), JSON(map[string]any{"full_name": "yes"})), 200, "write:user patches settings")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(repoOnly)), 403, "read:repository reads /user")
	fndStatus(t, s.Do("GET", "api/v1/version", Token(repoOnly)), 200, "version needs no scope")
	fndStatus(t, s.Do("GET", "api/v1/settings/api", Token(repoOnly)), 200, "settings need no scope")

	// An admin's token without the admin scope cannot use /admin.
	msg = fndAPIError(t, s, s.Do("GET", "api/v1/admin/users", Token(adminNoAdmin)), 403, "admin token without admin scope")
	fndMsgHas(t, "admin token without admin scope", msg, "read:admin")
	fndAPIError(t, s, s.Do("POST", "api/v1/admin/users", Token(adminNoAdmin), JSON(map[string]any{"username": "x", "email": "x@example.com", "password": "pw"})), 403, "create user without admin scope")
	fndStatus(t, s.Do("GET", "api/v1/admin/users", Token(adminRead)), 200, "read:admin lists users")
	msg = fndAPIError(t, s, s.Do("POST", "api/v1/admin/users", Token(adminRead), JSON(map[string]any{"username": "x", "email": "x@example.com", "password": "pw"})), 403, "read:admin creates user")
	fndMsgHas(t, "read:admin creates user", msg, "write:admin")
	fndAPIError(t, s, s.Do("GET", "api/v1/users/x", Token(s.AdminTok)), 404, "no user created by refused calls")
	// Basic auth has no scope limits.
	fndStatus(t, s.Do("GET", "api/v1/admin/users", Basic(adminName, adminPassword)), 200, "basic auth admin")
	// Scope of a token given as a basic password is enforced too.
	fndAPIError(t, s, s.Do("PATCH", "api/v1/user/settings", Basic("alice", readUser), JSON(map[string]any{"full_name": "nope"})), 403, "read:user token as password patches")
	// Sudo keeps the token's scope.
	fndAPIError(t, s, s.Do("PATCH", "api/v1/user/settings", Token(adminRead), Header("Sudo", "alice"), JSON(map[string]any{"full_name": "nope"})), 403, "sudo with read:admin token")
}

// fndServerDB opens the database of a server (SQLite file, or the per-test
// PostgreSQL/MySQL database named in its environment).
func fndServerDB(t testing.TB, s *Server) *sql.DB {
	t.Helper()
	var raw string
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "CAIRN_DATABASE_URL="); ok {
			raw = v
		}
	}
	var db *sql.DB
	var err error
	switch {
	case raw == "":
		db, err = sql.Open("sqlite", "file:"+filepath.Join(s.DataDir, "cairn.db")+"?_pragma=busy_timeout(5000)")
	case strings.HasPrefix(raw, "postgres"):
		db, err = sql.Open("pgx", raw)
	default:
		u, perr := url.Parse(raw)
		if perr != nil {
			t.Fatal(perr)
		}
		cfg := mysql.NewConfig()
		cfg.Net, cfg.Addr, cfg.User, cfg.DBName = "tcp", u.Host, u.User.Username(), strings.TrimPrefix(u.Path, "/")
		cfg.Passwd, _ = u.User.Password()
		db, err = sql.Open("mysql", cfg.FormatDSN())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestTokenLastUsedIsBatched(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_API_TOKEN_LAST_USED_FLUSH_SECONDS=3600"))
	alice := s.CreateUser("alice")
	tok := fndCreateToken(t, s, alice, "batched", "all")
	db := fndServerDB(t, s)
	q := "SELECT created_unix, updated_unix FROM access_token WHERE id = " + strconv.FormatInt(tok.ID, 10)
	var created, used int64
	if err := db.QueryRow(q).Scan(&created, &used); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // so a write would change the second
	// A token request costs no more queries than a password one: the last-used time is not written per request.
	basicCount := s.Do("GET", "api/v1/user", Basic("alice", alice.Password)).Header.Get("X-Cairn-Query-Count")
	for i := 0; i < 25; i++ {
		r := s.Do("GET", "api/v1/user", Token(tok.SHA1))
		fndStatus(t, r, 200, "token request")
		// (A password request also asks whether the account has two-factor sign-in.)
		if qc := r.Header.Get("X-Cairn-Query-Count"); qc == "" || basicCount == "" || atoiOr(qc) > atoiOr(basicCount) {
			t.Fatalf("token request made %s queries, a password request %s", qc, basicCount)
		}
	}
	var used2 int64
	if err := db.QueryRow(q).Scan(&created, &used2); err != nil {
		t.Fatal(err)
	}
	if used2 != used {
		t.Fatalf("last-used time written during requests (%d -> %d) although the flush interval is an hour", used, used2)
	}
	// On shutdown the pending last-used time is written once.
	s.Stop()
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("server exited with %d", code)
	}
	var used3 int64
	if err := db.QueryRow(q).Scan(&created, &used3); err != nil {
		t.Fatal(err)
	}
	if used3 <= used {
		t.Fatalf("last-used time not written at shutdown: %d (created %d)", used3, created)
	}
}

// atoiOr is the integer s holds, or a large number when it holds none.
func atoiOr(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 1 << 30
	}
	return n
}
