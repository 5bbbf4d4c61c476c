package webhook

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func newClientForTest(t *testing.T, o ClientOptions) *Client {
	t.Helper()
	c, err := NewClient(o)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func TestClientHeadersAndSignatures(t *testing.T) {
	type seen struct {
		header http.Header
		body   string
		method string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Header.Clone(), string(b), r.Method}
		w.Header().Set("X-Receiver", "yes")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "thanks")
	}))
	defer srv.Close()

	c := newClientForTest(t, ClientOptions{AllowedHostList: "loopback"})
	payload := `{"action":"approved","number":1}`
	const secret, auth, id = "s3cr3t", "Bearer top-secret-token", "3f1e0c2a-1111-4222-8333-444455556666"
	res := c.Deliver(context.Background(), DeliveryRequest{
		URL: srv.URL + "/hook", ContentType: "json", Body: []byte(payload), Secret: secret,
		AuthorizationHeader: auth, Event: "pull_request_approved", EventType: "pull_request_review_approved",
		DeliveryID: id, SignGitea: true, ExtraHeaders: map[string]string{"X-Extra": "1"},
	})
	if res.Err != nil {
		t.Fatalf("Err: %v", res.Err)
	}
	s := <-got
	if s.method != http.MethodPost || s.body != payload {
		t.Fatalf("method %s body %q", s.method, s.body)
	}
	sha256Hex := func() string {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(payload))
		return hex.EncodeToString(m.Sum(nil))
	}()
	sha1Hex := func() string {
		m := hmac.New(sha1.New, []byte(secret))
		m.Write([]byte(payload))
		return hex.EncodeToString(m.Sum(nil))
	}()
	want := map[string]string{
		"Content-Type":        "application/json",
		"Authorization":       auth,
		"X-Gitea-Delivery":    id,
		"X-Gitea-Event":       "pull_request_approved",
		"X-Gitea-Event-Type":  "pull_request_review_approved",
		"X-Gitea-Signature":   sha256Hex,
		"X-Gogs-Delivery":     id,
		"X-Gogs-Event":        "pull_request_approved",
		"X-Gogs-Event-Type":   "pull_request_review_approved",
		"X-Gogs-Signature":    sha256Hex,
		"X-Hub-Signature":     "sha1=" + sha1Hex,
		"X-Hub-Signature-256": "sha256=" + sha256Hex,
		"X-GitHub-Delivery":   id,
		"X-GitHub-Event":      "pull_request_approved",
		"X-GitHub-Event-Type": "pull_request_review_approved",
		"X-Extra":             "1",
	}
	for k, v := range want {
		if g := s.header.Get(k); g != v {
			t.Errorf("received %s = %q, want %q", k, g, v)
		}
	}
	// The record: as sent, Authorization masked, GitHub spelling kept.
	for k, v := range want {
		if k == "Authorization" {
			v = "******"
		}
		if g := res.RequestHeaders[k]; g != v {
			t.Errorf("recorded %s = %q, want %q", k, g, v)
		}
	}
	for k, v := range res.RequestHeaders {
		if strings.Contains(v, "top-secret-token") {
			t.Errorf("authorization leaked in recorded header %s", k)
		}
	}
	if res.RequestBody != payload || res.Status != http.StatusAccepted || res.ResponseBody != "thanks" ||
		res.ResponseHeaders["X-Receiver"] != "yes" || res.Duration <= 0 {
		t.Errorf("result %+v", res)
	}
}

