// Package e2e drives the real cairn binary: it builds cmd/cairn once, starts
// instances on free loopback ports with temporary data directories (and, when
// CAIRN_DATABASE_URL names PostgreSQL or MySQL, a fresh database each), and
// talks to them with the Gitea Go SDK, raw HTTP, git and ssh.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/cairn-forge/cairn/internal/oidc"
)

const (
	adminName     = "root"
	adminPassword = "root-password-1"
	adminEmail    = "root@example.com"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// cairnBinary builds cmd/cairn once per test run.
func cairnBinary(t testing.TB) string {
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-e2e-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "cairn")
		cmd := exec.Command("go", "build", "-tags", buildTags, "-o", binPath, "./cmd/cairn")
		cmd.Dir = repoRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}

// Server is one running cairn instance.
type Server struct {
	t        testing.TB
	URL      string // root URL, ending in "/"
	HTTPAddr string
	SSHAddr  string
	DataDir  string
	Env      []string
	cmd      *exec.Cmd
	logs     *bytes.Buffer
	logMu    *sync.Mutex
	done     chan struct{}
	Admin    *gitea.Client
	AdminTok string
}

// ServerOption adjusts an instance before it starts.
type ServerOption func(*serverSetup)

type serverSetup struct {
	env       []string
	ssh       bool
	rootHost  string
	ownJWTKey bool
}

// WithOwnSigningKey leaves the data directory without the shared ID token
// signing key, so the server generates its own at the first start.
func WithOwnSigningKey() ServerOption { return func(s *serverSetup) { s.ownJWTKey = true } }

// WithEnv adds environment variables (e.g. CAIRN_REPOSITORY_FORCE_PRIVATE=true).
func WithEnv(kv ...string) ServerOption {
	return func(s *serverSetup) { s.env = append(s.env, kv...) }
}

// WithRootHost makes the root URL (and s.URL) name host instead of the
// loopback address, e.g. "localhost": WebAuthn needs a domain name.
func WithRootHost(host string) ServerOption { return func(s *serverSetup) { s.rootHost = host } }

// WithSSH starts the built-in SSH server on a free port.
func WithSSH() ServerOption { return func(s *serverSetup) { s.ssh = true } }

// freePort returns a loopback address with a port nothing listens on. The
// port is drawn below the kernel's ephemeral range: a server started on it
// later cannot find it taken by a listener that asked the kernel for any port
// (Cairn's own hook listener, another test's) or by an outgoing connection.
func freePort(t testing.TB) string {
	low := ephemeralLow()
	for range 200 {
		port := 10000 + mathrand.IntN(low-10000)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// ephemeralLow is the lowest port the kernel hands out on its own (Linux's
// ip_local_port_range; 32768 where it cannot be read).
func ephemeralLow() int {
	const fallback = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return fallback
	}
	var low, high int
	if _, err := fmt.Sscan(string(b), &low, &high); err != nil || low <= 11000 {
		return fallback
	}
	return low
}

// StartServer starts a fresh instance with an administrator (root) and returns
// it once /api/healthz answers. It stops at the end of the test.
func StartServer(t testing.TB, opts ...ServerOption) *Server {
	t.Helper()
	bin := cairnBinary(t)
	var setup serverSetup
	for _, o := range opts {
		o(&setup)
	}
	s := &Server{t: t, DataDir: t.TempDir(), HTTPAddr: freePort(t), logs: &bytes.Buffer{}, logMu: &sync.Mutex{}, done: make(chan struct{})}
	s.SSHAddr = "off"
	if setup.ssh {
		s.SSHAddr = freePort(t)
	}
	s.URL = "http://" + s.HTTPAddr + "/"
	if setup.rootHost != "" {
		_, port, _ := net.SplitHostPort(s.HTTPAddr)
		s.URL = "http://" + net.JoinHostPort(setup.rootHost, port) + "/"
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.DataDir,
		"CAIRN_DATA_DIR=" + s.DataDir,
		"CAIRN_HTTP_ADDR=" + s.HTTPAddr,
		"CAIRN_SSH_ADDR=" + s.SSHAddr,
		"CAIRN_ROOT_URL=" + s.URL,
		"CAIRN_ADMIN_USERNAME=" + adminName,
		"CAIRN_ADMIN_PASSWORD=" + adminPassword,
		"CAIRN_ADMIN_EMAIL=" + adminEmail,
		"CAIRN_DEBUG_QUERY_COUNT_HEADER=true",
		"CAIRN_SERVER_SHUTDOWN_TIMEOUT=10s",
		// Cheap password hashes (64 KiB, one pass): the suites hash and check
		// thousands of passwords, each a CPU-bound fraction of a second with
		// the default parameters. TestPasswordHashAlgo covers those.
		"CAIRN_SECURITY_PASSWORD_HASH_ALGO=argon2$1$64$1$16",
	}
	if dbURL := testDatabaseURL(t); dbURL != "" {
		env = append(env, "CAIRN_DATABASE_URL="+dbURL)
	}
	env = append(env, setup.env...)
	s.Env = env
	if !setup.ownJWTKey && !slices.ContainsFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "CAIRN_OAUTH2_JWT_SIGNING_ALGORITHM=")
	}) {
		placeSigningKey(t, s.DataDir)
	}
	s.launch(bin, nil)
	s.AdminTok = s.CreateToken(adminName, adminPassword, "e2e-admin", "all")
	s.Admin = s.Client(s.AdminTok)
	return s
}

