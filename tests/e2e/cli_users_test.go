package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// TestCLIUserCommands: delete, generate-access-token and must-change-password.
func TestCLIUserCommands(t *testing.T) {
	s := StartServer(t)
	s.CreateUser("alice")
	bob := s.CreateUser("bob")
	carol := s.CreateUser("carol")

	// generate-access-token: Gitea's output, or the bare token with --raw; scopes apply.
	out, errOut, err := fndRunCairn(t, s.Env, "admin", "user", "generate-access-token", "--username", "alice", "--scopes", "read:user")
	if err != nil || !strings.HasPrefix(out, "Access token was successfully created: ") {
		t.Fatalf("generate-access-token: %v\n%s\n%s", err, out, errOut)
	}
	readTok := strings.TrimSpace(strings.TrimPrefix(out, "Access token was successfully created: "))
	fndStatus(t, s.Do("GET", "api/v1/user", Token(readTok)), 200, "read:user token reads")
	fndStatus(t, s.Do("PATCH", "api/v1/user/settings", Token(readTok), JSON(map[string]any{"full_name": "A"})), 403, "read:user token writes")
	out, errOut, err = fndRunCairn(t, s.Env, "admin", "user", "generate-access-token", "--username", "alice", "--token-name", "ci", "--raw")
	if err != nil || !tokenPattern.MatchString(strings.TrimSpace(out)) {
		t.Fatalf("generate-access-token --raw: %v\n%q\n%s", err, out, errOut)
	}
	fndStatus(t, s.Do("PATCH", "api/v1/user/settings", Token(strings.TrimSpace(out)), JSON(map[string]any{"full_name": "A"})), 200, "all-scope token writes")
	for _, bad := range [][]string{
		{"--username", "alice", "--token-name", "ci"},                             // name used
		{"--username", "alice", "--token-name", "x", "--scopes", "write:nothing"}, // unknown scope
		{"--username", "nobody"},
	} {
		if out, err := s.Cairn(append([]string{"admin", "user", "generate-access-token"}, bad...)...); err == nil {
			t.Errorf("generate-access-token %v succeeded: %s", bad, out)
		}
	}

	// must-change-password: named accounts, --all with --exclude, --unset.
	out, err = s.Cairn("admin", "user", "must-change-password", "alice", "bob")
	if err != nil || !strings.Contains(out, "Updated 2 users setting MustChangePassword to true") {
		t.Fatalf("must-change-password: %v\n%s", err, out)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(bob.Token)), 403, "bob must change the password")
	fndStatus(t, s.Do("GET", "api/v1/user", Token(carol.Token)), 200, "carol is left alone")
	if out, err := s.Cairn("admin", "user", "must-change-password", "alice", "nobody"); err == nil {
		t.Fatalf("must-change-password with an unknown name succeeded: %s", out)
	}
	// The warning when a token is made for such an account.
	if _, errOut, err := fndRunCairn(t, s.Env, "admin", "user", "generate-access-token", "--username", "bob"); err != nil || !strings.Contains(errOut, "403") {
		t.Errorf("no warning for a token of an account that must change its password: %v %q", err, errOut)
	}
	out, err = s.Cairn("admin", "user", "must-change-password", "--all", "--unset", "--exclude", "bob")
	if err != nil || !strings.Contains(out, "Updated 3 users setting MustChangePassword to false") {
		t.Fatalf("must-change-password --all --unset: %v\n%s", err, out)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Token(bob.Token)), 403, "excluded bob still must change the password")
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("alice", "alice-pw-123")), 200, "alice after --unset")
	if out, err := s.Cairn("admin", "user", "must-change-password"); err == nil {
		t.Fatalf("must-change-password without names or --all succeeded: %s", out)
	}

	// delete: by name, id or e-mail; they must agree; the last admin stays.
	if out, err := s.Cairn("admin", "user", "delete", "--username", "carol", "--email", "alice@example.com"); err == nil {
		t.Fatalf("delete with disagreeing flags succeeded: %s", out)
	}
	out, err = s.Cairn("admin", "user", "delete", "--id", strconv.FormatInt(carol.ID, 10))
	if err != nil || !strings.Contains(out, "'carol' has been deleted") {
		t.Fatalf("delete --id: %v\n%s", err, out)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/users/carol", Token(s.AdminTok)), 404, "deleted carol")
	if out, err := s.Cairn("admin", "user", "delete", "--email", "alice@example.com"); err != nil {
		t.Fatalf("delete --email: %v\n%s", err, out)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/users/alice", Token(s.AdminTok)), 404, "deleted alice")
	// bob owns a repository: refused without --purge.
	if r := s.Do("POST", "api/v1/user/repos", Basic("bob", "bob-pw-123"), JSON(map[string]any{"name": "keep"})); r.Status != 403 {
		t.Fatalf("bob creating a repository while forced to change the password: %d", r.Status)
	}
	if r := s.Do("POST", "api/v1/admin/users/bob/repos", Token(s.AdminTok), JSON(map[string]any{"name": "keep"})); r.Status != 201 {
		t.Fatalf("create bob's repository: %d %s", r.Status, r.Body)
	}
	if out, err := s.Cairn("admin", "user", "delete", "--username", "bob"); err == nil {
		t.Fatalf("delete of a repository owner without --purge succeeded: %s", out)
	}
	if out, err := s.Cairn("admin", "user", "delete", "--username", "bob", "--purge"); err != nil {
		t.Fatalf("delete --purge: %v\n%s", err, out)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/repos/bob/keep", Token(s.AdminTok)), 404, "purged repository")
	if out, err := s.Cairn("admin", "user", "delete", "--username", adminName); err == nil || !strings.Contains(out, "last admin") {
		t.Fatalf("delete of the last admin: %v\n%s", err, out)
	}
}