func TestClientFormAndGet(t *testing.T) {
	type seen struct {
		ct, method, payload, sig, rawBody string
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p := r.URL.Query().Get("payload")
		if r.Method == http.MethodPost {
			v, _ := url.ParseQuery(string(b))
			p = v.Get("payload")
		}
		got <- seen{r.Header.Get("Content-Type"), r.Method, p, r.Header.Get("X-Gitea-Signature"), string(b)}
	}))
	defer srv.Close()
	c := newClientForTest(t, ClientOptions{AllowedHostList: "loopback"})
	payload := `{"ref":"refs/heads/main","a":"x&y=z"}`
	m := hmac.New(sha256.New, []byte("k"))
	m.Write([]byte(payload))
	sig := hex.EncodeToString(m.Sum(nil))

	res := c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, ContentType: "form", Body: []byte(payload), Secret: "k", SignGitea: true})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	s := <-got
	if s.ct != "application/x-www-form-urlencoded" || s.payload != payload || s.sig != sig || !strings.HasPrefix(s.rawBody, "payload=") {
		t.Errorf("form: %+v", s)
	}
	if res.RequestBody != payload {
		t.Errorf("recorded body %q", res.RequestBody)
	}

	res = c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL + "/?x=1", Method: "GET", ContentType: "json", Body: []byte(payload), Secret: "k", SignGitea: true})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	s = <-got
	if s.method != http.MethodGet || s.payload != payload || s.rawBody != "" || s.sig != sig || s.ct != "" {
		t.Errorf("get: %+v", s)
	}

	res = c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, Method: "DELETE", ContentType: "json", Body: []byte(payload), SignGitea: true})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "method") {
		t.Errorf("DELETE: %v", res.Err)
	}
}

func TestClientNoSecretSendsEmptySignatures(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	defer srv.Close()
	c := newClientForTest(t, ClientOptions{AllowedHostList: "loopback"})
	res := c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, ContentType: "json", Body: []byte(`{}`)})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	h := <-got
	if _, ok := h["X-Gitea-Signature"]; !ok || h.Get("X-Gitea-Signature") != "" || h.Get("X-Hub-Signature") != "sha1=" ||
		h.Get("X-Hub-Signature-256") != "sha256=" || h.Get("Authorization") != "" {
		t.Errorf("headers %v", h)
	}
	if _, ok := res.RequestHeaders["Authorization"]; ok {
		t.Error("Authorization recorded though none was set")
	}
}

func TestClientLoopbackRefusedUnderExternal(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c := newClientForTest(t, ClientOptions{}) // "" = external
	res := c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, ContentType: "json", Body: []byte(`{}`)})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "ALLOWED_HOST_LIST") || res.Status != 0 {
		t.Fatalf("literal loopback: %+v", res)
	}
	if err := c.ValidateURL(srv.URL); err == nil || !strings.Contains(err.Error(), "ALLOWED_HOST_LIST") {
		t.Errorf("ValidateURL: %v", err)
	}
	// A host name passes the static check but resolves to loopback: refused
	// at connect time (DNS rebinding).
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c.dialOverride = func(string) string { return srv.Listener.Addr().String() }
	u := "http://rebind.example.net:" + port + "/"
	if err := c.ValidateURL(u); err != nil {
		t.Fatalf("ValidateURL(%s): %v", u, err)
	}
	res = c.Deliver(context.Background(), DeliveryRequest{URL: u, ContentType: "json", Body: []byte(`{}`)})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "ALLOWED_HOST_LIST") || !strings.Contains(res.Err.Error(), "127.0.0.1") {
		t.Fatalf("rebinding: %v", res.Err)
	}
	if hits.Load() != 0 {
		t.Errorf("receiver was reached %d times", hits.Load())
	}
}

func TestClientLoopbackAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	for _, list := range []string{"loopback", "127.0.0.0/8", "*", "private,loopback"} {
		c := newClientForTest(t, ClientOptions{AllowedHostList: list})
		if res := c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, ContentType: "json", Body: []byte(`{}`)}); res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %+v", list, res)
		}
	}
}

