package observe

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"
)

// Check is one component of the health check.
type Check struct {
	// Name is the key in "checks", componentName:measurementName
	// (e.g. database:ping).
	Name string
	// Failure is the output shown when the check fails; the error itself
	// goes to the log only (the health check needs no sign-in).
	Failure string
	Run     func(ctx context.Context) error
}

// componentStatus is one entry of a check, in Gitea's health-check shape
// (draft-inadarei-api-health-check).
type componentStatus struct {
	Status string `json:"status"`
	Time   string `json:"time"`
	Output string `json:"output,omitempty"`
}

type healthResponse struct {
	Status      string                       `json:"status"`
	Description string                       `json:"description"`
	Checks      map[string][]componentStatus `json:"checks"`
}

// Health serves the health check: every check runs, at once, within
// timeout; the answer is 200 with status "pass" when all pass, 503 with
// "fail" otherwise, as application/health+json.
func Health(description string, timeout time.Duration, checks ...Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		resp := healthResponse{Status: "pass", Description: description, Checks: map[string][]componentStatus{}}
		results := make([]error, len(checks))
		var wg sync.WaitGroup
		for i, c := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = runCheck(ctx, c.Run)
			}()
		}
		wg.Wait()
		now := time.Now().UTC().Format(time.RFC3339)
		for i, c := range checks {
			st := componentStatus{Status: "pass", Time: now}
			if err := results[i]; err != nil {
				st.Status, st.Output, resp.Status = "fail", c.Failure, "fail"
				slog.WarnContext(r.Context(), "health check failed", "check", c.Name, "err", err)
			}
			resp.Checks[c.Name] = []componentStatus{st}
		}
		status := http.StatusOK
		if resp.Status != "pass" {
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/health+json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(resp)
	})
}

// runCheck runs fn, giving up when ctx ends (a hung file system or database
// then fails the check instead of the health check hanging).
func runCheck(ctx context.Context, fn func(context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DirWritable is a check that dir can be listed and that a file can be
// created, written and removed in it.
func DirWritable(dir string) func(context.Context) error {
	return func(context.Context) error {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		_, err = d.Readdirnames(1)
		_ = d.Close()
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		f, err := os.CreateTemp(dir, ".healthz-*")
		if err != nil {
			return err
		}
		_, werr := f.Write([]byte("ok\n"))
		return errors.Join(werr, f.Close(), os.Remove(f.Name()))
	}
}
