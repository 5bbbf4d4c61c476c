package config

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/password"
)

// load writes ini (if not empty) to a temporary data directory's cairn.ini
// and loads the settings with env.
func load(t *testing.T, ini string, env map[string]string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	if ini != "" {
		if err := os.WriteFile(filepath.Join(dir, "cairn.ini"), []byte(ini), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := map[string]string{"CAIRN_DATA_DIR": dir}
	for k, v := range env {
		all[k] = strings.ReplaceAll(v, "$DATA", dir)
	}
	return Load(func(k string) string { return all[k] })
}

func mustLoad(t *testing.T, ini string, env map[string]string) *Config {
	t.Helper()
	c, err := load(t, ini, env)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDefaults(t *testing.T) {
	c := mustLoad(t, "", nil)
	if c.HTTPAddr != "127.0.0.1:3000" || c.SSHAddr != "127.0.0.1:2222" || c.RootURL != "http://127.0.0.1:3000/" || c.DatabaseURL != "" {
		t.Fatalf("defaults: http %q ssh %q root %q db %q", c.HTTPAddr, c.SSHAddr, c.RootURL, c.DatabaseURL)
	}
	if c.ConfigFileFound || len(c.Changed) != 0 || len(c.Warnings) != 0 {
		t.Fatalf("found %v, changed %v, warnings %v", c.ConfigFileFound, c.Changed, c.Warnings)
	}
	if c.RepositoryRoot() != filepath.Join(c.DataDir, "repositories") || c.Log.Level != "info" || c.Log.Format != "text" || c.Metrics.Enabled {
		t.Fatalf("root %q log %q/%q metrics %v", c.RepositoryRoot(), c.Log.Level, c.Log.Format, c.Metrics.Enabled)
	}
}

func TestAddresses(t *testing.T) {
	for _, tc := range []struct {
		name            string
		ini             string
		env             map[string]string
		http, ssh, root string
	}{
		{"gitea server keys", "[server]\nHTTP_ADDR = 0.0.0.0\nHTTP_PORT = 3001\nROOT_URL = https://git.example.com/\nSTART_SSH_SERVER = true\nSSH_LISTEN_HOST = 0.0.0.0\nSSH_LISTEN_PORT = 2022\n",
			nil, "0.0.0.0:3001", "0.0.0.0:2022", "https://git.example.com/"},
		{"root URL gets its slash", "[server]\nROOT_URL = https://git.example.com/forge\n", nil, "127.0.0.1:3000", "127.0.0.1:2222", "https://git.example.com/forge/"},
		{"domain makes the root URL", "[server]\nDOMAIN = git.example.com\nHTTP_PORT = 8080\n", nil, "127.0.0.1:8080", "127.0.0.1:2222", "http://git.example.com:8080/"},
		{"ssh port is the listen port with START_SSH_SERVER", "[server]\nSSH_PORT = 2200\nSTART_SSH_SERVER = true\n", nil, "127.0.0.1:3000", "127.0.0.1:2200", "http://127.0.0.1:3000/"},
		{"ssh port is only shown without START_SSH_SERVER", "[server]\nSSH_PORT = 22\n", nil, "127.0.0.1:3000", "127.0.0.1:2222", "http://127.0.0.1:3000/"},
		{"listen port wins over ssh port", "[server]\nSSH_PORT = 22\nSSH_LISTEN_PORT = 2022\nSTART_SSH_SERVER = true\n", nil, "127.0.0.1:3000", "127.0.0.1:2022", "http://127.0.0.1:3000/"},
		{"disable ssh", "[server]\nDISABLE_SSH = true\nSSH_LISTEN_PORT = 2022\n", nil, "127.0.0.1:3000", "off", "http://127.0.0.1:3000/"},
		{"no built-in ssh server", "[server]\nSTART_SSH_SERVER = false\n", nil, "127.0.0.1:3000", "off", "http://127.0.0.1:3000/"},
		{"section variables win over the file", "[server]\nHTTP_PORT = 3001\nROOT_URL = http://file/\n",
			map[string]string{"CAIRN_SERVER_HTTP_PORT": "3002", "CAIRN_SERVER_ROOT_URL": "http://env/", "CAIRN_SERVER_DISABLE_SSH": "true"},
			"127.0.0.1:3002", "off", "http://env/"},
		{"fixed variables win over everything", "[server]\nHTTP_PORT = 3001\nROOT_URL = http://file/\nDISABLE_SSH = true\n",
			map[string]string{"CAIRN_SERVER_ROOT_URL": "http://env/", "CAIRN_HTTP_ADDR": "127.0.0.1:4000", "CAIRN_ROOT_URL": "http://fixed/", "CAIRN_SSH_ADDR": "127.0.0.1:4022"},
			"127.0.0.1:4000", "127.0.0.1:4022", "http://fixed/"},
		{"default root URL follows CAIRN_HTTP_ADDR", "", map[string]string{"CAIRN_HTTP_ADDR": "127.0.0.1:5000"}, "127.0.0.1:5000", "127.0.0.1:2222", "http://127.0.0.1:5000/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustLoad(t, tc.ini, tc.env)
			if c.HTTPAddr != tc.http || c.SSHAddr != tc.ssh || c.RootURL != tc.root {
				t.Fatalf("http %q ssh %q root %q, want %q %q %q", c.HTTPAddr, c.SSHAddr, c.RootURL, tc.http, tc.ssh, tc.root)
			}
		})
	}
}

// TestGiteaSyntax reads what Gitea's app.ini allows: inline comments,
// quoted values, interpolation, yes/no booleans, and keys of a parent
// section that a subsection does not inherit.
func TestGiteaSyntax(t *testing.T) {
	ini := "[server]\nHTTP_PORT = 3100 ; the port\nDOMAIN = forge.test\nROOT_URL = https://%(DOMAIN)s/\nDISABLE_SSH = yes\n" +
		"[database]\nDB_TYPE = mysql\nHOST = db\nNAME = forge\nUSER = u\nPASSWD = `pa;ss#word`\n[repository]\nMAX_PINNED = 9\n"
	c := mustLoad(t, ini, nil)
	if c.HTTPAddr != "127.0.0.1:3100" || c.RootURL != "https://forge.test/" || c.SSHAddr != "off" || c.Database.Passwd != "pa;ss#word" {
		t.Fatalf("http %q root %q ssh %q password %q", c.HTTPAddr, c.RootURL, c.SSHAddr, c.Database.Passwd)
	}
	if c.RepositoryIssue.MaxPinned != 3 {
		t.Fatalf("[repository.issue] MAX_PINNED = %d, taken from [repository]", c.RepositoryIssue.MaxPinned)
	}
	if len(c.Warnings) != 1 || c.Warnings[0].Name() != "[repository] MAX_PINNED" || c.Warnings[0].NotSupportedYet {
		t.Fatalf("warnings %+v", c.Warnings)
	}
}

func TestRootURLUnreachable(t *testing.T) {
	for ini, want := range map[string]bool{
		"": false, "[server]\nHTTP_ADDR = 0.0.0.0\n": true, "[server]\nHTTP_ADDR = ::\n": true,
		"[server]\nHTTP_ADDR = 0.0.0.0\nDOMAIN = git.example.com\n": false, "[server]\nHTTP_ADDR = 0.0.0.0\nROOT_URL = https://git.example.com/\n": false,
	} {
		if got := mustLoad(t, ini, nil).RootURLUnreachable(); got != want {
			t.Errorf("%q: unreachable %v, want %v", ini, got, want)
		}
	}
	if !mustLoad(t, "", map[string]string{"CAIRN_HTTP_ADDR": ":3000"}).RootURLUnreachable() {
		t.Error("http://:3000/ is reachable")
	}
}

func TestSSHDomainDefaultsToDomain(t *testing.T) {
	c := mustLoad(t, "[server]\nDOMAIN = example.org\nROOT_URL = https://git.example.org/\n", nil)
	if c.Server.SSHDomain != "example.org" {
		t.Fatalf("SSH_DOMAIN = %q", c.Server.SSHDomain)
	}
	c = mustLoad(t, "[server]\nDOMAIN = example.org\nSSH_DOMAIN = ssh.example.org\n", nil)
	if c.Server.SSHDomain != "ssh.example.org" {
		t.Fatalf("SSH_DOMAIN = %q", c.Server.SSHDomain)
	}
}

func TestDatabase(t *testing.T) {
	for _, tc := range []struct {
		name, ini string
		env       map[string]string
		want      string
	}{
		{"none", "", nil, ""},
		{"sqlite3 without path", "[database]\nDB_TYPE = sqlite3\n", nil, ""},
		{"sqlite3 path", "[database]\nDB_TYPE = sqlite3\nPATH = /var/lib/cairn/forge.db\n", nil, "sqlite:/var/lib/cairn/forge.db"},
		{"postgres", "[database]\nDB_TYPE = postgres\nHOST = db.internal:5433\nNAME = forge\nUSER = cairn\nPASSWD = `p@ss:w/rd#1`\nSSL_MODE = require\n", nil,
			"postgres://cairn:p%40ss%3Aw%2Frd%231@db.internal:5433/forge?sslmode=require"},
		{"postgres default ssl mode", "[database]\nDB_TYPE = postgres\nHOST = 127.0.0.1\nNAME = forge\nUSER = cairn\n", nil,
			"postgres://cairn@127.0.0.1/forge?sslmode=disable"},
		{"postgres socket", "[database]\nDB_TYPE = postgres\nHOST = /run/postgresql\nNAME = forge\nUSER = cairn\n", nil,
			"postgres://cairn@/forge?host=%2Frun%2Fpostgresql&sslmode=disable"},
		{"mysql", "[database]\nDB_TYPE = mysql\nHOST = 127.0.0.1:3306\nNAME = forge\nUSER = root\nPASSWD = secret\n", nil,
			"mysql://root:secret@127.0.0.1:3306/forge"},
		{"mysql tls", "[database]\nDB_TYPE = mysql\nHOST = db\nNAME = forge\nUSER = root\nSSL_MODE = skip-verify\n", nil,
			"mysql://root@db/forge?tls=skip-verify"},
		{"section variables", "[database]\nDB_TYPE = postgres\nHOST = file\nNAME = forge\nUSER = cairn\n",
			map[string]string{"CAIRN_DATABASE_HOST": "env:5432", "CAIRN_DATABASE_PASSWD": "pw"}, "postgres://cairn:pw@env:5432/forge?sslmode=disable"},
		{"CAIRN_DATABASE_URL wins", "[database]\nDB_TYPE = postgres\nHOST = file\nNAME = forge\n",
			map[string]string{"CAIRN_DATABASE_URL": "mysql://u@h/d"}, "mysql://u@h/d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustLoad(t, tc.ini, tc.env)
			if c.DatabaseURL != tc.want {
				t.Fatalf("database URL %q, want %q", c.DatabaseURL, tc.want)
			}
		})
	}
	c := mustLoad(t, "[database]\nDB_TYPE = postgres\nHOST = h\nNAME = n\nUSER = u\nPASSWD = hunter2\n", nil)
	if r := c.RedactedDatabaseURL(); strings.Contains(r, "hunter2") || !strings.Contains(r, "u:") {
		t.Fatalf("redacted URL %q", r)
	}
	listed := false
	for _, s := range c.Changed {
		if s.Name == "PASSWD" {
			listed = true
			if s.Value != "" || s.Shown() != "(set, hidden)" {
				t.Fatalf("password kept in Changed: %+v", s)
			}
		}
	}
	if !listed {
		t.Fatal("PASSWD is not listed as changed")
	}
	c = mustLoad(t, "", map[string]string{"CAIRN_DATABASE_URL": "postgres://u@h/d?password=hunter3&sslmode=disable"})
	if r := c.RedactedDatabaseURL(); strings.Contains(r, "hunter3") {
		t.Fatalf("redacted URL %q", r)
	}
}

func TestRelativePaths(t *testing.T) {
	wd, _ := os.Getwd()
	c := mustLoad(t, "[database]\nDB_TYPE = sqlite3\nPATH = db/forge.db\n[repository]\nROOT = repos\n", nil)
	if c.DatabaseURL != "sqlite:"+filepath.Join(wd, "db/forge.db") || c.RepositoryRoot() != filepath.Join(wd, "repos") {
		t.Fatalf("database %q, repositories %q", c.DatabaseURL, c.RepositoryRoot())
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, ini string
		env       map[string]string
		want      string
	}{
		{"missing explicit file", "", map[string]string{"CAIRN_CONFIG": "$DATA/app.ini"}, "given by CAIRN_CONFIG"},
		{"bad bool", "[server]\nDISABLE_SSH = maybe\n", nil, "[server] DISABLE_SSH (in the config file)"},
		{"bad env int", "", map[string]string{"CAIRN_SERVER_HTTP_PORT": "x"}, "[server] HTTP_PORT (in CAIRN_SERVER_HTTP_PORT)"},
		{"https", "[server]\nPROTOCOL = https\n", nil, "PROTOCOL = https is not supported"},
		{"port in HTTP_ADDR", "[server]\nHTTP_ADDR = 0.0.0.0:3000\n", nil, "port in HTTP_PORT"},
		{"unix socket", "[server]\nHTTP_ADDR = /run/cairn.sock\n", nil, "Unix sockets"},
		{"bad port", "[server]\nHTTP_PORT = 70000\n", nil, "HTTP_PORT = 70000"},
		{"root URL without host", "[server]\nROOT_URL = /forge/\n", nil, "root URL"},
		{"mssql", "[database]\nDB_TYPE = mssql\n", nil, "mssql is not supported"},
		{"unknown database", "[database]\nDB_TYPE = oracle\n", nil, "oracle is not supported"},
		{"keys without type", "[database]\nHOST = db\n", nil, "DB_TYPE is empty"},
		{"mysql socket", "[database]\nDB_TYPE = mysql\nHOST = /run/mysqld/mysqld.sock\n", nil, "Unix socket"},
		{"log level", "[log]\nLEVEL = loud\n", nil, "[log] LEVEL = loud"},
		{"log format", "", map[string]string{"CAIRN_LOG_FORMAT": "xml"}, "[log] FORMAT = xml"},
		{"default private", "[repository]\nDEFAULT_PRIVATE = maybe\n", nil, "DEFAULT_PRIVATE"},
		{"org visibility", "[service]\nDEFAULT_ORG_VISIBILITY = secret\n", nil, "DEFAULT_ORG_VISIBILITY"},
		{"broken file", "[server\n", nil, "config file"},
		{"password hash", "[security]\nPASSWORD_HASH_ALGO = md5\n", nil, `[security] PASSWORD_HASH_ALGO = "md5"`},
		{"argon2 parameters", "", map[string]string{"CAIRN_SECURITY_PASSWORD_HASH_ALGO": "argon2$1$64$0$32"}, "threads must be a positive integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, tc.ini, tc.env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestPasswordHashAlgo: PASSWORD_HASH_ALGO sets the argon2id parameters of
// new hashes; Gitea's other algorithms start with a warning and the default.
func TestPasswordHashAlgo(t *testing.T) {
	if p := mustLoad(t, "", nil).Security.PasswordParams; p != password.Default {
		t.Fatalf("default %+v", p)
	}
	c := mustLoad(t, "[security]\nPASSWORD_HASH_ALGO = argon2$1$64$1$32\n", nil)
	if p := c.Security.PasswordParams; p != (password.Params{Time: 1, MemoryKiB: 64, Threads: 1, KeyLen: 32}) || len(c.Warnings) != 0 {
		t.Fatalf("argon2$1$64$1$32: %+v %v", p, c.Warnings)
	}
	c = mustLoad(t, "[security]\nPASSWORD_HASH_ALGO = pbkdf2\n", nil)
	if c.Security.PasswordParams != password.Default || len(c.Warnings) != 1 ||
		c.Warnings[0].Name()+": "+c.Warnings[0].Reason() != "[security] PASSWORD_HASH_ALGO: Cairn hashes passwords with argon2id only; new hashes use its default parameters" {
		t.Fatalf("pbkdf2: %+v %v", c.Security.PasswordParams, c.Warnings)
	}
}

func TestExplicitFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.ini")
	if err := os.WriteFile(path, []byte("[repository]\nMAX_CREATION_LIMIT = 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CAIRN_DATA_DIR": dir, "CAIRN_CONFIG": path}
	c, err := Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if !c.ConfigFileFound || c.ConfigFile != path || c.Repository.MaxCreationLimit != 5 {
		t.Fatalf("file %q found %v limit %d", c.ConfigFile, c.ConfigFileFound, c.Repository.MaxCreationLimit)
	}
}

func TestChanged(t *testing.T) {
	c := mustLoad(t, "[server]\nHTTP_PORT = 3000\nSSH_PORT = 22\n[metrics]\nENABLED = true\nTOKEN = s3cret\n[log]\nLEVEL = Warning\n",
		map[string]string{"CAIRN_REPOSITORY_FORCE_PRIVATE": "true", "CAIRN_API_MAX_RESPONSE_ITEMS": "50"})
	got := map[string]Setting{}
	for _, s := range c.Changed {
		got["["+s.Section+"] "+s.Name] = s
	}
	if _, ok := got["[server] HTTP_PORT"]; ok {
		t.Error("HTTP_PORT equal to its default is listed as changed")
	}
	if _, ok := got["[api] MAX_RESPONSE_ITEMS"]; ok {
		t.Error("MAX_RESPONSE_ITEMS equal to its default is listed as changed")
	}
	if s := got["[server] SSH_PORT"]; s.Value != "22" || s.Source != "file" {
		t.Errorf("SSH_PORT = %+v", s)
	}
	if s := got["[repository] FORCE_PRIVATE"]; s.Value != "true" || s.Source != "CAIRN_REPOSITORY_FORCE_PRIVATE" {
		t.Errorf("FORCE_PRIVATE = %+v", s)
	}
	if s := got["[metrics] TOKEN"]; s.Value != "" || s.Shown() != "(set, hidden)" {
		t.Errorf("TOKEN = %+v", s)
	}
	if !c.Metrics.Enabled || c.Metrics.Token != "s3cret" || c.Log.Level != "warn" {
		t.Errorf("metrics %v %q, log %q", c.Metrics.Enabled, c.Metrics.Token, c.Log.Level)
	}
}

func TestWarnings(t *testing.T) {
	ini := "APP_NAME = Forge\nFOO = 1\n[server]\nROOT_URL = http://x/\nLFS_START_SERVER = true\nROOTURL = typo\n" +
		"[cache]\nENABLED = true\nPASSWD = mail-secret\n[cron.update_checker]\nENABLED = false\n[repository.issue]\nMAX_PINNED = 2\nLOCK_REASONS = a,b\n" +
		"[my-plugin]\nX = 1\n[Server]\nHTTP_PORT = 1\n"
	c := mustLoad(t, ini, nil)
	want := []string{
		"APP_NAME (top level): not supported yet",
		"FOO (top level): unknown key",
		"[server] LFS_START_SERVER: not supported yet",
		"[server] ROOTURL: unknown key",
		"[cache] ENABLED: not supported yet",
		"[cache] PASSWD: not supported yet",
		"[cron.update_checker] ENABLED: not supported yet",
		"[repository.issue] LOCK_REASONS: not supported yet",
		"[my-plugin] X: unknown key",
		"[Server] HTTP_PORT: unknown key",
	}
	var got []string
	for _, w := range c.Warnings {
		got = append(got, w.Name()+": "+w.Reason())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var buf bytes.Buffer
	c.LogSummary(slog.New(slog.NewTextHandler(&buf, nil)), []string{"CAIRN_SERVER_ROOTURL=x", "CAIRN_ROOT_URL=http://a/", "HOME=/"})
	logs := buf.String()
	if !strings.Contains(logs, `msg="environment variable ignored: unknown variable" variable=CAIRN_SERVER_ROOTURL`) {
		t.Errorf("no warning about CAIRN_SERVER_ROOTURL:\n%s", logs)
	}
	if n := strings.Count(logs, "level=WARN"); n != len(want)+1 {
		t.Errorf("%d warning lines, want %d:\n%s", n, len(want), logs)
	}
	if !strings.Contains(logs, "configuration file read") || !strings.Contains(logs, c.ConfigFile) || strings.Contains(logs, "mail-secret") {
		t.Errorf("summary:\n%s", logs)
	}
	buf.Reset()
	mustLoad(t, "", nil).LogSummary(slog.New(slog.NewTextHandler(&buf, nil)), nil)
	if !strings.Contains(buf.String(), "no configuration file") {
		t.Errorf("summary without a file:\n%s", buf.String())
	}
}

func TestEnvWarnings(t *testing.T) {
	env := []string{"PATH=/bin", "CAIRN_SERVER_ROOT_URL=http://x/", "CAIRN_REPOSITORY_ISSUE_MAX_PINNED=2", "CAIRN_DATA_DIR=/d",
		"CAIRN_ADMIN_PASSWORD=pw", "CAIRN_INTERNAL_TOKEN=t", "CAIRN_SERVER_ROOTURL=typo", "CAIRN_CACHE_ENABLED=true", "XCAIRN_Y=1"}
	var got []string
	for _, w := range EnvWarnings(env) {
		got = append(got, w.Name()+": "+w.Reason())
	}
	want := "CAIRN_CACHE_ENABLED (environment): unknown variable\nCAIRN_SERVER_ROOTURL (environment): unknown variable"
	if strings.Join(got, "\n") != want {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestKeysDocumented checks that every key has a meaning and a default that
// parses, and that no supported key is also listed as not supported.
func TestKeysDocumented(t *testing.T) {
	sections := map[string]bool{"": true}
	for _, k := range Keys() {
		sections[k.Section] = true
		if k.Doc == "" {
			t.Errorf("[%s] %s has no doc tag", k.Section, k.Name)
		}
		if slices.Contains(notSupported()[k.Section], k.Name) {
			t.Errorf("[%s] %s is supported and listed as not supported yet", k.Section, k.Name)
		}
	}
	for s := range NotSupportedKeys() {
		if !sections[s] {
			t.Errorf("not-supported keys listed for [%s], which has no supported key: list the whole section", s)
		}
	}
}

// TestConfigurationDoc keeps docs/configuration.md equal to Markdown();
// CAIRN_UPDATE_DOCS=1 rewrites it.
func TestConfigurationDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "configuration.md")
	want := Markdown()
	if os.Getenv("CAIRN_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("docs/configuration.md differs from the code: run CAIRN_UPDATE_DOCS=1 go test ./internal/config -run TestConfigurationDoc")
	}
	for _, k := range Keys() {
		if !strings.Contains(want, "`"+k.Name+"` | `"+k.Env+"`") {
			t.Errorf("[%s] %s missing from the document", k.Section, k.Name)
		}
	}
}
