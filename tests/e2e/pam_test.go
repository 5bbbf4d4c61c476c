//go:build pam

package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pamFixture makes a local account with a password and a PAM service that
// checks it with pam_unix, both removed when the test ends. Creating them
// needs root: the test is skipped otherwise, except under CI.
func pamFixture(t *testing.T) (service, login, password string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("the PAM test needs root (it adds a local account and a file under /etc/pam.d)")
		}
		t.Skip("the PAM test needs root: it adds a local account and a file under /etc/pam.d")
	}
	suffix := make([]byte, 4)
	rand.Read(suffix)
	login = "cairnpam" + hex.EncodeToString(suffix)
	password = "pam-Secret-" + hex.EncodeToString(suffix)
	service = "cairn-test-" + hex.EncodeToString(suffix)
	run := func(stdin string, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Stdin = strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("", "useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", login)
	t.Cleanup(func() { exec.Command("userdel", login).Run() })
	run(login+":"+password+"\n", "chpasswd")
	file := filepath.Join("/etc/pam.d", service)
	stack := "# Cairn's PAM test (tests/e2e/pam_test.go); removed when the test ends\n" +
		"auth required pam_unix.so nodelay\naccount required pam_unix.so\n"
	if err := os.WriteFile(file, []byte(stack), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(file) })
	return service, login, password
}

// TestPAMSignIn: a PAM source, in a binary built with -tags pam, registers
// a local Unix account at its first sign-in on the web, the API and git
// over HTTP (e-mail login@domain), refuses wrong passwords, unknown users
// and an expired account (PAM's account check), and is changed by update-pam.
func TestPAMSignIn(t *testing.T) {
	service, login, password := pamFixture(t)
	s := StartServer(t)
	id := addLDAPSource(t, s, "add-pam", "--name", "host", "--service-name", service, "--email-domain", "example.org")
	if out, _ := s.Cairn("admin", "auth", "list"); !strings.Contains(out, "PAM") {
		t.Fatalf("auth list:\n%s", out)
	}

	s.Web(t).SignIn(login, password)
	u, ok := adminGetUser(t, s, login)
	if !ok || u.Email != login+"@example.org" || u.SourceID != id || u.LoginName != login {
		t.Fatalf("%s after the first sign-in: %+v (found %v)", login, u, ok)
	}
	if r := s.Do("GET", "api/v1/user", Basic(login, password)); r.Status != 200 {
		t.Fatalf("API basic auth: %d %s", r.Status, r.Body)
	}
	if r := s.Do("POST", "api/v1/user/repos", Basic(login, password), JSON(map[string]any{"name": "dotfiles", "private": true, "auto_init": true})); r.Status != 201 {
		t.Fatalf("create repository: %d %s", r.Status, r.Body)
	}
	dir := t.TempDir()
	clone := exec.Command("git", "clone", "http://"+login+":"+password+"@"+s.HTTPAddr+"/"+login+"/dotfiles.git", dir+"/dotfiles")
	clone.Env = rtGitEnv(dir)
	if out, err := clone.CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}

	wrong := s.Do("GET", "api/v1/user", Basic(login, "not-the-password"))
	unknown := s.Do("GET", "api/v1/user", Basic("cairnpamnobody", "whatever-secret"))
	if wrong.Status != 401 || unknown.Status != 401 || string(wrong.Body) != string(unknown.Body) {
		t.Fatalf("wrong password %d %s, unknown user %d %s", wrong.Status, wrong.Body, unknown.Status, unknown.Body)
	}
	if _, ok := adminGetUser(t, s, "cairnpamnobody"); ok {
		t.Fatal("an unknown user was registered")
	}

	// PAM's account check runs: an expired account is refused.
	if out, err := exec.Command("chage", "-E", "0", login).CombinedOutput(); err != nil {
		t.Fatalf("chage: %v\n%s", err, out)
	}
	if r := s.Do("GET", "api/v1/user", Basic(login, password)); r.Status != 401 {
		t.Fatalf("expired account: %d %s", r.Status, r.Body)
	}
	if out, err := exec.Command("chage", "-E", "-1", login).CombinedOutput(); err != nil {
		t.Fatalf("chage: %v\n%s", err, out)
	}

	// update-pam changes what is given; a deactivated source refuses.
	if out, err := s.Cairn("admin", "auth", "update-pam", "--id", strconv.FormatInt(id, 10), "--name", "unix", "--active=false", "--skip-local-2fa"); err != nil {
		t.Fatalf("update-pam: %v\n%s", err, out)
	}
	if r := s.Do("GET", "api/v1/user", Basic(login, password)); r.Status != 401 {
		t.Fatalf("deactivated source: %d %s", r.Status, r.Body)
	}
	if out, _ := s.Cairn("admin", "auth", "list"); !strings.Contains(out, "unix") {
		t.Fatalf("auth list after update-pam:\n%s", out)
	}
	if out, err := s.Cairn("admin", "auth", "add-pam", "--name", "bad", "--service-name", "../shadow"); err == nil {
		t.Fatalf("a service name with a slash was accepted:\n%s", out)
	}
}
