// Package issueform reads the issue templates and the issue configuration a
// repository keeps in its default branch: Markdown templates with a YAML
// front matter, YAML issue forms, and config.yml (contact links, blank
// issues). The rules are Gitea's, so the same files work in both.
package issueform

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// TemplateDirs are the directories searched for templates, in order.
var TemplateDirs = []string{
	"ISSUE_TEMPLATE", "issue_template",
	".gitea/ISSUE_TEMPLATE", ".gitea/issue_template",
	".github/ISSUE_TEMPLATE", ".github/issue_template",
	".gitlab/ISSUE_TEMPLATE", ".gitlab/issue_template",
}

// ConfigFiles are the candidate paths of the issue configuration, in order.
var ConfigFiles = []string{
	".gitea/ISSUE_TEMPLATE/config.yaml", ".gitea/ISSUE_TEMPLATE/config.yml",
	".gitea/issue_template/config.yaml", ".gitea/issue_template/config.yml",
	".github/ISSUE_TEMPLATE/config.yaml", ".github/ISSUE_TEMPLATE/config.yml",
	".github/issue_template/config.yaml", ".github/issue_template/config.yml",
}

// MaxFileSize is the largest template or configuration file read.
const MaxFileSize = 1 << 20

// StringList is a YAML list of strings that may also be written as one
// comma-separated string ("bug, ui").
type StringList []string

// UnmarshalYAML accepts a sequence of strings or a comma-separated scalar.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = nil
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*l = append(*l, s)
			}
		}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*l = nil
		for _, s := range list {
			if s = strings.TrimSpace(s); s != "" {
				*l = append(*l, s)
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: a list of strings or a comma-separated string is expected", n.Line)
}

// Field is one element of an issue form's body.
type Field struct {
	Type        string         `yaml:"type"`
	ID          string         `yaml:"id"`
	Attributes  map[string]any `yaml:"attributes"`
	Validations map[string]any `yaml:"validations"`
	Visible     []string       `yaml:"visible"`
}

// Template is one issue template.
type Template struct {
	Name      string     `yaml:"name"`
	Title     string     `yaml:"title"`
	About     string     `yaml:"about"`
	Labels    StringList `yaml:"labels"`
	Assignees StringList `yaml:"assignees"`
	Ref       string     `yaml:"ref"`
	// Content is the body of a Markdown template.
	Content string `yaml:"-"`
	// Fields is the body of an issue form.
	Fields []*Field `yaml:"body"`
	// FileName is the template's path in the repository.
	FileName string `yaml:"-"`
}

// kind is "md", "yaml" or "" for a file that cannot be a template.
func kind(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".md":
		return "md"
	case ".yaml", ".yml":
		return "yaml"
	}
	return ""
}

// CouldBe reports whether a file with this name may hold a template.
func CouldBe(name string) bool { return kind(name) != "" }

// frontMatter splits a Markdown file into its YAML front matter (between
// two "---" lines at the top) and the body; ok is false without one.
func frontMatter(content string) (meta, body string, ok bool) {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	rest, found := strings.CutPrefix(content, "---\n")
	if !found {
		return "", "", false
	}
	if m, b, found := strings.Cut(rest, "\n---\n"); found {
		return m, b, true
	}
	if m, found := strings.CutSuffix(rest, "\n---"); found {
		return m, "", true
	}
	if b, found := strings.CutPrefix(rest, "---\n"); found { // empty front matter
		return "", b, true
	}
	return "", "", false
}

// Parse reads the template in content, stored at fileName, and checks it;
// an invalid template comes back with the first problem found.
func Parse(fileName string, content []byte) (*Template, error) {
	t := &Template{FileName: fileName}
	// "description" is accepted for "about", as GitHub names it.
	var compat struct {
		About string `yaml:"description"`
	}
	switch kind(fileName) {
	case "md":
		meta, body, ok := frontMatter(string(content))
		if ok && yaml.Unmarshal([]byte(meta), t) == nil {
			t.Content = body
			if t.About == "" && yaml.Unmarshal([]byte(meta), &compat) == nil {
				t.About = compat.About
			}
		} else {
			// Without readable metadata the whole file is the template.
			*t = Template{FileName: fileName, Content: string(content), Name: path.Base(fileName)}
			t.About = truncateBytes(t.Content, 80)
		}
	case "yaml":
		if err := yaml.Unmarshal(content, t); err != nil {
			return nil, fmt.Errorf("yaml unmarshal: %w", err)
		}
		if t.About == "" && yaml.Unmarshal(content, &compat) == nil {
			t.About = compat.About
		}
		for i, f := range t.Fields {
			if f == nil {
				return t, fmt.Errorf("body[%d]: empty field", i)
			}
			if f.ID == "" {
				f.ID = strconv.Itoa(i)
			}
			if f.Visible == nil {
				f.Visible = []string{"form"}
				if f.Type != "markdown" { // markdown is shown, never submitted
					f.Visible = append(f.Visible, "content")
				}
			}
		}
	default:
		return nil, fmt.Errorf("%s: not a template file", fileName)
	}
	return t, t.validate()
}

// truncateBytes cuts s to at most n bytes without splitting a character.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

