package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// cfgDatabaseSection is the [database] section that names the test database
// raw (from testDatabaseURL) the way a Gitea app.ini would: sqlite3 with
// PATH when raw is empty, else the keys of the PostgreSQL or MySQL database.
func cfgDatabaseSection(t *testing.T, raw, sqlitePath string) string {
	if raw == "" {
		return "DB_TYPE = sqlite3\nPATH = " + sqlitePath + "\n"
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	typ := "mysql"
	if strings.HasPrefix(u.Scheme, "postgres") {
		typ = "postgres"
	}
	s := fmt.Sprintf("DB_TYPE = %s\nHOST = %s\nNAME = %s\nUSER = %s\nPASSWD = `%s`\n", typ, u.Host, strings.TrimPrefix(u.Path, "/"), u.User.Username(), pw)
	if m := u.Query().Get("sslmode"); m != "" {
		s += "SSL_MODE = " + m + "\n"
	}
	return s
}

// cfgStart starts cairn serve with env (plus PATH, HOME and the first
// administrator) and no fixed address variables, so the addresses come from
// the configuration; httpAddr is where it is expected to listen.
func cfgStart(t *testing.T, env []string, httpAddr string) *Server {
	t.Helper()
	dataDir := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CAIRN_DATA_DIR="); ok {
			dataDir = v
		}
	}
	s := &Server{t: t, DataDir: dataDir, HTTPAddr: httpAddr, URL: "http://" + httpAddr + "/", SSHAddr: "off",
		logs: &bytes.Buffer{}, logMu: &sync.Mutex{}, done: make(chan struct{})}
	s.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dataDir, "CAIRN_ADMIN_USERNAME=" + adminName,
		"CAIRN_ADMIN_PASSWORD=" + adminPassword, "CAIRN_ADMIN_EMAIL=" + adminEmail, "CAIRN_SERVER_SHUTDOWN_TIMEOUT=10s"}, env...)
	s.launch(cairnBinary(t), nil)
	s.AdminTok = s.CreateToken(adminName, adminPassword, "e2e-admin", "all")
	s.Admin = s.Client(s.AdminTok)
	return s
}

