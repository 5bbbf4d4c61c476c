package templates

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-forge/cairn/internal/errs"
)

func mustNew(t testing.TB) *Set {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGitignores(t *testing.T) {
	s := mustNew(t)
	list := s.Gitignores()
	if !sort.StringsAreSorted(list) {
		t.Errorf("Gitignores not sorted: %v", list)
	}
	want := []string{"Go", "Python", "Node", "Java", "C", "C++", "Rust", "Ruby", "PHP", "Swift", "Kotlin", "Dart",
		"Haskell", "Elixir", "Scala", "Terraform", "Unity", "VisualStudio", "JetBrains", "macOS", "Windows", "Linux",
		"Vim", "Emacs", "VisualStudioCode", "Android", "Gradle", "Maven", "CMake", "Zig", "Julia", "R", "TeX"}
	have := map[string]bool{}
	for _, n := range list {
		have[n] = true
	}
	for _, n := range want {
		if !have[n] {
			t.Errorf("gitignore template %q missing", n)
		}
	}
	for _, n := range list {
		body, err := s.Gitignore(n)
		if err != nil {
			t.Fatalf("Gitignore(%q): %v", n, err)
		}
		if len(bytes.TrimSpace(body)) == 0 || !bytes.HasSuffix(body, []byte("\n")) || bytes.Contains(body, []byte("\r")) {
			t.Errorf("Gitignore(%q): empty, CR or no final newline", n)
		}
	}
	// The list is a copy.
	list[0] = "changed"
	if s.Gitignores()[0] == "changed" {
		t.Error("Gitignores returned the internal slice")
	}
}

func TestGitignoreContent(t *testing.T) {
	s := mustNew(t)
	for name, line := range map[string]string{"Go": "*.test", "Node": "node_modules/", "Python": "__pycache__/", "Rust": "target/", "macOS": ".DS_Store"} {
		body, err := s.Gitignore(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains("\n"+string(body), "\n"+line+"\n") {
			t.Errorf("%s template lacks %q", name, line)
		}
	}
}

func TestGitignoreNotFound(t *testing.T) {
	s := mustNew(t)
	for _, n := range []string{"", "go", "Nope", "../license/MIT", "data/gitignore/Go"} {
		if _, err := s.Gitignore(n); !errs.IsNotFound(err) {
			t.Errorf("Gitignore(%q) err = %v, want not found", n, err)
		}
	}
}

func TestGitignoreCombined(t *testing.T) {
	s := mustNew(t)
	goT, _ := s.Gitignore("Go")
	vim, _ := s.Gitignore("Vim")
	tests := []struct {
		in, want string
		notFound bool
	}{
		{in: "", want: ""},
		{in: " , ,", want: ""},
		{in: "Go", want: "# ---> Go\n" + string(goT)},
		{in: "Go, Vim,Go", want: "# ---> Go\n" + string(goT) + "\n# ---> Vim\n" + string(vim)},
		{in: "Go,Nope", notFound: true},
	}
	for _, tt := range tests {
		got, err := s.GitignoreCombined(tt.in)
		if tt.notFound {
			if !errs.IsNotFound(err) {
				t.Errorf("GitignoreCombined(%q) err = %v, want not found", tt.in, err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("GitignoreCombined(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestLicenses(t *testing.T) {
	s := mustNew(t)
	list := s.Licenses()
	if !sort.SliceIsSorted(list, func(i, j int) bool { return list[i].ID < list[j].ID }) {
		t.Error("Licenses not sorted")
	}
	ids := map[string]bool{}
	for _, l := range list {
		ids[l.ID] = true
		if l.Name == "" {
			t.Errorf("%s has no name", l.ID)
		}
		text, err := s.License(l.ID)
		if err != nil || len(text) < 100 {
			t.Errorf("License(%s): %d bytes, %v", l.ID, len(text), err)
		}
	}
	for _, id := range []string{"Apache-2.0", "GPL-2.0", "GPL-3.0", "LGPL-2.1", "LGPL-3.0", "MPL-2.0", "BSD-3-Clause", "CC0-1.0",
		"MIT", "ISC", "BSD-2-Clause", "Unlicense", "0BSD", "GPL-3.0-or-later"} {
		if !ids[id] {
			t.Errorf("license %s missing", id)
		}
	}
	for id, phrase := range map[string]string{
		"Apache-2.0": "Apache License", "GPL-3.0": "GNU GENERAL PUBLIC LICENSE", "GPL-2.0-only": "Version 2, June 1991",
		"LGPL-2.1": "GNU LESSER GENERAL PUBLIC LICENSE", "MPL-2.0": "Mozilla Public License Version 2.0", "CC0-1.0": "CC0 1.0 Universal",
		"MIT": "Permission is hereby granted", "Unlicense": "public domain", "BSD-3-Clause": "Neither the name of the copyright holder",
	} {
		text, _ := s.License(id)
		if !strings.Contains(string(text), phrase) {
			t.Errorf("%s lacks %q", id, phrase)
		}
	}
	if _, err := s.License("mit"); !errs.IsNotFound(err) {
		t.Errorf("License(mit) err = %v, want not found", err)
	}
}

func TestRenderLicense(t *testing.T) {
	s := mustNew(t)
	for _, id := range []string{"MIT", "ISC", "BSD-2-Clause", "BSD-3-Clause", "0BSD"} {
		text, err := s.RenderLicense(id, "Jane Doe", 2024)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if strings.Contains(string(text), "<") || !strings.Contains(string(text), "2024") || !strings.Contains(string(text), "Jane Doe") {
			t.Errorf("%s not filled:\n%s", id, text)
		}
		if _, err := s.RenderLicense(id, " ", 2024); !errs.Is(err, errs.KindInvalid) {
			t.Errorf("%s without owner: err = %v", id, err)
		}
		if _, err := s.RenderLicense(id, "x", 0); !errs.Is(err, errs.KindInvalid) {
			t.Errorf("%s without year: err = %v", id, err)
		}
	}
	mit, _ := s.RenderLicense("MIT", "Jane Doe", 2024)
	if !strings.Contains(string(mit), "\nCopyright (c) 2024 Jane Doe\n") {
		t.Errorf("MIT copyright line:\n%s", mit)
	}
	// Texts without a copyright-line placeholder come back unchanged.
	raw, _ := s.License("Apache-2.0")
	got, err := s.RenderLicense("Apache-2.0", "", 0)
	if err != nil || !bytes.Equal(raw, got) {
		t.Errorf("Apache-2.0 changed or failed: %v", err)
	}
	if _, err := s.RenderLicense("Nope", "x", 2024); !errs.IsNotFound(err) {
		t.Errorf("unknown license err = %v", err)
	}
}

func TestReadme(t *testing.T) {
	s := mustNew(t)
	for _, tmpl := range []string{"", "Default"} {
		got, err := s.Readme(tmpl, "demo", "A {Name} demo")
		if err != nil || string(got) != "# demo\n\nA {Name} demo\n" {
			t.Errorf("Readme(%q) = %q, %v", tmpl, got, err)
		}
	}
	if _, err := s.Readme("Fancy", "demo", ""); !errs.IsNotFound(err) {
		t.Errorf("unknown readme err = %v", err)
	}
	if got := string(DefaultReadme("x", "")); got != "# x\n\n\n" {
		t.Errorf("DefaultReadme = %q", got)
	}
}

func TestLabelTemplates(t *testing.T) {
	s := mustNew(t)
	if got := s.LabelTemplates(); strings.Join(got, ",") != "Advanced,Default" {
		t.Fatalf("LabelTemplates = %v", got)
	}
	def, err := s.LabelTemplate("Default")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range def {
		names = append(names, l.Name)
		if l.Exclusive || l.Description == "" {
			t.Errorf("Default label %+v", l)
		}
	}
	if got := strings.Join(names, ","); got != "bug,duplicate,enhancement,help wanted,invalid,question,wontfix,good first issue" {
		t.Errorf("Default labels = %s", got)
	}
	adv, err := s.LabelTemplate("Advanced")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Label{}
	for _, l := range append(def, adv...) {
		byName[l.Name] = l
		if c, err := normalizeColor(l.Color); err != nil || c != l.Color {
			t.Errorf("%s: color %q not normalized", l.Name, l.Color)
		}
	}
	for _, n := range []string{"Kind/Bug", "Priority/High", "Status/Blocked", "Reviewed/Confirmed"} {
		if l, ok := byName[n]; !ok || !l.Exclusive {
			t.Errorf("Advanced label %s missing or not exclusive: %+v", n, l)
		}
	}
	if byName["Compat/Breaking"].Exclusive {
		t.Error("Compat/Breaking should not be exclusive")
	}
	// Callers get a copy.
	def[0].Name = "changed"
	if again, _ := s.LabelTemplate("Default"); again[0].Name != "bug" {
		t.Error("LabelTemplate returned the internal slice")
	}
	for _, n := range []string{"default", "Nope", "Default.json", ""} {
		if _, err := s.LabelTemplate(n); !errs.IsNotFound(err) {
			t.Errorf("LabelTemplate(%q) err = %v, want not found", n, err)
		}
	}
}

func TestNormalizeColor(t *testing.T) {
	tests := []struct{ in, want string }{
		{"#E11D48", "e11d48"}, {"e11d48", "e11d48"}, {"#00aaBB", "00aabb"},
		{"", ""}, {"#", ""}, {"#fff", ""}, {"##e11d48", ""}, {"#e11d4", ""}, {"#e11d488", ""}, {"#g11d48", ""}, {" e11d48", ""},
	}
	for _, tt := range tests {
		got, err := normalizeColor(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("normalizeColor(%q) = %q, want error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("normalizeColor(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestBadLabelFiles(t *testing.T) {
	tests := []struct{ name, body string }{
		{"bad color", `{"labels":[{"name":"bug","color":"#red"}]}`},
		{"short color", `{"labels":[{"name":"bug","color":"#fff"}]}`},
		{"no name", `{"labels":[{"name":" ","color":"#ffffff"}]}`},
		{"duplicate", `{"labels":[{"name":"a","color":"#ffffff"},{"name":"a","color":"#000000"}]}`},
		{"unscoped exclusive", `{"labels":[{"name":"bug","color":"#ffffff","exclusive":true}]}`},
		{"scope without name", `{"labels":[{"name":"Kind/","color":"#ffffff","exclusive":true}]}`},
		{"unknown key", `{"labels":[{"name":"bug","colour":"#ffffff"}]}`},
		{"empty", `{"labels":[]}`},
		{"not json", `bug #ffffff`},
	}
	for _, tt := range tests {
		fsys := baseFS()
		fsys["data/label/Bad.json"] = &fstest.MapFile{Data: []byte(tt.body)}
		if _, err := newSet(fsys); err == nil || !strings.Contains(err.Error(), "Bad.json") {
			t.Errorf("%s: err = %v, want an error naming Bad.json", tt.name, err)
		}
	}
}

// baseFS is a minimal valid template tree.
func baseFS() fstest.MapFS {
	fsys := fstest.MapFS{
		"data/gitignore/Go":   {Data: []byte("*.test\n")},
		"data/label/Min.json": {Data: []byte(`{"labels":[{"name":"a","color":"ffffff"}]}`)},
	}
	for _, e := range licenseTable {
		fsys["data/license/"+e.file] = &fstest.MapFile{Data: []byte(e.ID + " text\n")}
	}
	return fsys
}

func TestBaseFS(t *testing.T) {
	s, err := newSet(baseFS())
	if err != nil {
		t.Fatal(err)
	}
	if labels, err := s.LabelTemplate("Min"); err != nil || len(labels) != 1 || labels[0].Color != "ffffff" {
		t.Errorf("Min = %+v, %v", labels, err)
	}
}

func TestMissingLicenseText(t *testing.T) {
	fsys := baseFS()
	delete(fsys, "data/license/MIT")
	if _, err := newSet(fsys); err == nil || !strings.Contains(err.Error(), "MIT") {
		t.Errorf("a missing license text: err = %v", err)
	}
}

// BenchmarkNew shows the cost New adds to server start-up (well under 1 ms).
func BenchmarkNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
