package auth

import (
	"reflect"
	"testing"
)

func TestParseScopes(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
		err  bool
	}{
		{[]string{"all"}, []string{"all"}, false},
		{[]string{"read:user", "write:user"}, []string{"write:user"}, false},
		{[]string{"write:repository,read:user"}, []string{"write:repository", "read:user"}, false},
		{[]string{"read:user", "public-only"}, []string{"public-only", "read:user"}, false},
		{[]string{"write:activitypub", "write:admin", "write:misc", "write:notification", "write:organization",
			"write:package", "write:issue", "write:repository", "write:user"}, []string{"all"}, false},
		{[]string{}, nil, false},
		{[]string{"read:nothing"}, nil, true},
		{[]string{"sudo"}, nil, true},
		{[]string{"admin:user"}, nil, true},
	}
	for _, c := range cases {
		s, err := ParseScopes(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseScopes(%v) err = %v, want error %v", c.in, err, c.err)
			continue
		}
		if err == nil && !reflect.DeepEqual(s.Names(), c.want) {
			t.Errorf("ParseScopes(%v).Names() = %v, want %v", c.in, s.Names(), c.want)
		}
	}
}

func TestScopeHas(t *testing.T) {
	s, _ := ParseScopes([]string{"write:issue", "read:user"})
	if !s.Has(CatIssue, LevelRead) || !s.Has(CatIssue, LevelWrite) {
		t.Error("write:issue must grant read and write on issues")
	}
	if !s.Has(CatUser, LevelRead) || s.Has(CatUser, LevelWrite) {
		t.Error("read:user must grant read only")
	}
	if s.Has(CatRepository, LevelRead) {
		t.Error("no repository scope was given")
	}
	if !(Scope{}).Empty() || s.Empty() {
		t.Error("Empty is wrong")
	}
}
