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

// Server owns the listeners and workers of one running instance.
type Server struct {
	HTTPAddr        string
	Handler         http.Handler
	SSHAddr         string // empty or "off": no SSH
	SSH             Listener
	Workers         []Worker
	ShutdownTimeout time.Duration
	// Ready, when set, is called once every listener accepts connections.
	Ready func(httpAddr, sshAddr string)
}

// Run serves until ctx ends, then stops accepting, lets in-flight requests
// finish (up to ShutdownTimeout) and stops the workers.
func (s *Server) Run(ctx context.Context) error {
	hl, err := net.Listen("tcp", s.HTTPAddr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
	}
	errc := make(chan error, 2)
	go func() {
		if err := httpSrv.Serve(hl); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	sshAddr := ""
	if s.SSH != nil && s.SSHAddr != "" && s.SSHAddr != "off" {
		sl, err := net.Listen("tcp", s.SSHAddr)
		if err != nil {
			_ = httpSrv.Close()
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
	slog.Info("shutting down", "timeout", timeout)
	if err := httpSrv.Shutdown(sctx); err != nil {
		slog.Warn("http shutdown", "err", err)
	}
	if s.SSH != nil && sshAddr != "" {
		if err := s.SSH.Shutdown(sctx); err != nil {
			slog.Warn("ssh shutdown", "err", err)
		}
	}
	stopWorkers()
	wg.Wait()
	return runErr
}
