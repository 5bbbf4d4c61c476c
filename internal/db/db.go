// Package db owns the database connection: the three dialects (SQLite,
// PostgreSQL, MySQL/MariaDB), placeholder rebinding, transactions carried in the
// context, per-request query counting and the numbered migrations.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver
	_ "modernc.org/sqlite"           // SQLite driver (pure Go)
)

// Dialect names the SQL flavour of the connected server.
type Dialect int

// The supported dialects.
const (
	SQLite Dialect = iota
	Postgres
	MySQL
)

func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	default:
		return "sqlite"
	}
}

// DB is the handle every storage function receives. Queries use "?" placeholders;
// DB rewrites them for PostgreSQL. A transaction started with WithTx travels in
// the context, and every query made with that context joins it.
type DB struct {
	Dialect Dialect
	// writer serves writes and transactions; on SQLite it has one connection so
	// writers queue in Go instead of failing with "database is locked".
	writer *sql.DB
	// reader serves plain reads; on SQLite a pool of WAL readers.
	reader *sql.DB
	// stmts caches prepared statements on SQLite, whose driver would otherwise
	// parse every query again (half of the time of a simple request).
	stmts *stmtCache
}

// Open connects to the database named by url, or to SQLite in dataDir when url is empty.
func Open(ctx context.Context, rawURL, dataDir string) (*DB, error) {
	switch {
	case rawURL == "" || strings.HasPrefix(rawURL, "sqlite:") || strings.HasPrefix(rawURL, "file:"):
		path := filepath.Join(dataDir, "cairn.db")
		if rawURL != "" {
			path = strings.TrimPrefix(strings.TrimPrefix(rawURL, "sqlite://"), "sqlite:")
			path = strings.TrimPrefix(path, "file:")
		}
		dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		w, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, err
		}
		w.SetMaxOpenConns(1)
		w.SetMaxIdleConns(1)
		w.SetConnMaxLifetime(0)
		r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
		if err != nil {
			return nil, err
		}
		r.SetMaxOpenConns(8)
		r.SetMaxIdleConns(readerPool)
		r.SetConnMaxIdleTime(5 * time.Minute)
		d := &DB{Dialect: SQLite, writer: w, reader: r, stmts: newStmtCache(512)}
		// Create the file and switch it to WAL before readers open it.
		if err := w.PingContext(ctx); err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		if err := clearSampleStats(ctx, w); err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		return d, nil
	case strings.HasPrefix(rawURL, "postgres://") || strings.HasPrefix(rawURL, "postgresql://"):
		cfg, err := pgx.ParseConfig(rawURL)
		if err != nil {
			return nil, fmt.Errorf("CAIRN_DATABASE_URL: %w", err)
		}
		var opts []stdlib.OptionOpenDB
		if after := sessionDefaults(rawURL); after != nil {
			opts = append(opts, stdlib.OptionAfterConnect(after))
		}
		p := stdlib.OpenDB(*cfg, opts...)
		p.SetMaxOpenConns(20)
		p.SetMaxIdleConns(10)
		p.SetConnMaxIdleTime(5 * time.Minute)
		if err := p.PingContext(ctx); err != nil {
			return nil, fmt.Errorf("connect postgres: %w", err)
		}
		return &DB{Dialect: Postgres, writer: p, reader: p}, nil
	case strings.HasPrefix(rawURL, "mysql://"):
		dsn, err := mysqlDSN(rawURL)
		if err != nil {
			return nil, err
		}
		p, err := sql.Open("mysql", dsn)
		if err != nil {
			return nil, err
		}
		p.SetMaxOpenConns(20)
		p.SetMaxIdleConns(10)
		p.SetConnMaxLifetime(30 * time.Minute)
		if err := p.PingContext(ctx); err != nil {
			return nil, fmt.Errorf("connect mysql: %w", err)
		}
		return &DB{Dialect: MySQL, writer: p, reader: p}, nil
	}
	return nil, fmt.Errorf("CAIRN_DATABASE_URL: unsupported scheme in %q (use postgres:// or mysql://, or leave empty for SQLite)", rawURL)
}

// sessionDefaults returns what runs on every new PostgreSQL connection:
// parallel query is turned off, unless the database URL sets it, as Cairn's
// statements are short and many run at once; a parallel count over a large
// result took longer (31 ms against 21 ms for 39,000 of 100,000 issues) and,
// under load, used three backends instead of one. It is a SET rather than a
// startup parameter, which connection poolers such as PgBouncer refuse.
func sessionDefaults(rawURL string) func(context.Context, *pgx.Conn) error {
	if strings.Contains(rawURL, "max_parallel_workers_per_gather") {
		return nil
	}
	return func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SET max_parallel_workers_per_gather = 0")
		return err
	}
}

