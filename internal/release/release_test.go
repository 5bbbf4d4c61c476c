package release

import (
	"strings"
	"testing"
)

func TestValidTagName(t *testing.T) {
	for name, want := range map[string]bool{"v1.0": true, "release/2": true, "": false, "-rf": false, strings.Repeat("a", 256): false} {
		if got := ValidTagName(name); got != want {
			t.Errorf("ValidTagName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCheckAssetName(t *testing.T) {
	for name, ok := range map[string]bool{"tool.tar.gz": true, "a/b": false, `a\b`: false, "..": false, "x..y": false, "": false, "a\x01": false} {
		if _, err := CheckAssetName(name); (err == nil) != ok {
			t.Errorf("CheckAssetName(%q): err %v", name, err)
		}
	}
}