var fieldID = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// validate checks the template the way Gitea does and returns the first problem.
func (t *Template) validate() error {
	if strings.TrimSpace(t.Name) == "" {
		return fmt.Errorf("'name' is required")
	}
	if strings.TrimSpace(t.About) == "" {
		return fmt.Errorf("'about' is required")
	}
	if kind(t.FileName) != "yaml" {
		return nil
	}
	if len(t.Fields) == 0 {
		return fmt.Errorf("'body' is required")
	}
	ids := map[string]bool{}
	for i, f := range t.Fields {
		at := func(format string, args ...any) error {
			return fmt.Errorf("body[%d](%s): "+format, append([]any{i, f.Type}, args...)...)
		}
		if f.Type != "markdown" {
			switch {
			case f.ID == "":
				return at("'id' is required")
			case !fieldID.MatchString(f.ID):
				return at("'id' should contain only alphanumeric, '-' and '_'")
			case ids[f.ID]:
				return at("'id' should be unique")
			}
			ids[f.ID] = true
			if err := stringItems(f.Attributes, true, "label"); err != "" {
				return at("%s", err)
			}
		}
		var problem string
		switch f.Type {
		case "markdown":
			problem = stringItems(f.Attributes, true, "value")
		case "textarea":
			problem = stringItems(f.Attributes, false, "description", "placeholder", "value", "render")
		case "input":
			problem = firstOf(stringItems(f.Attributes, false, "description", "placeholder", "value"),
				boolItems(f.Validations, "is_number"), stringItems(f.Validations, false, "regex"))
		case "dropdown":
			problem = firstOf(stringItems(f.Attributes, false, "description"), boolItems(f.Attributes, "multiple"))
		case "checkboxes":
			problem = stringItems(f.Attributes, false, "description")
		default:
			return at("unknown type")
		}
		if problem != "" {
			return at("%s", problem)
		}
		if f.Type == "dropdown" || f.Type == "checkboxes" {
			if err := f.validateOptions(i); err != nil {
				return err
			}
		}
		if f.Type != "markdown" && f.Type != "checkboxes" {
			if problem := boolItems(f.Validations, "required"); problem != "" {
				return at("%s", problem)
			}
		}
	}
	return nil
}

func (f *Field) validateOptions(i int) error {
	options, ok := f.Attributes["options"].([]any)
	if !ok || len(options) == 0 {
		return fmt.Errorf("body[%d](%s): 'options' is required and should be a array", i, f.Type)
	}
	for j, o := range options {
		at := func(msg string) error { return fmt.Errorf("body[%d](%s), option[%d]: %s", i, f.Type, j, msg) }
		if f.Type == "dropdown" {
			if _, ok := o.(string); !ok {
				return at("should be a string")
			}
			continue
		}
		m, ok := o.(map[string]any)
		if !ok {
			return at("should be a dictionary")
		}
		if label, ok := m["label"].(string); !ok || label == "" {
			return at("'label' is required and should be a string")
		}
		if req, ok := m["required"]; ok {
			if _, ok := req.(bool); !ok {
				return at("'required' should be a bool")
			}
		}
	}
	return nil
}

// stringItems checks that the named entries of m are strings (and present
// and not blank when required); it returns the first problem or "".
func stringItems(m map[string]any, required bool, names ...string) string {
	for _, name := range names {
		v, ok := m[name]
		if !ok {
			if required {
				return fmt.Sprintf("'%s' is required", name)
			}
			continue
		}
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("'%s' should be a string", name)
		}
		if required && strings.TrimSpace(s) == "" {
			return fmt.Sprintf("'%s' is required", name)
		}
	}
	return ""
}

// boolItems checks that the named entries of m, where present, are booleans.
func boolItems(m map[string]any, names ...string) string {
	for _, name := range names {
		if v, ok := m[name]; ok {
			if _, ok := v.(bool); !ok {
				return fmt.Sprintf("'%s' should be a bool", name)
			}
		}
	}
	return ""
}

func firstOf(problems ...string) string {
	for _, p := range problems {
		if p != "" {
			return p
		}
	}
	return ""
}

// ContactLink is a link shown beside the templates.
type ContactLink struct {
	Name  string `yaml:"name"`
	URL   string `yaml:"url"`
	About string `yaml:"about"`
}

// Config is the issue configuration (config.yml).
type Config struct {
	BlankIssuesEnabled bool          `yaml:"blank_issues_enabled"`
	ContactLinks       []ContactLink `yaml:"contact_links"`
}

// unsafeSchemes are URL schemes that run code when followed.
var unsafeSchemes = map[string]bool{"javascript": true, "vbscript": true, "data": true}

// DefaultConfig is the configuration of a repository without config.yml.
func DefaultConfig() Config { return Config{BlankIssuesEnabled: true, ContactLinks: []ContactLink{}} }

// ParseConfig reads and checks config.yml; on a problem it returns the
// default configuration with the error.
func ParseConfig(content []byte) (Config, error) {
	c := DefaultConfig()
	if len(bytes.TrimSpace(content)) == 0 {
		return c, nil
	}
	if err := yaml.Unmarshal(content, &c); err != nil {
		return DefaultConfig(), err
	}
	if c.ContactLinks == nil {
		c.ContactLinks = []ContactLink{}
	}
	for i, l := range c.ContactLinks {
		switch {
		case l.Name == "":
			return DefaultConfig(), fmt.Errorf("contact_link at position %d is missing name key", i+1)
		case l.URL == "":
			return DefaultConfig(), fmt.Errorf("contact_link at position %d is missing url key", i+1)
		case l.About == "":
			return DefaultConfig(), fmt.Errorf("contact_link at position %d is missing about key", i+1)
		}
		// Script URLs are refused too: the links end up in pages.
		if u, err := url.ParseRequestURI(l.URL); err != nil || unsafeSchemes[strings.ToLower(u.Scheme)] {
			return DefaultConfig(), fmt.Errorf("%s is not a valid URL", l.URL)
		}
	}
	return c, nil
}
