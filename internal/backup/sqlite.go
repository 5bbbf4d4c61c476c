package backup

import (
	"archive/tar"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"modernc.org/sqlite"
)

// sqliteEntry is the archive entry holding a SQLite source's database file.
const sqliteEntry = "db/cairn.sqlite"

// backuper and restorer are what the SQLite driver's connections offer for
// SQLite's online backup (sqlite3_backup_*).
type backuper interface {
	NewBackup(dstURI string) (*sqlite.Backup, error)
}

type restorer interface {
	NewRestore(srcURI string) (*sqlite.Backup, error)
}

// sqliteSnapshot is a read transaction on a SQLite source, on a connection
// of its own: the manifest, the repository list and the database file in the
// archive are all read in it.
type sqliteSnapshot struct {
	sdb  *sql.DB
	conn *sql.Conn
}

// openSQLiteSnapshot starts a read transaction on the database of inst, a
// SQLite one, and fills m (schema level, tables with their columns and row
// counts) and the repository ids from it. Writers are not blocked (WAL).
func openSQLiteSnapshot(ctx context.Context, inst Instance, m *Manifest) (*sqliteSnapshot, []int64, error) {
	var seq int
	var name, src string
	if err := inst.DB.QueryRow(ctx, "SELECT seq, name, file FROM pragma_database_list WHERE name = 'main'").Scan(&seq, &name, &src); err != nil {
		return nil, nil, err
	}
	if src == "" {
		return nil, nil, errors.New("the SQLite database has no file")
	}
	tables, err := listTables(ctx, inst.DB)
	if err != nil {
		return nil, nil, err
	}
	// A connection of its own, read-only, so the server's pools are untouched.
	sdb, err := sql.Open("sqlite", "file:"+src+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return nil, nil, err
	}
	sdb.SetMaxOpenConns(1)
	s := &sqliteSnapshot{sdb: sdb}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	if s.conn, err = sdb.Conn(ctx); err != nil {
		return nil, nil, err
	}
	// A plain BEGIN is deferred: the snapshot starts with the first read.
	if _, err := s.conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, nil, err
	}
	q := func(query string, args ...any) (*sql.Rows, error) { return s.conn.QueryContext(ctx, query, args...) }
	ids, err := snapshotFacts(q, db.SQLite, tables, m)
	if err != nil {
		return nil, nil, err
	}
	ok = true
	return s, ids, nil
}

// snapshotFacts reads what the manifest says of the database through q, a
// snapshot: the schema level and each table's columns and row count, and
// returns the repositories' ids.
func snapshotFacts(q func(string, ...any) (*sql.Rows, error), d db.Dialect, tables []string, m *Manifest) ([]int64, error) {
	var err error
	if m.SchemaLevel, err = schemaLevel(q); err != nil {
		return nil, err
	}
	for _, t := range tables {
		info := TableInfo{Name: t}
		rows, err := q("SELECT * FROM " + quote(d, t) + " WHERE 1 = 0")
		if err != nil {
			return nil, err
		}
		info.Columns, err = rows.Columns()
		rows.Close()
		if err != nil {
			return nil, err
		}
		if info.Rows, err = count(q, "SELECT COUNT(*) FROM "+quote(d, t)); err != nil {
			return nil, err
		}
		m.Tables = append(m.Tables, info)
	}
	return repositoryIDs(q)
}

