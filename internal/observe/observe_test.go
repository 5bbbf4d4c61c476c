package observe

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestValidID(t *testing.T) {
	for _, c := range []struct {
		id string
		ok bool
	}{
		{"abc-123_X.y", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"has space", false},
		{"new\nline", false},
		{"ünï", false},
		{"a/b", false},
	} {
		if got := validID(c.id); got != c.ok {
			t.Errorf("validID(%q) = %v, want %v", c.id, got, c.ok)
		}
	}
}

func TestSafeURI(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/api/v1/users/a", "/api/v1/users/a"},
		{"/api/v1/users/a?page=2", "/api/v1/users/a?page=2"},
		{"/api/v1/user?token=s3cret&page=2", "/api/v1/user?token=REDACTED&page=2"},
		{"/api/v1/user?page=1&access_token=s3cret", "/api/v1/user?page=1&access_token=REDACTED"},
		{"/api/v1/user?TOKEN=s3cret", "/api/v1/user?TOKEN=REDACTED"},
		{"/api/v1/user?%74oken=s3cret", "/api/v1/user?%74oken=REDACTED"},
		{"/api/v1/user?token", "/api/v1/user?token=REDACTED"},
		{"/api/v1/repos/search?q=token", "/api/v1/repos/search?q=token"},
		{"/a%2Fb/c", "/a%2Fb/c"},
	} {
		u, err := url.ParseRequestURI(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := SafeURI(u); got != c.want {
			t.Errorf("SafeURI(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// logLines decodes the JSON log lines written to buf.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestMiddleware(t *testing.T) {
	var buf bytes.Buffer
	logger, err := NewLogger(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics(nil)
	api := chi.NewRouter()
	api.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "token wrong" {
				http.Error(w, "bad token", http.StatusUnauthorized) // refused before routing
				return
			}
			SetUser(r.Context(), "alice")
			next.ServeHTTP(w, r)
		})
	})
	api.Route("/api/v1", func(r chi.Router) {
		r.Get("/users/{username}", func(w http.ResponseWriter, r *http.Request) {
			logger.InfoContext(r.Context(), "inside")
			_, _ = w.Write([]byte("hello"))
		})
	})
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", api)
	mux.Handle("GET /fixed/{x}", Route("/fixed/{x}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetGitService(r.Context(), "receive-pack")
		w.WriteHeader(http.StatusForbidden)
	})))
	resolve := func(method, path string) string {
		return api.Find(chi.NewRouteContext(), method, path)
	}
	h := Middleware(logger, m, resolve)(mux)

	do := func(method, target string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}

	w := do("GET", "/api/v1/users/bob?token=s3cret-token-value", "X-Request-Id", "client-id.1")
	if w.Code != 200 || w.Header().Get(RequestIDHeader) != "client-id.1" {
		t.Fatalf("got %d, X-Request-Id %q", w.Code, w.Header().Get(RequestIDHeader))
	}
	w = do("GET", "/api/v1/users/carol", "X-Request-Id", "bad id with spaces", "Authorization", "token wrong")
	fresh := w.Header().Get(RequestIDHeader)
	if w.Code != 401 || !validID(fresh) || fresh == "bad id with spaces" {
		t.Fatalf("got %d, X-Request-Id %q", w.Code, fresh)
	}
	if w = do("GET", "/fixed/1"); w.Code != 403 {
		t.Fatalf("fixed: %d", w.Code)
	}
	if w = do("GET", "/nowhere"); w.Code != 404 {
		t.Fatalf("nowhere: %d", w.Code)
	}

	if strings.Contains(buf.String(), "s3cret") {
		t.Fatalf("the token reached the log:\n%s", buf.String())
	}
	lines := logLines(t, &buf)
	if len(lines) != 5 {
		t.Fatalf("want 5 log lines, got %d:\n%s", len(lines), buf.String())
	}
	inside, ok := lines[0], lines[1]
	if inside["msg"] != "inside" || inside["request_id"] != "client-id.1" {
		t.Errorf("handler's line lacks the request id: %v", inside)
	}
	want := map[string]any{"msg": "request", "level": "INFO", "request_id": "client-id.1", "method": "GET",
		"route": "/api/v1/users/{username}", "status": float64(200), "bytes": float64(5), "user": "alice",
		"uri": "/api/v1/users/bob?token=REDACTED"}
	for k, v := range want {
		if ok[k] != v {
			t.Errorf("ok line: %s = %v, want %v", k, ok[k], v)
		}
	}
	for k, v := range map[string]any{"msg": "refused sign-in", "level": "WARN", "request_id": fresh, "route": "/api/v1/users/{username}", "status": float64(401), "user": ""} {
		if lines[2][k] != v {
			t.Errorf("refused line: %s = %v, want %v", k, lines[2][k], v)
		}
	}
	for k, v := range map[string]any{"msg": "refused push", "level": "WARN", "route": "/fixed/{x}", "status": float64(403)} {
		if lines[3][k] != v {
			t.Errorf("push line: %s = %v, want %v", k, lines[3][k], v)
		}
	}
	if lines[4]["route"] != unmatched {
		t.Errorf("unrouted request labelled %v", lines[4]["route"])
	}

	for _, c := range []struct {
		route, status string
		n             float64
	}{
		{"/api/v1/users/{username}", "2xx", 1},
		{"/api/v1/users/{username}", "4xx", 1},
		{"/fixed/{x}", "4xx", 1},
		{unmatched, "4xx", 1},
	} {
		labels := map[string]string{"method": "GET", "route": c.route, "status": c.status}
		if got := gathered(t, m, "cairn_http_requests_total", labels); got != c.n {
			t.Errorf("requests{%s,%s} = %v, want %v", c.route, c.status, got, c.n)
		}
		if got := gathered(t, m, "cairn_http_request_duration_seconds", labels); got != c.n {
			t.Errorf("latency count{%s,%s} = %v, want %v", c.route, c.status, got, c.n)
		}
	}
}

