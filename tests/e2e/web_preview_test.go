package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestWebMarkdownPreview renders an editor's text as its comment would be,
// sanitized, only with the form's CSRF token.
func TestWebMarkdownPreview(t *testing.T) {
	s := StartServer(t)
	w := s.Web(t)
	w.Get("user/login") // a page with a form: its CSRF token
	p := w.Post("-/markup", url.Values{"text": {"**bold** <script>alert(1)</script> see #1"}, "context": {"/root/demo"}})
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "<strong>bold</strong>") || strings.Contains(p.Body, "<script") {
		t.Fatalf("preview: %d %s", p.Status, p.Body)
	}
	if !strings.Contains(p.Body, `href="`+s.URL+`root/demo/issues/1"`) {
		t.Fatalf("the reference does not link into the context repository: %s", p.Body)
	}
	if p := w.Post("-/markup", url.Values{"text": {"x"}, "_csrf": {"forged"}}); p.Status != http.StatusBadRequest {
		t.Fatalf("forged token: %d", p.Status)
	}
	for _, bad := range []string{"https://evil.example/x/y", "//evil.example/y", "/only-one-part"} {
		if p := w.Post("-/markup", url.Values{"text": {"x"}, "context": {bad}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("context %q: %d %s", bad, p.Status, p.Body)
		}
	}
}
