package server

import (
	"context"
	"log/slog"
	"time"
)

// Every runs task every interval until ctx ends (a background worker of
// housekeeping: pruning expired rows); a failure is logged as what and the
// next tick tries again.
func Every(ctx context.Context, interval time.Duration, what string, task func(ctx context.Context) error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := task(ctx); err != nil && ctx.Err() == nil {
				slog.Warn(what, "err", err)
			}
		}
	}
}
