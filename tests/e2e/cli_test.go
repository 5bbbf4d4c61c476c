package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fndRunCairn runs the binary with the server's environment and returns stdout and stderr apart.
func fndRunCairn(t testing.TB, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(cairnBinary(t), args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func fndLastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func TestCLIAdminUserCreate(t *testing.T) {
	s := StartServer(t)
	// While the server runs, on the same data dir / database.
	out, errOut, err := fndRunCairn(t, s.Env, "admin", "user", "create", "--username", "cli-user", "--password", "cli-pw-1",
		"--email", "cli-user@example.com", "--must-change-password=false", "--access-token")
	if err != nil {
		t.Fatalf("admin user create: %v\n%s\n%s", err, out, errOut)
	}
	tok := fndLastLine(out)
	if !tokenPattern.MatchString(tok) {
		t.Fatalf("last stdout line is not a token: %q (stdout %q)", tok, out)
	}
	r := s.Do("GET", "api/v1/user", Token(tok))
	fndStatus(t, r, 200, "CLI token against the running server")
	if u := fndDecodeUser(t, r); u.Login != "cli-user" || u.Email != "cli-user@example.com" || u.IsAdmin || u.Restricted {
		t.Fatalf("CLI user = %+v", u)
	}
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("cli-user", "cli-pw-1")), 200, "CLI user's password")
	// The token has every scope.
	fndStatus(t, s.Do("PATCH", "api/v1/user/settings", Token(tok), JSON(map[string]any{"full_name": "CLI"})), 200, "CLI token writes")

	// --admin with --access-token: the account is used by a program, so it is
	// not made to change its password and its token works at once.
	out, errOut, err = fndRunCairn(t, s.Env, "admin", "user", "create", "--username", "cli-admin", "--password", "cli-pw-2",
		"--email", "cli-admin@example.com", "--admin", "--access-token")
	if err != nil {
		t.Fatalf("admin user create --admin: %v\n%s\n%s", err, out, errOut)
	}
	admTok := fndLastLine(out)
	fndStatus(t, s.Do("GET", "api/v1/user", Token(admTok)), 200, "token of a user created with --access-token")
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("cli-admin", "cli-pw-2")), 200, "password of a user created with --access-token")
	// Asking for both is refused, with the reason, and creates nothing.
	out, errOut, err = fndRunCairn(t, s.Env, "admin", "user", "create", "--username", "cli-locked", "--password", "cli-pw-4",
		"--email", "cli-locked@example.com", "--must-change-password", "--access-token")
	if err == nil || !strings.Contains(errOut, "403") || tokenPattern.MatchString(fndLastLine(out)) {
		t.Fatalf("--must-change-password --access-token: %v\n%s\n%s", err, out, errOut)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/users/cli-locked", Token(s.AdminTok)), 404, "user of a refused creation")
	// Without a token, a further account must change its password, and the CLI says how.
	out, errOut, err = fndRunCairn(t, s.Env, "admin", "user", "create", "--username", "cli-human", "--password", "cli-pw-5",
		"--email", "cli-human@example.com")
	if err != nil || !strings.Contains(errOut, "must change the password") || !strings.Contains(errOut, "admin user change-password") {
		t.Fatalf("admin user create: %v\n%s\n%s", err, out, errOut)
	}
	msg := fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("cli-human", "cli-pw-5")), 403, "must-change-password user")
	fndMsgHas(t, "must change", msg, "change your password")
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/cli-admin", Token(s.AdminTok))); !u.IsAdmin {
		t.Fatalf("--admin user = %+v", u)
	}
	out, errOut, err = fndRunCairn(t, s.Env, "admin", "user", "create", "--username", "cli-restricted", "--password", "cli-pw-3",
		"--email", "cli-restricted@example.com", "--restricted", "--must-change-password=false")
	if err != nil {
		t.Fatalf("admin user create --restricted: %v\n%s\n%s", err, out, errOut)
	}
	if tokenPattern.MatchString(fndLastLine(out)) {
		t.Fatalf("a token was printed without --access-token: %q", out)
	}
	if u := fndDecodeUser(t, s.Do("GET", "api/v1/users/cli-restricted", Token(s.AdminTok))); !u.Restricted {
		t.Fatalf("--restricted user = %+v", u)
	}

	// Bad input: non-zero exit, a message, nothing created.
	for _, c := range []struct {
		what string
		args []string
	}{
		{"duplicate name", []string{"--username", "cli-user", "--password", "x", "--email", "other@example.com"}},
		{"duplicate e-mail", []string{"--username", "cli-other", "--password", "x", "--email", "cli-user@example.com"}},
		{"reserved name", []string{"--username", "api", "--password", "x", "--email", "api@example.com"}},
		{"invalid name", []string{"--username", "bad name", "--password", "x", "--email", "bad@example.com"}},
		{"missing e-mail", []string{"--username", "cli-other", "--password", "x"}},
		{"unknown flag", []string{"--username", "cli-other", "--password", "x", "--email", "o@example.com", "--bogus"}},
	} {
		out, errOut, err := fndRunCairn(t, s.Env, append([]string{"admin", "user", "create"}, c.args...)...)
		if err == nil {
			t.Errorf("create with %s succeeded: %s", c.what, out)
			continue
		}
		if strings.TrimSpace(errOut) == "" {
			t.Errorf("create with %s: no message on stderr", c.what)
		}
	}
	if got := fndUserCount(t, s); got != "5" {
		t.Fatalf("after refused CLI creations there are %s users, want 5", got)
	}
}

