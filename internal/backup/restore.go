package backup

import (
	"archive/tar"
	"bufio"
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

// batchRows and batchBytes bound one multi-row INSERT.
const (
	batchRows  = 500
	batchBytes = 4 << 20
)

// Restore rebuilds the empty instance inst from the archive r: the database
// (migrated to the dump's level, then filled table by table), the
// repositories, attachments, avatars and SSH host key. The dumped
// configuration file is written next to the target's as cairn.ini.dumped.
// Every repository is checked with git fsck --connectivity-only.
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
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("dump format %d is not supported (this Cairn reads format %d)", m.Format, FormatVersion)
	}
	if err := opts.Migrate(ctx, m.SchemaLevel); err != nil {
		return nil, err
	}
	tables := map[string]TableInfo{}
	for _, t := range m.Tables {
		tables[t.Name] = t
	}
	var restored []string
	repos := map[string]bool{}
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
		switch {
		case strings.HasPrefix(name, "db/") && strings.HasSuffix(name, ".jsonl"):
			t, ok := tables[strings.TrimSuffix(strings.TrimPrefix(name, "db/"), ".jsonl")]
			if !ok {
				return nil, fmt.Errorf("archive entry %q is not in the manifest", name)
			}
			n, err := restoreTable(ctx, inst, t, tr)
			if err != nil {
				return nil, fmt.Errorf("table %s: %w", t.Name, err)
			}
			if n != t.Rows {
				return nil, fmt.Errorf("table %s: %d rows read, the manifest says %d", t.Name, n, t.Rows)
			}
			restored = append(restored, t.Name)
			fmt.Fprintf(inst.Log, "restored table %s (%d rows)\n", t.Name, n)
		case strings.HasPrefix(name, "repositories/"):
			repo, file, ok := strings.Cut(strings.TrimPrefix(name, "repositories/"), "/")
			id, found := strings.CutSuffix(repo, ".git")
			if _, err := strconv.ParseInt(id, 10, 64); !ok || !found || err != nil || strings.Contains(file, "/") {
				return nil, fmt.Errorf("unexpected archive entry %q", hdr.Name)
			}
			if err := restoreRepoEntry(ctx, inst, filepath.Join(inst.Paths.Repos, repo), file, tr); err != nil {
				return nil, fmt.Errorf("repository %s: %w", repo, err)
			}
			repos[repo] = true
		case strings.HasPrefix(name, "files/attachments/") || strings.HasPrefix(name, "files/avatars/") || strings.HasPrefix(name, "files/ssh/"):
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
	if err := resetSequences(ctx, inst.DB, restored); err != nil {
		return nil, err
	}
	if len(repos) != m.Repositories {
		return nil, fmt.Errorf("the archive holds %d repositories, the manifest says %d: it is incomplete", len(repos), m.Repositories)
	}
	for repo := range repos {
		p := filepath.Join(inst.Paths.Repos, repo)
		if err := inst.Git.Command("fsck", "--connectivity-only", "--no-dangling", "--no-progress").Repo(p).Run(ctx); err != nil {
			return nil, fmt.Errorf("repository %s: git fsck: %w", repo, err)
		}
	}
	fmt.Fprintf(inst.Log, "restored %d repositories, all connected\n", len(repos))
	return &m, nil
}

// restoreRepoEntry handles one file of a dumped repository; entries come in
// the order Dump writes them (object-format, config, HEAD, objects.pack, refs).
func restoreRepoEntry(ctx context.Context, inst Instance, dir, file string, r io.Reader) error {
	switch file {
	case "object-format":
		b, err := io.ReadAll(io.LimitReader(r, 64))
		if err != nil {
			return err
		}
		if _, err := os.Stat(dir); err == nil {
			return fmt.Errorf("%s already exists", dir)
		}
		return inst.Git.Command("init", "--bare", "-q").Option("--object-format", strings.TrimSpace(string(b))).Paths(dir).Run(ctx)
	case "config", "HEAD":
		return placeFile(filepath.Join(dir, file), r, 0o644)
	case "objects.pack":
		return inst.Git.Command("index-pack", "--stdin").Repo(dir).Stdin(r).Stdout(io.Discard).Run(ctx)
	case "refs":
		// "<oid> <ref>" lines are the packed-refs format.
		return placeFile(filepath.Join(dir, "packed-refs"), r, 0o644)
	}
	return fmt.Errorf("unexpected file %q", file)
}

// placeFile writes r to p (creating its directory), refusing to overwrite.
func placeFile(p string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if base := filepath.Base(p); base == "config" || base == "HEAD" {
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

// targetColumn is a column of the restored table.
type targetColumn struct {
	name string
	kind colKind
}

// restoreTable inserts the JSON lines of one table in one transaction, in
// multi-row INSERTs, keeping every id.
func restoreTable(ctx context.Context, inst Instance, t TableInfo, r io.Reader) (int64, error) {
	d := inst.DB
	rows, err := d.Query(ctx, "SELECT * FROM "+quote(d.Dialect, t.Name)+" WHERE 1 = 0")
	if err != nil {
		return 0, err
	}
	types, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return 0, err
	}
	have := map[string]colKind{}
	for _, ct := range types {
		have[ct.Name()] = kindOf(ct.DatabaseTypeName())
	}
	var cols []targetColumn
	for _, c := range t.Columns {
		k, ok := have[c]
		if !ok {
			// A dialect-only column (PostgreSQL's search_version cache).
			fmt.Fprintf(inst.Log, "table %s: column %s does not exist here, not restored\n", t.Name, c)
			continue
		}
		cols = append(cols, targetColumn{c, k})
	}
	head := "INSERT INTO " + quote(d.Dialect, t.Name) + " ("
	for i, c := range cols {
		if i > 0 {
			head += ", "
		}
		head += quote(d.Dialect, c.name)
	}
	head += ") VALUES "
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	var n int64
	err = d.WithTx(ctx, func(ctx context.Context) error {
		dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
		dec.UseNumber()
		var args []any
		var sql strings.Builder
		pending, size := 0, 0
		flush := func() error {
			if pending == 0 {
				return nil
			}
			_, err := d.Exec(ctx, sql.String(), args...)
			args, pending, size = args[:0], 0, 0
			sql.Reset()
			return err
		}
		for {
			var row map[string]any
			if err := dec.Decode(&row); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return fmt.Errorf("row %d: %w", n+1, err)
			}
			if pending == 0 {
				sql.WriteString(head)
			} else {
				sql.WriteString(", ")
			}
			sql.WriteString(one)
			for _, c := range cols {
				v, err := fromPortable(row[c.name], c.kind)
				if err != nil {
					return fmt.Errorf("row %d, column %s: %w", n+1, c.name, err)
				}
				if s, ok := v.(string); ok {
					size += len(s)
				}
				args = append(args, v)
			}
			pending++
			n++
			if pending >= batchRows || size >= batchBytes {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	})
	return n, err
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
