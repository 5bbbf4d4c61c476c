package issue

import (
	"context"
	"testing"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
)

// TestSearchIndexUpgrade checks migration 6 on a database that already holds
// issues indexed by migration 5: the rebuilt index finds them by word, kind,
// repository and state, and keeps following changes made afterwards.
func TestSearchIndexUpgrade(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	all := migrations.All()
	var before []db.Migration
	for _, m := range all {
		if m.Version <= 5 {
			before = append(before, m)
		}
	}
	if err := d.Migrate(ctx, before); err != nil {
		t.Fatal(err)
	}
	for i, row := range []struct {
		repo         int64
		title        string
		pull, closed bool
	}{{7, "memory leak in parser", false, false}, {7, "leak when closing", false, true}, {8, "leaky pull", true, false}, {7, "unrelated", false, false}} {
		if _, err := d.Exec(ctx, "INSERT INTO issue (repo_id, idx, poster_id, title, content, is_pull, is_closed, created_unix, updated_unix) VALUES (?, ?, 1, ?, '', ?, ?, 1, 1)",
			row.repo, i+1, row.title, row.pull, row.closed); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Migrate(ctx, all); err != nil {
		t.Fatal(err)
	}
	count := func(match string) int64 {
		t.Helper()
		n, err := d.Count(ctx, "SELECT COUNT(*) FROM issue_fts WHERE issue_fts MATCH ?", match)
		if err != nil {
			t.Fatalf("%s: %v", match, err)
		}
		return n
	}
	checks := map[string]int64{
		`{title content} : ("leak"*)`:                   3,
		`{title content} : ("leak"*) AND tags : i7`:     2,
		`{title content} : ("leak"*) AND tags : i7o`:    1,
		`{title content} : ("leak"*) AND tags : i7c`:    1,
		`{title content} : ("leak"*) AND tags : p8o`:    1,
		`{title content} : ("unrelated") AND tags : i7`: 1,
	}
	for match, want := range checks {
		if got := count(match); got != want {
			t.Errorf("%s: %d, want %d", match, got, want)
		}
	}
	// Changes after the upgrade follow through the new triggers.
	if _, err := d.Exec(ctx, "UPDATE issue SET is_closed = ? WHERE title = ?", true, "memory leak in parser"); err != nil {
		t.Fatal(err)
	}
	if got := count(`{title content} : ("leak"*) AND tags : i7c`); got != 2 {
		t.Errorf("closed leaks in repository 7 after closing one: %d, want 2", got)
	}
	if _, err := d.Exec(ctx, "DELETE FROM issue WHERE title = ?", "leaky pull"); err != nil {
		t.Fatal(err)
	}
	if got := count(`{title content} : ("leak"*)`); got != 2 {
		t.Errorf("leaks after deleting one: %d, want 2", got)
	}
}