func TestCLIChangePasswordAndList(t *testing.T) {
	s := StartServer(t)
	s.CreateUser("alice")
	s.CreateUser("zoe", "restricted")

	// By default the new password works at once, even for an account that had to change it.
	if out, err := s.Cairn("admin", "user", "must-change-password", "alice"); err != nil || !strings.Contains(out, "Updated 1 users") {
		t.Fatalf("must-change-password: %v\n%s", err, out)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("alice", "alice-pw-123")), 403, "must change")
	out, errOut, err := fndRunCairn(t, s.Env, "admin", "user", "change-password", "--username", "alice", "--password", "changed-pw-1")
	if err != nil || !strings.Contains(out, "successfully changed") {
		t.Fatalf("change-password: %v\n%s\n%s", err, out, errOut)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("alice", "alice-pw-123")), 401, "old password")
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("alice", "changed-pw-1")), 200, "new password")
	// --must-change-password keeps (or sets) the forced change, and says so.
	out, errOut, err = fndRunCairn(t, s.Env, "admin", "user", "change-password", "--username", "alice", "--password", "changed-pw-2", "--must-change-password")
	if err != nil || !strings.Contains(out, "must be changed again") {
		t.Fatalf("change-password --must-change-password: %v\n%s\n%s", err, out, errOut)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("alice", "changed-pw-2")), 403, "new password, must change")
	// The password from standard input and from a file.
	cmd := exec.Command(cairnBinary(t), "admin", "user", "change-password", "--username", "alice", "--password-stdin")
	cmd.Env, cmd.Stdin = s.Env, strings.NewReader("stdin-pw-3\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--password-stdin: %v\n%s", err, out)
	}
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("alice", "stdin-pw-3")), 200, "password from standard input")
	pwFile := t.TempDir() + "/pw"
	if err := os.WriteFile(pwFile, []byte("file-pw-4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Cairn("admin", "user", "change-password", "--username", "alice", "--password-file", pwFile); err != nil {
		t.Fatalf("--password-file: %v\n%s", err, out)
	}
	fndStatus(t, s.Do("GET", "api/v1/user", Basic("alice", "file-pw-4")), 200, "password from a file")
	if out, err := s.Cairn("admin", "user", "change-password", "--username", "alice", "--password", "x", "--password-file", pwFile); err == nil {
		t.Fatalf("two password sources accepted: %s", out)
	}
	if _, _, err := fndRunCairn(t, s.Env, "admin", "user", "change-password", "--username", "nobody", "--password", "x"); err == nil {
		t.Error("change-password of an unknown user succeeded")
	}

	out, errOut, err = fndRunCairn(t, s.Env, "admin", "user", "list")
	if err != nil {
		t.Fatalf("list: %v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "Username") {
		t.Fatalf("list output:\n%s", out)
	}
	for _, want := range []string{adminName, "alice", "zoe", "alice@example.com"} {
		if !strings.Contains(out, want) {
			t.Errorf("list misses %q:\n%s", want, out)
		}
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 6 {
			t.Fatalf("list line %q", l)
		}
		if f[1] == adminName && f[4] != "true" || f[1] == "alice" && f[4] != "false" || f[1] == "zoe" && f[5] != "true" {
			t.Errorf("list line %q has wrong flags", l)
		}
	}
	out, _, err = fndRunCairn(t, s.Env, "admin", "user", "list", "--admin")
	if err != nil || strings.Contains(out, "alice") || !strings.Contains(out, adminName) {
		t.Fatalf("list --admin: %v\n%s", err, out)
	}
}

func TestCLIVersionAndUsage(t *testing.T) {
	bin := cairnBinary(t)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v %s", err, out)
	}
	if !strings.Contains(string(out), "0.1.0") || !strings.Contains(string(out), "1.23.0+cairn.0.1.0") {
		t.Fatalf("--version = %q", out)
	}
	cmd := exec.Command(bin, "no-such-command")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 || !strings.Contains(stderr.String(), "usage") {
		t.Fatalf("unknown command: %v, stderr %q", err, stderr.String())
	}
}

