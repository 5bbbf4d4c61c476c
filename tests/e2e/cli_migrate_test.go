package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
)

// TestCLIAdminRefusesOtherLevel: admin commands do not migrate the
// database a server uses: an instance whose last migration is missing (as
// after upgrading the binary) is refused with what to run, `cairn migrate`
// applies it, and the command then works; a level from a newer Cairn is
// refused too.
func TestCLIAdminRefusesOtherLevel(t *testing.T) {
	s := StartServer(t)
	s.Stop()
	dbURL := ""
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, "CAIRN_DATABASE_URL="); ok {
			dbURL = v
		}
	}
	ctx := context.Background()
	d, err := db.Open(ctx, dbURL, s.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	// Take the queue migration (15) back out, as if this binary were newer.
	for _, q := range []string{"DROP TABLE queue_job", "DELETE FROM schema_migration WHERE version = 15"} {
		if _, err := d.Exec(ctx, q); err != nil {
			d.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	out, err := s.Cairn("admin", "user", "list")
	if err == nil || !strings.Contains(out, "older than this binary") || !strings.Contains(out, "cairn migrate") {
		d.Close()
		t.Fatalf("admin user list on an older database: %v\n%s", err, out)
	}
	if n, _ := d.Count(ctx, "SELECT COUNT(*) FROM schema_migration WHERE version = 15"); n != 0 {
		d.Close()
		t.Fatal("an admin command migrated the database")
	}
	if out, err := s.Cairn("migrate"); err != nil || !strings.Contains(out, "migration level") {
		d.Close()
		t.Fatalf("cairn migrate: %v\n%s", err, out)
	}
	if out, err := s.Cairn("admin", "user", "list"); err != nil || !strings.Contains(out, adminName) {
		d.Close()
		t.Fatalf("admin user list after migrate: %v\n%s", err, out)
	}
	// A level this binary does not know.
	if _, err := d.Exec(ctx, "INSERT INTO schema_migration (version, name, applied_unix) VALUES (9999, 'future', 0)"); err != nil {
		d.Close()
		t.Fatal(err)
	}
	d.Close()
	if out, err := s.Cairn("admin", "user", "list"); err == nil || !strings.Contains(out, "newer Cairn") {
		t.Fatalf("admin user list on a newer database: %v\n%s", err, out)
	}
}
