package issue

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/db/migrations"
)

func TestCachedCountRepos(t *testing.T) {
	ids, ok := ListOptions{UnitRepos: &UnitRepos{Issues: []int64{3, 1}, Pulls: []int64{1, 2}}, Keyword: "leak"}.cachedCountRepos()
	if !ok || !slices.Equal(ids, []int64{1, 2, 3}) {
		t.Fatalf("unit repositories: %v %v", ids, ok)
	}
	for name, o := range map[string]ListOptions{
		"no keyword":  {RepoIDs: []int64{1}},
		"label":       {RepoIDs: []int64{1}, Keyword: "leak", LabelIDs: []int64{2}},
		"poster":      {RepoIDs: []int64{1}, Keyword: "leak", PosterID: 2},
		"since":       {RepoIDs: []int64{1}, Keyword: "leak", Since: time.Unix(1, 0)},
		"condition":   {RepoCond: "i.repo_id IN (1)", Keyword: "leak"},
		"no repos":    {UnitRepos: &UnitRepos{}, Keyword: "leak"},
		"mentioned":   {RepoIDs: []int64{1}, Keyword: "leak", MentionedID: 2},
		"no label":    {RepoIDs: []int64{1}, Keyword: "leak", NoLabel: true},
		"pinned only": {RepoIDs: []int64{1}, Keyword: "leak", Pinned: true},
	} {
		if _, ok := o.cachedCountRepos(); ok {
			t.Errorf("%s: total would be remembered", name)
		}
	}
}

func TestCountCacheBounds(t *testing.T) {
	c := newCountCache(2)
	c.put("a", 1, 10)
	if _, ok := c.get("a", 2); ok {
		t.Fatal("an entry served with another stamp")
	}
	if n, ok := c.get("a", 1); !ok || n != 10 {
		t.Fatalf("get = %d %v", n, ok)
	}
	c.put("b", 1, 20)
	c.put("c", 1, 30)
	if len(c.entries) != 2 {
		t.Fatalf("%d entries, want at most 2", len(c.entries))
	}
	if n, ok := c.get("c", 1); !ok || n != 30 {
		t.Fatalf("newest entry lost: %d %v", n, ok)
	}
}

// postgresForTest creates an empty PostgreSQL database for the test when
// CAIRN_DATABASE_URL names a PostgreSQL server, and skips the test otherwise.
func postgresForTest(t *testing.T) *db.DB {
	base := os.Getenv("CAIRN_DATABASE_URL")
	if !strings.HasPrefix(base, "postgres") {
		t.Skip("CAIRN_DATABASE_URL is not a PostgreSQL database")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "cairn_issue_" + hex.EncodeToString(suffix)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := sql.Open("pgx", base); err == nil {
			_, _ = c.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
			c.Close()
		}
	})
	u.Path = "/" + name
	d, err := db.Open(context.Background(), u.String(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Migrate(context.Background(), migrations.All()); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSearchCountFollowsChanges checks, on PostgreSQL, that a remembered
// search total is counted again after every kind of change that moves it
// (new issue, new title, closing, moving to another repository, deletion),
// and that changes which cannot move it leave the search version alone.
func TestSearchCountFollowsChanges(t *testing.T) {
	d := postgresForTest(t)
	ctx := context.Background()
	s := NewService(d, nil, nil)
	for _, name := range []string{"one", "two"} {
		if _, err := d.Exec(ctx, "INSERT INTO repository (owner_id, name, lower_name, created_unix, updated_unix) VALUES (1, ?, ?, 1, 1)", name, name); err != nil {
			t.Fatal(err)
		}
	}
	var one, two int64
	if err := d.QueryRow(ctx, "SELECT MIN(id), MAX(id) FROM repository").Scan(&one, &two); err != nil {
		t.Fatal(err)
	}
	version := func(repo int64) int64 {
		t.Helper()
		var v int64
		if err := d.QueryRow(ctx, "SELECT search_version FROM repository WHERE id = ?", repo).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := d.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	search := func(state string, want int64) {
		t.Helper()
		for range 2 { // the second answer comes from the cache
			_, total, err := s.Search(ctx, ListOptions{RepoIDs: []int64{one}, Keyword: "leak", State: state})
			if err != nil {
				t.Fatal(err)
			}
			if total != want {
				t.Fatalf("state %s: total %d, want %d", state, total, want)
			}
		}
	}
	for i := 1; i <= 3; i++ {
		exec("INSERT INTO issue (repo_id, idx, poster_id, title, content, created_unix, updated_unix) VALUES (?, ?, 1, 'memory leak', '', ?, ?)", one, i, i, i)
	}
	search("open", 3)
	exec("INSERT INTO issue (repo_id, idx, poster_id, title, content, created_unix, updated_unix) VALUES (?, 4, 1, 'another leak', '', 4, 4)", one)
	search("open", 4)
	exec("UPDATE issue SET title = 'memory use' WHERE repo_id = ? AND idx = 1", one)
	search("open", 3)
	exec("UPDATE issue SET content = 'it leaks' WHERE repo_id = ? AND idx = 1", one)
	search("open", 4)
	exec("UPDATE issue SET is_closed = TRUE WHERE repo_id = ? AND idx = 2", one)
	search("open", 3)
	search("closed", 1)
	exec("UPDATE issue SET repo_id = ? WHERE repo_id = ? AND idx = 3", two, one)
	search("all", 3)
	exec("DELETE FROM issue WHERE repo_id = ? AND idx = 4", one)
	search("all", 2)

	before1, before2 := version(one), version(two)
	exec("UPDATE issue SET num_comments = num_comments + 1, updated_unix = 99")
	if version(one) != before1 || version(two) != before2 {
		t.Fatal("a change of comment count moved the search version")
	}
	exec("UPDATE issue SET is_pull = TRUE WHERE repo_id = ?", two)
	if version(one) != before1 || version(two) != before2+1 {
		t.Fatalf("versions %d %d after a change in repository two, were %d %d", version(one), version(two), before1, before2)
	}
}