// fndStartBare starts a server like StartServer but without CAIRN_ADMIN_* and
// without creating a token; stdout is kept apart from the logs.
func fndStartBare(t *testing.T, dataDir string, env []string) (*Server, *bytes.Buffer) {
	t.Helper()
	s := &Server{t: t, DataDir: dataDir, HTTPAddr: freePort(t), logs: &bytes.Buffer{}, logMu: &sync.Mutex{}, done: make(chan struct{}), SSHAddr: "off"}
	s.URL = "http://" + s.HTTPAddr + "/"
	s.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dataDir, "CAIRN_DATA_DIR=" + dataDir, "CAIRN_HTTP_ADDR=" + s.HTTPAddr,
		"CAIRN_SSH_ADDR=off", "CAIRN_ROOT_URL=" + s.URL, "CAIRN_SERVER_SHUTDOWN_TIMEOUT=10s",
	}, env...)
	stdout := &bytes.Buffer{}
	s.launch(cairnBinary(t), stdout)
	return s, stdout
}

func TestFirstStartOneTimePassword(t *testing.T) {
	dir := t.TempDir()
	var env []string
	if dbURL := testDatabaseURL(t); dbURL != "" {
		env = append(env, "CAIRN_DATABASE_URL="+dbURL)
	}
	s, stdout := fndStartBare(t, dir, env)
	// The administrator is created once the server listens: wait for the message.
	re := regexp.MustCompile(`"([^"]+)" with the one-time password (\S+)`)
	printed := fndWaitOutput(t, s, stdout, re)
	m := re.FindStringSubmatch(printed)
	name, pw := m[1], m[2]
	if len(pw) < 12 {
		t.Fatalf("one-time password %q is too short", pw)
	}
	if strings.Contains(s.Logs(), pw) {
		t.Fatal("the one-time password is also written to the log")
	}
	// The admin exists, is an admin, and must change the password before using the API.
	msg := fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic(name, pw)), 403, "first admin before changing the password")
	fndMsgHas(t, "first admin", msg, "change your password")
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic(name, "wrong")), 401, "first admin with a wrong password")
	// The message names the command that makes the account usable: run it as printed.
	cm := regexp.MustCompile(`(?m)^\s+cairn (.*admin user change-password.*)$`).FindStringSubmatch(printed)
	if cm == nil {
		t.Fatalf("the first start does not print the change-password command:\n%s", printed)
	}
	cmd := exec.Command("sh", "-c", `exec "$CAIRN_BIN" `+cm[1])
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "CAIRN_BIN=" + cairnBinary(t)}, env...)
	cmd.Dir = t.TempDir() // not the data directory: the command names it
	cmd.Stdin = strings.NewReader("new-admin-pw\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("printed command %q: %v\n%s", cm[1], err, out)
	}
	r := s.Do("GET", "api/v1/user", Basic(name, "new-admin-pw"))
	fndStatus(t, r, 200, "first admin after changing the password")
	if u := fndDecodeUser(t, r); !u.IsAdmin {
		t.Fatalf("first admin = %+v", u)
	}
	// A second start prints no password again and keeps the admin.
	s.Stop()
	s2, stdout2 := fndStartBare(t, dir, env)
	s2.logMu.Lock()
	again := stdout2.String()
	s2.logMu.Unlock()
	if strings.Contains(again, "password") {
		t.Fatalf("second start printed a password again:\n%s", again)
	}
	fndStatus(t, s2.Do("GET", "api/v1/user", Basic(name, "new-admin-pw")), 200, "admin after restart")
	r = s2.Do("GET", "api/v1/admin/users", Basic(name, "new-admin-pw"))
	if r.Header.Get("X-Total-Count") != "1" {
		t.Fatalf("after restart there are %s users", r.Header.Get("X-Total-Count"))
	}
}

