package issue

import "testing"

func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0 seconds"},
		{1, "1 second"},
		{66, "1 minute 6 seconds"},
		{3600, "1 hour"},
		{3605, "1 hour"},
		{52410, "14 hours 33 minutes"},
		{563418, "6 days 12 hours"},
		{1563418, "2 weeks 4 days"},
		{-90, "-1 minute 30 seconds"},
	} {
		if got := FormatDuration(c.in); got != c.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}
