package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// BenchmarkGetUser measures GET /api/v1/users/{name} in process on SQLite,
// anonymous and with a token: the cost of routing, authentication, the
// database and encoding without the network (profile with -cpuprofile).
func BenchmarkGetUser(b *testing.B) {
	a, _, tok := benchUser(b)
	h := a.handler()
	for _, c := range []struct{ name, token string }{{"anonymous", ""}, {"token", tok}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("GET", "/api/v1/users/bench", nil)
					if c.token != "" {
						req.Header.Set("Authorization", "token "+c.token)
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatalf("status %d", w.Code)
					}
				}
			})
		})
	}
}

// BenchmarkIssueList measures GET /api/v1/repos/{owner}/{repo}/issues (a page
// of 30 with assignees) in process on SQLite.
func BenchmarkIssueList(b *testing.B) {
	a, u, tok, r := benchRepo(b)
	ctx := context.Background()
	for i := 0; i < 200; i++ {
		if _, err := a.issues.Create(ctx, u, r, issue.CreateOptions{Title: fmt.Sprintf("issue %d", i), Body: "some words here", AssigneeIDs: []int64{u.ID}}); err != nil {
			b.Fatal(err)
		}
	}
	h := a.handler()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("GET", "/api/v1/repos/bench/big/issues?state=all", nil)
			req.Header.Set("Authorization", "token "+tok)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		}
	})
}

// BenchmarkIssueSearch measures GET /api/v1/repos/issues/search in process on
// SQLite over 5,000 issues: a word in 40% of them (answered from the
// full-text index alone) and a word in one issue in a thousand.
func BenchmarkIssueSearch(b *testing.B) {
	a, u, tok, r := benchRepo(b)
	ctx := context.Background()
	const n = 5000
	err := a.db.WithTx(ctx, func(ctx context.Context) error {
		for i := 1; i <= n; i++ {
			title := fmt.Sprintf("issue %d about the parser", i)
			if i%5 < 2 {
				title += " memory leak"
			}
			if i%1000 == 1 {
				title += " zephyr"
			}
			if _, err := a.db.Exec(ctx, "INSERT INTO issue (repo_id, idx, poster_id, title, content, is_closed, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
				r.ID, i, u.ID, title, "some words here", i%3 == 0, 1_700_000_000+i, 1_700_000_000+i); err != nil {
				return err
			}
		}
		_, err := a.db.Exec(ctx, "UPDATE repository SET num_issues = ?, num_closed_issues = ? WHERE id = ?", n, n/3, r.ID)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	h := a.handler()
	for _, word := range []string{"leak", "zephyr"} {
		b.Run(word, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("GET", "/api/v1/repos/issues/search?q="+word, nil)
					req.Header.Set("Authorization", "token "+tok)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK || w.Header().Get("X-Total-Count") == "0" {
						b.Fatalf("status %d, total %s", w.Code, w.Header().Get("X-Total-Count"))
					}
				}
			})
		})
	}
}

// benchUser opens a server on a temporary SQLite database with user "bench"
// and an all-scope token; it is closed with b.
func benchUser(b *testing.B) (*app, *user.User, string) {
	env := map[string]string{"CAIRN_DATA_DIR": b.TempDir(), "CAIRN_SSH_ADDR": "off", "CAIRN_HTTP_ADDR": "127.0.0.1:0"}
	a, err := open(context.Background(), func(k string) string { return env[k] }, true)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(a.close)
	ctx := context.Background()
	u, err := a.users.Create(ctx, user.CreateOptions{Name: "bench", Email: "bench@example.com", Password: "x", Active: true})
	if err != nil {
		b.Fatal(err)
	}
	_, tok, err := a.tokens.Create(ctx, u.ID, "bench", []string{"all"})
	if err != nil {
		b.Fatal(err)
	}
	return a, u, tok
}

// benchRepo is benchUser with the repository bench/big.
func benchRepo(b *testing.B) (*app, *user.User, string, *repo.Repository) {
	a, u, tok := benchUser(b)
	r, err := a.repos.Create(context.Background(), u, u, repo.CreateOptions{Name: "big"})
	if err != nil {
		b.Fatal(err)
	}
	return a, u, tok, r
}
