// Package webhook delivers repository and organisation events to HTTP receivers.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/gobwas/glob"
)

const (
	hookDefaultTimeout  = 5 * time.Second
	hookDefaultMaxBody  = 64 << 10
	hookDrainLimit      = 1 << 20 // read past the kept body, then hang up
	hookMaxRedirects    = 10      // Go's default, which Gitea keeps
	hookMaskedAuthValue = "******"
)

// ClientOptions configure deliveries ([webhook] settings).
type ClientOptions struct {
	AllowedHostList string        // [webhook] ALLOWED_HOST_LIST, comma separated; "" means "external"
	Timeout         time.Duration // DELIVER_TIMEOUT (default 5s if zero)
	SkipTLSVerify   bool          // SKIP_TLS_VERIFY
	ProxyURL        string        // PROXY_URL ("" none)
	ProxyHosts      []string      // PROXY_HOSTS: host globs that go through the proxy; "**" all
	MaxResponseBody int           // bytes of the response body kept (default 64 KiB)
}

// Client sends webhook deliveries. Every connection it opens is checked
// against the allowed host list once the address is resolved, so DNS
// rebinding and redirects cannot reach a forbidden address. A Client is safe
// for concurrent use.
//
// Proxying: environment proxies (HTTP_PROXY...) are never used. When
// PROXY_URL is set, requests whose host matches PROXY_HOSTS go through it; the
// proxy address itself is trusted (it is the administrator's) and dialed
// without the check, and the target, which the proxy connects to, is checked
// before: allowed when its name matches a pattern of the list, when it is a
// literal allowed address, or when all the addresses it resolves to locally
// are allowed (a name that does not resolve locally is refused unless the
// list is "*").
type Client struct {
	hosts      *hookHostList
	http       *http.Client
	timeout    time.Duration
	maxBody    int
	proxy      *url.URL
	proxyAddr  string
	proxyGlobs []glob.Glob
	// dialOverride, for tests, maps the address asked for to the one dialed
	// (standing in for DNS); the check still sees the asked host name.
	dialOverride func(addr string) string
}

// NewClient builds a Client; it fails on a bad PROXY_URL, PROXY_HOSTS or
// ALLOWED_HOST_LIST entry.
func NewClient(o ClientOptions) (*Client, error) {
	hosts, err := parseHookHostList(o.AllowedHostList)
	if err != nil {
		return nil, err
	}
	c := &Client{hosts: hosts, timeout: o.Timeout, maxBody: o.MaxResponseBody}
	if c.timeout <= 0 {
		c.timeout = hookDefaultTimeout
	}
	if c.maxBody <= 0 {
		c.maxBody = hookDefaultMaxBody
	}
	if o.ProxyURL != "" {
		u, err := url.Parse(o.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("PROXY_URL: %v", err)
		}
		switch u.Scheme {
		case "http", "https", "socks5", "socks5h":
		default:
			return nil, fmt.Errorf("PROXY_URL %q: the scheme must be http, https or socks5", u.Redacted())
		}
		if u.Hostname() == "" {
			return nil, fmt.Errorf("PROXY_URL %q has no host", u.Redacted())
		}
		c.proxy = u
		c.proxyAddr = hookCanonicalAddr(u)
		for _, h := range o.ProxyHosts {
			h = strings.ToLower(strings.TrimSpace(h))
			if h == "" {
				continue
			}
			g, err := glob.Compile(h)
			if err != nil {
				return nil, fmt.Errorf("PROXY_HOSTS entry %q: %v", h, err)
			}
			c.proxyGlobs = append(c.proxyGlobs, g)
		}
	}
	tr := &http.Transport{
		Proxy:                  c.proxyFor,
		DialContext:            c.dial,
		TLSClientConfig:        &tls.Config{InsecureSkipVerify: o.SkipTLSVerify}, //nolint:gosec // only on SKIP_TLS_VERIFY
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    c.timeout,
		ResponseHeaderTimeout:  c.timeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	c.http = &http.Client{
		Transport: tr,
		Timeout:   c.timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= hookMaxRedirects {
				return fmt.Errorf("stopped after %d redirects", hookMaxRedirects)
			}
			return nil
		},
	}
	return c, nil
}

// hookCanonicalAddr is u's host:port with the scheme's default port.
func hookCanonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// hookDeniedError is the refusal of a host by ALLOWED_HOST_LIST.
type hookDeniedError struct{ host, addr string }

func (e *hookDeniedError) Error() string {
	if e.addr == "" || e.addr == e.host {
		return fmt.Sprintf("webhook can only call allowed HTTP servers (check the [webhook] ALLOWED_HOST_LIST setting), deny %q", e.host)
	}
	return fmt.Sprintf("webhook can only call allowed HTTP servers (check the [webhook] ALLOWED_HOST_LIST setting), deny %q (%s)", e.host, e.addr)
}

