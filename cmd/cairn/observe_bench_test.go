package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/observe"
)

// BenchmarkObserveOverhead measures what the access log and the metrics cost
// on GET /api/v1/users/{name} with a token, in process on SQLite. Each
// iteration serves the request once through the routes alone (plain) and
// once through the whole handler, so that load from other processes hits
// both alike; it reports both times per request and the overhead in
// percent. Variants: "ids" (request ids only: log level none, metrics off),
// "log" (the access log, text, to /dev/null through the buffered writer, as
// serve writes to stderr), "metrics", and "all" (log and metrics: what
// serve runs with [metrics] ENABLED).
func BenchmarkObserveOverhead(b *testing.B) {
	a, _, tok := benchUser(b)
	plain := a.routes(a.api())
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	out := observe.NewBufferedWriter(devNull, observe.LogFlushEvery)
	b.Cleanup(func() { out.Close(); devNull.Close() })
	logger, err := observe.NewLogger(out, "info", "text")
	if err != nil {
		b.Fatal(err)
	}
	metrics := observe.NewMetrics(a.db.PoolStats)
	serve := func(h http.Handler) time.Duration {
		req := httptest.NewRequest("GET", "/api/v1/users/bench", nil)
		req.Header.Set("Authorization", "token "+tok)
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, req)
		d := time.Since(start)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
		return d
	}
	for _, c := range []struct {
		name    string
		logger  *slog.Logger
		metrics *observe.Metrics
	}{
		{"ids", nil, nil},
		{"log", logger, nil},
		{"metrics", nil, metrics},
		{"all", logger, metrics},
	} {
		a.logger, a.metrics = c.logger, c.metrics
		observed := a.handler()
		b.Run(c.name, func(b *testing.B) {
			var tPlain, tObserved time.Duration
			n := 0
			for b.Loop() {
				if n%2 == 0 { // alternate the order too
					tPlain += serve(plain)
					tObserved += serve(observed)
				} else {
					tObserved += serve(observed)
					tPlain += serve(plain)
				}
				n++
			}
			b.ReportMetric(float64(tPlain.Nanoseconds())/float64(n), "plain-ns/req")
			b.ReportMetric(float64(tObserved.Nanoseconds())/float64(n), "observed-ns/req")
			b.ReportMetric(100*(float64(tObserved)-float64(tPlain))/float64(tPlain), "overhead-%")
		})
	}
}
