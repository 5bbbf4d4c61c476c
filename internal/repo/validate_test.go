package repo

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	for _, n := range []string{"a", "my-repo", "My.Repo_2", strings.Repeat("x", 100), "-dash-first"} {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v", n, err)
		}
	}
	for _, n := range []string{"", ".", "..", "-", "a/b", "../x", "x.git", "y.wiki", "with space", "ümlaut", strings.Repeat("x", 101), "a\x00b"} {
		if err := ValidateName(n); err == nil {
			t.Errorf("ValidateName(%q) accepted", n)
		}
	}
}