// dial opens connections; all but those to the configured proxy are checked
// on the resolved address in the dialer's Control hook, that is after DNS
// resolution and before connecting, for every address tried.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: c.timeout, KeepAlive: 30 * time.Second}
	dialAddr := addr
	if c.dialOverride != nil {
		dialAddr = c.dialOverride(addr)
	}
	if c.proxy == nil || !strings.EqualFold(addr, c.proxyAddr) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("webhook can only call HTTP servers over TCP/IP, deny %q (%s)", host, address)
			}
			if !c.hosts.allows(host, ap.Addr()) {
				return &hookDeniedError{host: host, addr: ap.Addr().String()}
			}
			return nil
		}
	}
	return d.DialContext(ctx, network, dialAddr)
}

// proxyFor is the Transport's Proxy function (see Client).
func (c *Client) proxyFor(req *http.Request) (*url.URL, error) {
	if c.proxy == nil {
		return nil, nil
	}
	name := strings.ToLower(req.URL.Hostname())
	hostport := strings.ToLower(req.URL.Host)
	use := false
	for _, g := range c.proxyGlobs {
		if g.Match(hostport) || g.Match(name) {
			use = true
			break
		}
	}
	if !use {
		return nil, nil
	}
	if c.hosts.matchesName(name) {
		return c.proxy, nil
	}
	if a, err := netip.ParseAddr(name); err == nil {
		if !c.hosts.matchesAddr(a) {
			return nil, &hookDeniedError{host: name}
		}
		return c.proxy, nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(req.Context(), "ip", name)
	if err != nil || len(addrs) == 0 {
		return nil, fmt.Errorf("webhook cannot check %q before proxying it: %v", name, err)
	}
	for _, a := range addrs {
		if !c.hosts.matchesAddr(a) {
			return nil, &hookDeniedError{host: name, addr: a.String()}
		}
	}
	return c.proxy, nil
}

// ValidateURL reports why a hook URL cannot be used: not http(s), no host, or
// the host is not allowed by the list (checked statically against literal IPs
// and host names; the real check is at connect time). The error text is the
// reason shown to the API user.
func (c *Client) ValidateURL(raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("invalid URL: %v", hookStripURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("the URL must start with http:// or https://")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("the URL has no host")
	}
	if !c.hosts.allowsStatically(host) {
		return &hookDeniedError{host: host}
	}
	return nil
}

// hookStripURLError drops the URL (which may hold credentials) from a parse error.
func hookStripURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// DeliveryRequest is one HTTP request of a hook.
type DeliveryRequest struct {
	// URL and Method ("" = POST) of the request. For plain formats
	// (SignGitea), GET sends the payload as the "payload" query parameter and
	// no body, as Gitea; other formats send their JSON body with any method.
	URL, Method string
	// ContentType is "json" or "form" (form: body "payload=" + the
	// URL-encoded JSON, Content-Type application/x-www-form-urlencoded).
	ContentType string
	// Body is the JSON payload; the signatures are computed over it (also
	// for form and GET requests, as Gitea).
	Body []byte
	// Secret is the HMAC key; "" sends empty signature headers, as Gitea.
	Secret string
	// AuthorizationHeader is sent as Authorization if not "".
	AuthorizationHeader string
	// Event and EventType are the X-*-Event and X-*-Event-Type values.
	Event, EventType string
	// DeliveryID is the X-*-Delivery value (a UUID).
	DeliveryID string
	// ExtraHeaders are the format's own headers.
	ExtraHeaders map[string]string
	// SignGitea is true for the plain gitea/gogs formats (GET and form
	// handling). Gitea 1.23 sends the X-Gitea-*, X-Gogs-*, X-Hub-* and
	// X-GitHub-* headers for every hook type, so all requests get them.
	SignGitea bool
}

// DeliveryResult is what happened to one DeliveryRequest.
type DeliveryResult struct {
	RequestHeaders  map[string]string // as sent; Authorization value masked as "******"
	RequestBody     string            // the payload, as Gitea records it
	Status          int               // 0 when no response
	ResponseHeaders map[string]string
	ResponseBody    string // capped to MaxResponseBody
	Duration        time.Duration
	Err             error // nil only for a 2xx response read without error
}

// newHookRequest builds the HTTP request of r, without Authorization.
func (c *Client) newHookRequest(ctx context.Context, r DeliveryRequest) (*http.Request, error) {
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = http.MethodPost
	}
	var (
		req *http.Request
		err error
	)
	switch {
	case r.SignGitea && method == http.MethodGet:
		u, perr := url.Parse(r.URL)
		if perr != nil {
			return nil, fmt.Errorf("invalid URL: %v", hookStripURLError(perr))
		}
		q := u.Query()
		q["payload"] = []string{string(r.Body)}
		u.RawQuery = q.Encode()
		req, err = http.NewRequestWithContext(ctx, method, u.String(), nil)
	case r.SignGitea && method != http.MethodPost:
		return nil, fmt.Errorf("invalid http method: %s", r.Method)
	case r.ContentType == "form":
		body := url.Values{"payload": []string{string(r.Body)}}.Encode()
		req, err = http.NewRequestWithContext(ctx, method, r.URL, strings.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	case r.ContentType == "json" || r.ContentType == "":
		req, err = http.NewRequestWithContext(ctx, method, r.URL, bytes.NewReader(r.Body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
	default:
		return nil, fmt.Errorf("invalid content type: %s", r.ContentType)
	}
	if err != nil {
		return nil, hookStripURLError(err)
	}
	for k, v := range r.ExtraHeaders {
		req.Header.Set(k, v)
	}
	var sig1, sig256 string
	if r.Secret != "" {
		m1 := hmac.New(sha1.New, []byte(r.Secret))
		m1.Write(r.Body)
		sig1 = hex.EncodeToString(m1.Sum(nil))
		m256 := hmac.New(sha256.New, []byte(r.Secret))
		m256.Write(r.Body)
		sig256 = hex.EncodeToString(m256.Sum(nil))
	}
	h := req.Header
	h.Set("X-Gitea-Delivery", r.DeliveryID)
	h.Set("X-Gitea-Event", r.Event)
	h.Set("X-Gitea-Event-Type", r.EventType)
	h.Set("X-Gitea-Signature", sig256)
	h.Set("X-Gogs-Delivery", r.DeliveryID)
	h.Set("X-Gogs-Event", r.Event)
	h.Set("X-Gogs-Event-Type", r.EventType)
	h.Set("X-Gogs-Signature", sig256)
	h.Set("X-Hub-Signature", "sha1="+sig1)
	h.Set("X-Hub-Signature-256", "sha256="+sig256)
	// Non-canonical spellings, written as is (as Gitea does).
	h["X-GitHub-Delivery"] = []string{r.DeliveryID}
	h["X-GitHub-Event"] = []string{r.Event}
	h["X-GitHub-Event-Type"] = []string{r.EventType}
	return req, nil
}

// hookJoinHeaders flattens headers as Gitea records them.
func hookJoinHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = strings.Join(v, ",")
	}
	return out
}

// Deliver sends r and reports what happened; it returns within the
// configured timeout (or earlier if ctx ends) whatever the receiver does, and
// keeps at most MaxResponseBody bytes of the response.
func (c *Client) Deliver(ctx context.Context, r DeliveryRequest) (res DeliveryResult) {
	start := time.Now()
	res = DeliveryResult{RequestHeaders: map[string]string{}, RequestBody: string(r.Body), ResponseHeaders: map[string]string{}}
	defer func() { res.Duration = time.Since(start) }()

	if err := c.ValidateURL(r.URL); err != nil {
		res.Err = err
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := c.newHookRequest(ctx, r)
	if err != nil {
		res.Err = err
		return res
	}
	if r.AuthorizationHeader != "" {
		req.Header.Set("Authorization", r.AuthorizationHeader)
	}
	res.RequestHeaders = hookJoinHeaders(req.Header)
	if _, ok := res.RequestHeaders["Authorization"]; ok {
		res.RequestHeaders["Authorization"] = hookMaskedAuthValue
	}

	resp, err := c.http.Do(req)
	if err != nil {
		res.Err = hookCleanDoError(err)
		return res
	}
	defer resp.Body.Close()
	res.Status = resp.StatusCode
	res.ResponseHeaders = hookJoinHeaders(resp.Header)

	kept, readErr := io.ReadAll(io.LimitReader(resp.Body, int64(c.maxBody)))
	if readErr == nil {
		// Read some more so a receiver sending a little too much still sees
		// a normal end, then hang up on the rest.
		_, readErr = io.CopyN(io.Discard, resp.Body, hookDrainLimit)
		if errors.Is(readErr, io.EOF) {
			readErr = nil
		}
	}
	res.ResponseBody = string(kept)
	switch {
	case readErr != nil:
		res.Err = fmt.Errorf("reading the response body: %w", hookCleanDoError(readErr))
	case resp.StatusCode/100 != 2:
		res.Err = fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return res
}

// hookCleanDoError makes timeouts explicit; url.Error texts already hide
// passwords of the URL.
func hookCleanDoError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out: %w", err)
	}
	return err
}
