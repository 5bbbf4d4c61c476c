package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// forceBackstop is how long a forced exit may take before the process ends
// itself regardless.
const forceBackstop = 2 * time.Second

// shutdownSignals returns a context that ends at the first SIGINT or
// SIGTERM (graceful shutdown) and a channel closed at the second (forced
// exit). Should the process still run forceBackstop after the second signal,
// it calls flush (the log) and exits with status 1. stop releases the signals.
func shutdownSignals(parent context.Context, flush func()) (ctx context.Context, force <-chan struct{}, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(parent)
	forced, done := make(chan struct{}), make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			slog.Info("signal received: shutting down gracefully; send it again to force the exit", "signal", sig.String())
			cancel()
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			slog.Warn("second signal: forcing the exit", "signal", sig.String())
			close(forced)
		case <-done:
			return
		}
		select {
		case <-time.After(forceBackstop):
			flush()
			fmt.Fprintln(os.Stderr, "cairn: forced exit")
			os.Exit(1)
		case <-done:
		}
	}()
	return ctx, forced, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
