package issueform

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseMarkdown(t *testing.T) {
	tpl, err := Parse(".gitea/ISSUE_TEMPLATE/bug.md", []byte("---\r\nname: Bug report\r\nabout: Something broke\r\ntitle: \"[bug] \"\r\nlabels: bug, needs triage\r\nassignees: [alice]\r\nref: main\r\n---\r\nWhat happened?\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Template{Name: "Bug report", About: "Something broke", Title: "[bug] ", Labels: StringList{"bug", "needs triage"},
		Assignees: StringList{"alice"}, Ref: "main", Content: "What happened?\n", FileName: ".gitea/ISSUE_TEMPLATE/bug.md"}
	if !reflect.DeepEqual(tpl, want) {
		t.Fatalf("got %+v\nwant %+v", tpl, want)
	}
	// GitHub's "description" stands for "about".
	tpl, err = Parse("x.md", []byte("---\nname: N\ndescription: D\n---\nbody"))
	if err != nil || tpl.About != "D" {
		t.Fatalf("description: %v %+v", err, tpl)
	}
	// Without front matter the file is the template, named after itself.
	tpl, err = Parse("dir/plain.md", []byte(strings.Repeat("é", 50)))
	if err != nil || tpl.Name != "plain.md" || len(tpl.About) != 80 || tpl.Content != strings.Repeat("é", 50) {
		t.Fatalf("plain: %v %+v", err, tpl)
	}
	if _, err := Parse("x.md", []byte("---\nabout: no name\n---\n")); err == nil || err.Error() != "'name' is required" {
		t.Fatalf("missing name: %v", err)
	}
	if _, err := Parse("x.md", []byte("---\nname: no about\n---\n")); err == nil || err.Error() != "'about' is required" {
		t.Fatalf("missing about: %v", err)
	}
}

func TestParseForm(t *testing.T) {
	form := `name: Feature
description: Ask for something
labels: [enhancement]
body:
  - type: markdown
    attributes:
      value: Thanks!
  - type: input
    id: summary
    attributes:
      label: Summary
    validations:
      required: true
  - type: dropdown
    attributes:
      label: Area
      options: [api, git]
  - type: checkboxes
    id: terms
    attributes:
      label: Terms
      options:
        - label: I searched first
          required: true
`
	tpl, err := Parse(".github/ISSUE_TEMPLATE/feature.yml", []byte(form))
	if err != nil {
		t.Fatal(err)
	}
	if tpl.About != "Ask for something" || len(tpl.Fields) != 4 || tpl.Labels[0] != "enhancement" {
		t.Fatalf("form: %+v", tpl)
	}
	// Ids default to the position; markdown is shown but not submitted.
	if tpl.Fields[0].ID != "0" || !reflect.DeepEqual(tpl.Fields[0].Visible, []string{"form"}) ||
		tpl.Fields[2].ID != "2" || !reflect.DeepEqual(tpl.Fields[2].Visible, []string{"form", "content"}) {
		t.Fatalf("defaults: %+v %+v", tpl.Fields[0], tpl.Fields[2])
	}
	bad := map[string]string{
		"name: N\nabout: A\n": "'body' is required",
		"name: N\nabout: A\nbody:\n  - type: radio\n    id: x\n    attributes: {label: L}\n":                                                            "body[0](radio): unknown type",
		"name: N\nabout: A\nbody:\n  - type: input\n    id: a b\n    attributes: {label: L}\n":                                                          "body[0](input): 'id' should contain only alphanumeric, '-' and '_'",
		"name: N\nabout: A\nbody:\n  - type: input\n    id: a\n    attributes: {label: L}\n  - type: textarea\n    id: a\n    attributes: {label: M}\n": "body[1](textarea): 'id' should be unique",
		"name: N\nabout: A\nbody:\n  - type: input\n    id: a\n":                                                                                        "body[0](input): 'label' is required",
		"name: N\nabout: A\nbody:\n  - type: markdown\n    attributes: {value: 3}\n":                                                                    "body[0](markdown): 'value' should be a string",
		"name: N\nabout: A\nbody:\n  - type: dropdown\n    id: d\n    attributes: {label: L}\n":                                                         "body[0](dropdown): 'options' is required and should be a array",
		"name: N\nabout: A\nbody:\n  - type: checkboxes\n    id: c\n    attributes: {label: L, options: [x]}\n":                                         "body[0](checkboxes), option[0]: should be a dictionary",
		"name: N\nabout: A\nbody:\n  - type: input\n    id: a\n    attributes: {label: L}\n    validations: {required: yes please}\n":                   "body[0](input): 'required' should be a bool",
	}
	for in, want := range bad {
		if _, err := Parse("f.yaml", []byte(in)); err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
	if _, err := Parse("f.yaml", []byte("name: [unclosed")); err == nil || !strings.HasPrefix(err.Error(), "yaml unmarshal") {
		t.Errorf("broken YAML: %v", err)
	}
	if CouldBe("config.txt") || !CouldBe("a.YML") {
		t.Error("CouldBe")
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte("blank_issues_enabled: false\ncontact_links:\n  - name: Forum\n    url: https://forum.example.org\n    about: Questions\n"))
	if err != nil || c.BlankIssuesEnabled || len(c.ContactLinks) != 1 || c.ContactLinks[0].URL != "https://forum.example.org" {
		t.Fatalf("config: %v %+v", err, c)
	}
	if c, err := ParseConfig([]byte("contact_links: []\n")); err != nil || !c.BlankIssuesEnabled {
		t.Fatalf("blank issues stay enabled by default: %v %+v", err, c)
	}
	for in, want := range map[string]string{
		"contact_links:\n  - url: https://x\n    about: a\n":                 "contact_link at position 1 is missing name key",
		"contact_links:\n  - name: n\n    about: a\n":                        "contact_link at position 1 is missing url key",
		"contact_links:\n  - name: n\n    url: https://x\n":                  "contact_link at position 1 is missing about key",
		"contact_links:\n  - name: n\n    url: nope\n    about: a\n":         "nope is not a valid URL",
		"contact_links:\n  - name: n\n    url: javascript:x\n    about: a\n": "javascript:x is not a valid URL",
	} {
		c, err := ParseConfig([]byte(in))
		if err == nil || err.Error() != want || !c.BlankIssuesEnabled {
			t.Errorf("%q: got %v %+v, want %q", in, err, c, want)
		}
	}
}
