package observe

import (
	"database/sql"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMetricsHandler(t *testing.T) {
	m := NewMetrics(func() map[string]sql.DBStats {
		return map[string]sql.DBStats{"main": {MaxOpenConnections: 7, InUse: 2}}
	})
	m.GitOperation("upload-pack", "http")
	m.GitOperation("upload-pack", "http")
	done := m.SSHSession()
	for _, c := range []struct {
		token, auth string
		status      int
	}{
		{"", "", 200},
		{"s3cret", "", 401},
		{"s3cret", "Bearer wrong", 401},
		{"s3cret", "Basic s3cret", 401},
		{"s3cret", "Bearer s3cret", 200},
		{"s3cret", "bearer s3cret", 200},
	} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		w := httptest.NewRecorder()
		m.Handler(c.token).ServeHTTP(w, req)
		if w.Code != c.status {
			t.Errorf("token %q, Authorization %q: %d, want %d", c.token, c.auth, w.Code, c.status)
			continue
		}
		if w.Code != 200 {
			continue
		}
		body, _ := io.ReadAll(w.Body)
		for _, want := range []string{
			`cairn_git_operations_total{service="upload-pack",transport="http"} 2`,
			`cairn_git_operations_total{service="receive-pack",transport="ssh"} 0`,
			"cairn_ssh_sessions_active 1",
			`go_sql_max_open_connections{db_name="main"} 7`,
			`go_sql_in_use_connections{db_name="main"} 2`,
			"go_goroutines ",
			"process_start_time_seconds ",
		} {
			if !strings.Contains(string(body), want) {
				t.Errorf("%q not in the metrics", want)
			}
		}
	}
	done()
	req := httptest.NewRequest("GET", "/metrics", nil)
	w := httptest.NewRecorder()
	m.Handler("").ServeHTTP(w, req)
	if !strings.Contains(w.Body.String(), "cairn_ssh_sessions_active 0") {
		t.Error("the SSH session was not counted down")
	}
}

func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.GitOperation("upload-pack", "ssh")
	m.SSHSession()()
	m.observeRequest("GET", "/", 200, 0)
}

func TestLabels(t *testing.T) {
	for status, want := range map[int]string{101: "1xx", 200: "2xx", 304: "3xx", 404: "4xx", 503: "5xx", 42: "other", 999: "other"} {
		if got := statusClass(status); got != want {
			t.Errorf("statusClass(%d) = %q, want %q", status, got, want)
		}
	}
	for method, want := range map[string]string{"GET": "GET", "PROPFIND": "other", "get": "other"} {
		if got := methodLabel(method); got != want {
			t.Errorf("methodLabel(%q) = %q, want %q", method, got, want)
		}
	}
}