// clearSampleStats empties sqlite_stat4, which a manual ANALYZE fills. With
// samples there, SQLite (built with STAT4, as modernc's is) re-prepares every
// statement comparing an indexed column with a bound value on each run, as
// the value might change the plan: that defeats the statement cache and
// halves throughput (token lookups 13,000 -> 4,500 req/s, issue lists 2,200
// -> 1,050). Cairn's queries are planned well from the schema alone, and
// sqlite_stat1 statistics are kept.
func clearSampleStats(ctx context.Context, w *sql.DB) error {
	var n int
	if err := w.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_stat4'").Scan(&n); err != nil || n == 0 {
		return err
	}
	var samples int
	if err := w.QueryRowContext(ctx, "SELECT COUNT(*) FROM (SELECT 1 FROM sqlite_stat4 LIMIT 1)").Scan(&samples); err != nil || samples == 0 {
		return err
	}
	if _, err := w.ExecContext(ctx, "DELETE FROM sqlite_stat4"); err != nil {
		return err
	}
	// Reload the statistics on this connection (later ones read them fresh).
	_, err := w.ExecContext(ctx, "ANALYZE sqlite_schema")
	return err
}

func mysqlDSN(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("CAIRN_DATABASE_URL: %w", err)
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = u.Host + ":3306"
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	cfg.Params = map[string]string{}
	for k, v := range u.Query() {
		cfg.Params[k] = v[0]
	}
	cfg.Params["charset"] = "utf8mb4"
	cfg.Collation = "utf8mb4_bin"
	cfg.MultiStatements = false
	cfg.InterpolateParams = true
	// Rows affected counts the rows an UPDATE matched, as on SQLite and
	// PostgreSQL, not only those whose values changed: "nothing matched"
	// (a concurrent change) must not be confused with "nothing to change".
	cfg.ClientFoundRows = true
	return cfg.FormatDSN(), nil
}

// Close closes every connection.
func (d *DB) Close() error {
	if d.stmts != nil {
		d.stmts.close()
	}
	err := d.writer.Close()
	if d.reader != d.writer {
		err = errors.Join(err, d.reader.Close())
	}
	return err
}

type txKey struct{}
type afterCommitKey struct{}
type counterKey struct{}

// afterCommit holds the functions to run once a transaction has committed.
type afterCommit struct {
	fns   []func()
	outer context.Context // the context WithTx was called with
}

// WithQueryCounter returns a context whose queries are counted into n.
func WithQueryCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, counterKey{}, n)
}

