// Package server runs Cairn's listeners (HTTP now, SSH when enabled) and
// background workers, and shuts them down gracefully.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Worker is a background task that runs until its context ends.
type Worker func(ctx context.Context)

// Listener is a network service besides HTTP (the SSH server).
type Listener interface {
	Serve(l net.Listener) error
	Shutdown(ctx context.Context) error
}

// ErrForced is returned by Run when Force ended the grace period.
var ErrForced = errors.New("forced exit: a second signal cut the running requests and git transfers")

// Server owns the listeners and workers of one running instance.
type Server struct {
	HTTPAddr string
	Handler  http.Handler
	SSHAddr  string // empty or "off": no SSH
	SSH      Listener
	Workers  []Worker
	// ShutdownTimeout is the grace period in which running requests and
	// git transfers may finish once ctx ends (default 30s).
	ShutdownTimeout time.Duration
	// Force, when closed during the grace period, ends it at once: running
	// requests and transfers are cut and Run returns ErrForced.
	Force <-chan struct{}
	// Internal, when set, is a listener served with InternalHandler (the
	// git hooks' endpoint) until the HTTP and SSH transfers have ended, so
	// that pushes still running when the shutdown starts can finish.
	Internal        net.Listener
	InternalHandler http.Handler
	// Ready, when set, is called once every listener accepts connections.
	Ready func(httpAddr, sshAddr string)
}

// Run serves until ctx ends, then stops accepting, lets in-flight requests
// and git transfers finish (up to ShutdownTimeout, or until Force is
// closed), cuts what still runs and stops the workers.
func (s *Server) Run(ctx context.Context) error {
	hl, err := net.Listen("tcp", s.HTTPAddr)
	if err != nil {
		if s.Internal != nil {
			_ = s.Internal.Close()
		}
		return err
	}
	httpSrv := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
	}
	errc := make(chan error, 3)
	go func() {
		if err := httpSrv.Serve(hl); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	var internal *http.Server
	if s.Internal != nil {
		internal = &http.Server{Handler: s.InternalHandler, ReadHeaderTimeout: 30 * time.Second}
		go func() {
			if err := internal.Serve(s.Internal); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	sshAddr := ""
	if s.SSH != nil && s.SSHAddr != "" && s.SSHAddr != "off" {
		sl, err := net.Listen("tcp", s.SSHAddr)
		if err != nil {
			_ = httpSrv.Close()
			if internal != nil {
				_ = internal.Close()
			}
			return err
		}
		sshAddr = sl.Addr().String()
		go func() {
			if err := s.SSH.Serve(sl); err != nil && !errors.Is(err, net.ErrClosed) {
				errc <- err
			}
		}()
	}
	workerCtx, stopWorkers := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, w := range s.Workers {
		wg.Add(1)
		go func(w Worker) {
			defer wg.Done()
			w(workerCtx)
		}(w)
	}
	if s.Ready != nil {
		s.Ready(hl.Addr().String(), sshAddr)
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	timeout := s.ShutdownTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	forced := make(chan struct{})
	go func() {
		select {
		case <-s.Force: // a nil Force never fires
			close(forced)
			cancel()
		case <-sctx.Done():
		}
	}()
	slog.Info("shutting down: waiting for running requests and git transfers (a second signal forces the exit)", "grace", timeout)
	// HTTP and SSH stop together: neither accepts new work while the other
	// waits for its transfers.
	var stopping sync.WaitGroup
	stopping.Add(1)
	go func() {
		defer stopping.Done()
		if err := httpSrv.Shutdown(sctx); err != nil {
			slog.Warn("http shutdown: cutting the requests still running", "err", err)
			_ = httpSrv.Close()
		}
	}()
	if s.SSH != nil && sshAddr != "" {
		stopping.Add(1)
		go func() {
			defer stopping.Done()
			if err := s.SSH.Shutdown(sctx); err != nil {
				slog.Warn("ssh shutdown: cut the sessions still running", "err", err)
			}
		}()
	}
	stopping.Wait()
	if internal != nil { // the transfers are over: their hooks too
		if err := internal.Shutdown(sctx); err != nil {
			_ = internal.Close()
		}
	}
	stopWorkers()
	select {
	case <-forced:
		return ErrForced // the workers are not waited for
	default:
	}
	wg.Wait()
	return runErr
}
