package observe

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// Levels beyond slog's own, for Gitea's Trace and Critical.
const (
	LevelTrace    = slog.LevelDebug - 4
	LevelCritical = slog.LevelError + 4
)

// ParseLevel maps a Gitea [log] LEVEL name (trace, debug, info, warn,
// error, critical, fatal, none; any case) to a slog level; none reports
// off = true.
func ParseLevel(name string) (level slog.Level, off bool, err error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "trace":
		return LevelTrace, false, nil
	case "debug":
		return slog.LevelDebug, false, nil
	case "", "info":
		return slog.LevelInfo, false, nil
	case "warn", "warning":
		return slog.LevelWarn, false, nil
	case "error":
		return slog.LevelError, false, nil
	case "critical", "fatal":
		return LevelCritical, false, nil
	case "none", "off":
		return 0, true, nil
	}
	return 0, false, fmt.Errorf("[log] LEVEL: unknown level %q (trace, debug, info, warn, error, critical, fatal or none)", name)
}

// NewLogger builds the logger of [log] LEVEL and FORMAT (text or json),
// writing to w. Records logged with a request's context carry its
// request_id.
func NewLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	lvl, off, err := ParseLevel(level)
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: lvl}
	w = &lockedWriter{w: w} // shared by the slog handler and the access lines
	c := contextHandler{}
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "", "text":
		c.Handler = slog.NewTextHandler(w, opts)
		c.text = &textLines{w: w}
	case "json":
		c.Handler = slog.NewJSONHandler(w, opts)
	default:
		return nil, fmt.Errorf("[log] FORMAT: unknown format %q (text or json)", format)
	}
	if off {
		c = contextHandler{Handler: slog.DiscardHandler}
	}
	return slog.New(c), nil
}

// lockedWriter makes each Write whole with respect to the others.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// contextHandler adds the request id of the record's context. With the text
// format, text writes access lines directly (writeAccess).
type contextHandler struct {
	slog.Handler
	text *textLines
}

func (c contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return c.Handler.Handle(ctx, r)
}

// WithAttrs and WithGroup drop the direct access lines, which would miss
// the attributes or the group.
func (c contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{Handler: c.Handler.WithAttrs(attrs)}
}

func (c contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{Handler: c.Handler.WithGroup(name)}
}
