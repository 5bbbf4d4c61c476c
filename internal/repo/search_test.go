package repo

import (
	"strings"
	"testing"
)

func TestSearchCondPlaceholders(t *testing.T) {
	yes, no := true, false
	cases := []SearchOptions{
		{},
		{Keyword: "  go  "},
		{Keyword: "go", IncludeDesc: true},
		{Keyword: "go", TopicOnly: true},
		{OwnerID: 3},
		{OwnerID: 3, Exclusive: true},
		{StarredBy: 4, TeamID: 5, Private: &yes, Template: &no, Archived: &yes, PublicOnly: true},
		{Mode: "fork"}, {Mode: "source"}, {Mode: "mirror"}, {Mode: "collaborative", DoerID: 7}, {Mode: "collaborative"},
	}
	for _, o := range cases {
		where, args, err := o.Cond()
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if n := strings.Count(where, "?"); n != len(args) {
			t.Fatalf("%+v: %d placeholders, %d arguments: %s", o, n, len(args), where)
		}
	}
	where, args, _ := SearchOptions{Keyword: "50%_off"}.Cond()
	if !strings.Contains(where, "ESCAPE '!'") || args[0] != "%50!%!_off%" || args[1] != "50%_off" {
		t.Fatalf("keyword: %s %v", where, args)
	}
	if _, _, err := (SearchOptions{Mode: "bogus"}).Cond(); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

func TestSearchOrder(t *testing.T) {
	for _, c := range []struct{ sort, order, want string }{
		{"", "", "r.updated_unix DESC, r.id DESC"},
		{"created", "", "r.created_unix DESC, r.id DESC"},
		{"alpha", "", "r.lower_name ASC, r.id ASC"},
		{"stars", "desc", "r.num_stars DESC, r.id DESC"},
		{"updated", "asc", "r.updated_unix ASC, r.id ASC"},
	} {
		got, err := SearchOrder(c.sort, c.order)
		if err != nil || got != c.want {
			t.Fatalf("SearchOrder(%q, %q) = %q, %v; want %q", c.sort, c.order, got, err, c.want)
		}
	}
	if _, err := SearchOrder("size; DROP TABLE", ""); err == nil {
		t.Fatal("unknown sort accepted")
	}
	if _, err := SearchOrder("id", "sideways"); err == nil {
		t.Fatal("unknown order accepted")
	}
}

func TestAccessibleCondPlaceholders(t *testing.T) {
	where, args := AccessibleCond(9)
	if n := strings.Count(where, "?"); n != len(args) {
		t.Fatalf("%d placeholders, %d arguments", n, len(args))
	}
}
