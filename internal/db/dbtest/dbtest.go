// Package dbtest opens migrated databases for package tests: SQLite in a
// temporary directory, or a fresh database on the PostgreSQL or MariaDB
// server that CAIRN_DATABASE_URL names, dropped when the test ends.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
)

// Open returns a migrated database for t, closed when it ends.
func Open(t testing.TB) *db.DB {
	t.Helper()
	ctx := context.Background()
	dsn := ""
	if base := os.Getenv("CAIRN_DATABASE_URL"); base != "" {
		dsn = fresh(t, base)
	}
	d, err := db.Open(ctx, dsn, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(ctx, migrations.All()); err != nil {
		t.Fatal(err)
	}
	return d
}

// fresh creates a database on the server of base and returns its URL.
func fresh(t testing.TB, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	name := "cairn_test_" + hex.EncodeToString(b)
	driver, admin := "pgx", base
	if u.Scheme == "mysql" {
		pw, _ := u.User.Password()
		driver, admin = "mysql", fmt.Sprintf("%s:%s@tcp(%s)%s", u.User.Username(), pw, u.Host, u.Path)
	}
	conn, err := sql.Open(driver, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := sql.Open(driver, admin); err == nil {
			_, _ = c.Exec("DROP DATABASE " + name)
			c.Close()
		}
	})
	u.Path = "/" + name
	return u.String()
}
