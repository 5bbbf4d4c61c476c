package web

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-forge/cairn/internal/git"
)

// sampleDiff has every kind of file git diff writes: a modification with
// two hunks and a missing final newline, an addition, a deletion, a rename
// with changes, a pure rename, a mode change, a binary file, an empty new
// file and quoted names.
const sampleDiff = `diff --git a/main.go b/main.go
index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
--- a/main.go
+++ b/main.go
@@ -1,4 +1,5 @@ package main
 package main
-import "fmt"
+import (
+	"fmt"
+)
 
@@ -10,2 +11,2 @@ func main() {
-	fmt.Println("old")
+	fmt.Println("new")
\ No newline at end of file
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000000000000000000000000000000000000..3333333333333333333333333333333333333333
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+one
+two
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 4444444444444444444444444444444444444444..0000000000000000000000000000000000000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old name.txt b/new name.txt
similarity index 80%
rename from old name.txt
rename to new name.txt
index 5555555555555555555555555555555555555555..6666666666666666666666666666666666666666 100644
--- a/old name.txt	
+++ b/new name.txt	
@@ -1,2 +1,2 @@
 same
-before
+after
diff --git a/a b/b b/a b/b
old mode 100644
new mode 100755
diff --git a/x.go b/y.go
similarity index 100%
rename from x.go
rename to y.go
diff --git a/img.png b/img.png
index 7777777777777777777777777777777777777777..8888888888888888888888888888888888888888 100644
Binary files a/img.png and b/img.png differ
diff --git a/empty b/empty
new file mode 100644
index 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391
diff --git "a/tab\there" "b/tab\there"
index 9999999999999999999999999999999999999999..aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 100644
--- "a/tab\there"
+++ "b/tab\there"
@@ -1 +1 @@
-<script>
+&amp;
`

