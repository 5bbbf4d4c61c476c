package db

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// Migration is one frozen, numbered schema change. Statements are written once
// with the type macros below and never edited after release; a later change is a
// new migration.
type Migration struct {
	Version    int
	Name       string
	Statements []string
}

// Type macros expanded per dialect in migration statements (a statement
// prefixed "sqlite:", "postgres:" or "mysql:" runs on that dialect only).
//
//	%ID%      auto-increment integer primary key
//	%BIGINT%  64-bit integer
//	%BOOL%    boolean
//	%STR%     VARCHAR(255), indexable everywhere
//	%TEXT%    unbounded text
//	%BLOB%    binary data
//	%OPTS%    table options (MySQL: InnoDB, utf8mb4, binary collation)
func (d Dialect) expand(stmt string) string {
	var r *strings.Replacer
	switch d {
	case Postgres:
		r = strings.NewReplacer("%ID%", "BIGSERIAL PRIMARY KEY", "%BIGINT%", "BIGINT", "%BOOL%", "BOOLEAN",
			"%STR%", "VARCHAR(255)", "%TEXT%", "TEXT", "%BLOB%", "BYTEA", "%OPTS%", "")
	case MySQL:
		r = strings.NewReplacer("%ID%", "BIGINT AUTO_INCREMENT PRIMARY KEY", "%BIGINT%", "BIGINT", "%BOOL%", "BOOLEAN",
			"%STR%", "VARCHAR(255)", "%TEXT%", "LONGTEXT", "%BLOB%", "LONGBLOB",
			"%OPTS%", "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin")
	default:
		r = strings.NewReplacer("%ID%", "INTEGER PRIMARY KEY AUTOINCREMENT", "%BIGINT%", "INTEGER", "%BOOL%", "BOOLEAN",
			"%STR%", "VARCHAR(255)", "%TEXT%", "TEXT", "%BLOB%", "BLOB", "%OPTS%", "")
	}
	return r.Replace(stmt)
}

// only strips a "sqlite:", "postgres:" or "mysql:" prefix from a statement
// meant for one dialect, and reports whether it applies to d.
func (d Dialect) only(stmt string) (string, bool) {
	for _, dd := range []Dialect{SQLite, Postgres, MySQL} {
		if rest, ok := strings.CutPrefix(stmt, dd.String()+":"); ok {
			return rest, dd == d
		}
	}
	return stmt, true
}

// Migrate applies every migration newer than the database's version. Concurrent
// callers (a serve and an admin command) are serialized with a database lock.
func (d *DB) Migrate(ctx context.Context, migrations []Migration) error {
	sort.Slice(migrations, func(i, j int) bool { return migrations[i].Version < migrations[j].Version })
	conn, err := d.writer.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	switch d.Dialect {
	case Postgres:
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(7305112)"); err != nil {
			return err
		}
		defer conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(7305112)")
	case MySQL:
		if _, err := conn.ExecContext(ctx, "SELECT GET_LOCK('cairn_migrate', 120)"); err != nil {
			return err
		}
		defer conn.ExecContext(context.Background(), "SELECT RELEASE_LOCK('cairn_migrate')")
	}
	if _, err := conn.ExecContext(ctx, d.Dialect.expand("CREATE TABLE IF NOT EXISTS schema_migration (version %BIGINT% NOT NULL PRIMARY KEY, name %STR% NOT NULL, applied_unix %BIGINT% NOT NULL) %OPTS%")); err != nil {
		return fmt.Errorf("schema_migration: %w", err)
	}
	applied := map[int]bool{}
	rows, err := conn.QueryContext(ctx, "SELECT version FROM schema_migration")
	if err != nil {
		return err
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	rows.Close()
	for _, m := range migrations {
		if applied[m.Version] {
			continue
		}
		if err := d.apply(ctx, conn, m); err != nil {
			return fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
		}
	}
	return nil
}

func (d *DB) apply(ctx context.Context, conn *sql.Conn, m Migration) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range m.Statements {
		s, ok := d.Dialect.only(s)
		if !ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, d.Dialect.expand(s)); err != nil {
			return fmt.Errorf("%w\n%s", err, s)
		}
	}
	if _, err := tx.ExecContext(ctx, d.Rebind("INSERT INTO schema_migration (version, name, applied_unix) VALUES (?, ?, ?)"), m.Version, m.Name, Now()); err != nil {
		return err
	}
	return tx.Commit()
}

// MigrationState compares the database with all: the migrations not
// applied yet, and the applied versions all does not know (written by a
// newer Cairn).
func (d *DB) MigrationState(ctx context.Context, all []Migration) (missing []Migration, unknown []int, err error) {
	rows, err := d.Query(ctx, "SELECT version FROM schema_migration")
	if err != nil {
		return nil, nil, err
	}
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return nil, nil, err
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	known := map[int]bool{}
	for _, m := range all {
		known[m.Version] = true
		if !applied[m.Version] {
			missing = append(missing, m)
		}
	}
	for v := range applied {
		if !known[v] {
			unknown = append(unknown, v)
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].Version < missing[j].Version })
	sort.Ints(unknown)
	return missing, unknown, nil
}
