package backup

import (
	"bytes"
	"reflect"
	"testing"
)

// TestParseRow checks the reader of format 2 lines against the values the
// dump writes: scalars, escaped and plain strings, binary values.
func TestParseRow(t *testing.T) {
	row := make([]any, 9)
	line := `[1, -7,null,true,false,"plain","tab\tq\"uote\u00e9",{"$base64":"AAH/"},1.5]`
	if err := parseRow([]byte(line), row); err != nil {
		t.Fatal(err)
	}
	want := []any{int64(1), int64(-7), nil, true, false, "plain", "tab\tq\"uote\u00e9", []byte{0, 1, 255}, 1.5}
	if !reflect.DeepEqual(row, want) {
		t.Fatalf("read %#v, want %#v", row, want)
	}
	for _, bad := range []string{`[1,2]`, `[1,2,3,4,5,6,7,8,9,10]`, `{"a":1}`, `[1,2,3,4,5,6,7,8,"x`, `[1,2,3,4,5,6,7,8,{"x":"y"}]`, `[1,2,3,4,5,6,7,8,9] x`} {
		if err := parseRow([]byte(bad), row); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	// What the generic writer produces reads back.
	for _, v := range []any{nil, int64(-1 << 62), true, "plain text", `quote " back \ slash`, "tab\tnew\nline\x01", "héllo ✓", "<a&b>", 1.5} {
		var buf bytes.Buffer
		buf.WriteByte('[')
		if err := appendJSON(&buf, v); err != nil {
			t.Fatal(err)
		}
		buf.WriteByte(']')
		b := buf.Bytes()
		one := make([]any, 1)
		if err := parseRow(b, one); err != nil || !reflect.DeepEqual(one[0], v) {
			t.Errorf("%#v read back as %#v (%v)", v, one[0], err)
		}
	}
}

// TestToColumn checks the conversions to the target column's kind.
func TestToColumn(t *testing.T) {
	for _, c := range []struct {
		in   any
		kind colKind
		want any
	}{
		{int64(1), kindBool, true},
		{int64(0), kindBool, false},
		{true, kindInt, int64(1)},
		{true, kindBool, true},
		{int64(5), kindInt, int64(5)},
		{"x", kindOther, "x"},
		{nil, kindInt, nil},
	} {
		if got, err := toColumn(c.in, c.kind); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("toColumn(%#v, %v) = %#v, %v; want %#v", c.in, c.kind, got, err, c.want)
		}
	}
}

// TestObjectNames checks which repository files count as objects.
func TestObjectNames(t *testing.T) {
	hash := "0123456789abcdef0123456789abcdef01234567"
	for name, want := range map[string]bool{
		"objects/01/" + hash[2:]:                  true,
		"objects/01/tmp_obj_abc":                  false,
		"objects/pack/pack-" + hash + ".pack":     true,
		"objects/pack/pack-" + hash + ".idx":      true,
		"objects/pack/pack-" + hash + ".rev":      false,
		"objects/pack/tmp_pack_x":                 false,
		"objects/info/alternates":                 false,
		"objects/../config":                       false,
		"objects/pack/pack-" + hash[:10] + ".idx": false,
	} {
		if got := isLoose(name) || isPack(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
