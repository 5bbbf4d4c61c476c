package e2e

import (
	"fmt"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"
)

// fndUserCount is the X-Total-Count of GET /admin/users.
func fndUserCount(t testing.TB, s *Server) string {
	t.Helper()
	r := s.Do("GET", "api/v1/admin/users?limit=1", Token(s.AdminTok))
	fndStatus(t, r, 200, "admin list users")
	return r.Header.Get("X-Total-Count")
}

// fndEmailOfLength builds a valid address of exactly n characters.
func fndEmailOfLength(t testing.TB, n int) string {
	local := strings.Repeat("a", 64)
	domain := strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + "."
	rest := n - len(local) - 1 - len(domain) - len(".com")
	for rest > 60 {
		domain += strings.Repeat("d", 60) + "."
		rest -= 61
	}
	e := local + "@" + domain + strings.Repeat("e", rest) + ".com"
	if len(e) != n {
		t.Fatalf("built an e-mail of %d characters, want %d", len(e), n)
	}
	return e
}

func TestAdminCreateUser(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")

	r := s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{
		"username": "carol", "email": "carol@example.com", "password": "carol-pw-1", "full_name": "Carol Danvers",
	}))
	fndStatus(t, r, 201, "create carol")
	carol := fndDecodeUser(t, r)
	if carol.ID == 0 || carol.Login != "carol" || carol.Email != "carol@example.com" || carol.FullName != "Carol Danvers" ||
		carol.IsAdmin || carol.Restricted || !carol.Active || carol.Visibility != "public" || carol.LoginName != "carol" {
		t.Fatalf("created = %+v", carol)
	}
	fndRecent(t, "created", carol.Created)

	// must_change_password defaults to true: carol's API calls are refused until it is changed.
	msg := fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("carol", "carol-pw-1")), 403, "carol before changing password")
	fndMsgHas(t, "must change password", msg, "You must change your password")
	fndAPIError(t, s, s.Do("POST", "api/v1/users/carol/tokens", Basic("carol", "carol-pw-1"), JSON(map[string]any{"name": "t", "scopes": []string{"all"}})), 403, "carol creates a token")
	fndAPIError(t, s, s.Do("GET", "api/v1/users/alice", Basic("carol", "carol-pw-1")), 403, "carol reads another user")
	// A wrong password is still a 401, not a hint about the account state.
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("carol", "wrong")), 401, "carol with a wrong password")
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/carol", Token(s.AdminTok), JSON(map[string]any{"login_name": "carol", "must_change_password": false})), 200, "clear must_change_password")
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("carol", "carol-pw-1")), 200, "carol after the flag is cleared")
	// An admin password reset without must_change_password leaves the flag as it is (as Gitea).
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/carol", Token(s.AdminTok), JSON(map[string]any{"login_name": "carol", "must_change_password": true})), 200, "set must_change_password")
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/carol", Token(s.AdminTok), JSON(map[string]any{"login_name": "carol", "password": "carol-pw-2"})), 200, "reset password")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("carol", "carol-pw-2")), 403, "carol still has to change the password")
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/carol", Token(s.AdminTok), JSON(map[string]any{"login_name": "carol", "must_change_password": false})), 200, "clear must_change_password again")

	// Options: restricted, visibility, explicit must_change_password=false, through the SDK.
	f := false
	vis := gitea.VisibleTypePrivate
	su, _, err := s.Admin.AdminCreateUser(gitea.CreateUserOption{Username: "dora", Email: "dora@example.com", Password: "dora-pw-1", MustChangePassword: &f, Visibility: &vis})
	if err != nil || su.UserName != "dora" || su.Visibility != gitea.VisibleTypePrivate {
		t.Fatalf("SDK AdminCreateUser = %+v, %v", su, err)
	}
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("dora", "dora-pw-1")), 200, "dora with must_change_password=false")
	r = s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "rita", "email": "rita@example.com", "password": "rita-pw-1", "restricted": true, "must_change_password": false}))
	fndStatus(t, r, 201, "create restricted")
	if u := fndDecodeUser(t, r); !u.Restricted {
		t.Fatalf("restricted user = %+v", u)
	}

	count := fndUserCount(t, s)
	// Illegal and reserved names are refused with a message that says why.
	for _, c := range []struct {
		name string
		frag string
	}{
		{"bad name", "invalid"},
		{"-lead", "invalid"},
		{"trail-", "invalid"},
		{"trail.", "invalid"},
		{"dou..ble", "invalid"},
		{"dash-_mix", "invalid"},
		{"ümlaut", "invalid"},
		{"semi;colon", "invalid"},
		{"slash/name", "invalid"},
		{strings.Repeat("n", 41), "40"},
		{"api", "reserved"},
		{"API", "reserved"},
		{"user", "reserved"},
		{"ghost", "reserved"},
		{"swagger.v1.json", "reserved"},
		{"avatars", "reserved"},
		{"name.keys", ".keys"},
		{"name.gpg", ".gpg"},
		{"name.atom", ".atom"},
	} {
		r := s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": c.name, "email": "x1@example.com", "password": "pw-pw-pw-1"}))
		msg := fndAPIError(t, s, r, 422, fmt.Sprintf("create %q", c.name))
		fndMsgHas(t, fmt.Sprintf("create %q", c.name), msg, c.frag)
	}
	// A 40-character name is fine.
	long := strings.Repeat("l", 40)
	fndStatus(t, s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": long, "email": "long@example.com", "password": "pw-pw-pw-1"})), 201, "40-character name")
	count = fndUserCount(t, s)

	// Duplicates, bad e-mails, missing fields, bad enums: 422, nothing created.
	for _, c := range []struct {
		what string
		body map[string]any
		frag string
	}{
		{"duplicate name", map[string]any{"username": "carol", "email": "c2@example.com", "password": "pw"}, "already exists"},
		{"duplicate name other case", map[string]any{"username": "CAROL", "email": "c2@example.com", "password": "pw"}, "already exists"},
		{"duplicate e-mail", map[string]any{"username": "carol2", "email": "carol@example.com", "password": "pw"}, "mail"},
		{"duplicate e-mail other case", map[string]any{"username": "carol2", "email": "Carol@Example.com", "password": "pw"}, "mail"},
		{"e-mail too long", map[string]any{"username": "carol2", "email": fndEmailOfLength(t, 255), "password": "pw"}, "mail"},
		{"e-mail invalid", map[string]any{"username": "carol2", "email": "carol2-at-example.com", "password": "pw"}, "mail"},
		{"e-mail with display name", map[string]any{"username": "carol2", "email": "Carol <carol2@example.com>", "password": "pw"}, "mail"},
		{"no username", map[string]any{"email": "c3@example.com", "password": "pw"}, "username"},
		{"no e-mail", map[string]any{"username": "carol3", "password": "pw"}, "mail"},
		{"bad visibility", map[string]any{"username": "carol3", "email": "c3@example.com", "password": "pw", "visibility": "secret"}, "visibility"},
		{"long full name", map[string]any{"username": "carol3", "email": "c3@example.com", "password": "pw", "full_name": strings.Repeat("f", 101)}, "full"},
		{"wrong type", map[string]any{"username": "carol3", "email": "c3@example.com", "password": "pw", "restricted": "yes"}, "restricted"},
	} {
		msg := fndAPIError(t, s, s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(c.body)), 422, "create: "+c.what)
		fndMsgHas(t, "create: "+c.what, msg, c.frag)
	}
	if got := fndUserCount(t, s); got != count {
		t.Fatalf("refused creations changed the user count: %s -> %s", count, got)
	}
	// Lengths count characters, not bytes.
	r = s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "unicode", "email": "unicode@example.com", "password": "pw-pw-pw-1", "full_name": strings.Repeat("é", 100)}))
	fndStatus(t, r, 201, "100-character full name of 200 bytes")
	if u := fndDecodeUser(t, r); u.FullName != strings.Repeat("é", 100) {
		t.Fatalf("full name stored as %q", u.FullName)
	}
	fndAPIError(t, s, s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "unicode2", "email": "unicode2@example.com", "password": "pw-pw-pw-1", "full_name": strings.Repeat("é", 101)})), 422, "101-character full name")
	fndStatus(t, s.Do("PATCH", "api/v1/admin/users/unicode", Token(s.AdminTok), JSON(map[string]any{"login_name": "unicode", "full_name": strings.Repeat("ü", 100)})), 200, "edit a 100-character full name")
	// An e-mail of exactly 254 characters is accepted.
	e254 := fndEmailOfLength(t, 254)
	r = s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "maxmail", "email": e254, "password": "pw-pw-pw-1"}))
	fndStatus(t, r, 201, "254-character e-mail")
	if u := fndDecodeUser(t, r); u.Email != e254 {
		t.Fatalf("254-character e-mail stored as %q", u.Email)
	}

	// Only admins with a token may create users.
	fndAPIError(t, s, s.Do("POST", "api/v1/admin/users", Token(alice.Token), JSON(map[string]any{"username": "x2", "email": "x2@example.com", "password": "pw"})), 403, "non-admin creates")
	fndAPIError(t, s, s.Do("POST", "api/v1/admin/users", JSON(map[string]any{"username": "x2", "email": "x2@example.com", "password": "pw"})), 401, "signed-out creates")
}

