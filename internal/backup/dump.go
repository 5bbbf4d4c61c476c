// Package backup writes and reads Cairn's dump archive: one tar file holding a
// manifest, the database (a SQLite source's database file, copied with
// SQLite's online backup; for PostgreSQL and MySQL every table as JSON
// lines, one array of column values per row in the manifest's column
// order), the repositories (refs and the object files holding every object
// they reach), attachments, avatars, the configuration file and the SSH
// host key. Any of the three databases restores from either form.
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
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/git"
)

// FormatVersion is the layout version of the archive. Version 2 writes rows
// as JSON arrays (version 1: objects naming every column) and repositories
// as object store files (version 1: always one pack).
const FormatVersion = 2

// Manifest is the archive's first entry.
type Manifest struct {
	Format       int         `json:"format"`
	CairnVersion string      `json:"cairn_version"`
	SchemaLevel  int         `json:"schema_level"`
	Database     string      `json:"database"`
	Created      time.Time   `json:"created"`
	Tables       []TableInfo `json:"tables"`
	Repositories int         `json:"repositories"`
	// DatabaseFile names the entry holding a SQLite source's database file,
	// written instead of one entry of JSON lines per table.
	DatabaseFile string `json:"database_file,omitempty"`
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
// and copying object files that hold every object those refs reach.
func Dump(ctx context.Context, inst Instance, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := newArchive(w)
	var repoIDs []int64
	m := Manifest{Format: FormatVersion, CairnVersion: inst.Version, Database: inst.DB.Dialect.String(), Created: time.Now().UTC()}
	var snap *sqliteSnapshot
	var exp *tableExport
	defer func() {
		if snap != nil {
			snap.close()
		}
		if exp != nil {
			cancel()
			exp.close()
		}
	}()
	// The database goes last in the archive, read in a snapshot held
	// while the repositories are written.
	if inst.DB.Dialect == db.SQLite {
		// The database file itself: copied page by page, it is a tenth of
		// the work of writing every row out, and restored whole.
		var err error
		if snap, repoIDs, err = openSQLiteSnapshot(ctx, inst, &m); err != nil {
			return fmt.Errorf("database: %w", err)
		}
		m.DatabaseFile = sqliteEntry
	} else {
		// The tables, written out as rows in the background while the
		// repositories are copied.
		var err error
		if exp, repoIDs, err = startExport(ctx, inst, &m); err != nil {
			return fmt.Errorf("database: %w", err)
		}
	}
	m.Repositories = len(repoIDs)
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := a.writeBytes("manifest.json", mj); err != nil {
		return err
	}
	for _, id := range repoIDs {
		if err := dumpRepo(ctx, inst, a, id); err != nil {
			return fmt.Errorf("repository %d: %w", id, err)
		}
	}
	for _, dir := range []string{"attachments", "avatars", "ssh"} {
		if err := a.dumpDir(filepath.Join(inst.Paths.DataDir, dir), "files/"+dir); err != nil {
			return err
		}
	}
	// The instance secret decrypts webhook secrets: without it a restored
	// instance could not sign or authorize its hooks' deliveries.
	if f, err := os.Open(filepath.Join(inst.Paths.DataDir, "instance_secret")); err == nil {
		err = a.writeFile("files/instance_secret", f)
		f.Close()
		if err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if inst.Paths.ConfigFile != "" {
		if f, err := os.Open(inst.Paths.ConfigFile); err == nil {
			err = a.writeFile("config/cairn.ini", f)
			f.Close()
			if err != nil {
				return err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if snap != nil {
		if err := snap.writeTo(ctx, a.tw, sqliteEntry, a.buf); err != nil {
			return fmt.Errorf("database: %w", err)
		}
	}
	if exp != nil {
		if err := exp.writeTo(a); err != nil {
			return fmt.Errorf("database: %w", err)
		}
	}
	return a.tw.Close()
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
// SQLite full-text index tables, which restore rebuilds), sorted.
func listTables(ctx context.Context, d *db.DB) ([]string, error) {
	names, err := d.Tables(ctx)
	if err != nil {
		return nil, err
	}
	out := names[:0]
	for _, n := range names {
		if n != "schema_migration" {
			out = append(out, n)
		}
	}
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

// maxJSONArrayColumns bounds the columns SQLite's json_array is given (its
// function argument limit is 127 in older builds).
const maxJSONArrayColumns = 100

// dumpTable writes every row of table, ordered by its primary key, as one
// JSON array per line, in the column order it returns.
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
	if order != "" {
		order = " ORDER BY " + order
	}
	from := " FROM " + quote(d.Dialect, table)
	rows, err := q("SELECT *" + from + " WHERE 1 = 0")
	if err != nil {
		return info, err
	}
	types, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return info, err
	}
	kinds := make([]colKind, len(types))
	plain := d.Dialect == db.SQLite && len(types) <= maxJSONArrayColumns
	list := ""
	for i, t := range types {
		info.Columns = append(info.Columns, t.Name())
		kinds[i] = kindOf(t.DatabaseTypeName())
		if kinds[i] == kindBlob {
			plain = false
		}
		if i > 0 {
			list += ", "
		}
		list += quote(d.Dialect, t.Name())
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if plain {
		// SQLite writes the line itself: each value the driver hands over
		// costs a few calls into SQLite, each taking the connection's mutex.
		// Booleans come out as 0 and 1, which restore reads as booleans.
		rows, err := q("SELECT json_array(" + list + ")" + from + order)
		if err != nil {
			return info, err
		}
		defer rows.Close()
		var line sql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&line); err != nil {
				return info, err
			}
			bw.Write(line)
			if err := bw.WriteByte('\n'); err != nil {
				return info, err
			}
			info.Rows++
		}
		if err := rows.Err(); err != nil {
			return info, err
		}
		return info, bw.Flush()
	}
	rows, err = q("SELECT " + list + from + order)
	if err != nil {
		return info, err
	}
	defer rows.Close()
	if rawColumns(types) {
		// Values as the bytes the driver holds: none is allocated.
		vals := make([]sql.RawBytes, len(types))
		return info, writeRows(rows, vals, info.Columns, bw, &info.Rows, func(b *bytes.Buffer, i int) error {
			return appendRaw(b, vals[i], kinds[i])
		})
	}
	vals := make([]any, len(types))
	return info, writeRows(rows, vals, info.Columns, bw, &info.Rows, func(b *bytes.Buffer, i int) error {
		jv, err := portable(vals[i], kinds[i])
		if err != nil {
			return err
		}
		return appendJSON(b, jv)
	})
}

// rawColumns reports whether every column is an integer, a boolean, text or
// binary: the types whose values appendRaw writes from their bytes.
func rawColumns(types []*sql.ColumnType) bool {
	for _, t := range types {
		name := strings.ToUpper(t.DatabaseTypeName())
		if kindOf(name) == kindOther && !strings.Contains(name, "CHAR") && !strings.Contains(name, "TEXT") {
			return false
		}
	}
	return true
}

// writeRows writes each row as one JSON array per line: rows are scanned
// into vals, and appendColumn writes the i-th value of the row scanned.
// n counts the rows written.
func writeRows[T any](rows *sql.Rows, vals []T, columns []string, bw *bufio.Writer, n *int64, appendColumn func(b *bytes.Buffer, i int) error) error {
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var line bytes.Buffer
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		line.Reset()
		line.WriteByte('[')
		for i := range vals {
			if i > 0 {
				line.WriteByte(',')
			}
			if err := appendColumn(&line, i); err != nil {
				return fmt.Errorf("column %s: %w", columns[i], err)
			}
		}
		line.WriteString("]\n")
		if _, err := bw.Write(line.Bytes()); err != nil {
			return err
		}
		*n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// appendRaw writes a value scanned as bytes (nil for NULL) of a column of
// kind as portable JSON.
func appendRaw(b *bytes.Buffer, v sql.RawBytes, kind colKind) error {
	if v == nil {
		b.WriteString("null")
		return nil
	}
	switch kind {
	case kindInt:
		if !isInteger(v) {
			return fmt.Errorf("%q is not an integer", v)
		}
		b.Write(v)
	case kindBool:
		switch string(v) {
		case "1", "t", "true":
			b.WriteString("true")
		case "0", "f", "false":
			b.WriteString("false")
		default:
			return fmt.Errorf("%q is not a boolean", v)
		}
	case kindBlob:
		b.WriteString(`{"$base64":"`)
		b.Write(base64.StdEncoding.AppendEncode(b.AvailableBuffer(), v))
		b.WriteString(`"}`)
	default:
		if plainString(v) {
			b.WriteByte('"')
			b.Write(v)
			b.WriteByte('"')
			return nil
		}
		return appendJSON(b, string(v))
	}
	return nil
}

// isInteger reports whether b is a decimal integer, maybe negative.
func isInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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
func plainString[T ~string | ~[]byte](s T) bool {
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

// archive is the tar stream a dump writes, with one copy buffer for all
// its files.
type archive struct {
	tw  *tar.Writer
	buf []byte
}

func newArchive(w io.Writer) *archive {
	// Large reads: the database file and packs are hundreds of MB.
	return &archive{tw: tar.NewWriter(w), buf: make([]byte, 1<<20)}
}

// dumpDir adds the regular files under dir (if it exists) as name/....
func (a *archive) dumpDir(dir, name string) error {
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
		return a.writeFile(name+"/"+filepath.ToSlash(rel), f)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (a *archive) writeBytes(name string, b []byte) error {
	if err := a.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(b)), ModTime: time.Now(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := a.tw.Write(b)
	return err
}

// writeFile adds the whole of the open file f as name, as long as it was
// when added (a file growing meanwhile is cut there).
func (a *archive) writeFile(name string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := a.tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err = io.CopyBuffer(a.tw, io.LimitReader(f, fi.Size()), a.buf)
	return err
}
