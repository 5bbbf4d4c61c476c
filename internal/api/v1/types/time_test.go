package types

import (
	"encoding/json"
	"testing"
	"time"
)

// Time must encode exactly like time.Time, which clients parse.
func TestTimeEncodesLikeTimeTime(t *testing.T) {
	for _, tm := range []time.Time{{}, time.Date(2026, 11, 22, 13, 4, 5, 0, time.UTC),
		time.Date(2024, 2, 29, 23, 59, 59, 123456789, time.FixedZone("x", 5*3600+1800))} {
		want, _ := json.Marshal(tm)
		got, err := json.Marshal(Time(tm))
		if err != nil || string(got) != string(want) {
			t.Errorf("Time(%v) encodes as %s (%v), want %s", tm, got, err, want)
		}
		var back Time
		if err := json.Unmarshal(got, &back); err != nil || !time.Time(back).Equal(tm) {
			t.Errorf("round trip of %s = %v (%v)", got, time.Time(back), err)
		}
	}
}
