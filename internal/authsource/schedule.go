package authsource

import (
	"fmt"
	"strings"
	"time"
)

// Schedule tells when a periodic task runs next.
type Schedule func(now time.Time) time.Time

// ParseSchedule reads the schedules Cairn supports for cron tasks:
// "@every <duration>" (e.g. "@every 24h"), "@hourly", and "@daily" or
// "@midnight" (at 00:00 local time). Other cron expressions are refused.
func ParseSchedule(spec string) (Schedule, error) {
	spec = strings.TrimSpace(spec)
	switch strings.ToLower(spec) {
	case "@hourly":
		return func(now time.Time) time.Time { return now.Truncate(time.Hour).Add(time.Hour) }, nil
	case "@daily", "@midnight":
		return func(now time.Time) time.Time {
			y, m, d := now.Date()
			return time.Date(y, m, d+1, 0, 0, 0, 0, now.Location())
		}, nil
	}
	if rest, ok := strings.CutPrefix(spec, "@every "); ok {
		every, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil || every < time.Second {
			return nil, fmt.Errorf("schedule %q: the interval must be a duration of at least 1s (e.g. @every 24h)", spec)
		}
		return func(now time.Time) time.Time { return now.Add(every) }, nil
	}
	return nil, fmt.Errorf("schedule %q is not supported: use @every <duration>, @hourly, @daily or @midnight", spec)
}