func TestFirstStartWithConfiguredAdmin(t *testing.T) {
	var env []string
	if dbURL := testDatabaseURL(t); dbURL != "" {
		env = append(env, "CAIRN_DATABASE_URL="+dbURL)
	}
	env = append(env, "CAIRN_ADMIN_USERNAME=boss", "CAIRN_ADMIN_PASSWORD=boss-pw-1", "CAIRN_ADMIN_EMAIL=boss@example.com")
	s, stdout := fndStartBare(t, t.TempDir(), env)
	s.logMu.Lock()
	printed := stdout.String()
	s.logMu.Unlock()
	if strings.Contains(printed, "one-time") || strings.Contains(printed, "boss-pw-1") {
		t.Fatalf("configured admin printed a password:\n%s", printed)
	}
	r := s.Do("GET", "api/v1/user", Basic("boss", "boss-pw-1"))
	fndStatus(t, r, 200, "configured admin")
	if u := fndDecodeUser(t, r); !u.IsAdmin || u.Email != "boss@example.com" {
		t.Fatalf("configured admin = %+v", u)
	}
}

func TestGracefulShutdown(t *testing.T) {
	s := StartServer(t)
	// Start a request whose body arrives slowly, so it is in flight when SIGTERM comes.
	conn, err := net.Dial("tcp", s.HTTPAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"username":"late","email":"late@example.com","password":"late-pw-1","must_change_password":false}`
	head := fmt.Sprintf("POST /api/v1/admin/users HTTP/1.1\r\nHost: %s\r\nAuthorization: token %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		s.HTTPAddr, s.AdminTok, len(body))
	if _, err := io.WriteString(conn, head+body[:10]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// New connections are soon refused while the old request is still being served.
	refused := false
	for deadline := time.Now().Add(8 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", s.HTTPAddr, time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
	}
	if !refused {
		t.Error("the server still accepts new connections after SIGTERM")
	}
	select {
	case <-s.done:
		t.Fatal("the server exited with a request in flight")
	default:
	}
	if _, err := io.WriteString(conn, body[10:]); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request got no answer: %v\n%s", err, s.Logs())
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || !strings.Contains(string(b), `"login":"late"`) {
		t.Fatalf("in-flight request answered %d %s", resp.StatusCode, b)
	}
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not exit after SIGTERM")
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM\n%s", code, s.Logs())
	}
	if !strings.Contains(s.Logs(), "shutting down") {
		t.Errorf("no shutdown message in the logs:\n%s", s.Logs())
	}
}

// fndWaitOutput waits until the server's standard output matches re.
func fndWaitOutput(t *testing.T, s *Server, stdout *bytes.Buffer, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s.logMu.Lock()
		printed := stdout.String()
		s.logMu.Unlock()
		if re.MatchString(printed) {
			return printed
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not print %s:\n%s\nlogs:\n%s", re, printed, s.Logs())
		}
	}
}

// TestCLIRefusesEmptyInstance: admin commands do not create an instance where
// there is none (a data directory or database without Cairn's schema); the
// first start that fails (the SSH port is taken) creates the schema but no
// administrator, so the next start still prints a one-time password, and an
// account the CLI creates on that instance first is not forced to change
// its password (as in Gitea).
func TestCLIRefusesEmptyInstance(t *testing.T) {
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + dir}
	dbURL := testDatabaseURL(t)
	if dbURL != "" {
		env = append(env, "CAIRN_DATABASE_URL="+dbURL)
	}
	create := []string{"admin", "user", "create", "--username", "first", "--password", "first-pw-1", "--email", "first@example.com", "--admin"}
	// A data directory that does not exist, named by the flag: refused, not created.
	missing := dir + "/nothing-here"
	out, errOut, err := fndRunCairn(t, env, append([]string{"--data-dir", missing}, create...)...)
	if err == nil || !strings.Contains(errOut, "no Cairn instance") || !strings.Contains(errOut, missing) {
		t.Fatalf("create in a missing data directory: %v\n%s\n%s", err, out, errOut)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("the admin command created %s: %v", missing, err)
	}
	// An empty data directory (or empty database): refused, nothing created.
	for _, args := range [][]string{create, {"admin", "user", "list"}, {"admin", "regenerate", "hooks"}} {
		out, errOut, err := fndRunCairn(t, env, args...)
		if err == nil || !strings.Contains(errOut, "no Cairn instance") {
			t.Fatalf("%v on an empty instance: %v\n%s\n%s", args, err, out, errOut)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("admin commands wrote to the empty data directory: %v", entries)
	}

	// A first start whose SSH port is taken fails after creating the schema.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cairnBinary(t), "serve")
	cmd.Env = append(append([]string{}, env...), "CAIRN_HTTP_ADDR="+freePort(t), "CAIRN_SSH_ADDR="+busy.Addr().String())
	var failed bytes.Buffer
	cmd.Stdout, cmd.Stderr = &failed, &failed
	if err := cmd.Run(); err == nil {
		t.Fatalf("serve with a busy SSH port succeeded:\n%s", failed.String())
	}
	busy.Close()
	if strings.Contains(failed.String(), "one-time password") {
		t.Fatalf("a failed start printed (and spent) the one-time password:\n%s", failed.String())
	}
	// Now the instance exists: the CLI works on it, naming it on stderr.
	out, errOut, err = fndRunCairn(t, env, create...)
	if err != nil {
		t.Fatalf("admin user create on the instance: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "instance in "+dir) {
		t.Errorf("the admin command does not name the instance on stderr: %q", errOut)
	}
	if out, errOut, err := fndRunCairn(t, env, "admin", "user", "create", "--username", "second", "--password", "second-pw-1",
		"--email", "second@example.com"); err != nil {
		t.Fatalf("second create: %v\n%s\n%s", err, out, errOut)
	}
	s, stdout := fndStartBare(t, dir, env[3:])
	r := s.Do("GET", "api/v1/user", Basic("first", "first-pw-1"))
	fndStatus(t, r, 200, "first CLI user, not forced to change the password")
	if u := fndDecodeUser(t, r); !u.IsAdmin || u.Login != "first" {
		t.Fatalf("first CLI user = %+v", u)
	}
	s.logMu.Lock()
	printed := stdout.String()
	s.logMu.Unlock()
	if strings.Contains(printed, "one-time") {
		t.Fatalf("serve created another administrator:\n%s", printed)
	}
	fndAPIError(t, s, s.Do("GET", "api/v1/user", Basic("second", "second-pw-1")), 403, "second CLI user must change the password")
	if n := s.Do("GET", "api/v1/admin/users", Basic("first", "first-pw-1")).Header.Get("X-Total-Count"); n != "2" {
		t.Fatalf("%s users, want 2", n)
	}
}

// TestFirstStartFailureKeepsPassword: a first start that cannot listen (the
// HTTP port is taken) does not consume the one-time password; the next
// start prints one that works.
func TestFirstStartFailureKeepsPassword(t *testing.T) {
	dir := t.TempDir()
	var env []string
	if dbURL := testDatabaseURL(t); dbURL != "" {
		env = append(env, "CAIRN_DATABASE_URL="+dbURL)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cairnBinary(t), "serve")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + dir,
		"CAIRN_HTTP_ADDR=" + busy.Addr().String(), "CAIRN_SSH_ADDR=off"}, env...)
	out, err := cmd.CombinedOutput()
	busy.Close()
	if err == nil {
		t.Fatalf("serve on a busy port succeeded:\n%s", out)
	}
	if strings.Contains(string(out), "one-time password") {
		t.Fatalf("a failed start printed (and spent) the one-time password:\n%s", out)
	}
	s, stdout := fndStartBare(t, dir, env)
	re := regexp.MustCompile(`"([^"]+)" with the one-time password (\S+)`)
	m := re.FindStringSubmatch(fndWaitOutput(t, s, stdout, re))
	if out, err := s.Cairn("admin", "user", "change-password", "--username", m[1], "--password", "usable-pw-1"); err != nil {
		t.Fatalf("change-password: %v\n%s", err, out)
	}
	fndStatus(t, s.Do("GET", "api/v1/user", Basic(m[1], "usable-pw-1")), 200, "first admin after a failed first start")
}
