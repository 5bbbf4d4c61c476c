// Package backup writes and reads Cairn's dump archive: one tar file holding a
// manifest, every table as JSON lines, the repositories (refs and a pack of
// exactly the objects they reach), attachments, avatars, the configuration
// file and the SSH host key.
package backup

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/git"
)

// FormatVersion is the layout version of the archive.
const FormatVersion = 1

// Manifest is the archive's first entry.
type Manifest struct {
	Format       int         `json:"format"`
	CairnVersion string      `json:"cairn_version"`
	SchemaLevel  int         `json:"schema_level"`
	Database     string      `json:"database"`
	Created      time.Time   `json:"created"`
	Tables       []TableInfo `json:"tables"`
	Repositories int         `json:"repositories"`
}

// TableInfo names one dumped table, its columns and its row count.
type TableInfo struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Rows    int64    `json:"rows"`
}

// Paths are the places of an instance's files.
type Paths struct {
	DataDir    string
	Repos      string // repository root
	ConfigFile string // may not exist
	TempDir    string
}

// Instance is what Dump and Restore work on.
type Instance struct {
	DB    *db.DB
	Git   *git.Git
	Paths Paths
	// Version is the Cairn version written into the manifest.
	Version string
	// Log receives progress lines.
	Log io.Writer
}