func TestAdminEditUser(t *testing.T) {
	s := StartServer(t)
	s.CreateUser("alice")
	bob := s.CreateUser("bob")
	s.CreateUser("lim", "limited")
	edit := func(name string, body map[string]any) *Response {
		t.Helper()
		if _, ok := body["login_name"]; !ok {
			body["login_name"] = name
		}
		return s.Do("PATCH", "api/v1/admin/users/"+name, Token(s.AdminTok), JSON(body))
	}

	r := edit("bob", map[string]any{"full_name": "Robert Tables", "location": "Here", "website": "https://bob.example", "description": "hi"})
	fndStatus(t, r, 200, "edit full name")
	if u := fndDecodeUser(t, r); u.FullName != "Robert Tables" || u.Location != "Here" || u.Website != "https://bob.example" || u.Description != "hi" {
		t.Fatalf("edit answered %+v", u)
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/bob")); u.FullName != "Robert Tables" {
		t.Fatalf("full name after edit = %q", u.FullName)
	}
	// Omitted fields stay.
	fndStatus(t, edit("bob", map[string]any{"location": "There"}), 200, "edit location")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/bob")); u.FullName != "Robert Tables" || u.Location != "There" {
		t.Fatalf("partial edit = %+v", u)
	}
	// The SDK edit works too.
	fn := "Bobby"
	if _, err := s.Admin.AdminEditUser("bob", gitea.EditUserOption{LoginName: "bob", FullName: &fn}); err != nil {
		t.Fatalf("SDK AdminEditUser: %v", err)
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/bob")); u.FullName != "Bobby" || u.Location != "There" {
		t.Fatalf("after SDK edit = %+v", u)
	}

	// Password.
	fndStatus(t, edit("bob", map[string]any{"password": "brand-new-pw"}), 200, "edit password")
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("bob", "brand-new-pw")), 200, "new password works")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("bob", bob.Password)), 401, "old password refused")
	fndStatus(t, edit("bob", map[string]any{"password": "third-pw", "must_change_password": true}), 200, "password with must-change")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("bob", "third-pw")), 403, "must change after admin reset")
	fndStatus(t, edit("bob", map[string]any{"must_change_password": false}), 200, "clear must-change")
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("bob", "third-pw")), 200, "after clearing must-change")

	// Admin flag.
	fndAPIError(t, s, s.Do("GET", "api/v1/admin/users", Token(bob.Token)), 403, "bob is not admin")
	r = edit("bob", map[string]any{"admin": true})
	fndStatus(t, r, 200, "make bob admin")
	if u := fndDecodeUser(t, r); !u.IsAdmin {
		t.Fatalf("admin flag not set: %+v", u)
	}
	fndStatus(t, s.Do("GET", "api/v1/admin/users", Token(bob.Token)), 200, "bob is admin")
	fndStatus(t, edit("bob", map[string]any{"admin": false}), 200, "bob no longer admin (root remains)")
	fndAPIError(t, s, s.Do("GET", "api/v1/admin/users", Token(bob.Token)), 403, "bob is no longer admin")
	// The last admin cannot lose the flag.
	msg := fndAPIError(t, s, edit(adminName, map[string]any{"admin": false, "full_name": "Not Changed"}), 400, "demote the last admin")
	fndMsgHas(t, "demote the last admin", msg, "last admin")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(s.AdminTok))); !u.IsAdmin || u.FullName == "Not Changed" {
		t.Fatalf("refused demotion changed root: %+v", u)
	}

	// Restricted flag: bob loses sight of limited users.
	fndStatus(t, s.Do("GET", "api/v1/users/lim", Token(bob.Token)), 200, "bob sees lim")
	r = edit("bob", map[string]any{"restricted": true})
	fndStatus(t, r, 200, "restrict bob")
	if u := fndDecodeUser(t, r); !u.Restricted {
		t.Fatalf("restricted flag not set: %+v", u)
	}
	fndStatus(t, s.Do("GET", "api/v1/users/lim", Token(bob.Token)), 404, "restricted bob does not see lim")
	fndStatus(t, edit("bob", map[string]any{"restricted": false}), 200, "unrestrict bob")
	fndStatus(t, s.Do("GET", "api/v1/users/lim", Token(bob.Token)), 200, "bob sees lim again")

	// Prohibit login and inactive accounts cannot use the API.
	fndStatus(t, edit("bob", map[string]any{"prohibit_login": true}), 200, "prohibit login")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(bob.Token)), 403, "prohibited bob")
	fndStatus(t, edit("bob", map[string]any{"prohibit_login": false, "active": false}), 200, "deactivate")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(bob.Token)), 403, "inactive bob")
	fndStatus(t, edit("bob", map[string]any{"active": true}), 200, "activate")
	fndStatus(t, s.Do("GET", "api/v1/user", Token(bob.Token)), 200, "active bob")

	// E-mail.
	r = edit("bob", map[string]any{"email": "robert@example.com"})
	fndStatus(t, r, 200, "change e-mail")
	if u := fndDecodeUser(t, r); u.Email != "robert@example.com" {
		t.Fatalf("e-mail after change = %q", u.Email)
	}
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("robert@example.com", "third-pw")), 200, "sign in with the new e-mail")
	fndAPIError(t, s, edit("bob", map[string]any{"email": "alice@example.com"}), 400, "take alice's e-mail")
	fndAPIError(t, s, edit("bob", map[string]any{"email": "not-an-email"}), 400, "invalid e-mail")

	// Bad input: 4xx, nothing changed.
	before := string(s.Do("GET", "api/v1/users/bob", Token(s.AdminTok)).Body)
	fndAPIError(t, s, edit("bob", map[string]any{"visibility": "secret", "full_name": "Changed"}), 422, "bad visibility")
	fndAPIError(t, s, edit("bob", map[string]any{"full_name": strings.Repeat("x", 101)}), 422, "long full name")
	fndAPIError(t, s, edit("bob", map[string]any{"website": "javascript:alert(1)"}), 422, "bad website")
	fndAPIError(t, s, edit("bob", map[string]any{"location": strings.Repeat("x", 51)}), 422, "long location")
	fndAPIError(t, s, edit("bob", map[string]any{"admin": "yes"}), 422, "wrong type")
	fndAPIError(t, s, s.Do("PATCH", "api/v1/admin/users/bob", Token(s.AdminTok), RawBody(`{"full_name":`)), 422, "malformed JSON")
	if after := string(s.Do("GET", "api/v1/users/bob", Token(s.AdminTok)).Body); after != before {
		t.Fatalf("refused edits changed bob:\n%s\n%s", before, after)
	}
	fndAPIError(t, s, edit("nobody", map[string]any{"full_name": "x"}), 404, "edit unknown user")
	fndAPIError(t, s, s.Do("PATCH", "api/v1/admin/users/bob", Token(bob.Token), JSON(map[string]any{"login_name": "bob", "admin": true})), 403, "non-admin edits")
	// Visibility change.
	r = edit("bob", map[string]any{"visibility": "private"})
	fndStatus(t, r, 200, "make bob private")
	fndStatus(t, s.Do("GET", "api/v1/users/bob"), 404, "private bob hidden from signed-out callers")
}