// writeTo adds the database file, as the snapshot sees it, to the archive
// as name. Its pages are read through the snapshot's own transaction
// (SQLite's sqlite_dbpage table) and streamed into the archive: nothing is
// written twice, and the file is the very state the manifest counted. buf
// (its capacity) gathers pages into larger writes.
func (s *sqliteSnapshot) writeTo(ctx context.Context, tw *tar.Writer, name string, buf []byte) error {
	var pageSize, pages int64
	if err := s.conn.QueryRowContext(ctx, "SELECT page_size, page_count FROM pragma_page_size, pragma_page_count").Scan(&pageSize, &pages); err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: pageSize * pages, ModTime: time.Now(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	rows, err := s.conn.QueryContext(ctx, "SELECT pgno, data FROM sqlite_dbpage WHERE pgno BETWEEN 1 AND ? ORDER BY pgno", pages)
	if err != nil {
		return err
	}
	defer rows.Close()
	// Pages are gathered in buf and written a buffer at a time: one write
	// per 4 KiB page made the dump's system time twice tar's.
	chunk := buf[:0]
	var want int64 = 1
	for rows.Next() {
		var pgno int64
		var data sql.RawBytes
		if err := rows.Scan(&pgno, &data); err != nil {
			return err
		}
		if pgno != want || int64(len(data)) != pageSize {
			return fmt.Errorf("page %d of the database: got page %d of %d bytes", want, pgno, len(data))
		}
		if len(chunk)+len(data) > cap(chunk) && len(chunk) > 0 {
			if _, err := tw.Write(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
		start := len(chunk)
		chunk = append(chunk, data...)
		if pgno == 1 {
			// The copy is a plain rollback-journal file, which opens
			// anywhere without its WAL companions: bytes 18 and 19 of the
			// header are the file format's write and read versions (2 is
			// WAL, 1 the legacy journal).
			chunk[start+18], chunk[start+19] = 1, 1
		}
		want++
	}
	if _, err := tw.Write(chunk); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if want != pages+1 {
		return fmt.Errorf("the database has %d pages, %d were read", pages, want-1)
	}
	return nil
}

// close ends the read transaction.
func (s *sqliteSnapshot) close() {
	if s.conn != nil {
		s.conn.ExecContext(context.Background(), "ROLLBACK")
		s.conn.Close()
	}
	s.sdb.Close()
}

// removeSQLite removes a database file and its WAL companions.
func removeSQLite(p string) {
	for _, s := range []string{"", "-wal", "-shm", "-journal"} {
		os.Remove(p + s)
	}
}

// count runs a query answering one number.
func count(q func(string, ...any) (*sql.Rows, error), query string) (int64, error) {
	rows, err := q(query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}

// repositoryIDs lists the repositories' ids in order.
func repositoryIDs(q func(string, ...any) (*sql.Rows, error)) ([]int64, error) {
	rows, err := q("SELECT id FROM repository ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// restoreSQLiteFile fills the target database from the dumped SQLite file
// read from r: a SQLite target takes it whole with SQLite's online backup
// (pages copied, full-text indexes included); PostgreSQL and MySQL get its
// tables row by row, read as dump writes them and loaded by ld.
func restoreSQLiteFile(ctx context.Context, inst Instance, m *Manifest, r io.Reader, ld func() (*loader, error)) error {
	if err := os.MkdirAll(inst.Paths.TempDir, 0o750); err != nil {
		return err
	}
	f, err := os.CreateTemp(inst.Paths.TempDir, "restore-*.sqlite")
	if err != nil {
		return err
	}
	path := f.Name()
	defer removeSQLite(path)
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if inst.DB.Dialect == db.SQLite {
		conn, err := inst.DB.WriteConn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		// Neither journaled nor synced until the end: acceptable only
		// because the target is empty and a failed restore is redone from
		// scratch (Restore refuses a partly filled target and says what to
		// delete). Leaving WAL mode, which would write every page twice,
		// needs the only connection to the file: if a reader is busy, WAL
		// stays.
		inst.DB.CloseIdleReaders()
		_, _ = conn.ExecContext(ctx, "PRAGMA journal_mode = OFF")
		if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = OFF"); err != nil {
			return err
		}
		err = conn.Raw(func(dc any) error {
			rs, ok := dc.(restorer)
			if !ok {
				return errors.New("the SQLite driver offers no online backup")
			}
			bk, err := rs.NewRestore("file:" + path)
			if err != nil {
				return err
			}
			if _, err := bk.Step(-1); err != nil {
				bk.Finish()
				return err
			}
			return bk.Finish()
		})
		if err != nil {
			return err
		}
		for _, p := range []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA synchronous = NORMAL"} {
			if _, err := conn.ExecContext(ctx, p); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		return nil
	}
	cp, err := db.Open(ctx, "sqlite:"+path, inst.Paths.TempDir)
	if err != nil {
		return err
	}
	defer cp.Close()
	l, err := ld()
	if err != nil {
		return err
	}
	q := func(query string, args ...any) (*sql.Rows, error) { return cp.Query(ctx, query, args...) }
	for _, t := range m.Tables {
		pr, pw := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err := dumpTable(ctx, cp, q, t.Name, pw)
			pw.CloseWithError(err)
		}()
		n, err := l.table(ctx, t, FormatVersion, pr)
		pr.CloseWithError(errors.New("load stopped"))
		<-done
		if err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		if n != t.Rows {
			return fmt.Errorf("table %s: %d rows read, the manifest says %d", t.Name, n, t.Rows)
		}
		fmt.Fprintf(inst.Log, "restored table %s (%d rows)\n", t.Name, n)
	}
	return nil
}
