package observe

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

// TestAccessLineAsSlog: the text access lines written directly are exactly
// what slog's TextHandler writes for the same record.
func TestAccessLineAsSlog(t *testing.T) {
	lines := []accessLine{
		{id: "ABC", method: "GET", route: "/api/v1/users/{username}", uri: "/api/v1/users/x?token=REDACTED", status: 200, bytes: 495, durationMS: 0.339, user: "root", remote: "127.0.0.1:4000"},
		{id: "with space", method: "POST", route: "unmatched", uri: `/a b/"c"=d`, status: 401, durationMS: 12, user: "", remote: "[::1]:5"},
		{id: "x", method: "GET", route: "/ünï/cödé", uri: "/tab\there/\x01/\u00a0/\xff", status: 500, bytes: 1 << 40, durationMS: 1234567.891, user: "a\\b", remote: "r"},
		{id: "y", method: "DEL\x7f", route: "/e\u0301", uri: "/\u2028", status: 0, durationMS: 0.001},
	}
	times := []time.Time{
		time.Date(2026, 11, 26, 15, 19, 1, 941_000_000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.FixedZone("x", 5*3600+1800)),
	}
	levels := []slog.Level{slog.LevelInfo, slog.LevelWarn, slog.LevelError, LevelTrace, LevelCritical}
	msgs := []string{"request", "refused sign-in"}
	for i, a := range lines {
		ts, level, msg := times[i%len(times)], levels[i%len(levels)], msgs[i%len(msgs)]
		var want, got bytes.Buffer
		rec := slog.NewRecord(ts, level, msg, 0)
		rec.AddAttrs(a.attrs()...)
		if err := slog.NewTextHandler(&want, &slog.HandlerOptions{Level: LevelTrace}).Handle(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		(&textLines{w: &got}).write(ts, level, msg, &a)
		if got.String() != want.String() {
			t.Errorf("line %d:\n got %q\nwant %q", i, got.String(), want.String())
		}
	}
	// The logger NewLogger builds takes the direct path only for text.
	var buf bytes.Buffer
	for format, direct := range map[string]bool{"text": true, "json": false} {
		l, err := NewLogger(&buf, "info", format)
		if err != nil {
			t.Fatal(err)
		}
		c := l.Handler().(contextHandler)
		if (c.text != nil) != direct {
			t.Errorf("%s: direct path %v", format, c.text != nil)
		}
		if w := l.With("k", "v").Handler().(contextHandler); w.text != nil {
			t.Errorf("%s: the direct path survives With", format)
		}
	}
}
