package issue

import (
	"reflect"
	"testing"
)

func TestFindReferences(t *testing.T) {
	cases := []struct {
		text string
		want []Reference
	}{
		{"see #12", []Reference{{Index: 12}}},
		{"#1 #2, and (#3).", []Reference{{Index: 1}, {Index: 2}, {Index: 3}}},
		{"alice/proj#7 and bob/x.y#8", []Reference{{Owner: "alice", Name: "proj", Index: 7}, {Owner: "bob", Name: "x.y", Index: 8}}},
		{"fixes #4, Closes: #5 reopens #6", []Reference{{Index: 4, Action: RefActionCloses}, {Index: 5, Action: RefActionCloses}, {Index: 6, Action: RefActionReopens}}},
		{"prefixes #4", []Reference{{Index: 4}}},
		{"abc#1 a/b/c#2 #3x #0 http://h/#4", nil},
		{"`#1` and\n```\n#2\n```\n    #3\n#4", []Reference{{Index: 4}}},
		{"#5 twice #5", []Reference{{Index: 5}}},
		{"!9 is a pull", []Reference{{Index: 9}}},
		{"#99999999999999999999", nil},
	}
	for _, c := range cases {
		if got := FindReferences(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("FindReferences(%q) = %+v, want %+v", c.text, got, c.want)
		}
	}
}

func TestFindMentions(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"@alice please", []string{"alice"}},
		{"cc @Bob, @carol.", []string{"bob", "carol"}},
		{"(@dave) [@erin] @dave", []string{"dave", "erin"}},
		{"mail bob@example.com", nil},
		{"@org/team is a team", nil},
		{"`@code` and\n```\n@fenced\n```\n@real", []string{"real"}},
		{"@a.b-c_d", []string{"a.b-c_d"}},
		{"@", nil},
	}
	for _, c := range cases {
		if got := FindMentions(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("FindMentions(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestFindTeamMentions(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"@org/team is a team", []string{"org/team"}},
		{"cc @Acme/Core-Team. and @acme/core-team again", []string{"acme/core-team"}},
		{"@alice and (@acme/devs)", []string{"acme/devs"}},
		{"@acme/a/b is a path, @acme/ is nothing, @acme/x@y neither", nil},
		{"`@acme/code` and bob@acme/mail", nil},
	}
	for _, c := range cases {
		if got := FindTeamMentions(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("FindTeamMentions(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	if got := FindMentions("@alice and (@acme/devs)"); !reflect.DeepEqual(got, []string{"alice"}) {
		t.Errorf("users next to a team: %q", got)
	}
}

func TestRefActionString(t *testing.T) {
	for a, want := range map[RefAction]string{RefActionNone: "none", RefActionCloses: "closes", RefActionReopens: "reopens", RefActionNeutered: "neutered"} {
		if a.String() != want {
			t.Errorf("%d = %q, want %q", a, a.String(), want)
		}
	}
}