func TestClientRedirects(t *testing.T) {
	var forbiddenHits atomic.Int32
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { forbiddenHits.Add(1) }))
	defer forbidden.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	_, rport, _ := net.SplitHostPort(redirector.Listener.Addr().String())
	_, fport, _ := net.SplitHostPort(forbidden.Listener.Addr().String())

	c := newClientForTest(t, ClientOptions{AllowedHostList: "*.hook.test"})
	c.dialOverride = func(addr string) string {
		_, p, _ := net.SplitHostPort(addr)
		return net.JoinHostPort("127.0.0.1", p)
	}
	base := "http://a.hook.test:" + rport + "/?to="
	// To the forbidden IP: refused.
	res := c.Deliver(context.Background(), DeliveryRequest{URL: base + url.QueryEscape(forbidden.URL+"/x"), ContentType: "json", Body: []byte(`{}`)})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "ALLOWED_HOST_LIST") || forbiddenHits.Load() != 0 {
		t.Fatalf("redirect to forbidden IP: %+v (hits %d)", res, forbiddenHits.Load())
	}
	// To another allowed name: followed.
	res = c.Deliver(context.Background(), DeliveryRequest{URL: base + url.QueryEscape("http://b.hook.test:"+fport+"/y"), ContentType: "json", Body: []byte(`{}`)})
	if res.Err != nil || forbiddenHits.Load() != 1 {
		t.Fatalf("redirect to allowed name: %v (hits %d)", res.Err, forbiddenHits.Load())
	}

	// Endless redirects stop after 10 requests (Go's default policy, kept by Gitea).
	var loops atomic.Int32
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		loops.Add(1)
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	defer loop.Close()
	lc := newClientForTest(t, ClientOptions{AllowedHostList: "loopback"})
	res = lc.Deliver(context.Background(), DeliveryRequest{URL: loop.URL, ContentType: "json", Body: []byte(`{}`)})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "10 redirects") || loops.Load() != 10 {
		t.Errorf("redirect loop: %v after %d requests", res.Err, loops.Load())
	}
}

func TestClientTimeouts(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/midbody" {
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	defer close(release) // before Close, which waits for the handlers
	c := newClientForTest(t, ClientOptions{AllowedHostList: "loopback", Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/headers", "/midbody"} {
		start := time.Now()
		res := c.Deliver(context.Background(), DeliveryRequest{URL: hang.URL + path, ContentType: "json", Body: []byte(`{}`)})
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("%s: took %v", path, el)
		}
		if res.Err == nil || !strings.Contains(res.Err.Error(), "timed out") {
			t.Errorf("%s: Err %v", path, res.Err)
		}
		if path == "/midbody" && (res.Status != 200 || res.ResponseBody != "partial") {
			t.Errorf("%s: status %d body %q", path, res.Status, res.ResponseBody)
		}
		if path == "/headers" && res.Status != 0 {
			t.Errorf("%s: status %d", path, res.Status)
		}
	}
	// The caller's context also bounds a delivery.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	slow := newClientForTest(t, ClientOptions{AllowedHostList: "loopback", Timeout: time.Minute})
	start := time.Now()
	if res := slow.Deliver(ctx, DeliveryRequest{URL: hang.URL, ContentType: "json", Body: []byte(`{}`)}); res.Err == nil || time.Since(start) > 3*time.Second {
		t.Errorf("context: %v after %v", res.Err, time.Since(start))
	}
}

func TestClientHugeResponseCapped(t *testing.T) {
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("A", 32<<10))
		for range (4 << 30) / len(chunk) { // 4 GiB if nobody hangs up
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := newClientForTest(t, ClientOptions{AllowedHostList: "loopback", MaxResponseBody: 1000, Timeout: 20 * time.Second})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, ContentType: "json", Body: []byte(`{}`)})
	runtime.ReadMemStats(&after)
	if res.Err != nil || res.Status != 200 {
		t.Fatalf("%+v", res.Err)
	}
	if len(res.ResponseBody) != 1000 || strings.Trim(res.ResponseBody, "A") != "" {
		t.Errorf("kept %d bytes", len(res.ResponseBody))
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 32<<20 {
		t.Errorf("allocated %d MiB", d>>20)
	}
	if w := written.Load(); w > 512<<20 {
		t.Errorf("the receiver could write %d MiB", w>>20)
	}

	// Default cap is 64 KiB.
	c = newClientForTest(t, ClientOptions{AllowedHostList: "loopback"})
	if res := c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, ContentType: "json", Body: []byte(`{}`)}); len(res.ResponseBody) != 64<<10 {
		t.Errorf("default cap: %d", len(res.ResponseBody))
	}
}

