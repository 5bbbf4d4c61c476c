package db

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestOpenClearsSampleStats checks that opening a SQLite database empties
// sqlite_stat4 (filled by a manual ANALYZE) and keeps sqlite_stat1.
func TestOpenClearsSampleStats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE item (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL)",
		"CREATE INDEX ix_item_owner ON item (owner)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO item (owner) SELECT i % 37 FROM n",
		"ANALYZE",
	} {
		if _, err := d.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	samples, err := d.Count(ctx, "SELECT COUNT(*) FROM sqlite_stat4")
	if err != nil {
		t.Fatal(err)
	}
	if samples == 0 {
		t.Skip("this SQLite build keeps no sqlite_stat4 samples")
	}
	d.Close()

	d, err = Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n, err := d.Count(ctx, "SELECT COUNT(*) FROM sqlite_stat4"); err != nil || n != 0 {
		t.Fatalf("sqlite_stat4 after open: %d rows, %v", n, err)
	}
	if n, err := d.Count(ctx, "SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'item'"); err != nil || n == 0 {
		t.Fatalf("sqlite_stat1 after open: %d rows, %v", n, err)
	}
	// Opening a database that has no statistics at all works too.
	d2, err := Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d2.Close()
}

// TestAfterCommit checks that functions registered in a transaction run once
// it commits, never when it rolls back, and at once outside a transaction.
func TestAfterCommit(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var ran []string
	AfterCommit(ctx, func() { ran = append(ran, "outside") })
	err = d.WithTx(ctx, func(ctx context.Context) error {
		AfterCommit(ctx, func() { ran = append(ran, "committed") })
		// A nested call joins the transaction: its function waits too.
		return d.WithTx(ctx, func(ctx context.Context) error {
			AfterCommit(ctx, func() { ran = append(ran, "nested") })
			if len(ran) != 1 {
				t.Errorf("ran before the commit: %v", ran)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	rollback := errors.New("roll back")
	if err := d.WithTx(ctx, func(ctx context.Context) error {
		AfterCommit(ctx, func() { ran = append(ran, "rolled back") })
		return rollback
	}); !errors.Is(err, rollback) {
		t.Fatalf("rollback: %v", err)
	}
	if got := strings.Join(ran, ","); got != "outside,committed,nested" {
		t.Fatalf("ran %s", got)
	}
}

func TestPostgresSessionDefaults(t *testing.T) {
	if sessionDefaults("postgres://u@h/db?options=-c%20max_parallel_workers_per_gather%3D4") != nil {
		t.Fatal("a setting of the URL is overridden")
	}
	base := os.Getenv("CAIRN_DATABASE_URL")
	if !strings.HasPrefix(base, "postgres") {
		t.Skip("CAIRN_DATABASE_URL is not a PostgreSQL database")
	}
	for url, want := range map[string]string{base: "0", base + sep(base) + "options=-c%20max_parallel_workers_per_gather%3D3": "3"} {
		d, err := Open(context.Background(), url, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var v string
		err = d.QueryRow(context.Background(), "SHOW max_parallel_workers_per_gather").Scan(&v)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		if v != want {
			t.Errorf("%s: max_parallel_workers_per_gather = %s, want %s", url, v, want)
		}
	}
}

// sep is the character that adds a parameter to url.
func sep(url string) string {
	if strings.Contains(url, "?") {
		return "&"
	}
	return "?"
}

func TestWindow(t *testing.T) {
	type win struct {
		off, lim     int
		reversed, ok bool
	}
	for _, c := range []struct {
		offset, limit int
		total         int64
		want          win
	}{
		{0, 10, 100, win{0, 10, false, true}},
		{50, 10, 100, win{50, 10, false, true}},
		{60, 10, 100, win{30, 10, true, true}},
		{95, 10, 100, win{0, 5, true, true}},
		{100, 10, 100, win{0, 0, false, false}},
		{0, 10, 0, win{0, 0, false, false}},
	} {
		off, lim, rev, ok := Window(c.offset, c.limit, c.total)
		if got := (win{off, lim, rev, ok}); got != c.want {
			t.Errorf("Window(%d, %d, %d) = %+v, want %+v", c.offset, c.limit, c.total, got, c.want)
		}
	}
}