// Dump writes the archive of inst to w. The database is read in one snapshot;
// the repositories listed in it are then captured by recording their refs
// and packing exactly the objects those refs reach.
func Dump(ctx context.Context, inst Instance, w io.Writer) error {
	tw := tar.NewWriter(w)
	var repoIDs []int64
	var spools []*os.File
	defer func() {
		for _, f := range spools {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	m := Manifest{Format: FormatVersion, CairnVersion: inst.Version, Database: inst.DB.Dialect.String(), Created: time.Now().UTC()}
	err := inst.DB.Snapshot(ctx, func(q func(string, ...any) (*sql.Rows, error)) error {
		level, err := schemaLevel(q)
		if err != nil {
			return err
		}
		m.SchemaLevel = level
		tables, err := listTables(ctx, inst.DB)
		if err != nil {
			return err
		}
		for _, t := range tables {
			f, err := os.CreateTemp(inst.Paths.TempDir, "dump-*.jsonl")
			if err != nil {
				return err
			}
			spools = append(spools, f)
			info, err := dumpTable(ctx, inst.DB, q, t, f)
			if err != nil {
				return fmt.Errorf("table %s: %w", t, err)
			}
			m.Tables = append(m.Tables, info)
		}
		rows, err := q("SELECT id FROM repository ORDER BY id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			repoIDs = append(repoIDs, id)
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	m.Repositories = len(repoIDs)
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeBytes(tw, "manifest.json", mj); err != nil {
		return err
	}
	for i, t := range m.Tables {
		if err := writeFile(tw, "db/"+t.Name+".jsonl", spools[i]); err != nil {
			return err
		}
		spools[i].Close()
		os.Remove(spools[i].Name())
	}
	spools = nil
	for _, id := range repoIDs {
		if err := dumpRepo(ctx, inst, tw, id); err != nil {
			return fmt.Errorf("repository %d: %w", id, err)
		}
	}
	for _, dir := range []string{"attachments", "avatars", "ssh"} {
		if err := dumpDir(tw, filepath.Join(inst.Paths.DataDir, dir), "files/"+dir); err != nil {
			return err
		}
	}
	if inst.Paths.ConfigFile != "" {
		if f, err := os.Open(inst.Paths.ConfigFile); err == nil {
			err = writeFile(tw, "config/cairn.ini", f)
			f.Close()
			if err != nil {
				return err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return tw.Close()
}

// schemaLevel is the highest applied migration.
func schemaLevel(q func(string, ...any) (*sql.Rows, error)) (int, error) {
	rows, err := q("SELECT COALESCE(MAX(version), 0) FROM schema_migration")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	level := 0
	if rows.Next() {
		if err := rows.Scan(&level); err != nil {
			return 0, err
		}
	}
	return level, rows.Err()
}

// listTables returns Cairn's ordinary tables (no schema_migration, no
// SQLite full-text index tables, which triggers rebuild on restore), sorted.
func listTables(ctx context.Context, d *db.DB) ([]string, error) {
	var q string
	switch d.Dialect {
	case db.Postgres:
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
	case db.MySQL:
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'"
	default:
		q = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
	}
	names, err := strings1(ctx, d, q)
	if err != nil {
		return nil, err
	}
	var virtual []string
	if d.Dialect == db.SQLite {
		if virtual, err = strings1(ctx, d, "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"); err != nil {
			return nil, err
		}
	}
	var out []string
next:
	for _, n := range names {
		if n == "schema_migration" {
			continue
		}
		for _, v := range virtual { // shadow tables of a full-text index
			if strings.HasPrefix(n, v+"_") {
				continue next
			}
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

func strings1(ctx context.Context, d *db.DB, q string, args ...any) ([]string, error) {
	rows, err := d.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// primaryKey returns the primary key columns of table, in key order.
func primaryKey(ctx context.Context, d *db.DB, table string) ([]string, error) {
	switch d.Dialect {
	case db.Postgres, db.MySQL:
		schema := "current_schema()"
		if d.Dialect == db.MySQL {
			schema = "DATABASE()"
		}
		return strings1(ctx, d, `SELECT k.column_name FROM information_schema.table_constraints c
			JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema AND k.table_name = c.table_name
			WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = `+schema+` AND c.table_name = ? ORDER BY k.ordinal_position`, table)
	}
	return strings1(ctx, d, "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", table)
}

// quote quotes an identifier for d.
func quote(d db.Dialect, name string) string {
	if d == db.MySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// colKind is how a column's values are written.
type colKind int

const (
	kindOther colKind = iota
	kindInt
	kindBool
	kindBlob
)

func kindOf(typeName string) colKind {
	t := strings.ToUpper(typeName)
	switch {
	case strings.Contains(t, "BOOL"):
		return kindBool
	case strings.Contains(t, "INT") || t == "SERIAL" || t == "BIGSERIAL":
		return kindInt
	case strings.Contains(t, "BLOB") || t == "BYTEA" || t == "BINARY" || t == "VARBINARY":
		return kindBlob
	}
	return kindOther
}

// dumpTable writes every row of table, ordered by its primary key, as one
// JSON object per line with every column by name.
func dumpTable(ctx context.Context, d *db.DB, q func(string, ...any) (*sql.Rows, error), table string, w io.Writer) (TableInfo, error) {
	info := TableInfo{Name: table}
	pk, err := primaryKey(ctx, d, table)
	if err != nil {
		return info, err
	}
	order := ""
	for i, c := range pk {
		if i > 0 {
			order += ", "
		}
		order += quote(d.Dialect, c)
	}
	query := "SELECT * FROM " + quote(d.Dialect, table)
	if order != "" {
		query += " ORDER BY " + order
	}
	rows, err := q(query)
	if err != nil {
		return info, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return info, err
	}
	kinds := make([]colKind, len(types))
	keys := make([][]byte, len(types))
	for i, t := range types {
		info.Columns = append(info.Columns, t.Name())
		kinds[i] = kindOf(t.DatabaseTypeName())
		keys[i], _ = json.Marshal(t.Name())
	}
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var line bytes.Buffer
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return info, err
		}
		line.Reset()
		line.WriteByte('{')
		for i, v := range vals {
			if i > 0 {
				line.WriteByte(',')
			}
			line.Write(keys[i])
			line.WriteByte(':')
			jv, err := portable(v, kinds[i])
			if err != nil {
				return info, fmt.Errorf("column %s: %w", info.Columns[i], err)
			}
			if err := appendJSON(&line, jv); err != nil {
				return info, err
			}
		}
		line.WriteString("}\n")
		if _, err := bw.Write(line.Bytes()); err != nil {
			return info, err
		}
		info.Rows++
	}
	if err := rows.Err(); err != nil {
		return info, err
	}
	return info, bw.Flush()
}

// appendJSON writes v as JSON; the common types without reflection.
func appendJSON(b *bytes.Buffer, v any) error {
	var tmp [24]byte
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
		return nil
	case int64:
		b.Write(strconv.AppendInt(tmp[:0], x, 10))
		return nil
	case bool:
		b.Write(strconv.AppendBool(tmp[:0], x))
		return nil
	case string:
		if plainString(x) {
			b.WriteByte('"')
			b.WriteString(x)
			b.WriteByte('"')
			return nil
		}
	}
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(j)
	return nil
}

// plainString reports whether s is printable ASCII needing no JSON escape.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// blobValue is how binary column values appear in the JSON lines.
type blobValue struct {
	B64 string `json:"$base64"`
}

// portable converts a scanned value into the JSON form every dialect reads back.
func portable(v any, kind colKind) (any, error) {
	if n, ok := v.(int64); ok && kind == kindBool {
		return n != 0, nil
	}
	switch x := v.(type) {
	case nil, int64, float64, bool:
		return x, nil
	case int32:
		return int64(x), nil
	case string:
		return x, nil
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), nil
	case []byte:
		switch kind {
		case kindBlob:
			return blobValue{base64.StdEncoding.EncodeToString(x)}, nil
		case kindInt, kindBool:
			n, err := strconv.ParseInt(string(x), 10, 64)
			if err != nil {
				return nil, err
			}
			return n, nil
		}
		return string(x), nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// dumpRepo records the refs of repository id, then packs exactly the objects
// they reach: objects are only ever added, and a ref recorded here points at
// objects present now, so the archive's refs resolve whatever happens later.
func dumpRepo(ctx context.Context, inst Instance, tw *tar.Writer, id int64) error {
	path := filepath.Join(inst.Paths.Repos, strconv.FormatInt(id, 10)+".git")
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("the repository's directory is missing (deleted during the dump? run it again): %w", err)
	}
	prefix := "repositories/" + strconv.FormatInt(id, 10) + ".git/"
	format, err := inst.Git.Command("rev-parse", "--show-object-format").Repo(path).Output(ctx)
	if err != nil {
		return err
	}
	refs, err := inst.Git.Command("for-each-ref", "--format=%(objectname) %(refname)").Repo(path).Output(ctx)
	if err != nil {
		return err
	}
	if err := writeBytes(tw, prefix+"object-format", bytes.TrimSpace(format)); err != nil {
		return err
	}
	for _, name := range []string{"config", "HEAD"} {
		b, err := os.ReadFile(filepath.Join(path, name))
		if err != nil {
			return err
		}
		if err := writeBytes(tw, prefix+name, b); err != nil {
			return err
		}
	}
	if len(bytes.TrimSpace(refs)) > 0 {
		tips := map[string]bool{}
		var stdin bytes.Buffer
		for _, l := range strings.Split(strings.TrimSpace(string(refs)), "\n") {
			oid, _, _ := strings.Cut(l, " ")
			if !tips[oid] {
				tips[oid] = true
				stdin.WriteString(oid + "\n")
			}
		}
		f, err := os.CreateTemp(inst.Paths.TempDir, "dump-*.pack")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		// Packed objects and deltas are copied as they are; loose ones are
		// compressed at git's loose-object level, without a delta search.
		err = inst.Git.Command("pack-objects", "--stdout", "--revs", "--delta-base-offset", "--window=0", "-q").
			Config("pack.compression", "1").Repo(path).Stdin(&stdin).Stdout(f).Run(ctx)
		if err != nil {
			return err
		}
		if err := writeFile(tw, prefix+"objects.pack", f); err != nil {
			return err
		}
	}
	return writeBytes(tw, prefix+"refs", refs)
}

// dumpDir adds the regular files under dir (if it exists) as name/....
func dumpDir(tw *tar.Writer, dir, name string) error {
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !e.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) { // removed meanwhile
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		return writeFile(tw, name+"/"+filepath.ToSlash(rel), f)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func writeBytes(tw *tar.Writer, name string, b []byte) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(b)), ModTime: time.Now(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := tw.Write(b)
	return err
}

// writeFile adds the whole of the open file f as name, as long as it was
// when added (a file growing meanwhile is cut there).
func writeFile(tw *tar.Writer, name string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err = io.CopyN(tw, f, fi.Size())
	return err
}
