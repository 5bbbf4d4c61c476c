package observe

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestParseLevel(t *testing.T) {
	for _, c := range []struct {
		name  string
		level slog.Level
		off   bool
		bad   bool
	}{
		{"Trace", LevelTrace, false, false},
		{"debug", slog.LevelDebug, false, false},
		{"Info", slog.LevelInfo, false, false},
		{"", slog.LevelInfo, false, false},
		{"WARN", slog.LevelWarn, false, false},
		{"warning", slog.LevelWarn, false, false},
		{"Error", slog.LevelError, false, false},
		{"Critical", LevelCritical, false, false},
		{"fatal", LevelCritical, false, false},
		{"None", 0, true, false},
		{"verbose", 0, false, true},
	} {
		level, off, err := ParseLevel(c.name)
		if (err != nil) != c.bad || err == nil && (level != c.level || off != c.off) {
			t.Errorf("ParseLevel(%q) = %v, %v, %v", c.name, level, off, err)
		}
	}
}

func TestNewLogger(t *testing.T) {
	ctx := context.WithValue(context.Background(), requestKey{}, &request{id: "rid-1"})
	for _, c := range []struct {
		level, format string
		want          []string // substrings of the output
		none          []string // must not appear
	}{
		{"warn", "text", []string{"level=WARN msg=shown request_id=rid-1"}, []string{"hidden"}},
		{"debug", "JSON", []string{`"msg":"hidden"`, `"msg":"shown","request_id":"rid-1"`}, nil},
		{"none", "text", nil, []string{"shown", "hidden"}},
	} {
		var buf bytes.Buffer
		l, err := NewLogger(&buf, c.level, c.format)
		if err != nil {
			t.Fatal(err)
		}
		l.DebugContext(ctx, "hidden")
		l.WarnContext(ctx, "shown")
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s/%s: %q not in %q", c.level, c.format, w, buf.String())
			}
		}
		for _, n := range c.none {
			if strings.Contains(buf.String(), n) {
				t.Errorf("%s/%s: %q in %q", c.level, c.format, n, buf.String())
			}
		}
	}
	if _, err := NewLogger(&bytes.Buffer{}, "info", "xml"); err == nil {
		t.Error("format xml accepted")
	}
	if _, err := NewLogger(&bytes.Buffer{}, "loud", "text"); err == nil {
		t.Error("level loud accepted")
	}
}
