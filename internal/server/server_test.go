package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// startRun runs s until the test ends and returns its HTTP address and the
// channel Run's result arrives on.
func startRun(t *testing.T, ctx context.Context, s *Server) (string, <-chan error) {
	t.Helper()
	ready := make(chan string, 1)
	s.HTTPAddr = "127.0.0.1:0"
	s.Ready = func(httpAddr, _ string) { ready <- httpAddr }
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	select {
	case addr := <-ready:
		return addr, done
	case err := <-done:
		t.Fatalf("Run: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("not ready")
	}
	return "", nil
}

// slowHandler answers after release is closed, and tells started.
func slowHandler(started chan<- struct{}, release <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-release:
			_, _ = w.Write([]byte("done"))
		case <-r.Context().Done():
		}
	})
}

func TestRunWaitsForRequests(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := startRun(t, ctx, &Server{Handler: slowHandler(started, release), ShutdownTimeout: 10 * time.Second})
	answer := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/")
		if err == nil {
			resp.Body.Close()
		}
		answer <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		t.Fatalf("Run returned with a request in flight: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("new connections are still accepted while shutting down")
	}
	close(release)
	if err := <-answer; err != nil {
		t.Errorf("the in-flight request failed: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestRunForced(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	force := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	workerDone := make(chan struct{})
	s := &Server{Handler: slowHandler(started, release), ShutdownTimeout: time.Minute, Force: force,
		Workers: []Worker{func(ctx context.Context) { <-ctx.Done(); <-workerDone }}}
	addr, done := startRun(t, ctx, s)
	defer close(workerDone)
	go func() {
		if resp, err := http.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	close(force)
	select {
	case err := <-done:
		if !errors.Is(err, ErrForced) {
			t.Errorf("Run: %v, want ErrForced", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("forced exit took %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Force did not end the grace period")
	}
}

func TestRunGraceEnds(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := startRun(t, ctx, &Server{Handler: slowHandler(started, release), ShutdownTimeout: 200 * time.Millisecond})
	answer := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/")
		if err == nil {
			resp.Body.Close()
		}
		answer <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the grace period did not end")
	}
	if err := <-answer; err == nil {
		t.Error("the request outliving the grace period was answered")
	}
}

func TestEveryRunsUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	runs := make(chan struct{}, 10)
	done := make(chan struct{})
	go func() {
		Every(ctx, time.Millisecond, "test task", func(context.Context) error {
			runs <- struct{}{}
			return errors.New("logged, then tried again")
		})
		close(done)
	}()
	for range 3 { // a failing run does not stop the next ones
		select {
		case <-runs:
		case <-time.After(5 * time.Second):
			t.Fatal("the task did not run again")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Every did not return when its context ended")
	}
}
