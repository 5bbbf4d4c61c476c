package observe

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// accessLine is what one access log line says.
type accessLine struct {
	id, method, route, uri string
	status                 int
	bytes                  int64
	durationMS             float64
	user, remote           string
}

func (a *accessLine) attrs() []slog.Attr {
	return []slog.Attr{
		slog.String("request_id", a.id),
		slog.String("method", a.method),
		slog.String("route", a.route),
		slog.String("uri", a.uri),
		slog.Int("status", a.status),
		slog.Int64("bytes", a.bytes),
		slog.Float64("duration_ms", a.durationMS),
		slog.String("user", a.user),
		slog.String("remote", a.remote),
	}
}

// writeAccess logs a line through h. The text handler NewLogger builds
// formats it itself, byte for byte as slog's TextHandler would (a test
// compares them), at a fraction of the cost: the access log is written once
// per request. Any other handler gets an ordinary record; it goes straight
// to the handler, since Logger.LogAttrs would look up the caller's stack,
// which no handler here prints.
func writeAccess(ctx context.Context, h slog.Handler, t time.Time, level slog.Level, msg string, a accessLine) {
	if c, ok := h.(contextHandler); ok && c.text != nil {
		c.text.write(t, level, msg, &a)
		return
	}
	rec := slog.NewRecord(t, level, msg, 0)
	rec.AddAttrs(a.attrs()...)
	_ = h.Handle(ctx, rec)
}

// textLines writes access lines in slog's text format to w, whose writes
// NewLogger serializes with those of the slog handler.
type textLines struct {
	w    io.Writer
	bufs sync.Pool
}

func (t *textLines) write(ts time.Time, level slog.Level, msg string, a *accessLine) {
	bp, _ := t.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, 512)
		bp = &b
	}
	b := append((*bp)[:0], "time="...)
	b = appendMillis(b, ts)
	b = append(b, " level="...)
	b = append(b, level.String()...)
	b = appendText(append(b, " msg="...), msg)
	b = appendText(append(b, " request_id="...), a.id)
	b = appendText(append(b, " method="...), a.method)
	b = appendText(append(b, " route="...), a.route)
	b = appendText(append(b, " uri="...), a.uri)
	b = strconv.AppendInt(append(b, " status="...), int64(a.status), 10)
	b = strconv.AppendInt(append(b, " bytes="...), a.bytes, 10)
	b = strconv.AppendFloat(append(b, " duration_ms="...), a.durationMS, 'g', -1, 64)
	b = appendText(append(b, " user="...), a.user)
	b = appendText(append(b, " remote="...), a.remote)
	b = append(b, '\n')
	_, _ = t.w.Write(b)
	*bp = b
	t.bufs.Put(bp)
}

// appendMillis appends t as slog's text handler does: RFC 3339 with
// exactly three digits of milliseconds.
func appendMillis(b []byte, t time.Time) []byte {
	return t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
}

// appendText appends s as slog's text handler does: as is, or quoted when
// it is empty or holds spaces, '=', '"', control or unprintable characters.
func appendText(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
