package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-forge/cairn/internal/backup"
	"github.com/cairn-forge/cairn/internal/config"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
	"github.com/cairn-forge/cairn/internal/git"
)

const dumpAbout = `Writes one tar archive of the instance, also while 'cairn serve' runs: a
manifest, the database read in one consistent snapshot (a SQLite database as
its file, copied by SQLite's online backup; PostgreSQL and MariaDB tables as
JSON lines), each repository listed in that snapshot (its refs, then its
object files), attachments, avatars, the SSH host key and the configuration
file. 'cairn restore' rebuilds an empty instance from it, on any database
type.`

// backupInstance is what dump and restore work with.
func backupInstance(ctx context.Context, cfg *config.Config, e adminEnv) (backup.Instance, func(), error) {
	tmp := filepath.Join(cfg.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		return backup.Instance{}, nil, err
	}
	g, err := git.New(git.Options{TempDir: tmp})
	if err != nil {
		return backup.Instance{}, nil, err
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return backup.Instance{}, nil, err
	}
	return backup.Instance{
		DB: d, Git: g, Version: version, Log: e.stderr,
		Paths: backup.Paths{DataDir: cfg.DataDir, Repos: cfg.RepositoryRoot(), ConfigFile: cfg.ConfigFile, TempDir: tmp},
	}, func() { d.Close() }, nil
}

func dump(ctx context.Context, args []string, e adminEnv) error {
	fs := newFlagSet("cairn dump")
	inst := addInstanceFlags(fs)
	file := fs.String("file", "", "write the archive to `FILE` ('-': standard output); required")
	if done, err := parseFlags(fs, args, e.stdout, "cairn dump --file FILE|-", dumpAbout); done || err != nil {
		return err
	}
	if *file == "" {
		return usageError{"--file is required (a path, or '-' for standard output)"}
	}
	e.getenv = inst.getenv(e.getenv)
	cfg, err := checkInstance(ctx, e)
	if err != nil {
		return err
	}
	bi, closeDB, err := backupInstance(ctx, cfg, e)
	if err != nil {
		return err
	}
	defer closeDB()
	start := time.Now()
	if *file == "-" {
		return backup.Dump(ctx, bi, e.stdout)
	}
	// Written under a temporary name, so a failed dump leaves no archive.
	tmp := *file + ".partial"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = backup.Dump(ctx, bi, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, *file)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	fmt.Fprintf(e.stderr, "cairn: dump written to %s in %s\n", *file, time.Since(start).Round(time.Millisecond))
	return nil
}

const restoreAbout = `Rebuilds an empty instance (the one --data-dir/--config and the database
settings name, created if missing) from an archive written by 'cairn dump',
on any database type: the database is migrated to the dump's schema level
and filled table by table, then the repositories, attachments, avatars and
SSH host key are placed and every repository is checked with
'git fsck --connectivity-only'. The dumped configuration file is written as
<data>/cairn.ini.dumped for review; the target's own configuration is kept.
A database or repository directory that already holds data is refused.`

func restore(ctx context.Context, args []string, e adminEnv) error {
	fs := newFlagSet("cairn restore")
	inst := addInstanceFlags(fs)
	file := fs.String("file", "", "read the archive from `FILE` ('-': standard input); required")
	if done, err := parseFlags(fs, args, e.stdout, "cairn restore --file FILE|-", restoreAbout); done || err != nil {
		return err
	}
	if *file == "" {
		return usageError{"--file is required (a path, or '-' for standard input)"}
	}
	e.getenv = inst.getenv(e.getenv)
	cfg, err := config.Load(e.getenv)
	if err != nil {
		return err
	}
	in := e.stdin
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.RepositoryRoot(), 0o750); err != nil {
		return err
	}
	if entries, err := os.ReadDir(cfg.RepositoryRoot()); err != nil {
		return err
	} else if len(entries) > 0 {
		return fmt.Errorf("refusing to restore: the repositories directory %s is not empty", cfg.RepositoryRoot())
	}
	bi, closeDB, err := backupInstance(ctx, cfg, e)
	if err != nil {
		return err
	}
	defer closeDB()
	d := bi.DB
	if err := refuseForeignDatabase(ctx, d); err != nil {
		return err
	}
	if err := refuseNonEmpty(ctx, d); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "cairn: restoring into %s, database %s\n", cfg.DataDir, describeDatabase(cfg))
	start := time.Now()
	m, err := backup.Restore(ctx, bi, in, backup.RestoreOptions{Migrate: func(ctx context.Context, level int) error {
		var upTo []db.Migration
		latest := 0
		for _, mg := range migrations.All() {
			latest = max(latest, mg.Version)
			if mg.Version <= level {
				upTo = append(upTo, mg)
			}
		}
		if level > latest {
			return fmt.Errorf("the dump's schema level %d is newer than this Cairn's (%d): restore it with the version that wrote it", level, latest)
		}
		return d.Migrate(ctx, upTo)
	}})
	if err != nil {
		return fmt.Errorf("restore failed (the target is now partly filled: empty it before trying again): %w", err)
	}
	fmt.Fprintf(e.stderr, "cairn: restored the dump of %s (Cairn %s, %s, schema level %d) in %s\n",
		m.Created.Format(time.RFC3339), m.CairnVersion, m.Database, m.SchemaLevel, time.Since(start).Round(time.Millisecond))
	return nil
}

// refuseNonEmpty fails unless the database has no Cairn schema, or one
// without accounts or repositories.
func refuseNonEmpty(ctx context.Context, d *db.DB) error {
	users, err := d.Count(ctx, "SELECT COUNT(*) FROM users")
	if err != nil {
		// No schema yet: the database is empty (refuseForeignDatabase
		// has refused any other tables).
		if _, serr := d.Count(ctx, "SELECT COUNT(*) FROM schema_migration"); serr != nil {
			return nil
		}
		return err
	}
	repos, err := d.Count(ctx, "SELECT COUNT(*) FROM repository")
	if err != nil {
		return err
	}
	if users > 0 || repos > 0 {
		return errors.New("refusing to restore: the database already holds accounts or repositories; restore into an empty instance")
	}
	return nil
}
