package web

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// diffOfFiles is git diff output for n files, each with one changed line;
// the second file's line is long (longer than the reader's buffer).
func diffOfFiles(n int) string {
	var sb strings.Builder
	for i := range n {
		text := fmt.Sprintf("line of file %d", i)
		if i == 1 {
			text = strings.Repeat("x", 200<<10)
		}
		fmt.Fprintf(&sb, "diff --git a/f%d b/f%d\nindex 1111111..2222222 100644\n--- a/f%d\n+++ b/f%d\n@@ -1 +1 @@\n-old\n+%s\n", i, i, i, i, text)
	}
	return sb.String()
}

func TestDiffFileSkipper(t *testing.T) {
	src := diffOfFiles(5)
	for skip := range 7 {
		out, err := io.ReadAll(iotest.OneByteReader(newDiffFileSkipper(strings.NewReader(src), skip)))
		if err != nil {
			t.Fatal(err)
		}
		d, err := parseDiff(strings.NewReader(string(out)), diffOptions{MaxLineBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if want := max(0, 5-skip); len(d.Files) != want {
			t.Fatalf("skip %d: %d files, want %d", skip, len(d.Files), want)
		}
		if skip < 5 && d.Files[0].Name != fmt.Sprintf("f%d", skip) {
			t.Fatalf("skip %d: first file %s", skip, d.Files[0].Name)
		}
	}
	// A line that merely contains the header text does not count.
	src = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-diff --git a/y b/y\n+z\n" + diffOfFiles(1)
	out, _ := io.ReadAll(newDiffFileSkipper(strings.NewReader(src), 1))
	if !strings.HasPrefix(string(out), "diff --git a/f0 b/f0\n") {
		t.Fatalf("skipped to %.40q", out)
	}
}
