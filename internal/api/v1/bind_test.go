package v1

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
)

// TestBindingTags: every binding tag of the wire types is one the decoder
// understands, so no limit is silently ignored.
func TestBindingTags(t *testing.T) {
	files, err := filepath.Glob("types/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("wire type files: %v %v", files, err)
	}
	valid := regexp.MustCompile(`^(Text|MaxSize\([1-9][0-9]*\))$`)
	seen := 0
	for _, f := range files {
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil {
				return true
			}
			raw, _ := strconv.Unquote(field.Tag.Value)
			b, ok := reflect.StructTag(raw).Lookup("binding")
			if !ok {
				return true
			}
			seen++
			if !valid.MatchString(b) {
				t.Errorf("%s: field %v has binding tag %q", f, field.Names, b)
			}
			return true
		})
	}
	if seen < 20 {
		t.Fatalf("only %d binding tags found", seen)
	}
}

func TestCheckRequestStrings(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	ptr := func(s string) *string { return &s }
	cases := []struct {
		name  string
		v     any
		field string // "" when the value is accepted
	}{
		{"plain", &types.CreateIssueOption{Title: "t", Body: "b"}, ""},
		{"NUL in a field", &types.CreateIssueOption{Title: "a\x00b"}, "title"},
		{"NUL in text", &types.CreateIssueOption{Title: "t", Body: "\x00"}, "body"},
		{"bad UTF-8", &types.CreateIssueOption{Title: "a\xffb"}, "title"},
		{"NUL in a list", &types.CreateIssueOption{Title: "t", Assignees: []string{"x", "y\x00"}}, "assignees"},
		{"NUL in a pointer", &types.EditIssueOption{Title: ptr("\x00")}, "title"},
		{"nil pointers", &types.EditIssueOption{}, ""},
		{"NUL in a map key", &types.CreateTeamOption{Name: "t", UnitsMap: map[string]string{"repo.code\x00": "read"}}, "units_map"},
		{"NUL in a map value", &types.CreateTeamOption{Name: "t", UnitsMap: map[string]string{"repo.code": "\x00"}}, "units_map"},
		{"NUL in raw JSON", &types.IssueLabelsOption{Labels: []json.RawMessage{json.RawMessage(`"a\u0000"`)}}, "labels"},
		{"raw JSON numbers", &types.IssueLabelsOption{Labels: []json.RawMessage{json.RawMessage(`12`)}}, ""},
		{"NUL in a nested struct", &types.ChangeFilesOptions{Files: []*types.ChangeFileOperation{{Path: "a\x00"}}}, "path"},
		{"default limit", &types.CreateIssueOption{Title: long(255)}, ""},
		{"over the default limit", &types.CreateIssueOption{Title: long(256)}, "title"},
		{"tagged limit", &types.CreateRepoOption{Name: "r", Description: long(2048)}, ""},
		{"over a tagged limit", &types.CreateRepoOption{Name: "r", Description: long(2049)}, "description"},
		{"over a small tagged limit", &types.CreateUserOption{Username: long(41)}, "username"},
		{"text", &types.CreateIssueOption{Title: "t", Body: long(100000)}, ""},
		{"list elements have the field's limit", &types.CreateEmailOption{Emails: []string{long(255)}}, "emails"},
		{"anonymous struct", &struct {
			Reason string `json:"lock_reason"`
		}{Reason: long(300)}, "lock_reason"},
	}
	for _, c := range cases {
		err := checkRequestStrings(c.v)
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != errs.KindInvalid || len(e.Fields) != 1 || e.Fields[0] != c.field {
			t.Errorf("%s: %#v, want a 422 naming %q", c.name, err, c.field)
		}
	}
}

