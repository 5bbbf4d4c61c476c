package user

import (
	"strings"
	"testing"
)

func TestKeywordCond(t *testing.T) {
	for _, v := range []*User{nil, {ID: 2}, {ID: 1, IsAdmin: true}} {
		where, args := KeywordCond("a_b", v)
		if n := strings.Count(where, "?"); n != len(args) {
			t.Fatalf("viewer %+v: %d placeholders, %d arguments", v, n, len(args))
		}
		if args[0] != "%a!_b%" {
			t.Fatalf("pattern %v", args[0])
		}
	}
	// Signed-out visitors search no e-mail address; others only public ones.
	if where, _ := KeywordCond("x", nil); strings.Contains(where, "email") {
		t.Fatalf("signed out: %s", where)
	}
	if where, _ := KeywordCond("x", &User{ID: 2}); !strings.Contains(where, "keep_email_private") {
		t.Fatalf("signed in: %s", where)
	}
	where, args := NameCond("Zed")
	if strings.Count(where, "?") != len(args) || args[0] != "%zed%" {
		t.Fatalf("NameCond: %s %v", where, args)
	}
}
