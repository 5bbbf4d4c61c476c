package markup

import (
	"bytes"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// xssSeeds are classic script injection vectors written in Markdown.
var xssSeeds = []string{
	"<script>alert(1)</script>",
	"<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
	"[x](javascript:alert(1))",
	"[x](JaVaScRiPt:alert(1))",
	"[x](java&#115;cript:alert(1))",
	"[x](&#x6A;avascript&#x3A;alert(1))",
	"[x](java%73cript:alert(1))",
	"[x](<javascript:alert(1)>)",
	"[x](javascript&colon;alert(1))",
	"[x](\x01javascript:alert(1))",
	"[x](vbscript:msgbox(1))",
	"[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
	"[x](DATA:text/html,<script>alert(1)</script>)",
	"<javascript:alert(1)>",
	"<vbscript:msgbox(1)>",
	"www.example.com/javascript:alert(1)",
	"https://example.com/\"onmouseover=\"alert(1)",
	"https://example.com/<script>alert(1)</script>",
	"![x](javascript:alert(1))",
	"![x](data:text/html;base64,PHNjcmlwdD4=)",
	"![x](x\" onerror=\"alert(1))",
	"![x](https://example.com/x.png \"t\" onerror=\"alert(1)\")",
	"[x][r]\n\n[r]: javascript:alert(1)",
	"[x][r]\n\n[r]: <java\\script:alert(1)> \"title\"",
	"![x][r]\n\n[r]: data:text/html,<script>alert(1)</script>",
	"[r]\n\n[r]: &#106;avascript:alert(1)",
	"<a href=\"java&#9;script:alert(1)\">x</a>",
	"<a href=\"jav&#x0A;ascript:alert(1)\">x</a>",
	"<a href=\" &#14; javascript:alert(1)\">x</a>",
	"<a href=\"javascript&colon;alert(1)\">x</a>",
	"<a href='vbscript:msgbox(1)'>x</a>",
	"<a href=\"data:text/html;base64,PHNjcmlwdD4=\">x</a>",
	"<a href=\"https://ok.example\" onclick=\"alert(1)\">x</a>",
	"<img src=x onerror=alert(1)>",
	"<img src=\"x` `<script>alert(1)</script>\"` `>",
	"<img srcset=\"javascript:alert(1) 1x, https://ok.example/a.png 2x\">",
	"<svg><script>alert(1)</script></svg>",
	"<svg onload=alert(1)>",
	"<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
	"<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
	"<!--<img src=\"--><img src=x onerror=alert(1)//\">",
	"<![CDATA[<script>alert(1)</script>]]>",
	"<iframe src=\"https://evil.example\"></iframe>",
	"<iframe srcdoc=\"&lt;script&gt;alert(1)&lt;/script&gt;\"></iframe>",
	"<object data=\"javascript:alert(1)\"></object>",
	"<embed src=\"javascript:alert(1)\">",
	"<style>@import 'https://evil.example/x.css';</style>",
	"<div style=\"background:url(javascript:alert(1))\">x</div>",
	"<form action=\"https://evil.example\"><button formaction=\"javascript:alert(1)\">go</button></form>",
	"<input type=\"text\" autofocus onfocus=\"alert(1)\">",
	"<details open ontoggle=\"alert(1)\"><summary>x</summary></details>",
	"<base href=\"javascript:/\">",
	"<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
	"<link rel=\"stylesheet\" href=\"https://evil.example/x.css\">",
	"<textarea><script>alert(1)</script></textarea>",
	"<table><tr><td><a href=\"javascript:alert(1)\">x</a></td></tr></table>",
	"@<img src=x onerror=alert(1)>",
	"@a\"onmouseover=alert(1)",
	"#1<script>alert(1)</script> #2\"onclick=\"alert(1)",
	"Hi @alice, see #12 and [@bob](javascript:alert(1)) `@code #3`",
	"- [x] <input onclick=alert(1)>\n- [ ] task",
	"```html\n<script>alert(1)</script>\n```",
	"| a | <script>alert(1)</script> |\n|---|---|\n| [x](javascript:alert(1)) | b |",
	"<a href=\"https://ok.example\">@alice #1 <b>@bob</b></a>",
	"<code>@alice</code><pre>#1</pre>@carol",
}

// FuzzRender renders arbitrary Markdown in every mode and checks the
// sanitized result as a browser would parse it: no script-capable elements,
// no event handlers or style attributes, and only http, https, mailto or
// relative URLs.
func FuzzRender(f *testing.F) {
	for i, s := range xssSeeds {
		f.Add(s, uint8(i))
	}
	r := New("https://forge.example/")
	modes := []string{ModeMarkdown, ModeComment, ModeWiki}
	f.Fuzz(func(t *testing.T, src string, mode uint8) {
		o := Options{Mode: modes[int(mode)%len(modes)], RepoLink: "https://forge.example/o/r"}
		out, err := r.Render(t.Context(), []byte(src), o)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		if msg := unsafeHTML(out); msg != "" {
			t.Fatalf("%s mode: %s\nsource: %q\noutput: %s", o.Mode, msg, src, out)
		}
	})
}

// TestUnsafeHTML checks the checker itself.
func TestUnsafeHTML(t *testing.T) {
	for _, c := range []struct {
		html string
		bad  bool
	}{
		{`<p>ok <a href="https://x.example/a?b#c" rel="nofollow">x</a> <img src="/rel.png"> <a href="mailto:a@b.example">m</a></p>`, false},
		{`<p>&lt;script&gt; javascript:alert(1)</p>`, false},
		{`<a href="#frag">x</a><a href="rel/path:x">y</a>`, false},
		{`<script>x</script>`, true},
		{`<p><SVG><a>x</a></SVG></p>`, true},
		{`<a href=" JaVa&#9;Script:alert(1)">x</a>`, true},
		{`<a href="&#14;javascript:alert(1)">x</a>`, true},
		{`<img src="data:text/html,x">`, true},
		{`<img src="data:image/png;base64,AAAA">`, true},
		{`<img srcset="https://ok.example/a.png 1x, javascript:alert(1) 2x">`, true},
		{`<p onmouseover="x">x</p>`, true},
		{`<p style="color:red">x</p>`, true},
		{`<details><summary>x</summary><form></form></details>`, true},
	} {
		if got := unsafeHTML([]byte(c.html)) != ""; got != c.bad {
			t.Errorf("unsafeHTML(%s) = %v, want %v", c.html, got, c.bad)
		}
	}
}

// unsafeHTML parses out as the body of a page and says what in it could run
// script or load active content, or "".
func unsafeHTML(out []byte) string {
	body := &xhtml.Node{Type: xhtml.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := xhtml.ParseFragment(bytes.NewReader(out), body)
	if err != nil {
		return "unparsable output: " + err.Error()
	}
	var msg string
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if msg != "" {
			return
		}
		if n.Type == xhtml.ElementNode {
			msg = unsafeElement(n)
		}
		for c := n.FirstChild; c != nil && msg == ""; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return msg
}

// forbiddenElements run script, load active content, restyle or re-target
// the page, or submit data.
var forbiddenElements = map[string]bool{
	"script": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true,
	"applet": true, "style": true, "link": true, "meta": true, "base": true, "form": true,
	"button": true, "textarea": true, "select": true, "svg": true, "math": true, "template": true,
}

// urlAttributes hold a URL that a browser follows or loads.
var urlAttributes = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "cite": true, "background": true,
	"poster": true, "longdesc": true, "data": true, "codebase": true, "usemap": true, "lowsrc": true,
	"dynsrc": true, "xlink:href": true, "ping": true,
}

func unsafeElement(n *xhtml.Node) string {
	if forbiddenElements[strings.ToLower(n.Data)] || n.Namespace != "" {
		return "element <" + n.Data + ">"
	}
	for _, a := range n.Attr {
		key := strings.ToLower(a.Key)
		if a.Namespace != "" {
			key = strings.ToLower(a.Namespace) + ":" + key
		}
		switch {
		case strings.HasPrefix(key, "on"):
			return "event handler " + key + " on <" + n.Data + ">"
		case key == "style" || key == "srcdoc":
			return "attribute " + key + " on <" + n.Data + ">"
		case key == "srcset":
			for _, cand := range strings.Split(a.Val, ",") {
				if f := strings.Fields(cand); len(f) > 0 && !safeURL(f[0]) {
					return "URL " + f[0] + " in srcset of <" + n.Data + ">"
				}
			}
		case urlAttributes[key] && !safeURL(a.Val):
			return "URL " + a.Val + " in " + key + " of <" + n.Data + ">"
		}
	}
	return ""
}

// safeURL reports a relative URL or one with the http, https or mailto
// scheme, read as a browser does: surrounding C0 controls and spaces
// dropped, tabs and line breaks removed anywhere, case ignored.
func safeURL(raw string) bool {
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	i := strings.IndexAny(s, ":/?#")
	if i < 0 || s[i] != ':' {
		return true // relative
	}
	switch strings.ToLower(s[:i]) {
	case "http", "https", "mailto":
		return true
	}
	return false
}
