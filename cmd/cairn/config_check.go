package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
)

const adminConfigUsage = `usage: cairn admin config check [flags]

commands:
  check    load the configuration as 'cairn serve' would and report on it`

// adminConfig dispatches "cairn admin config …".
func adminConfig(ctx context.Context, args []string, e adminEnv) error {
	if len(args) == 0 {
		return usageError{adminConfigUsage}
	}
	if isHelp(args[0]) {
		fmt.Fprintln(e.stdout, adminConfigUsage)
		return nil
	}
	if args[0] == "check" {
		return adminConfigCheck(ctx, args[1:], e)
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", "admin config "+args[0], adminConfigUsage)}
}

// adminConfigCheck prints the configuration file read, the resulting
// addresses and database, the settings that differ from the defaults
// (secrets hidden) and the keys that have no effect. It fails when the
// configuration cannot be loaded; it does not need a running server or an
// existing instance.
func adminConfigCheck(_ context.Context, args []string, e adminEnv) error {
	c := newAdminCommand("config check", "cairn admin config check [--config FILE] [--data-dir DIR]",
		"Loads the configuration the way 'cairn serve' does (defaults, the configuration\n"+
			"file, CAIRN_<SECTION>_<KEY> and the fixed CAIRN_* variables) and prints the\n"+
			"file read, the addresses and database it gives, the settings that differ from\n"+
			"the defaults (passwords and tokens hidden) and every key of the file without\n"+
			"effect. Exits non-zero when the configuration cannot be loaded.")
	if done, err := c.parse(args, &e); done || err != nil {
		return err
	}
	cfg, err := config.Load(e.getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	w := e.stdout
	if cfg.ConfigFileFound {
		fmt.Fprintf(w, "Configuration file: %s\n", cfg.ConfigFile)
	} else {
		fmt.Fprintf(w, "Configuration file: none (%s does not exist)\n", cfg.ConfigFile)
	}
	from := func(name string) string {
		if e.getenv(name) != "" {
			return " (from " + name + ")"
		}
		return ""
	}
	database := "SQLite " + filepath.Join(cfg.DataDir, "cairn.db")
	if file, ok := strings.CutPrefix(cfg.DatabaseURL, "sqlite:"); ok {
		database = "SQLite " + file
	} else if cfg.DatabaseURL != "" {
		database = cfg.RedactedDatabaseURL()
	}
	fmt.Fprintf(w, "Data directory: %s%s\n", cfg.DataDir, from("CAIRN_DATA_DIR"))
	fmt.Fprintf(w, "HTTP address: %s%s\n", cfg.HTTPAddr, from("CAIRN_HTTP_ADDR"))
	fmt.Fprintf(w, "SSH address: %s%s\n", cfg.SSHAddr, from("CAIRN_SSH_ADDR"))
	fmt.Fprintf(w, "Root URL: %s%s\n", cfg.RootURL, from("CAIRN_ROOT_URL"))
	fmt.Fprintf(w, "Database: %s%s\n", database, from("CAIRN_DATABASE_URL"))
	fmt.Fprintf(w, "Repositories: %s\n", cfg.RepositoryRoot())
	if cfg.RootURLUnreachable() {
		fmt.Fprintln(w, "Warning: the root URL names no host clients can reach, so links and clone URLs will not work: set [server] ROOT_URL (or DOMAIN)")
	}

	fmt.Fprintln(w, "\nSettings that differ from the defaults:")
	if len(cfg.Changed) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, s := range cfg.Changed {
		fmt.Fprintf(w, "  [%s] %s = %s (%s)\n", s.Section, s.Name, s.Shown(), s.Source)
	}

	fmt.Fprintln(w, "\nKeys and variables without effect:")
	ignored := slices.Concat(cfg.Warnings, config.EnvWarnings(os.Environ()))
	if len(ignored) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, k := range ignored {
		fmt.Fprintf(w, "  %s: %s\n", k.Name(), k.Reason())
	}
	return nil
}

// refuseForeignDatabase refuses a database that holds tables but no Cairn
// schema, before migrations write to it: a Gitea app.ini's [database] names
// Gitea's own database, which Cairn must not alter.
func refuseForeignDatabase(ctx context.Context, d *db.DB) error {
	tables, err := d.Tables(ctx)
	if err != nil || len(tables) == 0 || slices.Contains(tables, "schema_migration") {
		return err
	}
	return fmt.Errorf("the database holds %d tables but no Cairn schema (is it Gitea's?): Cairn needs an empty database of its own; set [database] or CAIRN_DATABASE_URL", len(tables))
}
