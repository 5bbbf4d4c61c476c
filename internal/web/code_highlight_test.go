package web

import (
	"strings"
	"testing"
)

func TestHighlightCode(t *testing.T) {
	hl := highlightCode("main.go", []byte("package main\r\n\nfunc f() string { return \"<b>&\" }\n"))
	if hl.Language != "Go" || len(hl.Lines) != 3 {
		t.Fatalf("%q: %d lines %q", hl.Language, len(hl.Lines), hl.Lines)
	}
	if !strings.Contains(string(hl.Lines[0]), `<span class="kn">package</span>`) || strings.Contains(string(hl.Lines[0]), "\r") {
		t.Errorf("line 1: %q", hl.Lines[0])
	}
	if hl.Lines[1] != "" {
		t.Errorf("line 2: %q", hl.Lines[1])
	}
	if l := string(hl.Lines[2]); !strings.Contains(l, "&lt;b&gt;&amp;") || strings.Contains(l, "<b>") {
		t.Errorf("line 3 is not escaped: %q", l)
	}
	// Unknown types and large files are escaped text, line for line.
	plain := highlightCode("notes.unknownext", []byte("a <x>\n\nb"))
	if len(plain.Lines) != 3 || plain.Lines[0] != "a &lt;x&gt;" || plain.Lines[2] != "b" {
		t.Errorf("plain: %q", plain.Lines)
	}
	big := highlightCode("big.go", []byte(strings.Repeat("var x = 1\n", codeMaxHighlight/10+1)))
	if len(big.Lines) != codeMaxHighlight/10+1 || strings.Contains(string(big.Lines[0]), "<span") {
		t.Errorf("large file: %d lines, %q", len(big.Lines), big.Lines[0])
	}
	hl.rows()
	if !strings.HasPrefix(string(hl.Rows), `<tr id="L1"><td class="num"><a href="#L1">1</a></td><td class="line"><span class="kn">package</span>`) {
		t.Errorf("rows: %.200s", hl.Rows)
	}
}

func TestCodeCache(t *testing.T) {
	c := newCodeCache[string, int](10)
	c.put("a", 1, 4)
	c.put("b", 2, 4)
	c.get("a") // a is now the most recently used
	c.put("c", 3, 4)
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Error("a was evicted")
	}
	c.put("huge", 9, 11) // heavier than the whole cache: not kept
	if _, ok := c.get("huge"); ok {
		t.Error("an entry heavier than the cache was kept")
	}
	c.put("a", 5, 6) // a new weight for a key
	if c.weight > c.max {
		t.Errorf("weight %d over %d", c.weight, c.max)
	}
	if v, _ := c.get("a"); v != 5 {
		t.Errorf("a = %d", v)
	}
}
