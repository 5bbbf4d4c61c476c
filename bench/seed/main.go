// Command seed fills a Cairn database with issues, comments and notification
// threads for benchmarks, writing rows directly in large batches.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// words is the vocabulary of generated text: a few dozen common words and
// thousands of rarer ones, drawn with a Zipf distribution as in real text.
var words = func() []string {
	w := strings.Fields("the a to of and in is it for on crash leak panic timeout slow render login merge branch cache index query error test build fails when with after")
	syll := strings.Fields("ka lo mi nu po re si ta ve zu bar cor den fal gim hol jun kes lim mor")
	for i := 0; len(w) < 8000; i++ {
		w = append(w, syll[i%len(syll)]+syll[(i/len(syll))%len(syll)]+syll[(i/(len(syll)*len(syll)))%len(syll)])
	}
	return w
}()

func sentence(z *rand.Zipf, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = words[z.Uint64()]
	}
	return strings.Join(out, " ")
}

func main() {
	dataDir := flag.String("data", "", "data directory (SQLite) when -db is empty")
	dbURL := flag.String("db", "", "database URL (postgres:// or mysql://)")
	repoID := flag.Int64("repo", 0, "repository id")
	posterID := flag.Int64("poster", 0, "poster user id")
	notifyUser := flag.Int64("notify-user", 0, "user id that gets notification threads")
	issues := flag.Int("issues", 100000, "issues to create")
	comments := flag.Int("comments", 500000, "comments to create")
	threads := flag.Int("threads", 10000, "notification threads for -notify-user")
	flag.Parse()
	if *repoID == 0 || *posterID == 0 {
		log.Fatal("-repo and -poster are required")
	}
	ctx := context.Background()
	d, err := db.Open(ctx, *dbURL, *dataDir)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	r := rand.New(rand.NewSource(1))
	z := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	start := time.Now()
	base := time.Now().Add(-time.Duration(*issues) * time.Minute).Unix()
	var firstID int64
	if err := d.QueryRow(ctx, "SELECT COALESCE(MAX(id), 0) FROM issue").Scan(&firstID); err != nil {
		log.Fatal(err)
	}
	var maxIdx int64
	if err := d.QueryRow(ctx, "SELECT COALESCE(MAX(idx), 0) FROM issue WHERE repo_id = ?", *repoID).Scan(&maxIdx); err != nil {
		log.Fatal(err)
	}
	const batch = 500
	insert := func(table, cols string, n int, row func(i int) []any) {
		ph := "(" + strings.TrimSuffix(strings.Repeat("?, ", strings.Count(cols, ",")+1), ", ") + ")"
		for off := 0; off < n; off += batch {
			m := min(batch, n-off)
			var args []any
			vals := make([]string, m)
			for i := 0; i < m; i++ {
				vals[i] = ph
				args = append(args, row(off+i)...)
			}
			if err := d.WithTx(ctx, func(ctx context.Context) error {
				_, err := d.Exec(ctx, "INSERT INTO "+table+" ("+cols+") VALUES "+strings.Join(vals, ", "), args...)
				return err
			}); err != nil {
				log.Fatalf("%s: %v", table, err)
			}
		}
	}
	closed := 0
	insert("issue", "repo_id, idx, poster_id, title, content, is_closed, num_comments, created_unix, updated_unix, closed_unix", *issues, func(i int) []any {
		t := base + int64(i)*60
		isClosed := i%4 == 0
		var closedAt int64
		if isClosed {
			closed++
			closedAt = t + 30
		}
		title := sentence(z, 6)
		if i%1000 == 0 {
			title += " zephyr" // a rare word: one issue in a thousand
		}
		return []any{*repoID, maxIdx + int64(i) + 1, *posterID, title, sentence(z, 40), isClosed, *comments / max(*issues, 1), t, t + 30, closedAt}
	})
	insert("comment", "type, poster_id, issue_id, content, created_unix, updated_unix", *comments, func(i int) []any {
		t := base + int64(i)*10
		return []any{0, *posterID, firstID + int64(i%*issues) + 1, sentence(z, 20), t, t}
	})
	if *notifyUser > 0 {
		insert("notification", "user_id, repo_id, status, source, issue_id, updated_by, created_unix, updated_unix", min(*threads, *issues), func(i int) []any {
			t := base + int64(i)*60
			return []any{*notifyUser, *repoID, 1 + i%2, 1, firstID + int64(i) + 1, *posterID, t, t}
		})
	}
	total := maxIdx + int64(*issues)
	if d.Dialect == db.MySQL {
		_, err = d.Exec(ctx, "INSERT INTO issue_index (repo_id, max_index) VALUES (?, ?) ON DUPLICATE KEY UPDATE max_index = ?", *repoID, total, total)
	} else {
		_, err = d.Exec(ctx, "INSERT INTO issue_index (repo_id, max_index) VALUES (?, ?) ON CONFLICT (repo_id) DO UPDATE SET max_index = ?", *repoID, total, total)
	}
	if err != nil {
		log.Fatal(err)
	}
	if _, err := d.Exec(ctx, "UPDATE repository SET num_issues = num_issues + ?, num_closed_issues = num_closed_issues + ? WHERE id = ?", *issues, closed, *repoID); err != nil {
		log.Fatal(err)
	}
	// PostgreSQL's autovacuum would analyze the new rows soon; do it now.
	// SQLite gets no ANALYZE: Cairn never runs one, so the planner works
	// from the schema as it does on a real installation.
	if d.Dialect == db.Postgres {
		_, _ = d.Exec(ctx, "ANALYZE")
	}
	fmt.Printf("seeded %d issues, %d comments, %d threads in %s\n", *issues, *comments, min(*threads, *issues), time.Since(start).Round(time.Millisecond))
}
