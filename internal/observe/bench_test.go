package observe

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/go-chi/chi/v5"
)

// BenchmarkMiddleware measures what the middleware adds to a request served
// by a chi route that does nothing else: bare (no middleware), ids (request
// id and route label only), log-discard (the text access line, formatted and
// dropped), metrics, log (the line written to /dev/null, one write each) and
// observed (log and metrics).
func BenchmarkMiddleware(b *testing.B) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	logger, err := NewLogger(devNull, "info", "text")
	if err != nil {
		b.Fatal(err)
	}
	discardLogger, _ := NewLogger(io.Discard, "info", "text")
	r := chi.NewRouter()
	r.Get("/api/v1/users/{username}", func(w http.ResponseWriter, r *http.Request) {
		SetUser(r.Context(), "bench")
		_, _ = w.Write([]byte(`{"login":"bench"}`))
	})
	for _, c := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", r},
		{"ids", Middleware(nil, nil, nil)(r)},
		{"log-discard", Middleware(discardLogger, nil, nil)(r)},
		{"metrics", Middleware(nil, NewMetrics(nil), nil)(r)},
		{"log", Middleware(logger, nil, nil)(r)},
		{"observed", Middleware(logger, NewMetrics(nil), nil)(r)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest("GET", "/api/v1/users/bench", nil)
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, req)
			}
		})
	}
}