// gathered returns the value (a histogram's count) of the series of family
// name with exactly these labels, or -1.
func gathered(t *testing.T, m *Metrics, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			if len(s.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range s.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			switch {
			case s.Counter != nil:
				return s.GetCounter().GetValue()
			case s.Histogram != nil:
				return float64(s.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

func TestClassifyGitChallenge(t *testing.T) {
	// git's first request of a push carries no credentials and gets 401: not a refusal.
	r := httptest.NewRequest("GET", "/o/r.git/info/refs?service=git-receive-pack", nil)
	if lvl, msg := classify(r, &request{service: "receive-pack"}, 401); msg != "request" || lvl != 0 {
		t.Errorf("challenge classified %v %q", lvl, msg)
	}
	r.Header.Set("Authorization", "Basic eDp5")
	if _, msg := classify(r, &request{service: "receive-pack"}, 401); msg != "refused sign-in" {
		t.Errorf("wrong credentials classified %q", msg)
	}
	if _, msg := classify(r, &request{}, 429); msg != "refused sign-in" {
		t.Errorf("throttled classified %q", msg)
	}
	if _, msg := classify(r, &request{service: "upload-pack"}, 403); msg != "request" {
		t.Errorf("refused fetch classified %q", msg)
	}
}

func TestRecorderFlushes(t *testing.T) {
	var flushed bool
	h := Middleware(nil, nil, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			t.Fatal("the response writer lost http.Flusher")
		}
		_, _ = w.Write([]byte("x"))
		f.Flush()
		flushed = true
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if !flushed || !w.Flushed || w.Header().Get(RequestIDHeader) == "" {
		t.Fatalf("flushed %v, recorder flushed %v, id %q", flushed, w.Flushed, w.Header().Get(RequestIDHeader))
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newID()
		if len(id) != 26 || !validID(id) || seen[id] {
			t.Fatalf("id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}
