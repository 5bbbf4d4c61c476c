package backup

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
)

// Bounds of one multi-row INSERT: rows, bound values (each database's
// placeholder limit: SQLite 32766, PostgreSQL and MySQL 65535) and bytes of
// text.
const (
	batchRows  = 1000
	batchBytes = 8 << 20
)

// maxPlaceholders is the number of values one statement may bind.
func maxPlaceholders(d db.Dialect) int {
	if d == db.SQLite {
		return 32766
	}
	return 65535
}

// loader fills the tables of a freshly migrated database on one writer
// connection. While it works, triggers are off (the dumped rows already hold
// everything triggers derive) and, on SQLite, so are the journal and syncs;
// finish turns them back on and rebuilds SQLite's full-text indexes, or
// starts building PostgreSQL's dropped indexes, which wait awaits.
type loader struct {
	d    *db.DB
	conn *sql.Conn
	log  io.Writer
	// triggers holds SQLite's dropped triggers and indexes (their CREATE
	// statements).
	triggers []string
	// disabled holds the PostgreSQL tables whose triggers are disabled.
	disabled []string
	// indexes holds the PostgreSQL and MySQL indexes dropped for the load.
	indexes []looseIndex
	done    bool
	// building is closed when finish's index builds are over, with
	// buildErr their failure; cancelBuild stops them.
	building    chan struct{}
	buildErr    error
	cancelBuild context.CancelFunc
}

// newLoader takes a writer connection and prepares it for a bulk load.
//
// On SQLite the journal is off and writes are not synced: a crash or a
// failed statement can leave the database file damaged. That is acceptable
// only because a restore works on an empty instance and a failed restore is
// redone from scratch (Restore refuses a partly filled target and says what
// to delete).
func newLoader(ctx context.Context, inst Instance) (*loader, error) {
	conn, err := inst.DB.WriteConn(ctx)
	if err != nil {
		return nil, err
	}
	l := &loader{d: inst.DB, conn: conn, log: inst.Log}
	if err := bulkSession(ctx, inst.DB.Dialect, conn); err != nil {
		conn.Close()
		return nil, err
	}
	if inst.DB.Dialect != db.SQLite {
		return l, nil
	}
	// Leaving WAL mode needs the only connection to the file; if a reader
	// is busy it stays on, which costs a second write of every page.
	inst.DB.CloseIdleReaders()
	_, _ = conn.ExecContext(ctx, "PRAGMA journal_mode = OFF")
	for _, p := range []string{"PRAGMA synchronous = OFF", "PRAGMA cache_size = -65536"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	// Triggers and the indexes a CREATE INDEX made (not those of primary
	// keys and UNIQUE constraints, which have no sql) are dropped and made
	// again by finish: an index built once over the loaded rows costs less
	// than one kept in step row by row.
	rows, err := conn.QueryContext(ctx, "SELECT name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') AND sql IS NOT NULL ORDER BY type DESC, name")
	if err != nil {
		conn.Close()
		return nil, err
	}
	var names []string
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			rows.Close()
			conn.Close()
			return nil, err
		}
		names = append(names, name)
		l.triggers = append(l.triggers, stmt)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		conn.Close()
		return nil, err
	}
	for i, n := range names {
		kind := "TRIGGER "
		if strings.HasPrefix(strings.ToUpper(l.triggers[i]), "CREATE INDEX") || strings.HasPrefix(strings.ToUpper(l.triggers[i]), "CREATE UNIQUE INDEX") {
			kind = "INDEX "
		}
		if _, err := conn.ExecContext(ctx, "DROP "+kind+quote(db.SQLite, n)); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return l, nil
}

