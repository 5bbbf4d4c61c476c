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

// TestAppendRaw checks that values written from the driver's bytes come
// out as the generic writer writes the same values, and that bytes not of
// their column's kind are refused.
func TestAppendRaw(t *testing.T) {
	for _, c := range []struct {
		raw  []byte
		kind colKind
		want any // what the generic writer is given
	}{
		{[]byte("42"), kindInt, int64(42)},
		{[]byte("-9223372036854775808"), kindInt, int64(-1 << 63)},
		{[]byte("t"), kindBool, true},
		{[]byte("true"), kindBool, true},
		{[]byte("1"), kindBool, true},
		{[]byte("f"), kindBool, false},
		{[]byte("0"), kindBool, false},
		{nil, kindOther, nil},
		{[]byte{}, kindOther, ""},
		{[]byte("plain"), kindOther, "plain"},
		{[]byte(`quote " back \ slash`), kindOther, `quote " back \ slash`},
		{[]byte("héllo\n\x01<a&b>"), kindOther, "héllo\n\x01<a&b>"},
		{[]byte{0, 1, 255}, kindBlob, []byte{0, 1, 255}},
	} {
		var got, want bytes.Buffer
		if err := appendRaw(&got, c.raw, c.kind); err != nil {
			t.Errorf("%q: %v", c.raw, err)
			continue
		}
		v, err := portable(c.want, c.kind)
		if err != nil {
			t.Fatal(err)
		}
		if err := appendJSON(&want, v); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%q (kind %d) written as %s, the generic writer writes %s", c.raw, c.kind, got.String(), want.String())
		}
		row := make([]any, 1)
		if err := parseRow([]byte("["+got.String()+"]"), row); err != nil {
			t.Errorf("%s does not read back: %v", got.String(), err)
		}
	}
	for _, c := range []struct {
		raw  string
		kind colKind
	}{{"1.5", kindInt}, {"abc", kindInt}, {"", kindInt}, {"-", kindInt}, {"12345678901234567890", kindInt}, {"yes", kindBool}} {
		var b bytes.Buffer
		if err := appendRaw(&b, []byte(c.raw), c.kind); err == nil {
			t.Errorf("%q was accepted as kind %d: %s", c.raw, c.kind, b.String())
		}
	}
}
