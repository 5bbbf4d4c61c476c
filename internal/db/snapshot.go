package db

import (
	"context"
	"database/sql"
)

// Snapshot runs fn with one read-only transaction that sees a single
// consistent state of the database: REPEATABLE READ on PostgreSQL and MySQL,
// a deferred read transaction on a WAL reader on SQLite (which never blocks
// writers). q runs queries with "?" placeholders inside that transaction.
func (d *DB) Snapshot(ctx context.Context, fn func(q func(query string, args ...any) (*sql.Rows, error)) error) error {
	if d.Dialect != SQLite {
		tx, err := d.writer.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		return fn(func(query string, args ...any) (*sql.Rows, error) {
			return tx.QueryContext(ctx, d.Rebind(query), args...)
		})
	}
	conn, err := d.reader.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// A plain BEGIN is deferred: the snapshot starts with the first read.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	return fn(func(query string, args ...any) (*sql.Rows, error) {
		return conn.QueryContext(ctx, query, args...)
	})
}