var (
	signingKeyOnce sync.Once
	signingKeyPEM  []byte
	signingKeyErr  error
)

// placeSigningKey writes one ID token signing key (RS256, the default),
// made once per test run by Cairn's own oidc.SigningKey, where a server keeps
// it (jwt/private.pem): each fresh data directory would otherwise spend a
// second or more of CPU generating its own RSA-4096 key, and the suites
// start hundreds of servers. TestOIDCKeyMadeAtFirstStart covers the
// generation by the server (WithOwnSigningKey).
func placeSigningKey(t testing.TB, dataDir string) {
	t.Helper()
	signingKeyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-e2e-jwt-")
		if err != nil {
			signingKeyErr = err
			return
		}
		defer os.RemoveAll(dir)
		file := filepath.Join(dir, "private.pem")
		key, err := oidc.NewSigningKey("RS256", file, "", nil)
		if err != nil {
			signingKeyErr = err
			return
		}
		key.Prepare()
		signingKeyPEM, signingKeyErr = os.ReadFile(file)
	})
	if signingKeyErr != nil {
		t.Fatal(signingKeyErr)
	}
	dir := filepath.Join(dataDir, "jwt")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "private.pem"), signingKeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
}

// launch runs `bin serve` with s.Env, its standard output to stdout (nil: the
// logs), stops it when the test ends and returns once it is healthy.
func (s *Server) launch(bin string, stdout *bytes.Buffer) {
	s.t.Helper()
	if stdout == nil {
		stdout = s.logs
	}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = s.Env
	s.cmd.Stdout = lockedWriter{stdout, s.logMu}
	s.cmd.Stderr = lockedWriter{s.logs, s.logMu}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	s.t.Cleanup(s.Stop)
	s.waitHealthy()
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// Logs returns what the server printed so far.
func (s *Server) Logs() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.logs.String()
}

// LogsContain waits up to timeout for the server's output to contain sub:
// the server flushes its log in batches (observe.LogFlushEvery).
func (s *Server) LogsContain(sub string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !strings.Contains(s.Logs(), sub) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func (s *Server) waitHealthy() {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			s.t.Fatalf("cairn exited during start-up:\n%s", s.Logs())
		default:
		}
		resp, err := http.Get(s.URL + "api/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("cairn did not become healthy:\n%s", s.Logs())
}

// Stop sends SIGTERM and waits for a clean exit.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	if s.t.Failed() {
		s.t.Logf("server logs:\n%s", s.Logs())
	}
}

// Kill ends the server at once (SIGKILL), as a crash or power loss would:
// nothing gets to finish or flush.
func (s *Server) Kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

// Restart starts the stopped (or killed) server again on the same data,
// database and address, and returns once it is healthy.
func (s *Server) Restart() {
	s.t.Helper()
	s.done = make(chan struct{})
	s.launch(cairnBinary(s.t), nil)
}

// Client returns an SDK client authenticated with token ("" for signed out).
func (s *Server) Client(token string) *gitea.Client {
	s.t.Helper()
	opts := []gitea.ClientOption{}
	if token != "" {
		opts = append(opts, gitea.SetToken(token))
	}
	c, err := gitea.NewClient(strings.TrimSuffix(s.URL, "/"), opts...)
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// BasicClient returns an SDK client using basic auth.
func (s *Server) BasicClient(name, password string) *gitea.Client {
	s.t.Helper()
	c, err := gitea.NewClient(strings.TrimSuffix(s.URL, "/"), gitea.SetBasicAuth(name, password))
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// CreateToken creates an access token for name with basic auth and returns it.
func (s *Server) CreateToken(name, password, tokenName string, scopes ...string) string {
	s.t.Helper()
	resp := s.Do("POST", "api/v1/users/"+name+"/tokens", Basic(name, password), JSON(map[string]any{"name": tokenName, "scopes": scopes}))
	if resp.Status != 201 {
		s.t.Fatalf("create token for %s: %d %s", name, resp.Status, resp.Body)
	}
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	resp.Decode(s.t, &tok)
	return tok.SHA1
}

// User is a test account with its password and an all-scope token.
type User struct {
	Name     string
	Password string
	Token    string
	ID       int64
}

// CreateUser creates an account through the admin API (must_change_password
// off) and gives it an all-scope token. Options: "restricted", "admin",
// "private", "limited".
func (s *Server) CreateUser(name string, flags ...string) *User {
	s.t.Helper()
	body := map[string]any{"username": name, "email": name + "@example.com", "password": name + "-pw-123", "must_change_password": false}
	for _, f := range flags {
		switch f {
		case "restricted":
			body["restricted"] = true
		case "private", "limited", "public":
			body["visibility"] = f
		}
	}
	resp := s.Do("POST", "api/v1/admin/users", Token(s.AdminTok), JSON(body))
	if resp.Status != 201 {
		s.t.Fatalf("create user %s: %d %s", name, resp.Status, resp.Body)
	}
	var u struct {
		ID int64 `json:"id"`
	}
	resp.Decode(s.t, &u)
	for _, f := range flags {
		if f == "admin" {
			r := s.Do("PATCH", "api/v1/admin/users/"+name, Token(s.AdminTok), JSON(map[string]any{"admin": true, "login_name": name, "source_id": 0}))
			if r.Status != 200 {
				s.t.Fatalf("make %s admin: %d %s", name, r.Status, r.Body)
			}
		}
	}
	tok := s.CreateToken(name, name+"-pw-123", "e2e", "all")
	return &User{Name: name, Password: name + "-pw-123", Token: tok, ID: u.ID}
}

// Response is a raw HTTP answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode unmarshals the body as JSON.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %q: %v", r.Body, err)
	}
}

