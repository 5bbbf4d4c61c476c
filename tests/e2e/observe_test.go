package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// obsLogLine returns the first log line holding every one of parts, or "".
func obsLogLine(s *Server, parts ...string) string {
	for _, line := range strings.Split(s.Logs(), "\n") {
		found := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				found = false
				break
			}
		}
		if found {
			return line
		}
	}
	return ""
}

// obsWaitLogLine waits a little for a log line holding every one of parts
// (lines are written once the answer has gone out).
func obsWaitLogLine(t *testing.T, s *Server, parts ...string) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if line := obsLogLine(s, parts...); line != "" {
			return line
		}
	}
	t.Fatalf("no log line with %q:\n%s", parts, s.Logs())
	return ""
}

// obsGit runs git with no user configuration and fails the test when it fails
// unless mayFail; it returns the combined output.
func obsGit(t *testing.T, dir string, mayFail bool, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=E2E", "GIT_AUTHOR_EMAIL=e2e@example.com", "GIT_COMMITTER_NAME=E2E", "GIT_COMMITTER_EMAIL=e2e@example.com"}
	out, err := cmd.CombinedOutput()
	if err != nil && !mayFail {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// obsMetrics fetches /metrics with the bearer token.
func obsMetrics(t *testing.T, s *Server, token string) string {
	t.Helper()
	r := s.Do("GET", "metrics", Header("Authorization", "Bearer "+token))
	if r.Status != 200 {
		t.Fatalf("/metrics: %d %s", r.Status, r.Body)
	}
	return string(r.Body)
}

// TestObserveAccessLogHealthMetrics: access log lines (route pattern, user,
// request id, never a token or password), X-Request-Id, refused sign-ins and
// pushes in the log, the health check and its 503, /metrics behind its token
// counting a git clone.
func TestObserveAccessLogHealthMetrics(t *testing.T) {
	const metricsToken = "metrics-secret-e2e"
	s := StartServer(t, WithEnv("CAIRN_METRICS_ENABLED=true", "CAIRN_METRICS_TOKEN="+metricsToken))

	// X-Request-Id: the client's when well formed, else a fresh one.
	r := s.Do("GET", "api/v1/users/"+adminName+"?token="+s.AdminTok, Header("X-Request-Id", "e2e-obs.1"))
	if r.Status != 200 || r.Header.Get("X-Request-Id") != "e2e-obs.1" {
		t.Fatalf("GET user: %d, X-Request-Id %q", r.Status, r.Header.Get("X-Request-Id"))
	}
	fresh := s.Do("GET", "api/v1/version", Header("X-Request-Id", "no spaces allowed")).Header.Get("X-Request-Id")
	if fresh == "" || fresh == "no spaces allowed" || !regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`).MatchString(fresh) {
		t.Fatalf("fresh X-Request-Id %q", fresh)
	}
	if id := s.Do("GET", "nothing/here").Header.Get("X-Request-Id"); id == "" || id == fresh {
		t.Fatalf("X-Request-Id of a 404: %q", id)
	}
	line := obsWaitLogLine(t, s, "request_id=e2e-obs.1")
	for _, want := range []string{"msg=request", "method=GET", "route=/api/v1/users/{username}", "status=200", "user=" + adminName, "token=REDACTED", "remote=127.0.0.1:"} {
		if !strings.Contains(line, want) {
			t.Errorf("access log line lacks %q: %s", want, line)
		}
	}

	// Refused sign-ins are warnings, with the route they aimed at.
	u := s.CreateUser("obsuser")
	if r := s.Do("GET", "api/v1/user", Basic(u.Name, "wrong-password-xyz"), Header("X-Request-Id", "e2e-refused")); r.Status != 401 {
		t.Fatalf("wrong password: %d", r.Status)
	}
	line = obsWaitLogLine(t, s, "request_id=e2e-refused")
	for _, want := range []string{"level=WARN", `msg="refused sign-in"`, "route=/api/v1/user ", "status=401"} {
		if !strings.Contains(line, want) {
			t.Errorf("refused sign-in line lacks %q: %s", want, line)
		}
	}

	// Git over HTTP: a clone is counted; a push by someone who may not is
	// refused, and logged as such with a fixed route label.
	if r := s.Do("POST", "api/v1/user/repos", Token(s.AdminTok), JSON(map[string]any{"name": "obs", "auto_init": true})); r.Status != 201 {
		t.Fatalf("create repo: %d %s", r.Status, r.Body)
	}
	// A test delivery to a host that cannot answer waits for its retry:
	// the queue's depth shows it.
	var hook struct {
		ID int64 `json:"id"`
	}
	s.API("POST", "repos/"+adminName+"/obs/hooks", s.AdminTok, map[string]any{"type": "gitea", "active": true,
		"config": map[string]string{"url": "http://ci.example.invalid/hook", "content_type": "json"}}).Decode(t, &hook)
	if r := s.API("POST", fmt.Sprintf("repos/%s/obs/hooks/%d/tests", adminName, hook.ID), s.AdminTok, nil); r.Status != 204 {
		t.Fatalf("test delivery: %d %s", r.Status, r.Body)
	}
	before := obsMetrics(t, s, metricsToken)
	if !strings.Contains(before, `cairn_git_operations_total{service="upload-pack",transport="http"} 0`) {
		t.Fatalf("git operations before the clone:\n%s", grepLines(before, "cairn_git"))
	}
	work := t.TempDir()
	base := strings.TrimPrefix(s.URL, "http://")
	obsGit(t, work, false, "clone", "-q", "http://"+adminName+":"+adminPassword+"@"+base+adminName+"/obs.git", "clone")
	after := obsMetrics(t, s, metricsToken)
	if !strings.Contains(after, `cairn_git_operations_total{service="upload-pack",transport="http"} 1`) {
		t.Errorf("the clone was not counted:\n%s", grepLines(after, "cairn_git"))
	}
	clone := filepath.Join(work, "clone")
	if err := os.WriteFile(filepath.Join(clone, "new.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	obsGit(t, clone, false, "add", "new.txt")
	obsGit(t, clone, false, "commit", "-q", "-m", "new")
	// A reader may start a push (to open pull requests through refs/for/,
	// as in Gitea): the pre-receive hook refuses the branch.
	out := obsGit(t, clone, true, "push", "http://"+u.Name+":"+u.Password+"@"+base+adminName+"/obs.git", "HEAD:main")
	if !strings.Contains(out, "You do not have permission to push to this repository.") {
		t.Fatalf("push by a reader: %s", out)
	}
	line = obsWaitLogLine(t, s, `msg="refused push"`, "pusher_id="+strconv.FormatInt(u.ID, 10))
	for _, want := range []string{"level=WARN", "hook=pre-receive", "reason="} {
		if !strings.Contains(line, want) {
			t.Errorf("refused push line lacks %q: %s", want, line)
		}
	}

	// Metrics: a token is needed; labels are route patterns, never paths.
	if r := s.Do("GET", "metrics"); r.Status != 401 {
		t.Errorf("/metrics without the token: %d", r.Status)
	}
	if r := s.Do("GET", "metrics", Header("Authorization", "Bearer wrong")); r.Status != 401 {
		t.Errorf("/metrics with a wrong token: %d", r.Status)
	}
	for _, want := range []string{
		`cairn_http_requests_total{method="GET",route="/api/v1/users/{username}",status="2xx"}`,
		`cairn_http_request_duration_seconds_bucket{method="GET",route="/api/v1/users/{username}",status="2xx",le="0.005"}`,
		`route="/{owner}/{repo}/git-upload-pack"`,
		`cairn_ssh_sessions_active 0`,
		`go_sql_open_connections{db_name=`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
		`cairn_queue_jobs{kind="webhook.deliver",state="pending"} 1`,
	} {
		if !strings.Contains(after, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	for _, bad := range []string{`route="/api/v1/users/` + adminName, "/obs.git", `route="/nothing/here"`} {
		if strings.Contains(after, bad) {
			t.Errorf("metrics hold a raw path %q", bad)
		}
	}

	// The health check, then the repositories directory replaced by a file.
	checkHealth := func(status int, state, storage string) {
		t.Helper()
		r := s.Do("GET", "api/healthz")
		var h struct {
			Status string `json:"status"`
			Checks map[string][]struct {
				Status string `json:"status"`
				Time   string `json:"time"`
				Output string `json:"output"`
			} `json:"checks"`
		}
		if err := json.Unmarshal(r.Body, &h); err != nil {
			t.Fatalf("healthz: %v: %s", err, r.Body)
		}
		db, st := h.Checks["database:ping"], h.Checks["repositories:storage"]
		if r.Status != status || r.Header.Get("Content-Type") != "application/health+json" || h.Status != state ||
			len(db) != 1 || db[0].Status != "pass" || db[0].Time == "" || len(st) != 1 || st[0].Status != storage {
			t.Fatalf("healthz: %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		if storage == "fail" && st[0].Output == "" {
			t.Errorf("failed check without output: %s", r.Body)
		}
	}
	checkHealth(200, "pass", "pass")
	repos := filepath.Join(s.DataDir, "repositories")
	if err := os.Rename(repos, repos+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(repos, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkHealth(503, "fail", "fail")
	if err := os.Remove(repos); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(repos+".away", repos); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root writes anywhere: permissions do not bite
		if err := os.Chmod(repos, 0o500); err != nil {
			t.Fatal(err)
		}
		checkHealth(503, "fail", "fail")
		if err := os.Chmod(repos, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	checkHealth(200, "pass", "pass")

	logs := s.Logs()
	for _, secret := range []string{s.AdminTok, u.Token, "wrong-password-xyz", u.Password, adminPassword, metricsToken} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds the secret %q", secret)
		}
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestObserveLogSettings: /metrics is off by default (404); [log] LEVEL and
// FORMAT=json.
func TestObserveLogSettings(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_LOG_LEVEL=Warn", "CAIRN_LOG_FORMAT=json"))
	if r := s.Do("GET", "metrics"); r.Status != 404 {
		t.Errorf("/metrics while disabled: %d", r.Status)
	}
	s.Do("GET", "api/v1/version", Header("X-Request-Id", "json-ok"))
	s.Do("GET", "api/v1/user", Basic(adminName, "not-the-password"), Header("X-Request-Id", "json-refused"))
	line := obsWaitLogLine(t, s, `"request_id":"json-refused"`)
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("not a JSON line: %s", line)
	}
	if rec["level"] != "WARN" || rec["msg"] != "refused sign-in" || rec["status"] != float64(401) || rec["route"] != "/api/v1/user" {
		t.Errorf("refused sign-in record: %v", rec)
	}
	if strings.Contains(s.Logs(), "json-ok") {
		t.Errorf("an info line was written at level Warn:\n%s", s.Logs())
	}
	for _, l := range strings.Split(strings.TrimSpace(s.Logs()), "\n") {
		if strings.HasPrefix(l, "time=") {
			t.Errorf("a text line in the JSON log: %s", l)
		}
	}
}

// TestObserveSSH: SSH sessions are logged (user, command, exit status) and
// counted; a refused push is a warning.
func TestObserveSSH(t *testing.T) {
	const metricsToken = "ssh-metrics-e2e"
	s := StartServer(t, WithSSH(), WithEnv("CAIRN_METRICS_ENABLED=true", "CAIRN_METRICS_TOKEN="+metricsToken))
	k := newSSHKit(t, s)
	owner, ownerKey := k.userWithKey("obsowner")
	other, otherKey := k.userWithKey("obsother")
	k.createRepo(owner.Token, "", "sshobs", false)
	dir := k.newWorkTree("a.txt", "a\n")
	k.mustGit(ownerKey, dir, "push", "-q", k.url("obsowner/sshobs"), "main")
	if got := k.cloneAndRead(ownerKey, "obsowner/sshobs", "a.txt"); got != "a\n" {
		t.Fatalf("clone: %q", got)
	}
	line := obsWaitLogLine(t, s, `msg="ssh session"`, "user=obsowner", "git-upload-pack")
	for _, want := range []string{"exit=0", "key=user", "duration_ms=", "transport=ssh"} {
		if !strings.Contains(line, want) {
			t.Errorf("ssh session line lacks %q: %s", want, line)
		}
	}
	k.failGit(otherKey, dir, "permission", "push", "-q", k.url("obsowner/sshobs"), "main:other")
	line = obsWaitLogLine(t, s, `msg="refused push"`, "user="+other.Name)
	for _, want := range []string{"level=WARN", "git-receive-pack", "exit=1", "reason="} {
		if !strings.Contains(line, want) {
			t.Errorf("refused push line lacks %q: %s", want, line)
		}
	}
	m := obsMetrics(t, s, metricsToken)
	for _, want := range []string{
		`cairn_git_operations_total{service="upload-pack",transport="ssh"} 1`,
		`cairn_git_operations_total{service="receive-pack",transport="ssh"} 1`,
		"cairn_ssh_sessions_active 0",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, grepLines(m, "cairn_"))
		}
	}
}

// obsSSHClient opens an SSH connection with the private key at keyPath.
func obsSSHClient(t *testing.T, s *Server, keyPath string) *ssh.Client {
	t.Helper()
	pem, err := os.ReadFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ssh.Dial("tcp", s.SSHAddr, &ssh.ClientConfig{User: "git", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// obsExit waits up to limit for the server to exit and returns how long it
// took and its exit code.
func obsExit(t *testing.T, s *Server, since time.Time, limit time.Duration) (time.Duration, int) {
	t.Helper()
	select {
	case <-s.done:
		return time.Since(since), s.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("the server still runs %v after the signal:\n%s", limit, s.Logs())
	}
	return 0, 0
}

// TestObserveShutdownIdleSSH: an SSH session that runs no command does not
// hold the shutdown.
func TestObserveShutdownIdleSSH(t *testing.T) {
	s := StartServer(t, WithSSH(), WithEnv("CAIRN_SERVER_SHUTDOWN_TIMEOUT=20s"))
	k := newSSHKit(t, s)
	_, key := k.userWithKey("idler")
	c := obsSSHClient(t, s, key)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	took, code := obsExit(t, s, start, 8*time.Second)
	if code != 0 || took > 5*time.Second {
		t.Fatalf("exit %d after %v with an idle SSH session\n%s", code, took, s.Logs())
	}
}

// TestObserveShutdownSecondSignal: a request in flight holds a graceful
// shutdown; a second signal ends it at once with a non-zero exit code.
func TestObserveShutdownSecondSignal(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_SERVER_SHUTDOWN_TIMEOUT=60s"))
	conn, err := net.Dial("tcp", s.HTTPAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"username":"late","email":"late@example.com","password":"late-password-1"}`
	fmt.Fprintf(conn, "POST /api/v1/admin/users HTTP/1.1\r\nHost: %s\r\nAuthorization: token %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		s.HTTPAddr, s.AdminTok, len(body), body[:10])
	time.Sleep(300 * time.Millisecond)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	select {
	case <-s.done:
		t.Fatalf("the server exited with a request in flight:\n%s", s.Logs())
	default:
	}
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	took, code := obsExit(t, s, start, 5*time.Second)
	if code == 0 || took > 3*time.Second {
		t.Fatalf("exit %d after %v on the second signal\n%s", code, took, s.Logs())
	}
	if !strings.Contains(s.Logs(), "second signal") {
		t.Errorf("no log line of the forced exit:\n%s", s.Logs())
	}
	// The cut request got no answer.
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if b, _ := io.ReadAll(conn); strings.HasPrefix(string(b), "HTTP/1.1 201") {
		t.Errorf("the cut request was answered: %s", b)
	}
}

// TestObserveShutdownFinishesPush: a push over SSH that is still sending its
// pack when the shutdown starts completes (its hooks still reach the
// server), and the server exits 0 afterwards.
func TestObserveShutdownFinishesPush(t *testing.T) {
	const metricsToken = "push-metrics"
	s := StartServer(t, WithSSH(), WithEnv("CAIRN_SERVER_SHUTDOWN_TIMEOUT=30s",
		"CAIRN_METRICS_ENABLED=true", "CAIRN_METRICS_TOKEN="+metricsToken))
	k := newSSHKit(t, s)
	owner, key := k.userWithKey("pusher")
	k.createRepo(owner.Token, "", "late", false)
	dir := k.newWorkTree("a.txt", "a\n")
	// The client's commands and pack reach the server 3 s late. Only ssh
	// keeps git's output pipe, so git sees the end when ssh ends.
	slow := filepath.Join(t.TempDir(), "slow-ssh")
	script := "#!/bin/sh\nfifo=$(mktemp -u)\nmkfifo \"$fifo\"\n" +
		"exec 3<&0\n(exec 4>\"$fifo\"; sleep 3; exec cat <&3 >&4) >/dev/null 2>&1 &\n" +
		"exec ssh " + strings.Join(k.sshArgs(key), " ") + ` "$@" <"$fifo"` + "\n"
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "push", "-q", k.url("pusher/late"), "main")
	cmd.Dir = dir
	cmd.Env = append(k.env(key), "GIT_SSH_COMMAND="+slow)
	type result struct {
		out string
		err error
	}
	res := make(chan result, 1)
	go func() {
		b, err := cmd.CombinedOutput()
		res <- result{string(b), err}
	}()
	// Once the server runs git-receive-pack for it, stop the server.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if strings.Contains(obsMetrics(t, s, metricsToken), `cairn_git_operations_total{service="receive-pack",transport="ssh"} 1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the push did not start:\n%s", s.Logs())
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil {
		t.Fatalf("the push in flight failed: %v\n%s\n%s", r.err, r.out, s.Logs())
	}
	took, code := obsExit(t, s, time.Now(), 10*time.Second)
	if code != 0 {
		t.Fatalf("exit %d (%v after the push)\n%s", code, took, s.Logs())
	}
	if line := obsLogLine(s, `msg="ssh session"`, "git-receive-pack"); !strings.Contains(line, "exit=0") {
		t.Errorf("no successful receive-pack session in the log:\n%s", s.Logs())
	}
}
