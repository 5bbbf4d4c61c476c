package backup

import (
	"archive/tar"
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
)

// TestSQLiteSnapshotStream checks the database file a dump streams: it is
// the state of the snapshot (not the writes made after it began), it opens
// as a database of its own without WAL files, and it holds what the
// manifest counted.
func TestSQLiteSnapshotStream(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, q := range []string{
		"CREATE TABLE schema_migration (version INTEGER PRIMARY KEY)",
		"INSERT INTO schema_migration VALUES (7)",
		"CREATE TABLE repository (id INTEGER PRIMARY KEY, name TEXT)",
		"INSERT INTO repository (name) VALUES ('a'), ('b')",
		// Enough rows to spread over many pages, some in the WAL.
		"CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO filler (body) SELECT printf('%0500d', i) FROM n",
	} {
		if _, err := d.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var m Manifest
	snap, ids, err := openSQLiteSnapshot(ctx, Instance{DB: d}, &m)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.close()
	if len(ids) != 2 || m.SchemaLevel != 7 {
		t.Fatalf("snapshot read repositories %v at level %d", ids, m.SchemaLevel)
	}
	// Written after the snapshot began: not in the archive.
	for _, q := range []string{"INSERT INTO repository (name) VALUES ('c')", "DELETE FROM filler WHERE id > 1000"} {
		if _, err := d.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := snap.writeTo(ctx, tw, sqliteEntry, make([]byte, 0, 3*4096+100)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != sqliteEntry {
		t.Fatalf("first entry %v, %v", hdr, err)
	}
	file, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(file, []byte("SQLite format 3\x00")) || file[18] != 1 || file[19] != 1 {
		t.Fatalf("the copy's header is %q", file[:20])
	}
	p := filepath.Join(t.TempDir(), "copy.sqlite")
	if err := os.WriteFile(p, file, 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := sql.Open("sqlite", "file:"+p+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var check string
	if err := cp.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check: %q, %v", check, err)
	}
	for _, tc := range []struct {
		table string
		want  int64
	}{{"repository", 2}, {"filler", 3000}} {
		var n int64
		if err := cp.QueryRow("SELECT COUNT(*) FROM " + tc.table).Scan(&n); err != nil || n != tc.want {
			t.Errorf("%s: %d rows (%v), want %d", tc.table, n, err, tc.want)
		}
		for _, info := range m.Tables {
			if info.Name == tc.table && info.Rows != tc.want {
				t.Errorf("the manifest counted %d rows of %s, want %d", info.Rows, tc.table, tc.want)
			}
		}
	}
	if _, err := os.Stat(p + "-wal"); err == nil {
		t.Error("opening the copy made a WAL file: it is still in WAL mode")
	}
}