func TestClientConnectionClosedMidBody(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if req, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
			io.Copy(io.Discard, req.Body)
		}
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n\r\n0123456789")
	}()
	c := newClientForTest(t, ClientOptions{AllowedHostList: "loopback"})
	res := c.Deliver(context.Background(), DeliveryRequest{URL: "http://" + ln.Addr().String() + "/", ContentType: "json", Body: []byte(`{}`)})
	if res.Err == nil || res.Status != 200 || res.ResponseBody != "0123456789" {
		t.Errorf("%+v", res)
	}
}

func TestClientNon2xxFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer srv.Close()
	c := newClientForTest(t, ClientOptions{AllowedHostList: "loopback"})
	res := c.Deliver(context.Background(), DeliveryRequest{URL: srv.URL, ContentType: "json", Body: []byte(`{}`)})
	if res.Err == nil || res.Status != 500 || !strings.Contains(res.ResponseBody, "nope") {
		t.Errorf("%+v", res)
	}
}

func TestClientValidateURL(t *testing.T) {
	c := newClientForTest(t, ClientOptions{})
	for raw, want := range map[string]string{
		"ftp://example.com/x":     "http",
		"example.com/hook":        "http",
		"http://":                 "no host",
		"http://127.0.0.1/":       "ALLOWED_HOST_LIST",
		"http://[::1]:8080/":      "ALLOWED_HOST_LIST",
		"http://localhost/":       "ALLOWED_HOST_LIST",
		"http://10.1.2.3/":        "ALLOWED_HOST_LIST",
		"http://169.254.169.254/": "ALLOWED_HOST_LIST",
		"https://example.com/h":   "",
		"http://8.8.8.8:9000/h":   "",
	} {
		err := c.ValidateURL(raw)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", raw, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
}

func TestClientOptionsErrors(t *testing.T) {
	for _, o := range []ClientOptions{
		{ProxyURL: "ftp://proxy:21"},
		{ProxyURL: "http://"},
		{ProxyURL: "http://proxy:3128", ProxyHosts: []string{"[a-"}},
		{AllowedHostList: "external,10.0.0.0/40"},
	} {
		if _, err := NewClient(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestClientProxy(t *testing.T) {
	got := make(chan string, 1)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.String() // absolute URL when proxied
	}))
	defer proxy.Close()
	// The proxy is on loopback, which "external" does not allow: it is
	// dialed anyway, and the target is checked.
	c := newClientForTest(t, ClientOptions{ProxyURL: proxy.URL, ProxyHosts: []string{"**"}})
	res := c.Deliver(context.Background(), DeliveryRequest{URL: "http://8.8.8.8:81/hook", ContentType: "json", Body: []byte(`{}`)})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if u := <-got; u != "http://8.8.8.8:81/hook" {
		t.Errorf("proxy saw %q", u)
	}
	// Targets not matching PROXY_HOSTS are dialed directly, and checked.
	c = newClientForTest(t, ClientOptions{ProxyURL: proxy.URL, ProxyHosts: []string{"*.example.com"}})
	c.dialOverride = func(string) string { return proxy.Listener.Addr().String() }
	res = c.Deliver(context.Background(), DeliveryRequest{URL: "http://other.example.org/hook", ContentType: "json", Body: []byte(`{}`)})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "ALLOWED_HOST_LIST") {
		t.Errorf("direct: %v", res.Err)
	}
	// A forbidden target is refused before being handed to the proxy.
	c = newClientForTest(t, ClientOptions{ProxyURL: proxy.URL, ProxyHosts: []string{"**"}})
	if u, err := c.proxyFor(httptest.NewRequest("GET", "http://10.0.0.1/", nil)); err == nil || u != nil {
		t.Errorf("proxied forbidden target: %v %v", u, err)
	}
	if u, err := c.proxyFor(httptest.NewRequest("GET", "http://8.8.8.8/", nil)); err != nil || u == nil {
		t.Errorf("proxied allowed target: %v %v", u, err)
	}
}
