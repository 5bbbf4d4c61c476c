package e2e

import (
	"html/template"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Web is a browser-like client of the web interface: it keeps cookies, does
// not follow redirects, and sends each form with the CSRF token of the last
// page it loaded.
type Web struct {
	t      testing.TB
	s      *Server
	client *http.Client
	csrf   string
}

// Page is a web answer.
type Page struct {
	Status   int
	Header   http.Header
	Body     string
	Location string
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// Web returns a new signed-out browser-like client.
func (s *Server) Web(t testing.TB) *Web {
	jar, _ := cookiejar.New(nil)
	return &Web{t: t, s: s, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (w *Web) do(req *http.Request) *Page {
	w.t.Helper()
	resp, err := w.client.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	p := &Page{Status: resp.StatusCode, Header: resp.Header, Body: string(b), Location: resp.Header.Get("Location")}
	if m := csrfInput.FindStringSubmatch(p.Body); m != nil {
		w.csrf = m[1]
	}
	return p
}

// Get loads path (relative to the root URL, with or without a leading /).
func (w *Web) Get(path string) *Page {
	w.t.Helper()
	req, err := http.NewRequest("GET", w.s.URL+strings.TrimPrefix(path, "/"), nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return w.do(req)
}

// Post sends form to path with the CSRF token of the last page loaded
// (unless form sets _csrf itself).
func (w *Web) Post(path string, form url.Values) *Page {
	w.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["_csrf"]; !ok {
		form.Set("_csrf", w.csrf)
	}
	req, err := http.NewRequest("POST", w.s.URL+strings.TrimPrefix(path, "/"), strings.NewReader(form.Encode()))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return w.do(req)
}

// SignIn signs in through the sign-in form and fails the test unless it
// redirects.
func (w *Web) SignIn(name, password string) {
	w.t.Helper()
	w.Get("user/login")
	p := w.Post("user/login", url.Values{"user_name": {name}, "password": {password}})
	if p.Status != http.StatusSeeOther {
		w.t.Fatalf("sign in as %s: %d %s", name, p.Status, p.Body)
	}
}

// MustContain fails the test unless the page has status and holds every
// string in subs.
func (p *Page) MustContain(t testing.TB, status int, subs ...string) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d: %.2000s", p.Status, status, p.Body)
	}
	for _, s := range subs {
		if !strings.Contains(p.Body, s) {
			t.Fatalf("page lacks %q: %.3000s", s, p.Body)
		}
	}
}

// pageText is s as a page shows it in running text: escaped by html/template
// itself (which writes + as &#43;, for one), so a check never depends on
// which characters a random value happens to hold.
func pageText(s string) string {
	var b strings.Builder
	if err := template.Must(template.New("t").Parse("{{.}}")).Execute(&b, s); err != nil {
		panic(err)
	}
	return b.String()
}
