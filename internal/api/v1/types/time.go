package types

import "time"

// Time is an instant encoded as an RFC 3339 JSON string, like time.Time.
// It encodes through MarshalText, which encoding/json does not re-validate,
// so the times of the many users in a list cost less to write.
type Time time.Time

// MarshalText renders the time in RFC 3339 with nanoseconds when present.
func (t Time) MarshalText() ([]byte, error) { return time.Time(t).MarshalText() }

// UnmarshalText reads an RFC 3339 time.
func (t *Time) UnmarshalText(b []byte) error { return (*time.Time)(t).UnmarshalText(b) }
