package authsource

import (
	"testing"
	"time"
)

func TestParseSchedule(t *testing.T) {
	now := time.Date(2026, 11, 27, 13, 45, 10, 0, time.UTC)
	for spec, want := range map[string]time.Time{
		"@every 24h":  now.Add(24 * time.Hour),
		"@every 90s":  now.Add(90 * time.Second),
		"@hourly":     time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC),
		"@midnight":   time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC),
		" @daily ":    time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC),
		"@every 1m0s": now.Add(time.Minute),
	} {
		next, err := ParseSchedule(spec)
		if err != nil {
			t.Fatalf("%q: %v", spec, err)
		}
		if got := next(now); !got.Equal(want) {
			t.Errorf("%q: next %v, want %v", spec, got, want)
		}
	}
	for _, spec := range []string{"", "0 0 * * *", "@every", "@every 0s", "@every -1h", "@weekly"} {
		if _, err := ParseSchedule(spec); err == nil {
			t.Errorf("%q accepted", spec)
		}
	}
}