// RequestOption adjusts a raw request.
type RequestOption func(*http.Request)

// Token authenticates with "Authorization: token X".
func Token(tok string) RequestOption {
	return func(r *http.Request) {
		if tok != "" {
			r.Header.Set("Authorization", "token "+tok)
		}
	}
}

// Basic authenticates with basic auth.
func Basic(name, pw string) RequestOption {
	return func(r *http.Request) { r.SetBasicAuth(name, pw) }
}

// Header sets a header.
func Header(k, v string) RequestOption { return func(r *http.Request) { r.Header.Set(k, v) } }

// JSON sets a JSON body.
func JSON(v any) RequestOption {
	return func(r *http.Request) {
		b, _ := json.Marshal(v)
		RawBody(string(b))(r)
		r.Header.Set("Content-Type", "application/json")
	}
}

// RawBody sets a body as is.
func RawBody(s string) RequestOption {
	return func(r *http.Request) {
		r.Body = io.NopCloser(strings.NewReader(s))
		r.ContentLength = int64(len(s))
		if r.Header.Get("Content-Type") == "" {
			r.Header.Set("Content-Type", "application/json")
		}
	}
}

// Do sends a raw request to path (relative to the root URL).
func (s *Server) Do(method, path string, opts ...RequestOption) *Response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.URL+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, o := range opts {
		o(req)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Upload posts a multipart body with the file in the field "attachment"
// (field "" leaves the file out) and, before it, an optional filler field.
func (s *Server) Upload(path, tok, field, filename string, content []byte, filler int) *Response {
	s.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if filler > 0 {
		fw, _ := mw.CreateFormField("filler")
		fw.Write(bytes.Repeat([]byte("f"), filler))
	}
	if field != "" {
		fw, err := mw.CreateFormFile(field, filename)
		if err != nil {
			s.t.Fatal(err)
		}
		fw.Write(content)
	}
	mw.Close()
	req, err := http.NewRequest("POST", s.URL+path, &buf)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	Token(tok)(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("upload %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// API sends a request to api/v1/path with a token ("" for signed out) and a
// JSON body (nil for none).
func (s *Server) API(method, path, tok string, body any) *Response {
	s.t.Helper()
	opts := []RequestOption{Token(tok)}
	if body != nil {
		opts = append(opts, JSON(body))
	}
	return s.Do(method, "api/v1/"+path, opts...)
}

// Cairn runs the binary with the server's environment (admin commands).
func (s *Server) Cairn(args ...string) (string, error) {
	cmd := exec.Command(cairnBinary(s.t), args...)
	cmd.Env = s.Env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var dbMu sync.Mutex

// testDatabaseURL returns "" for SQLite, or a URL to a fresh database on the
// server named by CAIRN_DATABASE_URL (dropped when the test ends).
func testDatabaseURL(t testing.TB) string {
	base := os.Getenv("CAIRN_DATABASE_URL")
	if base == "" {
		return ""
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("CAIRN_DATABASE_URL: %v", err)
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "cairn_e2e_" + hex.EncodeToString(suffix)
	var driver, adminDSN string
	switch u.Scheme {
	case "postgres", "postgresql":
		driver, adminDSN = "pgx", base
	case "mysql":
		driver = "mysql"
		pw, _ := u.User.Password()
		adminDSN = fmt.Sprintf("%s:%s@tcp(%s)%s", u.User.Username(), pw, u.Host, u.Path)
	default:
		t.Fatalf("CAIRN_DATABASE_URL: unsupported scheme %q", u.Scheme)
	}
	dbMu.Lock()
	defer dbMu.Unlock()
	conn, err := sql.Open(driver, adminDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.PingContext(ctx); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("database %s unreachable in CI: %v", u.Redacted(), err)
		}
		t.Skipf("database %s unreachable: %v", u.Redacted(), err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := sql.Open(driver, adminDSN)
		if err != nil {
			return
		}
		defer c.Close()
		if driver == "pgx" {
			_, _ = c.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		} else {
			_, _ = c.Exec("DROP DATABASE IF EXISTS " + name)
		}
	})
	nu := *u
	nu.Path = "/" + name
	return nu.String()
}