func TestParseDiff(t *testing.T) {
	d, err := parseDiff(strings.NewReader(sampleDiff), diffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Truncated {
		t.Error("truncated")
	}
	want := []string{
		"modified main.go (main.go) +4 -2",
		"added new.txt (new.txt) +2 -0",
		"deleted gone.txt (gone.txt) +0 -1",
		"renamed new name.txt (old name.txt) +1 -1",
		"modified a b/b (a b/b) +0 -0",
		"renamed y.go (x.go) +0 -0",
		"modified img.png (img.png) +0 -0",
		"added empty (empty) +0 -0",
		"modified tab\there (tab\there) +1 -1",
	}
	if len(d.Files) != len(want) {
		t.Fatalf("%d files: %v", len(d.Files), d.Files)
	}
	for i, w := range want {
		if got := d.Files[i].String(); got != w {
			t.Errorf("file %d: %q, want %q", i, got, w)
		}
		if d.Files[i].Index != i {
			t.Errorf("file %d has index %d", i, d.Files[i].Index)
		}
	}

	m := d.Files[0]
	if len(m.Hunks) != 2 {
		t.Fatalf("main.go: %d hunks", len(m.Hunks))
	}
	h := m.Hunks[0]
	if h.Header != "@@ -1,4 +1,5 @@ package main" || h.OldStart != 1 || h.OldCount != 4 || h.NewStart != 1 || h.NewCount != 5 {
		t.Errorf("hunk header: %+v", h)
	}
	type ln struct {
		kind     byte
		old, new int
		text     string
	}
	wantLines := []ln{{' ', 1, 1, "package main"}, {'-', 2, 0, `import "fmt"`}, {'+', 0, 2, "import ("}, {'+', 0, 3, "\t\"fmt\""},
		{'+', 0, 4, ")"}, {' ', 3, 5, ""}}
	if len(h.Lines) != len(wantLines) {
		t.Fatalf("hunk lines: %+v", h.Lines)
	}
	for i, w := range wantLines {
		l := h.Lines[i]
		if l.Kind != w.kind || l.OldNum != w.old || l.NewNum != w.new || l.Text != w.text {
			t.Errorf("line %d: %c %d %d %q, want %c %d %d %q", i, l.Kind, l.OldNum, l.NewNum, l.Text, w.kind, w.old, w.new, w.text)
		}
	}
	second := m.Hunks[1].Lines
	if len(second) != 2 || second[0].OldNum != 10 || second[1].NewNum != 11 || !second[1].NoNewline || second[0].NoNewline {
		t.Errorf("second hunk: %+v", second)
	}
	if d.Files[3].Similarity != 80 || !d.Files[3].IsRenamed() {
		t.Errorf("rename: %+v", d.Files[3])
	}
	if f := d.Files[4]; !f.ModeChanged() || f.OldMode != "100644" || f.Mode != "100755" || len(f.Hunks) != 0 {
		t.Errorf("mode change: %+v", f)
	}
	if !d.Files[6].Binary || d.Files[0].Binary {
		t.Error("binary flags")
	}

	// Side by side: the deletion beside the first addition, the other
	// additions alone, context on both sides.
	rows := h.SplitRows()
	if len(rows) != 5 {
		t.Fatalf("split rows: %d", len(rows))
	}
	if rows[0].Left != rows[0].Right || rows[1].Left.Text != `import "fmt"` || rows[1].Right.Text != "import (" ||
		rows[2].Left != nil || rows[3].Left != nil || rows[4].Left.Kind != DiffContext {
		t.Errorf("split rows: %+v", rows)
	}
}

func TestParseDiffLimits(t *testing.T) {
	var big strings.Builder
	for f := 0; f < 5; f++ {
		big.WriteString("diff --git a/f" + string(rune('0'+f)) + " b/f" + string(rune('0'+f)) + "\n--- a/f\n+++ b/f\n@@ -1,10 +1,10 @@\n")
		for i := 0; i < 10; i++ {
			big.WriteString("+" + strings.Repeat("x", 50) + "\n")
		}
	}
	// Files beyond the cap.
	d, err := parseDiff(strings.NewReader(big.String()), diffOptions{MaxFiles: 2})
	if err != nil || len(d.Files) != 2 || !d.Truncated {
		t.Fatalf("file cap: %v %d %v", err, len(d.Files), d.Truncated)
	}
	// Lines beyond the total cap.
	d, _ = parseDiff(strings.NewReader(big.String()), diffOptions{MaxLines: 25})
	kept := 0
	for _, f := range d.Files {
		for _, h := range f.Hunks {
			kept += len(h.Lines)
		}
	}
	if !d.Truncated || kept != 25 || len(d.Files) != 3 {
		t.Fatalf("line cap: truncated %v, %d lines in %d files", d.Truncated, kept, len(d.Files))
	}
	// Lines beyond a file's cap: the file says so, the others are whole,
	// its counts are complete.
	d, _ = parseDiff(strings.NewReader(big.String()), diffOptions{MaxFileLines: 4, MaxLineBytes: 20})
	if d.Truncated || len(d.Files) != 5 {
		t.Fatalf("file line cap: %v %d", d.Truncated, len(d.Files))
	}
	f := d.Files[0]
	if !f.TooLarge || len(f.Hunks[0].Lines) != 4 || f.Additions != 10 {
		t.Errorf("file line cap: %+v", f)
	}
	if l := f.Hunks[0].Lines[0]; len(l.Text) != 19 || !l.Cut {
		t.Errorf("line byte cap: %q cut=%v", l.Text, l.Cut)
	}
}

func TestDiffSplitHeader(t *testing.T) {
	for in, want := range map[string][2]string{
		"a/x b/x":             {"x", "x"},
		"a/a b/c b/a b/c":     {"a b/c", "a b/c"},
		`"a/t\tx" "b/t\tx"`:   {"t\tx", "t\tx"},
		`a/plain "b/q\"uote"`: {"plain", `q"uote`},
		"a/old b/new":         {"old", "new"},
		`"a/\303\251t\303\251" "b/\303\251t\303\251"`: {"été", "été"},
	} {
		if got := diffSplitHeader(in); got != want {
			t.Errorf("diffSplitHeader(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRenderableDiff runs git on a real repository and renders the result
// with the "diff" template: names and lines escaped, both layouts.
func TestRenderableDiff(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("keep.txt", "a\nb\nc\n")
	run("add", ".")
	run("commit", "-qm", "one")
	write("keep.txt", "a\nB & <b>\nc\n")
	write("<script>x.txt", "new\n")
	run("add", ".")
	run("commit", "-qm", "two")
	head := run("rev-parse", "HEAD")

	g, err := git.New(git.Options{HomeDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{Deps: Deps{Git: g, Now: time.Now}}
	d, err := h.renderableDiff(t.Context(), filepath.Join(work, ".git"), "", head, diffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 || d.Files[0].Name != "<script>x.txt" || d.Files[1].Name != "keep.txt" || d.Files[1].Additions != 1 {
		t.Fatalf("files: %v", d.Files)
	}
	// A cap stops git early and says so.
	small, err := h.renderableDiff(t.Context(), filepath.Join(work, ".git"), "", head, diffOptions{MaxFiles: 1})
	if err != nil || !small.Truncated || len(small.Files) != 1 {
		t.Fatalf("capped: %v %+v", err, small)
	}
	if _, err := h.renderableDiff(t.Context(), filepath.Join(work, ".git"), "", strings.Repeat("0", 40), diffOptions{}); !errors.Is(err, git.ErrNotFound) {
		t.Errorf("missing commit: %v", err)
	}

	v, err := loadViews(h.funcs())
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := v.page("repo_commit")
	if err != nil {
		t.Fatal(err)
	}
	for _, split := range []bool{false, true} {
		var buf bytes.Buffer
		view := &diffView{Diff: d, Split: split, RepoLink: "/o/r", Head: head, RawURL: "/o/r/commit/x.diff",
			UnifiedURL: "/o/r/commit/x?style=unified", SplitURL: "/o/r/commit/x?style=split"}
		if err := tmpl.ExecuteTemplate(&buf, "diff", view); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"&lt;script&gt;x.txt", "B &amp; &lt;b&gt;", `class="badge diff-added"`,
			"/o/r/src/commit/" + head + "/%3Cscript%3Ex.txt"} {
			if !strings.Contains(out, want) {
				t.Errorf("split=%v: output lacks %q:\n%s", split, want, out)
			}
		}
		if strings.Contains(out, "<script>") || strings.Contains(out, "<b>") {
			t.Errorf("split=%v: unescaped content:\n%s", split, out)
		}
	}
}
