package backup

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// TestValueRoundTrip checks that each value a driver scans is written in a
// form that reads back as what the target column takes.
func TestValueRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name       string
		in         any
		src, dst   string // column types on the source and target
		wantJSON   string
		wantTarget any
	}{
		{"sqlite int", int64(42), "INTEGER", "BIGINT", `42`, int64(42)},
		{"mysql int as text", []byte("-7"), "BIGINT", "INTEGER", `-7`, int64(-7)},
		{"sqlite bool to postgres", int64(1), "BOOLEAN", "BOOL", `true`, true},
		{"mysql tinyint to postgres bool", []byte("0"), "TINYINT", "BOOL", `0`, false},
		{"postgres bool to mysql", true, "BOOL", "TINYINT", `true`, int64(1)},
		{"text", []byte("héllo\n"), "LONGTEXT", "TEXT", `"héllo\n"`, "héllo\n"},
		{"string", "x", "TEXT", "VARCHAR", `"x"`, "x"},
		{"null", nil, "TEXT", "TEXT", `null`, nil},
		{"blob", []byte{0, 1, 255}, "BLOB", "BYTEA", `{"$base64":"AAH/"}`, []byte{0, 1, 255}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := portable(c.in, kindOf(c.src))
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(v)
			if err != nil || string(b) != c.wantJSON {
				t.Fatalf("written %s (%v), want %s", b, err, c.wantJSON)
			}
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var back any
			if err := dec.Decode(&back); err != nil {
				t.Fatal(err)
			}
			got, err := fromPortable(back, kindOf(c.dst))
			if err != nil || !reflect.DeepEqual(got, c.wantTarget) {
				t.Fatalf("read back %#v (%v), want %#v", got, err, c.wantTarget)
			}
		})
	}
	if _, err := portable(struct{}{}, kindOther); err == nil {
		t.Error("an unknown value type was accepted")
	}
	if _, err := fromPortable(map[string]any{"x": "y"}, kindOther); err == nil {
		t.Error("an unknown object was accepted")
	}
}

// TestAppendJSON checks that the reflection-free writer reads back as the
// value written, for strings that need escapes and for those that do not.
func TestAppendJSON(t *testing.T) {
	for _, v := range []any{nil, int64(-1 << 62), true, false, "plain text", `quote " back \ slash`, "tab\tnew\nline\x01", "héllo ✓", "<a&b>", 1.5} {
		var b bytes.Buffer
		if err := appendJSON(&b, v); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(&b)
		dec.UseNumber()
		var back any
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		want := v
		switch x := v.(type) {
		case int64:
			want = json.Number(strconv.FormatInt(x, 10))
		case float64:
			want = json.Number(strconv.FormatFloat(x, 'f', -1, 64))
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("%#v read back as %#v", v, back)
		}
	}
}
