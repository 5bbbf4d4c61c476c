package backup

import (
	"archive/tar"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
)

// RestoreOptions are the checks Restore needs from its caller.
type RestoreOptions struct {
	// Migrate brings the empty database to the given schema level; it
	// fails for a level this binary does not know.
	Migrate func(ctx context.Context, level int) error
}

// incompleteMarker is the file, in the data directory, that a restore
// writes before it changes anything and removes once it has succeeded.
const incompleteMarker = "restore-incomplete"

// Restore rebuilds the empty instance inst from the archive r: the database
// (migrated to the dump's level, then filled table by table), the
// repositories, attachments, avatars and SSH host key. The dumped
// configuration file is written next to the target's as cairn.ini.dumped.
// Every repository is checked with git fsck --connectivity-only. A target
// left partly filled by a failed restore is refused, with what to delete.
func Restore(ctx context.Context, inst Instance, r io.Reader, opts RestoreOptions) (*Manifest, error) {
	tr := tar.NewReader(r)
	hdr, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("not a Cairn dump: %w", err)
	}
	if hdr.Name != "manifest.json" {
		return nil, fmt.Errorf("not a Cairn dump: the first entry is %q, not manifest.json", hdr.Name)
	}
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(tr, 16<<20)).Decode(&m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if m.Format != FormatVersion && m.Format != 1 {
		return nil, fmt.Errorf("dump format %d is not supported (this Cairn reads formats 1 and %d)", m.Format, FormatVersion)
	}
	marker := filepath.Join(inst.Paths.DataDir, incompleteMarker)
	cleanup := "delete the repositories, attachments, avatars and ssh directories under " + inst.Paths.DataDir +
		" and every table of the " + inst.DB.Dialect.String() + " database (for SQLite, the file cairn.db), then " + marker
	if _, err := os.Stat(marker); err == nil {
		return nil, fmt.Errorf("refusing to restore: an earlier restore into this instance failed midway (%s exists); to start again, %s", marker, cleanup)
	}
	// The schema alone does not make the target partly filled.
	if err := opts.Migrate(ctx, m.SchemaLevel); err != nil {
		return nil, err
	}
	if err := refuseRows(ctx, inst.DB); err != nil {
		return nil, err
	}
	if err := os.WriteFile(marker, []byte("A restore into this instance started and has not finished.\nTo restore again, "+cleanup+".\n"), 0o600); err != nil {
		return nil, err
	}
	man, err := restore(ctx, inst, tr, &m)
	if err != nil {
		return nil, fmt.Errorf("%w\nthe target is left partly filled; to restore again, %s", err, cleanup)
	}
	return man, os.Remove(marker)
}

