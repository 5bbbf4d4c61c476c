package observe

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestHealth(t *testing.T) {
	ok := Check{Name: "database:ping", Failure: "down", Run: func(context.Context) error { return nil }}
	bad := Check{Name: "repositories:storage", Failure: "not writable", Run: func(context.Context) error { return errors.New("/secret/path: denied") }}
	hung := Check{Name: "slow:ping", Failure: "too slow", Run: func(ctx context.Context) error { time.Sleep(time.Second); return nil }}
	for _, c := range []struct {
		checks []Check
		status int
		state  string
		failed map[string]string
	}{
		{[]Check{ok}, 200, "pass", nil},
		{[]Check{ok, bad}, 503, "fail", map[string]string{"repositories:storage": "not writable"}},
		{[]Check{ok, hung}, 503, "fail", map[string]string{"slow:ping": "too slow"}},
	} {
		w := httptest.NewRecorder()
		start := time.Now()
		Health("Cairn", 100*time.Millisecond, c.checks...).ServeHTTP(w, httptest.NewRequest("GET", "/api/healthz", nil))
		if time.Since(start) > 600*time.Millisecond {
			t.Errorf("the health check took %v", time.Since(start))
		}
		if w.Code != c.status || w.Header().Get("Content-Type") != "application/health+json" {
			t.Errorf("%d %q, want %d", w.Code, w.Header().Get("Content-Type"), c.status)
		}
		var resp healthResponse
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Status != c.state || resp.Description != "Cairn" || len(resp.Checks) != len(c.checks) {
			t.Errorf("response %+v", resp)
		}
		for _, ch := range c.checks {
			st := resp.Checks[ch.Name]
			if len(st) != 1 {
				t.Fatalf("%s: %v", ch.Name, st)
			}
			wantState, wantOut := "pass", ""
			if out, failed := c.failed[ch.Name]; failed {
				wantState, wantOut = "fail", out
			}
			if _, err := time.Parse(time.RFC3339, st[0].Time); err != nil || st[0].Status != wantState || st[0].Output != wantOut {
				t.Errorf("%s: %+v, want %s %q", ch.Name, st[0], wantState, wantOut)
			}
		}
	}
}

func TestDirWritable(t *testing.T) {
	dir := t.TempDir()
	if err := DirWritable(dir)(context.Background()); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the check left %v behind", entries)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := DirWritable(file)(context.Background()); err == nil {
		t.Error("a file passed as a writable directory")
	}
	if err := DirWritable(filepath.Join(dir, "missing"))(context.Background()); err == nil {
		t.Error("a missing directory passed")
	}
}