// TestConfigGiteaAppIni starts Cairn with a Gitea-style app.ini and no
// address variables: listen addresses, root URL, SSH clone address,
// database, repository directory and limits all come from the file, and the
// keys Cairn does not read are named in the log.
func TestConfigGiteaAppIni(t *testing.T) {
	work := t.TempDir()
	dataDir := filepath.Join(work, "data")
	httpAddr, sshAddr := freePort(t), freePort(t)
	_, httpPort, _ := net.SplitHostPort(httpAddr)
	_, sshPort, _ := net.SplitHostPort(sshAddr)
	sqlitePath := filepath.Join(work, "db", "forge.db")
	repoRoot := filepath.Join(work, "git-repos")
	ini := filepath.Join(work, "app.ini")
	content := "APP_NAME = Our Forge\nRUN_MODE = prod\n\n[server]\nPROTOCOL = http\nHTTP_ADDR = 127.0.0.1\nHTTP_PORT = " + httpPort +
		"\nROOT_URL = http://localhost:%(HTTP_PORT)s/\nSTART_SSH_SERVER = true\nSSH_LISTEN_HOST = 127.0.0.1\nSSH_LISTEN_PORT = " + sshPort +
		"\nSSH_DOMAIN = git.example.com\nSSH_PORT = 22\nLFS_START_SERVER = true\nFANCY_OPTION = on\n\n[database]\n" + cfgDatabaseSection(t, testDatabaseURL(t), sqlitePath) +
		"\n[repository]\nROOT = " + repoRoot + "\nMAX_CREATION_LIMIT = 1\nDEFAULT_PRIVATE = public\n\n[service]\nDEFAULT_ORG_VISIBILITY = limited\n" +
		"\n[api]\nENABLE_SWAGGER = false\n\n[log]\nLEVEL = Info\n\n[metrics]\nENABLED = false\n\n[cache]\nENABLED = true\nPASSWD = cache-secret\n" +
		"\n[mailer]\nENABLED = true\nPROTOCOL = dummy\nFROM = forge@example.com\nPASSWD = mail-secret\n"
	if err := os.WriteFile(ini, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s := cfgStart(t, []string{"CAIRN_DATA_DIR=" + dataDir, "CAIRN_CONFIG=" + ini, "CAIRN_SERVER_ROOTURL=http://typo/"}, httpAddr)
	root := "http://localhost:" + httpPort + "/"

	// Clone URLs are built on ROOT_URL and SSH_DOMAIN/SSH_PORT, and the HTTP one works.
	r := s.Do("POST", "api/v1/user/repos", Token(s.AdminTok), JSON(map[string]any{"name": "cfg", "auto_init": true}))
	fndStatus(t, r, 201, "create a repository")
	var repo struct {
		ID       int64  `json:"id"`
		CloneURL string `json:"clone_url"`
		SSHURL   string `json:"ssh_url"`
		HTMLURL  string `json:"html_url"`
	}
	r.Decode(t, &repo)
	if repo.CloneURL != root+"root/cfg.git" || repo.HTMLURL != root+"root/cfg" || repo.SSHURL != "git@git.example.com:root/cfg.git" {
		t.Fatalf("clone_url %q html_url %q ssh_url %q (root URL %s)", repo.CloneURL, repo.HTMLURL, repo.SSHURL, root)
	}
	git := exec.Command("git", "ls-remote", repo.CloneURL)
	git.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if out, err := git.CombinedOutput(); err != nil || !strings.Contains(string(out), "refs/heads/main") {
		t.Fatalf("git ls-remote %s: %v\n%s", repo.CloneURL, err, out)
	}
	// The built-in SSH server listens on SSH_LISTEN_HOST:SSH_LISTEN_PORT.
	if c, err := net.DialTimeout("tcp", sshAddr, 5*time.Second); err != nil {
		t.Fatalf("SSH server not on %s: %v", sshAddr, err)
	} else {
		c.Close()
	}

	// The database is the one [database] names, not <data>/cairn.db.
	if _, err := os.Stat(filepath.Join(dataDir, "cairn.db")); err == nil {
		t.Fatal("the default SQLite file was created although [database] names another database")
	}
	if os.Getenv("CAIRN_DATABASE_URL") == "" {
		if _, err := os.Stat(sqlitePath); err != nil {
			t.Fatalf("[database] PATH not used: %v", err)
		}
	}
	// Repositories live under [repository] ROOT.
	if fi, err := os.Stat(filepath.Join(repoRoot, fmt.Sprintf("%d.git", repo.ID))); err != nil || !fi.IsDir() {
		t.Fatalf("repository not under [repository] ROOT: %v", err)
	}
	// MAX_CREATION_LIMIT = 1 for accounts without their own limit; the administrator is exempt.
	u := s.CreateUser("limited")
	fndStatus(t, s.Do("POST", "api/v1/user/repos", Token(u.Token), JSON(map[string]any{"name": "one"})), 201, "first repository within the limit")
	fndStatus(t, s.Do("POST", "api/v1/user/repos", Token(u.Token), JSON(map[string]any{"name": "two"})), 403, "second repository over MAX_CREATION_LIMIT")
	fndStatus(t, s.Do("POST", "api/v1/user/repos", Token(s.AdminTok), JSON(map[string]any{"name": "cfg2"})), 201, "administrator over the limit")
	// Forks and repositories generated from templates count too, and a
	// refusal leaves nothing behind.
	fndStatus(t, s.Do("PATCH", "api/v1/repos/"+adminName+"/cfg2", Token(s.AdminTok), JSON(map[string]any{"template": true})), 200, "make a template")
	fndStatus(t, s.Do("POST", "api/v1/repos/"+adminName+"/cfg2/forks", Token(u.Token), JSON(map[string]any{})), 403, "fork over MAX_CREATION_LIMIT")
	fndStatus(t, s.Do("POST", "api/v1/repos/"+adminName+"/cfg2/generate", Token(u.Token),
		JSON(map[string]any{"owner": "limited", "name": "gen", "git_content": true})), 403, "generation over MAX_CREATION_LIMIT")
	for _, name := range []string{"cfg2", "gen"} {
		fndStatus(t, s.Do("GET", "api/v1/repos/limited/"+name, Token(u.Token)), 404, "refused repository "+name)
	}
	// ENABLE_SWAGGER = false
	fndStatus(t, s.Do("GET", "swagger.v1.json"), 404, "API document with ENABLE_SWAGGER = false")

	// The log names the file and warns once per key without effect, never printing a value.
	s.LogsContain("configuration file read", 5*time.Second) // the log is flushed in batches
	logs := s.Logs()
	for _, want := range []string{"configuration file read", ini} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	for key, reason := range map[string]string{
		`"APP_NAME (top level)"`: "not supported yet", `"RUN_MODE (top level)"`: "not supported yet",
		`"[server] LFS_START_SERVER"`: "not supported yet", `"[server] FANCY_OPTION"`: "unknown key",
		`"[cache] ENABLED"`: "not supported yet", `"[cache] PASSWD"`: "not supported yet",
	} {
		n := 0
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, "key="+key) {
				n++
				if !strings.Contains(line, reason) {
					t.Errorf("warning for %s does not say %q: %s", key, reason, line)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d warnings for %s, want 1:\n%s", n, key, logs)
		}
	}
	if n := strings.Count(logs, "configuration key ignored"); n != 6 {
		t.Errorf("%d key warnings, want 6:\n%s", n, logs)
	}
	if !strings.Contains(logs, "environment variable ignored: unknown variable\" variable=CAIRN_SERVER_ROOTURL") {
		t.Errorf("no warning about the misspelt CAIRN_SERVER_ROOTURL:\n%s", logs)
	}
	if strings.Contains(logs, "mail-secret") || strings.Contains(logs, "cache-secret") || strings.Contains(logs, "http://typo/") {
		t.Error("a value of the file reached the log")
	}
}

// TestConfigSectionVariables: CAIRN_SERVER_ROOT_URL sets the root URL when
// CAIRN_ROOT_URL is not set, and loses to it when it is.
func TestConfigSectionVariables(t *testing.T) {
	s := StartServer(t, WithEnv("CAIRN_ROOT_URL=", "CAIRN_SERVER_ROOT_URL=https://forge.example.test/"))
	r := s.Do("POST", "api/v1/user/repos", Token(s.AdminTok), JSON(map[string]any{"name": "env"}))
	fndStatus(t, r, 201, "create a repository")
	var repo struct {
		CloneURL string `json:"clone_url"`
	}
	r.Decode(t, &repo)
	if repo.CloneURL != "https://forge.example.test/root/env.git" {
		t.Fatalf("clone_url %q with CAIRN_SERVER_ROOT_URL", repo.CloneURL)
	}
	if !s.LogsContain("no configuration file", 5*time.Second) {
		t.Errorf("the log does not say that no configuration file was read:\n%s", s.Logs())
	}

	s = StartServer(t, WithEnv("CAIRN_SERVER_ROOT_URL=https://forge.example.test/"))
	r = s.Do("POST", "api/v1/user/repos", Token(s.AdminTok), JSON(map[string]any{"name": "env"}))
	fndStatus(t, r, 201, "create a repository")
	r.Decode(t, &repo)
	if repo.CloneURL != s.URL+"root/env.git" {
		t.Fatalf("clone_url %q: CAIRN_ROOT_URL (%s) must win over CAIRN_SERVER_ROOT_URL", repo.CloneURL, s.URL)
	}
}

// TestConfigMissingExplicitFile: a CAIRN_CONFIG file that does not exist
// stops serve (and admin commands) with a message naming it.
func TestConfigMissingExplicitFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nowhere", "app.ini")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + dir, "CAIRN_CONFIG=" + missing,
		"CAIRN_HTTP_ADDR=" + freePort(t), "CAIRN_SSH_ADDR=off"}
	for _, args := range [][]string{{"serve"}, {"admin", "config", "check"}, {"admin", "user", "list"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, cairnBinary(t), args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil || timedOut {
			t.Fatalf("cairn %s with a missing CAIRN_CONFIG: err %v (timed out: %v)\n%s", strings.Join(args, " "), err, timedOut, out)
		}
		if !strings.Contains(string(out), missing) || !strings.Contains(string(out), "CAIRN_CONFIG") {
			t.Errorf("cairn %s: message does not name the file and CAIRN_CONFIG:\n%s", strings.Join(args, " "), out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cairn.db")); err == nil {
		t.Error("a database was created although the configuration file is missing")
	}
}

// TestAdminConfigCheck runs cairn admin config check on a file with
// supported, secret, unsupported and unknown keys, and on broken ones.
func TestAdminConfigCheck(t *testing.T) {
	dir := t.TempDir()
	ini := filepath.Join(dir, "app.ini")
	content := "[server]\nHTTP_ADDR = 0.0.0.0\nHTTP_PORT = 3456\nDOMAIN = git.example.com\nDISABLE_SSH = true\nROOTURL = typo\n" +
		"[database]\nDB_TYPE = postgres\nHOST = db.internal\nNAME = forge\nUSER = cairn\nPASSWD = pg-secret-pw\n" +
		"[metrics]\nENABLED = true\nTOKEN = metrics-secret-token\n[cache]\nENABLED = true\n[mailer]\nENABLED = true\nFROM = f@example.com\nSMTP_ADDR = mail.internal\nPASSWD = smtp-secret-pw\n[repository]\nFORCE_PRIVATE = false\n"
	if err := os.WriteFile(ini, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + filepath.Join(dir, "data"), "CAIRN_CONFIG=" + ini,
		"CAIRN_REPOSITORY_MAX_CREATION_LIMIT=3", "CAIRN_SERVER_HTTPPORT=1"}
	out, errOut, err := fndRunCairn(t, env, "admin", "config", "check")
	if err != nil {
		t.Fatalf("config check: %v\n%s\n%s", err, out, errOut)
	}
	for _, want := range []string{
		"Configuration file: " + ini,
		"HTTP address: 0.0.0.0:3456\n",
		"SSH address: off\n",
		"Root URL: http://git.example.com:3456/\n",
		"Database: postgres://cairn:xxxxx@db.internal/forge?sslmode=disable\n",
		"  [server] HTTP_ADDR = 0.0.0.0 (file)\n",
		"  [server] HTTP_PORT = 3456 (file)\n",
		"  [database] PASSWD = (set, hidden) (file)\n",
		"  [metrics] TOKEN = (set, hidden) (file)\n",
		"  [repository] MAX_CREATION_LIMIT = 3 (CAIRN_REPOSITORY_MAX_CREATION_LIMIT)\n",
		"  [server] ROOTURL: unknown key\n",
		"  [cache] ENABLED: not supported yet\n",
		"  [mailer] PASSWD = (set, hidden) (file)\n",
		"  CAIRN_SERVER_HTTPPORT (environment): unknown variable\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config check output lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"pg-secret-pw", "metrics-secret-token", "smtp-secret-pw"} {
		if strings.Contains(out+errOut, secret) {
			t.Errorf("config check printed a secret:\n%s", out)
		}
	}
	if strings.Contains(out, "FORCE_PRIVATE") {
		t.Errorf("a key set to its default is listed as changed:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Error("config check created the data directory")
	}

	// --config names the file instead of CAIRN_CONFIG; the fixed variables win and are named.
	out, errOut, err = fndRunCairn(t, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + dir, "CAIRN_HTTP_ADDR=127.0.0.1:9999"},
		"admin", "config", "check", "--config", ini)
	if err != nil || !strings.Contains(out, "Configuration file: "+ini) || !strings.Contains(out, "HTTP address: 127.0.0.1:9999 (from CAIRN_HTTP_ADDR)") {
		t.Fatalf("config check --config: %v\n%s\n%s", err, out, errOut)
	}

	// Without a file, it says so.
	out, errOut, err = fndRunCairn(t, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + dir}, "admin", "config", "check")
	if err != nil || !strings.Contains(out, "Configuration file: none ("+filepath.Join(dir, "cairn.ini")+" does not exist)") ||
		!strings.Contains(out, "Settings that differ from the defaults:\n  none") {
		t.Fatalf("config check without a file: %v\n%s\n%s", err, out, errOut)
	}

	// A value a key does not accept fails, naming the key.
	for _, bad := range []string{"[server]\nDISABLE_SSH = perhaps\n", "[database]\nDB_TYPE = mssql\n", "[log]\nLEVEL = chatty\n"} {
		if err := os.WriteFile(ini, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		out, errOut, err := fndRunCairn(t, env, "admin", "config", "check")
		key := strings.TrimSpace(strings.SplitN(strings.SplitN(bad, "\n", 2)[1], "=", 2)[0])
		if err == nil || !strings.Contains(errOut, key) {
			t.Errorf("config check of %q: err %v, stderr %q, stdout %q", bad, err, errOut, out)
		}
	}
}

// TestConfigRefusesForeignDatabase: a Gitea app.ini names Gitea's database;
// Cairn refuses a database with tables but no Cairn schema and leaves it as it was.
func TestConfigRefusesForeignDatabase(t *testing.T) {
	dir := t.TempDir()
	raw := testDatabaseURL(t)
	driver, dsn, tables := "sqlite", filepath.Join(dir, "gitea.db"), "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"
	if u, _ := url.Parse(raw); raw != "" && strings.HasPrefix(u.Scheme, "postgres") {
		driver, dsn, tables = "pgx", raw, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema()"
	} else if raw != "" {
		pw, _ := u.User.Password()
		driver, dsn = "mysql", fmt.Sprintf("%s:%s@tcp(%s)%s", u.User.Username(), pw, u.Host, u.Path)
		tables = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"
	}
	conn, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"CREATE TABLE version (id INTEGER PRIMARY KEY, version INTEGER)", "CREATE TABLE repository (id INTEGER PRIMARY KEY, name TEXT)"} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ini := filepath.Join(dir, "app.ini")
	content := "[server]\nHTTP_PORT = 0\nDISABLE_SSH = true\n[database]\n" + cfgDatabaseSection(t, raw, dsn)
	if err := os.WriteFile(ini, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cairnBinary(t), "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CAIRN_DATA_DIR=" + filepath.Join(dir, "data"), "CAIRN_CONFIG=" + ini}
	out, err := cmd.CombinedOutput()
	if err == nil || ctx.Err() != nil || !strings.Contains(string(out), "no Cairn schema") {
		t.Fatalf("serve on a foreign database: err %v (context %v)\n%s", err, ctx.Err(), out)
	}
	var n int
	if err := conn.QueryRow(tables).Scan(&n); err != nil || n != 2 {
		t.Fatalf("the foreign database has %d tables (err %v), want its 2", n, err)
	}
}
