package markup

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func render(t *testing.T, r *Renderer, src string, o Options) string {
	t.Helper()
	out, err := r.Render(t.Context(), []byte(src), o)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestRenderGFM(t *testing.T) {
	r := New("https://forge.example/")
	got := render(t, r, "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~old~~ https://example.org\n\n```go\nfmt.Println(\"<b>\")\n```\n", Options{})
	for _, want := range []string{
		"<h1>Title</h1>", "<table>", "<td>1</td>",
		`<input checked="" disabled="" type="checkbox"`, `<input disabled="" type="checkbox"`,
		"<del>old</del>", `<a href="https://example.org" rel="nofollow">https://example.org</a>`,
		`<pre><code class="language-go">fmt.Println(&#34;&lt;b&gt;&#34;)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	// Document mode keeps soft line breaks and links nothing.
	if got := render(t, r, "line one\nline two @alice #3", Options{Mode: ModeMarkdown, RepoLink: "https://forge.example/o/r"}); strings.Contains(got, "<br") || strings.Contains(got, "<a") {
		t.Errorf("markdown mode: %s", got)
	}
}

func TestRenderCommentLinks(t *testing.T) {
	r := New("https://forge.example/")
	got := render(t, r, "Thanks @alice, see #12 (and #7).\nsecond line\n\n`@code #1` and [link @bob](https://x.example) mail@example.org", Options{Mode: ModeComment, RepoLink: "https://forge.example/acme/app"})
	for _, want := range []string{
		`<a href="https://forge.example/alice" class="mention" rel="nofollow">@alice</a>`,
		`<a href="https://forge.example/acme/app/issues/12" class="ref-issue" rel="nofollow">#12</a>`,
		`(and <a href="https://forge.example/acme/app/issues/7" class="ref-issue" rel="nofollow">#7</a>)`,
		"<br", "<code>@code #1</code>", `>link @bob</a>`, "mail@example.org",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/example.org") {
		t.Errorf("an e-mail address became a mention: %s", got)
	}
	// Without a repository there are no issue links.
	if got := render(t, r, "see #12", Options{Mode: ModeComment}); strings.Contains(got, "<a") {
		t.Errorf("issue link without a repository: %s", got)
	}
}

func TestRenderSanitizes(t *testing.T) {
	r := New("https://forge.example/")
	for _, src := range []string{
		"<script>alert(1)</script>",
		`<img src=x onerror="alert(1)">`,
		"[click](javascript:alert(1))",
		`<a href="javascript:alert(1)">x</a>`,
		`<iframe src="https://evil.example"></iframe>`,
		`<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>`,
		"![x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
		`<input type="text" value="phish"><form action="https://evil.example"><button>go</button></form>`,
		`<a href="https://ok.example" class="mention evil">x</a>`,
		"@<script>alert(1)</script>",
	} {
		for _, mode := range []string{ModeMarkdown, ModeComment} {
			got := strings.ToLower(render(t, r, src, Options{Mode: mode, RepoLink: "https://forge.example/o/r"}))
			for _, bad := range []string{"<script", "onerror", "javascript:", "<iframe", "onclick", "style=", "data:text", `type="text"`, "<form", "<button", "evil\""} {
				if strings.Contains(got, bad) {
					t.Errorf("%s mode, %q: %q survived in %s", mode, src, bad, got)
				}
			}
		}
	}
	// Safe raw HTML stays.
	if got := render(t, r, "<details><summary>More</summary>\n\nhidden\n\n</details>\n\n<kbd>Ctrl</kbd>", Options{}); !strings.Contains(got, "<details>") || !strings.Contains(got, "<kbd>Ctrl</kbd>") {
		t.Errorf("safe HTML removed: %s", got)
	}
}

func TestRenderModes(t *testing.T) {
	r := New("https://forge.example/")
	if got := render(t, r, "# Readme", Options{Mode: ModeFile, FilePath: "docs/README.md"}); !strings.Contains(got, "<h1>Readme</h1>") {
		t.Errorf("file mode: %s", got)
	}
	for _, o := range []Options{{Mode: ModeFile, FilePath: "main.go"}, {Mode: "html"}} {
		if _, err := r.Render(t.Context(), []byte("x"), o); err == nil {
			t.Errorf("%+v rendered", o)
		} else if _, ok := err.(ErrUnsupported); !ok {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestLargeTexts: a text over MaxText is refused, and a large text waits for
// the large render before it only as long as its context allows.
func TestLargeTexts(t *testing.T) {
	r := New("http://localhost/")
	if _, err := r.Render(t.Context(), bytes.Repeat([]byte("a"), MaxText+1), Options{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over MaxText: %v", err)
	}
	large := bytes.Repeat([]byte("word "), largeText/5+1)
	if out, err := r.Render(t.Context(), large, Options{}); err != nil || !bytes.Contains(out, []byte("word word")) {
		t.Fatalf("a large text: %v", err)
	}
	r.large <- struct{}{} // another large render is running
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.Render(ctx, large, Options{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a large text while another renders: %v", err)
	}
	if out, err := r.Render(t.Context(), []byte("small *text*"), Options{}); err != nil || !bytes.Contains(out, []byte("<em>text</em>")) {
		t.Fatalf("a small text while a large one renders: %q %v", out, err)
	}
	<-r.large
	if _, err := r.Render(t.Context(), large, Options{}); err != nil {
		t.Fatalf("a large text after the other: %v", err)
	}
}
