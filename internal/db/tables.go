package db

import (
	"context"
	"database/sql"
	"sort"
	"strings"
)

// Tables returns the names of the database's ordinary tables, sorted:
// schema_migration included, SQLite's internal tables, full-text (virtual)
// tables and their shadow tables left out.
func (d *DB) Tables(ctx context.Context) ([]string, error) {
	var q string
	switch d.Dialect {
	case Postgres:
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
	case MySQL:
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'"
	default:
		q = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'"
	}
	names, err := d.strings(ctx, q)
	if err != nil {
		return nil, err
	}
	var virtual []string
	if d.Dialect == SQLite {
		if virtual, err = d.strings(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"); err != nil {
			return nil, err
		}
	}
	var out []string
next:
	for _, n := range names {
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

func (d *DB) strings(ctx context.Context, q string) ([]string, error) {
	rows, err := d.conn(ctx, false).QueryContext(ctx, q)
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

// WriteConn returns a connection of the pool writes use, for a caller that
// needs one session for a while (a bulk load with its own settings). On
// SQLite it is the only writer connection: other writes wait until it is
// closed.
func (d *DB) WriteConn(ctx context.Context) (*sql.Conn, error) {
	return d.writer.Conn(ctx)
}

// CloseIdleReaders closes the idle connections of SQLite's read pool, so
// that the writer connection can change the journal mode (leaving WAL needs
// the only connection to the file). Readers open again when next needed.
func (d *DB) CloseIdleReaders() {
	if d.Dialect != SQLite {
		return
	}
	d.reader.SetMaxIdleConns(0)
	d.reader.SetMaxIdleConns(readerPool)
}

// readerPool is the number of idle connections SQLite's read pool keeps.
const readerPool = 8