func TestAdminDeleteUser(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	dave := s.CreateUser("dave")
	second := s.CreateUser("second", "admin")

	msg := fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/"+adminName, Token(s.AdminTok)), 422, "delete self")
	fndMsgHas(t, "delete self", msg, "yourself")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/"+adminName+"?purge=true", Token(s.AdminTok)), 422, "delete self with purge")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/nobody", Token(s.AdminTok)), 404, "delete unknown")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/dave", Token(alice.Token)), 403, "non-admin deletes")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/dave"), 401, "signed-out deletes")

	fndStatus(t, s.Do("DELETE", "api/v1/admin/users/dave", Token(s.AdminTok)), 204, "delete dave")
	fndAPIError(t, s, s.Do("GET", "api/v1/users/dave", Token(s.AdminTok)), 404, "dave is gone")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(dave.Token)), 401, "dave's token is gone")
	// The name and address are free again.
	fndStatus(t, s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(map[string]any{"username": "dave", "email": "dave@example.com", "password": "pw-pw"})), 201, "recreate dave")

	// Another admin can delete an admin while one remains; the second admin cannot delete the last one... themselves.
	fndStatus(t, s.Do("DELETE", "api/v1/admin/users/"+adminName, Token(second.Token)), 204, "second admin deletes root")
	fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/second", Token(second.Token)), 422, "last admin deletes self")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(second.Token))); !u.IsAdmin {
		t.Fatalf("the last admin lost its flag: %+v", u)
	}
}