func TestCheckJSONContentType(t *testing.T) {
	for ct, ok := range map[string]bool{
		"application/json": true, "application/json; charset=utf-8": true, "Application/JSON": true,
		"application/merge-patch+json": true, "": false, "text/plain": false, "text/plain; charset=utf-8": false,
		"application/x-www-form-urlencoded": false, "multipart/form-data; boundary=x": false, "application/jsonx": false,
		"json": false, ";": false,
	} {
		r, _ := http.NewRequest("POST", "/", nil)
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		if err := checkJSONContentType(r); (err == nil) != ok {
			t.Errorf("%q: %v", ct, err)
		}
	}
}

// FuzzDecode: whatever the body and its declared type, the request decoder
// never panics, refuses with a client error (never an internal one), and
// accepts only values whose every string is storable and within its limit.
func FuzzDecode(f *testing.F) {
	for _, seed := range []struct{ ct, body string }{
		{"application/json", `{"title":"t","body":"b","assignees":["a"],"labels":[1,2]}`},
		{"application/json", `{"title":"a\u0000b"}`},
		{"application/json", `{"title":"\ud800"}`},
		{"application/json", `{"title":` + strconv.Quote(strings.Repeat("x", 300)) + `}`},
		{"application/json", `{"files":[{"operation":"create","path":"a","content":"YQ=="}],"message":"m"}`},
		{"application/json", `{"units_map":{"repo.code":"read"}}`},
		{"application/json", `[1,2]`},
		{"application/json", `{"title":1}`},
		{"application/json", `{} {}`},
		{"application/json", ``},
		{"text/plain", `{"title":"t"}`},
		{"", `{"title":"t"}`},
		{"application/json; charset=utf-8", "{\"title\":\"\xff\"}"},
	} {
		f.Add(seed.ct, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		r, err := http.NewRequest("POST", "/", strings.NewReader(string(body)))
		if err != nil {
			t.Skip()
		}
		r.Header.Set("Content-Type", ct)
		var v struct {
			types.CreateIssueOption
			Files    []*types.ChangeFileOperation `json:"files"`
			UnitsMap map[string]string            `json:"units_map"`
			Labels   []json.RawMessage            `json:"labels"`
		}
		err = decode(r, &v)
		if err != nil {
			var e *errs.Error
			if !errors.As(err, &e) || statusOf(e.Kind) >= 500 || statusOf(e.Kind) < 400 {
				t.Fatalf("decode answered a non-client error: %#v", err)
			}
			return
		}
		// Independently of the checker: re-encode and walk every string.
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var generic any
		if err := json.Unmarshal(out, &generic); err != nil {
			t.Fatal(err)
		}
		var walk func(any)
		walk = func(x any) {
			switch x := x.(type) {
			case string:
				if strings.ContainsRune(x, 0) || !utf8.ValidString(x) {
					t.Fatalf("accepted an unstorable string %q", x)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					walk(k)
					walk(e)
				}
			}
		}
		walk(generic)
		if n := utf8.RuneCountInString(v.Title); n > defaultMaxSize {
			t.Fatalf("accepted a title of %d characters", n)
		}
	})
}

// BenchmarkDecode measures decoding a typical issue creation body, with and
// without the string checks, to show what the checks cost.
func BenchmarkDecode(b *testing.B) {
	body, _ := json.Marshal(map[string]any{"title": "A typical issue title", "body": strings.Repeat("Some text of the body. ", 200),
		"assignees": []string{"alice", "bob"}, "labels": []int{1, 2, 3}, "milestone": 4})
	run := func(b *testing.B, check bool) {
		b.ReportAllocs()
		for b.Loop() {
			r, _ := http.NewRequest("POST", "/", strings.NewReader(string(body)))
			r.Header.Set("Content-Type", "application/json")
			var o types.CreateIssueOption
			if check {
				if err := decode(r, &o); err != nil {
					b.Fatal(err)
				}
			} else if err := json.NewDecoder(r.Body).Decode(&o); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("json only", func(b *testing.B) { run(b, false) })
	b.Run("decode", func(b *testing.B) { run(b, true) })
}