func count(ctx context.Context) {
	if n, ok := ctx.Value(counterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// WithTx runs fn in a transaction. If ctx already carries one, fn joins it and
// the outer call commits. Side effects (git, events, files) belong after WithTx returns.
func (d *DB) WithTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(*sql.Tx); ok {
		return fn(ctx)
	}
	count(ctx)
	tx, err := d.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	after := &afterCommit{outer: ctx}
	if err := fn(context.WithValue(context.WithValue(ctx, txKey{}, tx), afterCommitKey{}, after)); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, f := range after.fns {
		f()
	}
	return nil
}

// AfterCommit runs f once the transaction ctx carries has committed (never
// if it rolls back), or at once outside a transaction. It is for side effects
// that cannot be undone, such as removing files the committed rows pointed to.
func AfterCommit(ctx context.Context, f func()) {
	if after, ok := ctx.Value(afterCommitKey{}).(*afterCommit); ok {
		after.fns = append(after.fns, f)
		return
	}
	f()
}

// AfterCommitCtx is AfterCommit for work that uses the database: f gets
// the context the transaction was started from, which carries none.
func AfterCommitCtx(ctx context.Context, f func(ctx context.Context)) {
	if after, ok := ctx.Value(afterCommitKey{}).(*afterCommit); ok {
		after.fns = append(after.fns, func() { f(after.outer) })
		return
	}
	f(ctx)
}

// Emit announces a change: atOnce runs inside the transaction ctx carries
// (or a new one), so what it records (an outbox row) commits or rolls back
// with the change, and its error undoes the change; later runs once that
// transaction has committed. A nil atOnce outside a transaction runs later
// at once, without opening one.
func (d *DB) Emit(ctx context.Context, atOnce func(ctx context.Context) error, later func(ctx context.Context)) error {
	if atOnce == nil && !InTx(ctx) {
		later(ctx)
		return nil
	}
	return d.WithTx(ctx, func(ctx context.Context) error {
		if atOnce != nil {
			if err := atOnce(ctx); err != nil {
				return err
			}
		}
		AfterCommitCtx(ctx, later)
		return nil
	})
}

// Announce is Emit for event e of a service: its transaction listeners
// inTx run at once, in the change's transaction, later once it committed.
func Announce[E any, L ~func(context.Context, E) error](d *DB, ctx context.Context, e E, inTx []L, later func(ctx context.Context)) error {
	var atOnce func(ctx context.Context) error
	if len(inTx) > 0 {
		atOnce = func(ctx context.Context) error {
			for _, l := range inTx {
				if err := l(ctx, e); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return d.Emit(ctx, atOnce, later)
}

// InTx reports whether ctx carries a transaction.
func InTx(ctx context.Context) bool {
	_, ok := ctx.Value(txKey{}).(*sql.Tx)
	return ok
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (d *DB) conn(ctx context.Context, write bool) querier {
	if tx, ok := ctx.Value(txKey{}).(*sql.Tx); ok {
		return tx
	}
	if write {
		return d.writer
	}
	return d.reader
}

// Rebind rewrites "?" placeholders into the dialect's form.
func (d *DB) Rebind(q string) string {
	if d.Dialect != Postgres {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	inQuote := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == '\'' {
			inQuote = !inQuote
		}
		if c == '?' && !inQuote {
			n++
			b.WriteByte('$')
			b.WriteString(fmt.Sprint(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Exec runs a statement that changes data.
func (d *DB) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	count(ctx)
	if st := d.prepared(ctx, q, true); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return d.conn(ctx, true).ExecContext(ctx, d.Rebind(q), args...)
}

// Query runs a read query.
func (d *DB) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	count(ctx)
	if st := d.prepared(ctx, q, false); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return d.conn(ctx, false).QueryContext(ctx, d.Rebind(q), args...)
}

// QueryRow runs a read query that returns at most one row.
func (d *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	count(ctx)
	if st := d.prepared(ctx, q, false); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return d.conn(ctx, false).QueryRowContext(ctx, d.Rebind(q), args...)
}

// prepared returns a cached prepared statement for q on the pool (or the
// transaction) ctx uses, or nil when statements are not cached.
func (d *DB) prepared(ctx context.Context, q string, write bool) *sql.Stmt {
	if d.stmts == nil {
		return nil
	}
	tx, inTx := ctx.Value(txKey{}).(*sql.Tx)
	pool := d.reader
	if write || inTx {
		pool = d.writer
	}
	if inTx {
		// Preparing would need the writer connection the transaction holds:
		// only statements prepared earlier are used inside a transaction.
		st := d.stmts.lookup(pool, q)
		if st == nil {
			return nil
		}
		return tx.StmtContext(ctx, st)
	}
	return d.stmts.get(ctx, pool, q)
}

// Insert runs an INSERT into a table whose primary key is "id" and returns the new id.
func (d *DB) Insert(ctx context.Context, q string, args ...any) (int64, error) {
	count(ctx)
	if st := d.prepared(ctx, q, true); st != nil {
		res, err := st.ExecContext(ctx, args...)
		if err != nil {
			return 0, err
		}
		return res.LastInsertId()
	}
	c := d.conn(ctx, true)
	if d.Dialect == Postgres {
		var id int64
		err := c.QueryRowContext(ctx, d.Rebind(q)+" RETURNING id", args...).Scan(&id)
		return id, err
	}
	res, err := c.ExecContext(ctx, d.Rebind(q), args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Count runs a SELECT COUNT(*) query.
func (d *DB) Count(ctx context.Context, q string, args ...any) (int64, error) {
	var n int64
	err := d.QueryRow(ctx, q, args...).Scan(&n)
	return n, err
}

// Exists reports whether the query returns a row.
func (d *DB) Exists(ctx context.Context, q string, args ...any) (bool, error) {
	var one int
	err := d.QueryRow(ctx, q, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// IsUniqueViolation reports whether err is a unique-constraint failure.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "unique constraint") || strings.Contains(s, "duplicate key") ||
		strings.Contains(s, "duplicate entry") || strings.Contains(s, "sqlstate 23505")
}

// IsDataError reports whether err is the database refusing a value it cannot
// store: a string longer than its column or holding a character the column's
// encoding lacks (PostgreSQL's data exceptions, MySQL's errors 1406 and 1366).
// Requests are checked before they reach the database; this names what a
// missed check let through, so it answers as bad input rather than a crash.
func IsDataError(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "22")
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1406 || me.Number == 1366
	}
	return false
}

// LimitOffset renders a LIMIT/OFFSET clause.
func LimitOffset(limit, offset int) string {
	return fmt.Sprintf(" LIMIT %d OFFSET %d", limit, offset)
}

// Window places the page at offset (limit rows) among total results, for
// lists that can be read from either end of their order: it returns the
// offset and limit to read and whether to read them in the reverse order,
// so that at most half of the results are skipped; the rows read reversed
// are then put back in order by the caller. ok is false when the page is
// past the end.
func Window(offset, limit int, total int64) (off, lim int, reversed, ok bool) {
	if int64(offset) >= total {
		return 0, 0, false, false
	}
	if int64(offset) <= total/2 {
		return offset, limit, false, true
	}
	n := min(int64(limit), total-int64(offset))
	return int(total - int64(offset) - n), int(n), true, true
}

// In returns "(?,?,?)" for n placeholders, for use with IN.
func In(n int) string {
	if n == 0 {
		return "(NULL)"
	}
	return "(" + strings.Repeat("?,", n-1) + "?)"
}

// Int64Args converts ids into query arguments.
func Int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// Now is the current time as stored: Unix seconds.
func Now() int64 { return time.Now().Unix() }