func TestAdminDeleteUserInOrganization(t *testing.T) {
	s := StartServer(t)
	frank := s.CreateUser("frank")
	// frank is a member of root's organization.
	fndCreateOrg(t, s, s.AdminTok, "root-org", nil)
	fndAddOrgMember(t, s, s.AdminTok, "root-org", "frank")
	msg := fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/frank", Token(s.AdminTok)), 422, "delete an org member")
	fndMsgHas(t, "delete an org member", msg, "organization")
	fndStatus(t, s.Do("GET", "api/v1/user", Token(frank.Token)), 200, "frank still exists")
	fndStatus(t, s.Do("DELETE", "api/v1/admin/users/frank?purge=true", Token(s.AdminTok)), 204, "purge an org member")
	fndAPIError(t, s, s.Do("GET", "api/v1/users/frank", Token(s.AdminTok)), 404, "frank is gone")
	fndStatus(t, s.Do("GET", "api/v1/orgs/root-org", Token(s.AdminTok)), 200, "root's org stays")
}

// TestAdminPurgeSoleOrgOwner: as in Gitea, purging a user also deletes the
// organizations they alone own; without purge the deletion is refused.
func TestAdminPurgeSoleOrgOwner(t *testing.T) {
	s := StartServer(t)
	erin := s.CreateUser("erin")
	// erin owns an organization of her own.
	fndCreateOrg(t, s, erin.Token, "erin-org", nil)
	msg := fndAPIError(t, s, s.Do("DELETE", "api/v1/admin/users/erin", Token(s.AdminTok)), 422, "delete an org owner")
	fndMsgHas(t, "delete an org owner", msg, "organization")
	fndStatus(t, s.Do("GET", "api/v1/orgs/erin-org", Token(s.AdminTok)), 200, "erin's org stays after the refusal")
	// Purging removes her from the organizations; those she alone owns go with her (as Gitea does).
	fndStatus(t, s.Do("DELETE", "api/v1/admin/users/erin?purge=true", Token(s.AdminTok)), 204, "purge an org owner")
	fndAPIError(t, s, s.Do("GET", "api/v1/users/erin", Token(s.AdminTok)), 404, "erin is gone")
	fndStatus(t, s.Do("GET", "api/v1/orgs/erin-org", Token(s.AdminTok)), 404, "erin's sole-owned org is gone")
}

