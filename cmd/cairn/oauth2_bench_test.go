package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/oauth2"
)

// BenchmarkTokenKinds measures GET /api/v1/user in process on SQLite with
// a personal access token and with an OAuth2 access token of the same
// user: what recognizing each kind of token costs (bench/oauth2.sh reports
// the ratio; the target is OAuth2 at 90 % of the personal token or more).
func BenchmarkTokenKinds(b *testing.B) {
	a, u, pat := benchUser(b)
	ctx := context.Background()
	app, secret, err := a.oauth2.Create(ctx, u.ID, oauth2.Options{Name: "bench", RedirectURIs: []string{"https://bench.example/cb"},
		ConfidentialClient: true})
	if err != nil {
		b.Fatal(err)
	}
	req, oerr := oauth2.CheckRequest(app, "https://bench.example/cb", "code", "", "openid", "", "", "")
	if oerr != nil {
		b.Fatal(oerr)
	}
	code, err := a.oauth2Provider.Authorize(ctx, u.ID, req, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	tok, err := a.oauth2Provider.ExchangeCode(ctx, oauth2.ClientCredentials{ClientID: app.ClientID, Secret: secret}, code,
		"https://bench.example/cb", "")
	if err != nil {
		b.Fatal(err)
	}
	h := a.handler()
	get := func(b *testing.B, header string) {
		req := httptest.NewRequest("GET", "/api/v1/user", nil)
		req.Header.Set("Authorization", header)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
	// paired alternates the two kinds in one loop and times each request,
	// so both meet the same process state (GC, caches, CPU frequency):
	// separate runs of one process each settle at different speeds, which
	// moves their ratio more than the kinds differ.
	b.Run("paired", func(b *testing.B) {
		var patTime, oauthTime time.Duration
		for b.Loop() {
			t0 := time.Now()
			get(b, "token "+pat)
			t1 := time.Now()
			get(b, "Bearer "+tok.AccessToken)
			patTime, oauthTime = patTime+t1.Sub(t0), oauthTime+time.Since(t1)
		}
		b.ReportMetric(float64(patTime.Nanoseconds())/float64(b.N), "pat-ns/req")
		b.ReportMetric(float64(oauthTime.Nanoseconds())/float64(b.N), "oauth2-ns/req")
		b.ReportMetric(100*float64(patTime)/float64(oauthTime), "oauth2-%-of-pat")
	})
	for _, c := range []struct{ name, header string }{{"pat", "token " + pat}, {"oauth2", "Bearer " + tok.AccessToken}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("GET", "/api/v1/user", nil)
					req.Header.Set("Authorization", c.header)
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
