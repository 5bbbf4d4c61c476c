package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
)

// LogSummary logs the configuration file read (or that there was none), one
// warning per key of the file that has no effect, and one per CAIRN_*
// variable of environ (os.Environ) that Cairn does not read.
func (c *Config) LogSummary(l *slog.Logger, environ []string) {
	if c.ConfigFileFound {
		l.Info("configuration file read", "file", c.ConfigFile)
	} else {
		l.Info("no configuration file: built-in defaults and the environment only", "looked_for", c.ConfigFile)
	}
	for _, w := range c.Warnings {
		l.Warn("configuration key ignored: "+w.Reason(), "key", w.Name(), "file", c.ConfigFile)
	}
	for _, w := range EnvWarnings(environ) {
		l.Warn("environment variable ignored: "+w.Reason(), "variable", w.Env)
	}
	if c.RootURLUnreachable() {
		l.Warn("the root URL names no host clients can reach, so links and clone URLs will not work: set [server] ROOT_URL (or DOMAIN)", "root_url", c.RootURL)
	}
}

// RootURLUnreachable tells whether the root URL's host is empty or an
// unspecified address (0.0.0.0, ::), as the default is when Cairn listens on
// every interface.
func (c *Config) RootURLUnreachable() bool {
	u, err := url.Parse(c.RootURL)
	if err != nil {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "" || (ip != nil && ip.IsUnspecified())
}

// Markdown is docs/configuration.md: every supported key with its
// environment variable, default and meaning, and what is not supported yet.
func Markdown() string {
	var b strings.Builder
	b.WriteString(`# Configuration

<!-- Generated from internal/config (struct tags and unsupported.go); a unit test
keeps this file equal to the code. Regenerate with
CAIRN_UPDATE_DOCS=1 go test ./internal/config -run TestConfigurationDoc -->

Cairn reads its settings from four places; each wins over the ones before it:

1. built-in defaults (below);
2. the configuration file: ` + "`CAIRN_CONFIG`" + `, default ` + "`<data>/cairn.ini`" + `, an INI file with
   Gitea's ` + "`app.ini`" + ` section and key names. A default file that does not exist is
   skipped; a file named by ` + "`CAIRN_CONFIG`" + ` must exist;
3. ` + "`CAIRN_<SECTION>_<KEY>`" + ` environment variables, one per key (section names
   with ` + "`.`" + ` or ` + "`-`" + ` use ` + "`_`" + `: ` + "`[repository.issue] MAX_PINNED`" + ` is
   ` + "`CAIRN_REPOSITORY_ISSUE_MAX_PINNED`" + `);
4. the fixed operator variables, which win over everything:

| variable | default | overrides |
|---|---|---|
| ` + "`CAIRN_DATA_DIR`" + ` | ` + "`./data`" + ` | (database file, repositories, attachments, host keys) |
| ` + "`CAIRN_HTTP_ADDR`" + ` | ` + "`127.0.0.1:3000`" + ` | ` + "`[server] HTTP_ADDR`, `HTTP_PORT`" + ` |
| ` + "`CAIRN_SSH_ADDR`" + ` | ` + "`127.0.0.1:2222`" + ` (` + "`off`" + ` disables) | ` + "`[server] SSH_LISTEN_HOST`, `SSH_LISTEN_PORT`, `START_SSH_SERVER`, `DISABLE_SSH`" + ` |
| ` + "`CAIRN_ROOT_URL`" + ` | ` + "`http://<HTTP_ADDR>/`" + ` | ` + "`[server] ROOT_URL`" + ` |
| ` + "`CAIRN_DATABASE_URL`" + ` | empty: SQLite ` + "`<data>/cairn.db`" + ` | ` + "`[database]`" + ` |

At start-up Cairn logs the configuration file it read (or that there was none)
and one warning per key of the file that has no effect, saying whether it is
a Gitea key that is **not supported yet** or an **unknown key**, and one per
` + "`CAIRN_*`" + ` environment variable it does not read (a misspelt
` + "`CAIRN_<SECTION>_<KEY>`" + `).
` + "`cairn admin config check`" + ` loads the configuration as ` + "`cairn serve`" + ` does and prints
the file read, the resulting addresses and database, the settings that differ
from the defaults (passwords and tokens hidden) and the keys and variables
without effect; it
exits non-zero when the configuration cannot be loaded.

Coming from Gitea: ` + "`[server]`" + ` and ` + "`[database]`" + ` keys of an ` + "`app.ini`" + ` give the same
addresses and connection; Cairn's own defaults differ where noted (it listens
on loopback and runs its built-in SSH server unless told otherwise). Cairn
cannot open Gitea's database or repository directory: it has its own schema
and stores repositories as ` + "`<id>.git`" + `.
`)
	section := ""
	for _, k := range Keys() {
		if k.Section != section {
			section = k.Section
			fmt.Fprintf(&b, "\n## [%s]\n\n| key | environment variable | default | meaning |\n|---|---|---|---|\n", section)
		}
		def := "`" + k.Default + "`"
		if k.Default == "" {
			def = "empty"
		}
		doc := strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;").Replace(k.Doc)
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", k.Name, k.Env, def, doc)
	}
	b.WriteString("\n## Not supported yet\n\nThese Gitea keys are reported as \"not supported yet\" and have no effect.\n\nWhole sections (but for the keys listed above): ")
	var secs []string
	for _, s := range NotSupportedSections() {
		secs = append(secs, "`["+s+"]`")
	}
	b.WriteString(strings.Join(secs, ", ") + ".\n\n")
	keys := NotSupportedKeys()
	var names []string
	for _, k := range Keys() {
		if len(names) == 0 || names[len(names)-1] != k.Section {
			names = append(names, k.Section)
		}
	}
	if len(keys[""]) > 0 {
		fmt.Fprintf(&b, "- top level: %s\n", codeList(keys[""]))
	}
	for _, s := range names {
		if len(keys[s]) > 0 {
			fmt.Fprintf(&b, "- `[%s]`: %s\n", s, codeList(keys[s]))
		}
	}
	return b.String()
}

func codeList(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = "`" + k + "`"
	}
	return strings.Join(out, ", ")
}