func TestAdminRenameUser(t *testing.T) {
	s := StartServer(t)
	erin := s.CreateUser("erin")
	s.CreateUser("frank")
	rename := func(name, to string) *Response {
		return s.Do("POST", "api/v1/admin/users/"+name+"/rename", Token(s.AdminTok), JSON(map[string]any{"new_username": to}))
	}
	fndStatus(t, rename("erin", "erin2"), 204, "rename")
	fndStatus(t, s.Do("GET", "api/v1/users/erin2"), 200, "new name")
	fndAPIError(t, s, s.Do("GET", "api/v1/users/erin"), 404, "old name")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/user", Token(erin.Token))); u.Login != "erin2" || u.ID != erin.ID {
		t.Fatalf("after rename GET /user = %+v", u)
	}
	// Basic auth with the new name.
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("erin2", erin.Password)), 200, "basic auth with new name")
	fndStatus(t, rename("erin2", "erin2"), 204, "rename to the same name")
	fndStatus(t, rename("erin2", "Erin2"), 204, "rename to another case")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/erin2")); u.Login != "Erin2" {
		t.Fatalf("case rename = %+v", u)
	}
	for _, c := range []struct{ what, to, frag string }{
		{"taken", "frank", "already exists"},
		{"taken other case", "FRANK", "already exists"},
		{"reserved", "api", "reserved"},
		{"invalid", "bad name", "invalid"},
		{"too long", strings.Repeat("r", 41), "40"},
		{"empty", "", "required"},
	} {
		msg := fndAPIError(t, s, rename("Erin2", c.to), 422, "rename "+c.what)
		fndMsgHas(t, "rename "+c.what, msg, c.frag)
	}
	fndStatus(t, s.Do("GET", "api/v1/users/Erin2"), 200, "name unchanged after refusals")
	fndAPIError(t, s, rename("nobody", "somebody"), 404, "rename unknown")
	fndAPIError(t, s, s.Do("POST", "api/v1/admin/users/frank/rename", Token(erin.Token), JSON(map[string]any{"new_username": "x"})), 403, "non-admin renames")
	// The SDK renames too.
	if _, err := s.Admin.AdminRenameUser("frank", gitea.RenameUserOption{NewUsername: "franklin"}); err != nil {
		t.Fatalf("SDK AdminRenameUser: %v", err)
	}
	fndStatus(t, s.Do("GET", "api/v1/users/franklin"), 200, "SDK rename")
}

