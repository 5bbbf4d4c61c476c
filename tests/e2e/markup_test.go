package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestMarkdownRendering: /markdown, /markdown/raw and /markup render GFM to
// sanitized HTML, link mentions and references in comment mode within the
// given repository, and refuse unknown modes; no sign-in needed.
func TestMarkdownRendering(t *testing.T) {
	s := StartServer(t)
	html := func(r *Response, what string) string {
		t.Helper()
		mustStatus(t, r, http.StatusOK, what)
		if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Fatalf("%s: Content-Type %q", what, ct)
		}
		return string(r.Body)
	}
	got := html(s.Do("POST", "api/v1/markdown", JSON(map[string]any{"Text": "**hi** @alice #4\n\n<script>alert(1)</script>[x](javascript:alert(1))",
		"Mode": "comment", "Context": "acme/app"})), "markdown comment")
	for _, want := range []string{"<strong>hi</strong>", `href="` + s.URL + `alice"`, `href="` + s.URL + `acme/app/issues/4"`} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in %s", want, got)
		}
	}
	if strings.Contains(got, "<script") || strings.Contains(got, `href="javascript`) {
		t.Fatalf("unsafe HTML survived: %s", got)
	}
	// A full URL of the repository works as the context too; a foreign one does not.
	if got := html(s.Do("POST", "api/v1/markdown", JSON(map[string]any{"Text": "#4", "Mode": "gfm", "Context": s.URL + "acme/app/issues"})), "url context"); !strings.Contains(got, "acme/app/issues/4") {
		t.Fatalf("url context: %s", got)
	}
	if got := html(s.Do("POST", "api/v1/markdown", JSON(map[string]any{"Text": "#4", "Mode": "gfm", "Context": "https://evil.example/acme/app"})), "foreign context"); strings.Contains(got, "<a") {
		t.Fatalf("foreign context linked: %s", got)
	}
	if got := html(s.Do("POST", "api/v1/markdown/raw", Header("Content-Type", "text/plain"), RawBody("| a |\n|---|\n| b |\n")), "raw"); !strings.Contains(got, "<td>b</td>") {
		t.Fatalf("raw: %s", got)
	}
	if got := html(s.Do("POST", "api/v1/markup", JSON(map[string]any{"Text": "# Doc", "Mode": "file", "FilePath": "docs/guide.md"})), "markup file"); !strings.Contains(got, "<h1>Doc</h1>") {
		t.Fatalf("markup: %s", got)
	}
	mustStatus(t, s.Do("POST", "api/v1/markup", JSON(map[string]any{"Text": "x", "Mode": "file", "FilePath": "main.go"})), http.StatusUnprocessableEntity, "unsupported file")
	// Texts are bounded: goldmark's time grows with the square of some inputs.
	big := strings.Repeat("[a](", (1<<20)/4+1)
	mustStatus(t, s.Do("POST", "api/v1/markdown", JSON(map[string]any{"Text": big})), http.StatusRequestEntityTooLarge, "a text over 1 MiB")
	mustStatus(t, s.Do("POST", "api/v1/markdown/raw", Header("Content-Type", "text/plain"), RawBody(big)), http.StatusRequestEntityTooLarge, "a raw text over 1 MiB")
	mustStatus(t, s.Do("POST", "api/v1/markdown", JSON(map[string]any{"Text": "x", "Mode": "html"})), http.StatusUnprocessableEntity, "unknown mode")
	mustStatus(t, s.Do("POST", "api/v1/markdown", RawBody("{")), http.StatusUnprocessableEntity, "broken JSON")
}