// finish restores the triggers, rebuilds SQLite's full-text indexes from the
// loaded rows and puts the journal back. It runs once; later calls do nothing.
func (l *loader) finish(ctx context.Context) error {
	if l.done {
		return nil
	}
	l.done = true
	for _, t := range l.disabled {
		if _, err := l.conn.ExecContext(ctx, "ALTER TABLE "+quote(db.Postgres, t)+" ENABLE TRIGGER USER"); err != nil {
			return err
		}
	}
	if len(l.indexes) > 0 {
		l.startBuilds(ctx)
	}
	if l.d.Dialect != db.SQLite {
		return nil
	}
	for _, stmt := range l.triggers {
		if _, err := l.conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("recreating a trigger or an index: %w", err)
		}
	}
	rows, err := l.conn.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'")
	if err != nil {
		return err
	}
	var fts []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		fts = append(fts, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range fts {
		q := quote(db.SQLite, n)
		if _, err := l.conn.ExecContext(ctx, "INSERT INTO "+q+"("+q+") VALUES ('rebuild')"); err != nil {
			return fmt.Errorf("rebuilding %s: %w", n, err)
		}
	}
	for _, p := range []string{"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"} {
		if _, err := l.conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}

// wait returns once the indexes finish started are built, with their
// failure.
func (l *loader) wait() error {
	if l.building == nil {
		return nil
	}
	<-l.building
	return l.buildErr
}

// close stops what finish started and gives the connection back.
func (l *loader) close() {
	if l.cancelBuild != nil {
		l.cancelBuild()
		<-l.building
	}
	l.conn.Close()
}

// table inserts the JSON lines of table t (archive format version format)
// in one transaction, in multi-row INSERTs prepared once per batch size,
// keeping every id. It returns the number of rows read.
func (l *loader) table(ctx context.Context, t TableInfo, format int, r io.Reader) (int64, error) {
	d := l.d
	rows, err := l.conn.QueryContext(ctx, "SELECT * FROM "+quote(d.Dialect, t.Name)+" WHERE 1 = 0")
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
	// src[i] is the position in a dumped row of the i-th inserted column.
	var src []int
	var kinds []colKind
	var names []string
	for i, c := range t.Columns {
		k, ok := have[c]
		if !ok {
			// A dialect-only column (PostgreSQL's search_version cache).
			fmt.Fprintf(l.log, "table %s: column %s does not exist here, not restored\n", t.Name, c)
			continue
		}
		src = append(src, i)
		kinds = append(kinds, k)
		names = append(names, quote(d.Dialect, c))
	}
	if len(names) == 0 {
		return 0, errors.New("no column of the dump exists here")
	}
	if d.Dialect == db.Postgres && !l.done {
		if _, err := l.conn.ExecContext(ctx, "ALTER TABLE "+quote(d.Dialect, t.Name)+" DISABLE TRIGGER USER"); err != nil {
			return 0, err
		}
		l.disabled = append(l.disabled, t.Name)
	}
	row := make([]any, len(t.Columns))
	next := rowReader(r, format, t.Columns, row)
	if d.Dialect == db.Postgres {
		return l.copyTable(ctx, t, src, kinds, row, next)
	}
	if d.Dialect == db.MySQL && !l.done {
		if err := l.dropMySQLIndexes(ctx, t.Name); err != nil {
			return 0, err
		}
	}
	perBatch := min(batchRows, maxPlaceholders(d.Dialect)/len(names))
	head := "INSERT INTO " + quote(d.Dialect, t.Name) + " (" + strings.Join(names, ", ") + ") VALUES "
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ") + ")"
	tx, err := l.conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	args := make([]any, 0, perBatch*len(names))
	pending, size := 0, 0
	flush := func() error {
		if pending == 0 {
			return nil
		}
		st := stmts[pending]
		if st == nil {
			q := head + strings.TrimSuffix(strings.Repeat(one+", ", pending), ", ")
			if st, err = tx.PrepareContext(ctx, d.Rebind(q)); err != nil {
				return err
			}
			if pending == perBatch {
				stmts[pending] = st // the other sizes are rare
			} else {
				defer st.Close()
			}
		}
		_, err := st.ExecContext(ctx, args...)
		clear(args)
		args, pending, size = args[:0], 0, 0
		return err
	}
	var n int64
	for {
		ok, err := next()
		if err != nil {
			return n, fmt.Errorf("row %d: %w", n+1, err)
		}
		if !ok {
			break
		}
		for i, j := range src {
			v, err := toColumn(row[j], kinds[i])
			if err != nil {
				return n, fmt.Errorf("row %d, column %s: %w", n+1, t.Columns[j], err)
			}
			if s, ok := v.(string); ok {
				size += len(s)
			}
			args = append(args, v)
		}
		pending++
		n++
		if pending >= perBatch || size >= batchBytes {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := flush(); err != nil {
		return n, err
	}
	return n, tx.Commit()
}

// rowReader returns a function reading the next row of r into row: false
// at the end. Format 1 lines are objects naming every column (read in the
// order of columns), format 2 lines arrays.
func rowReader(r io.Reader, format int, columns []string, row []any) func() (bool, error) {
	if format == 1 {
		dec := json.NewDecoder(bufio.NewReaderSize(r, 256<<10))
		dec.UseNumber()
		return func() (bool, error) {
			var m map[string]any
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				return false, nil
			} else if err != nil {
				return false, err
			}
			for i, c := range columns {
				row[i] = m[c]
			}
			return true, nil
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256<<10), 1<<30)
	return func() (bool, error) {
		for sc.Scan() {
			if line := sc.Bytes(); len(line) > 0 {
				return true, parseRow(line, row)
			}
		}
		return false, sc.Err()
	}
}

// toColumn turns a value read from a row into what a column of kind takes.
func toColumn(v any, kind colKind) (any, error) {
	switch x := v.(type) {
	case nil, string, float64, []byte:
		return x, nil
	case int64:
		if kind == kindBool {
			return x != 0, nil
		}
		return x, nil
	case bool:
		if kind == kindBool {
			return x, nil
		}
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	}
	return fromPortable(v, kind)
}

// parseRow reads a format 2 line, a JSON array of scalars and binary values
// ({"$base64": "..."}), into row, which must have as many elements.
// Numbers come back as int64 (or float64 when not integers), strings
// without escapes without passing through the JSON decoder.
func parseRow(line []byte, row []any) error {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '[' {
		return errors.New("not a JSON array")
	}
	i++
	for k := range row {
		i = skipSpace(line, i)
		if k > 0 {
			if i >= len(line) || line[i] != ',' {
				return fmt.Errorf("%d values, %d expected", k, len(row))
			}
			i = skipSpace(line, i+1)
		}
		if i >= len(line) {
			return errors.New("truncated line")
		}
		v, next, err := parseValue(line, i)
		if err != nil {
			return fmt.Errorf("value %d: %w", k+1, err)
		}
		row[k], i = v, next
	}
	i = skipSpace(line, i)
	if i >= len(line) || line[i] != ']' || skipSpace(line, i+1) != len(line) {
		return fmt.Errorf("more than %d values, or text after the array", len(row))
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// parseValue reads the JSON value starting at b[i] and returns it with the
// position after it.
func parseValue(b []byte, i int) (any, int, error) {
	switch c := b[i]; {
	case c == 'n' && hasAt(b, i, "null"):
		return nil, i + 4, nil
	case c == 't' && hasAt(b, i, "true"):
		return true, i + 4, nil
	case c == 'f' && hasAt(b, i, "false"):
		return false, i + 5, nil
	case c == '"':
		escaped := false
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				escaped = true
				j++
			case '"':
				if !escaped {
					return string(b[i+1 : j]), j + 1, nil
				}
				var s string
				if err := json.Unmarshal(b[i:j+1], &s); err != nil {
					return nil, 0, err
				}
				return s, j + 1, nil
			}
		}
		return nil, 0, errors.New("unterminated string")
	case c == '{':
		end := bytes.IndexByte(b[i:], '}')
		if end < 0 {
			return nil, 0, errors.New("unterminated object")
		}
		var obj map[string]string
		if err := json.Unmarshal(b[i:i+end+1], &obj); err != nil {
			return nil, 0, err
		}
		s, ok := obj["$base64"]
		if !ok || len(obj) != 1 {
			return nil, 0, errors.New("unexpected object value")
		}
		v, err := base64.StdEncoding.DecodeString(s)
		return v, i + end + 1, err
	case c == '-' || (c >= '0' && c <= '9'):
		j, integer := i+1, true
		for ; j < len(b); j++ {
			if d := b[j]; d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-' {
				integer = false
			} else if d < '0' || d > '9' {
				break
			}
		}
		if integer {
			if n, err := strconv.ParseInt(string(b[i:j]), 10, 64); err == nil {
				return n, j, nil
			}
		}
		f, err := strconv.ParseFloat(string(b[i:j]), 64)
		return f, j, err
	}
	return nil, 0, fmt.Errorf("unexpected character %q", b[i])
}

func hasAt(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}