func TestAdminListUsers(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	s.CreateUser("zed", "private")
	s.CreateUser("mid", "limited")
	r := s.Do("GET", "api/v1/admin/users", Token(s.AdminTok))
	fndStatus(t, r, 200, "admin list")
	list := fndDecodeUsers(t, r)
	if got := strings.Join(fndLogins(list), ","); got != "alice,mid,"+adminName+",zed" {
		t.Fatalf("admin list = %s (want all visibilities, alphabetical)", got)
	}
	if r.Header.Get("X-Total-Count") != "4" {
		t.Fatalf("X-Total-Count = %q", r.Header.Get("X-Total-Count"))
	}
	for _, u := range list {
		if u.Email != u.Login+"@example.com" || u.LoginName == "" {
			t.Fatalf("admin view lacks private fields: %+v", u)
		}
		if u.Login == adminName && !u.IsAdmin {
			t.Fatalf("root not shown as admin: %+v", u)
		}
	}
	// Filter by login name.
	r = s.Do("GET", "api/v1/admin/users?login_name=mid", Token(s.AdminTok))
	if got := strings.Join(fndLogins(fndDecodeUsers(t, r)), ","); got != "mid" || r.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("filter by login_name = %s", got)
	}
	// The SDK lists too.
	users, _, err := s.Admin.AdminListUsers(gitea.AdminListUsersOptions{})
	if err != nil || len(users) != 4 {
		t.Fatalf("SDK AdminListUsers = %d users, %v", len(users), err)
	}
	// All e-mail addresses, for admins only.
	fndStatus(t, s.Do("POST", "api/v1/user/emails", Token(alice.Token), JSON(map[string]any{"emails": []string{"alice-2@example.org"}})), 201, "alice adds an address")
	r = s.Do("GET", "api/v1/admin/emails", Token(s.AdminTok))
	fndStatus(t, r, 200, "admin emails")
	type email struct {
		Email    string `json:"email"`
		Verified bool   `json:"verified"`
		Primary  bool   `json:"primary"`
		UserID   int64  `json:"user_id"`
		Username string `json:"username"`
	}
	var emails []email
	r.Decode(t, &emails)
	if len(emails) != 5 || r.Header.Get("X-Total-Count") != "5" {
		t.Fatalf("admin emails = %s (total %s)", r.Body, r.Header.Get("X-Total-Count"))
	}
	r = s.Do("GET", "api/v1/admin/emails/search?q=alice", Token(s.AdminTok))
	emails = nil
	r.Decode(t, &emails)
	if len(emails) != 2 || r.Header.Get("X-Total-Count") != "2" {
		t.Fatalf("admin email search = %s", r.Body)
	}
	for _, e := range emails {
		if e.UserID != alice.ID || e.Username != "alice" || e.Primary != (e.Email == "alice@example.com") {
			t.Fatalf("admin email search entry %+v", e)
		}
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/admin/emails", Token(alice.Token)), 403, "non-admin lists e-mails")
	fndAPIError(t, s, s.Do("GET", "api/v1/admin/users", Token(alice.Token)), 403, "non-admin lists")
	fndAPIError(t, s, s.Do("GET", "api/v1/admin/users"), 401, "signed-out lists")
	// Organizations are not users.
	if fndHasRoute(t, s, "POST", "/orgs") {
		fndStatus(t, s.Do("POST", "api/v1/orgs", Token(alice.Token), JSON(map[string]any{"username": "an-org"})), 201, "create org")
		r = s.Do("GET", "api/v1/admin/users", Token(s.AdminTok))
		if fndContains(fndLogins(fndDecodeUsers(t, r)), "an-org") || r.Header.Get("X-Total-Count") != "4" {
			t.Fatalf("admin user list includes an organization: %s", r.Body)
		}
	}
}