// restore does Restore's work once the manifest is read.
func restore(ctx context.Context, inst Instance, tr *tar.Reader, m *Manifest) (*Manifest, error) {
	tables := map[string]TableInfo{}
	for _, t := range m.Tables {
		tables[t.Name] = t
	}
	// The loader holds a writer connection: SQLite's only one, which the
	// restore of a database file needs too, so it is made when first used.
	var ld *loader
	loaderFor := func() (*loader, error) {
		if ld != nil {
			return ld, nil
		}
		var err error
		ld, err = newLoader(ctx, inst)
		return ld, err
	}
	finish := func() error {
		if ld == nil {
			return nil
		}
		return ld.finish(ctx)
	}
	defer func() {
		if ld != nil {
			ld.close()
		}
	}()
	var restored []string
	repos := map[string]bool{}
	// Each repository is checked as soon as its entries are all in (the
	// next entry is not one of its own), in the background while the rest
	// of the archive is read.
	check := newRepoChecker(ctx, inst)
	defer check.stop()
	current := ""
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		name := path.Clean(hdr.Name)
		if hdr.Typeflag != tar.TypeReg || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			return nil, fmt.Errorf("unexpected archive entry %q", hdr.Name)
		}
		if current != "" && !strings.HasPrefix(name, "repositories/"+current+"/") {
			check.add(current)
			current = ""
		}
		switch {
		case m.DatabaseFile != "" && name == m.DatabaseFile:
			if err := restoreSQLiteFile(ctx, inst, m, tr, loaderFor); err != nil {
				return nil, err
			}
			for _, t := range m.Tables {
				restored = append(restored, t.Name)
			}
			fmt.Fprintf(inst.Log, "restored the database (%d tables)\n", len(m.Tables))
		case m.DatabaseFile == "" && strings.HasPrefix(name, "db/") && strings.HasSuffix(name, ".jsonl"):
			t, ok := tables[strings.TrimSuffix(strings.TrimPrefix(name, "db/"), ".jsonl")]
			if !ok {
				return nil, fmt.Errorf("archive entry %q is not in the manifest", name)
			}
			l, err := loaderFor()
			if err != nil {
				return nil, err
			}
			n, err := l.table(ctx, t, m.Format, tr)
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", t.Name, err)
			}
			if n != t.Rows {
				return nil, fmt.Errorf("table %s: %d rows read, the manifest says %d", t.Name, n, t.Rows)
			}
			restored = append(restored, t.Name)
			fmt.Fprintf(inst.Log, "restored table %s (%d rows)\n", t.Name, n)
		case strings.HasPrefix(name, "repositories/"):
			if err := finish(); err != nil {
				return nil, err
			}
			repo, file, ok := strings.Cut(strings.TrimPrefix(name, "repositories/"), "/")
			id, found := strings.CutSuffix(repo, ".git")
			if _, err := strconv.ParseInt(id, 10, 64); !ok || !found || err != nil {
				return nil, fmt.Errorf("unexpected archive entry %q", hdr.Name)
			}
			if err := restoreRepoEntry(ctx, inst, filepath.Join(inst.Paths.Repos, repo), file, tr); err != nil {
				return nil, fmt.Errorf("repository %s: %w", repo, err)
			}
			if repos[repo] && current != repo {
				return nil, fmt.Errorf("repository %s: its entries are not together in the archive", repo)
			}
			repos[repo], current = true, repo
		case name == "files/instance_secret" || strings.HasPrefix(name, "files/attachments/") ||
			strings.HasPrefix(name, "files/avatars/") || strings.HasPrefix(name, "files/ssh/"):
			if err := placeFile(filepath.Join(inst.Paths.DataDir, filepath.FromSlash(strings.TrimPrefix(name, "files/"))), tr, 0o600); err != nil {
				return nil, err
			}
		case name == "config/cairn.ini":
			if err := placeFile(filepath.Join(inst.Paths.DataDir, "cairn.ini.dumped"), tr, 0o600); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unexpected archive entry %q", hdr.Name)
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(restored) != len(m.Tables) {
		return nil, fmt.Errorf("the archive holds %d tables, the manifest says %d: it is incomplete", len(restored), len(m.Tables))
	}
	if err := resetSequences(ctx, inst.DB, restored); err != nil {
		return nil, err
	}
	if len(repos) != m.Repositories {
		return nil, fmt.Errorf("the archive holds %d repositories, the manifest says %d: it is incomplete", len(repos), m.Repositories)
	}
	if current != "" {
		check.add(current)
	}
	if err := check.wait(); err != nil {
		return nil, err
	}
	fmt.Fprintf(inst.Log, "restored %d repositories, all connected\n", len(repos))
	if ld != nil {
		if err := ld.wait(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// refuseRows fails when a table of the migrated target already holds rows.
func refuseRows(ctx context.Context, d *db.DB) error {
	tables, err := listTables(ctx, d)
	if err != nil {
		return err
	}
	for _, t := range tables {
		ok, err := d.Exists(ctx, "SELECT 1 FROM "+quote(d.Dialect, t)+" LIMIT 1")
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("refusing to restore: table %s of the target database already holds rows; restore into an empty instance", t)
		}
	}
	return nil
}

// placeFile writes r to p (creating its directory), refusing to overwrite.
func placeFile(p string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if base := filepath.Base(p); base == "config" || base == "HEAD" || base == "instance_secret" {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC // written by git init
	}
	f, err := os.OpenFile(p, flags, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fromPortable turns a JSON value into what the target column takes.
func fromPortable(v any, kind colKind) (any, error) {
	switch x := v.(type) {
	case nil, string:
		return x, nil
	case bool:
		if kind == kindBool {
			return x, nil
		}
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			return x.Float64()
		}
		if kind == kindBool {
			return i != 0, nil
		}
		return i, nil
	case map[string]any:
		s, ok := x["$base64"].(string)
		if !ok || len(x) != 1 {
			return nil, fmt.Errorf("unexpected object value")
		}
		return base64.StdEncoding.DecodeString(s)
	}
	return nil, fmt.Errorf("unexpected value type %T", v)
}

// resetSequences moves each restored table's id generator past its rows
// (SQLite's AUTOINCREMENT follows explicit ids by itself).
func resetSequences(ctx context.Context, d *db.DB, tables []string) error {
	for _, t := range tables {
		pk, err := primaryKey(ctx, d, t)
		if err != nil {
			return err
		}
		if len(pk) != 1 || pk[0] != "id" {
			continue
		}
		switch d.Dialect {
		case db.Postgres:
			seq, err := strings1(ctx, d, "SELECT COALESCE(pg_get_serial_sequence(?, 'id'), '')", quote(d.Dialect, t))
			if err != nil {
				return err
			}
			if len(seq) == 0 || seq[0] == "" {
				continue
			}
			if _, err := d.Exec(ctx, "SELECT setval(?::regclass, COALESCE((SELECT MAX(id) FROM "+quote(d.Dialect, t)+"), 0) + 1, false)", seq[0]); err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
		case db.MySQL:
			max, err := d.Count(ctx, "SELECT COALESCE(MAX(id), 0) FROM "+quote(d.Dialect, t))
			if err != nil {
				return err
			}
			if _, err := d.Exec(ctx, "ALTER TABLE "+quote(d.Dialect, t)+" AUTO_INCREMENT = "+strconv.FormatInt(max+1, 10)); err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
		}
	}
	return nil
}

// repoChecker runs git fsck --connectivity-only on each restored repository
// it is given, one at a time, in the background.
type repoChecker struct {
	todo   chan string
	done   chan struct{}
	err    error // the first failure, once done is closed
	cancel context.CancelFunc
}

func newRepoChecker(ctx context.Context, inst Instance) *repoChecker {
	ctx, cancel := context.WithCancel(ctx)
	c := &repoChecker{todo: make(chan string, 1024), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(c.done)
		for repo := range c.todo {
			if c.err != nil {
				continue
			}
			p := filepath.Join(inst.Paths.Repos, repo)
			if err := inst.Git.Command("fsck", "--connectivity-only", "--no-dangling", "--no-progress").Repo(p).Run(ctx); err != nil {
				c.err = fmt.Errorf("repository %s: git fsck: %w", repo, err)
			}
		}
	}()
	return c
}

// add queues a repository whose entries are all written.
func (c *repoChecker) add(repo string) { c.todo <- repo }

// wait returns once every queued repository is checked, with the first
// failure.
func (c *repoChecker) wait() error {
	close(c.todo)
	<-c.done
	c.todo = nil
	return c.err
}

// stop abandons the checks (when the restore failed) and waits for the
// running one to end.
func (c *repoChecker) stop() {
	c.cancel()
	if c.todo != nil {
		close(c.todo)
		<-c.done
	}
}
