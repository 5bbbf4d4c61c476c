// Package observe is what an operator sees of a running Cairn: the access
// log and request ids, the logger built from [log], Prometheus metrics and
// the health check.
package observe

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// RequestIDHeader carries the request id in requests and responses.
const RequestIDHeader = "X-Request-Id"

// unmatched is the route label of requests that no route took.
const unmatched = "unmatched"

// request is what handlers tell the access log about one request.
type request struct {
	id      string
	user    string
	route   string
	service string // git service, for pushes refused
}

type requestKey struct{}

func requestOf(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// RequestID returns the id of the request ctx belongs to, or "".
func RequestID(ctx context.Context) string {
	if r := requestOf(ctx); r != nil {
		return r.id
	}
	return ""
}

// SetUser names the signed-in caller of the request in the access log.
func SetUser(ctx context.Context, name string) {
	if r := requestOf(ctx); r != nil {
		r.user = name
	}
}

// SetRoute sets the request's route label (log and metrics) for routes that
// are not chi's; it must be one of a fixed set, never a raw path.
func SetRoute(ctx context.Context, route string) {
	if r := requestOf(ctx); r != nil {
		r.route = route
	}
}

// SetGitService records the git service (upload-pack, receive-pack) a git
// request asks for, so that refused pushes stand out in the log.
func SetGitService(ctx context.Context, service string) {
	if r := requestOf(ctx); r != nil {
		r.service = service
	}
}

// Route wraps h so that its requests carry the route label route.
func Route(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetRoute(r.Context(), route)
		h.ServeHTTP(w, r)
	})
}

// validID reports whether a client's request id may be reused: 1 to 64
// characters of [A-Za-z0-9._-].
func validID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// idAlphabet is base32's (RFC 4648), as crypto/rand.Text uses.
const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// newID returns a fresh request id: 26 base32 characters, 128 random bits
// from the runtime's per-thread ChaCha8 generator (unpredictable, and far
// cheaper per request than reading the system's random source).
func newID() string {
	var b [26]byte
	hi, lo := rand.Uint64(), rand.Uint64()
	for i := range b {
		b[i] = idAlphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(b[:])
}

// Middleware gives every request an id (the client's X-Request-Id when well
// formed, else a fresh random one) in the response and the request context,
// writes one access log line per request to logger and counts the request
// in m. Either may be nil.
//
// API routes are labelled with chi's route pattern: the middleware gives the
// request a chi routing context, which chi's router then fills instead of a
// pooled one of its own (pooled here the same way, under the same rule: it
// is reused once the request is answered). A request answered before
// routing (a refused sign-in) is labelled by resolve(method, path) when
// resolve is set.
func Middleware(logger *slog.Logger, m *Metrics, resolve func(method, path string) string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		routing := sync.Pool{New: func() any { return chi.NewRouteContext() }}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := r.Header.Get(RequestIDHeader)
			if !validID(id) {
				id = newID()
			}
			w.Header()[RequestIDHeader] = []string{id} // canonical already
			rec := &recorder{ResponseWriter: w, info: request{id: id}}
			info := &rec.info
			rctx := routing.Get().(*chi.Context)
			rctx.Reset()
			defer routing.Put(rctx)
			ctx := context.WithValue(context.WithValue(r.Context(), requestKey{}, info), chi.RouteCtxKey, rctx)
			next.ServeHTTP(rec, r.WithContext(ctx))

			status := rec.status
			if status == 0 {
				status = http.StatusOK // nothing written: net/http answers 200
			}
			route := info.route
			if route == "" {
				route = rctx.RoutePattern()
			}
			if route == "" && resolve != nil {
				path := r.URL.RawPath // what chi routes by
				if path == "" {
					path = r.URL.Path
				}
				route = resolve(r.Method, path)
			}
			if route == "" {
				route = unmatched
			}
			end := time.Now()
			elapsed := end.Sub(start)
			m.observeRequest(r.Method, route, status, elapsed)
			if logger == nil {
				return
			}
			level, msg := classify(r, info, status)
			// The outer context: request_id is written here, not again by
			// the logger's context handler. The record goes straight to the
			// handler: Logger.LogAttrs would look up the caller's stack,
			// which no handler here prints.
			h := logger.Handler()
			if !h.Enabled(r.Context(), level) {
				return
			}
			writeAccess(r.Context(), h, end, level, msg, accessLine{
				id: id, method: r.Method, route: route, uri: SafeURI(r.URL), status: status, bytes: rec.bytes,
				durationMS: float64(elapsed.Microseconds()) / 1000, user: info.user, remote: r.RemoteAddr,
			})
		})
	}
}

// classify picks the level and message of an access log line: refused
// sign-ins (wrong credentials, throttled) and refused pushes are warnings,
// server errors errors. A 401 to a request without credentials is git's
// ordinary first round trip, not a refusal.
func classify(r *http.Request, info *request, status int) (slog.Level, string) {
	credentials := r.Header.Get("Authorization") != "" || hasURLToken(r.URL.RawQuery)
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusUnauthorized && credentials:
		return slog.LevelWarn, "refused sign-in"
	case info.service == "receive-pack" && status >= 400 && status != http.StatusUnauthorized:
		return slog.LevelWarn, "refused push"
	case status >= 500:
		return slog.LevelError, "request"
	}
	return slog.LevelInfo, "request"
}

// hasURLToken reports whether a query names a token parameter.
func hasURLToken(rawQuery string) bool {
	if rawQuery == "" {
		return false
	}
	for part := range strings.SplitSeq(rawQuery, "&") {
		if isTokenKey(part) {
			return true
		}
	}
	return false
}

// isTokenKey reports whether a query part key=value names an access token.
func isTokenKey(part string) bool {
	k, _, _ := strings.Cut(part, "=")
	if uk, err := url.QueryUnescape(k); err == nil {
		k = uk
	}
	return strings.EqualFold(k, "token") || strings.EqualFold(k, "access_token")
}

// SafeURI is the request's path and query with the values of URL tokens
// (token, access_token) replaced by "REDACTED": what may be logged.
func SafeURI(u *url.URL) string {
	path := u.EscapedPath()
	if u.RawQuery == "" {
		return path
	}
	if !strings.Contains(strings.ToLower(u.RawQuery), "token") && !strings.Contains(u.RawQuery, "%") {
		return path + "?" + u.RawQuery
	}
	parts := strings.Split(u.RawQuery, "&")
	for i, p := range parts {
		if isTokenKey(p) {
			k, _, _ := strings.Cut(p, "=")
			parts[i] = k + "=REDACTED"
		}
	}
	return path + "?" + strings.Join(parts, "&")
}

// recorder notes the status and size of a response (and holds the
// request's details, to allocate once). It passes Flush on (git over HTTP
// streams) and unwraps for http.ResponseController.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	info   request
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

// ReadFrom keeps net/http's sendfile path for files served with io.Copy.
func (r *recorder) ReadFrom(src io.Reader) (int64, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := io.Copy(r.ResponseWriter, src)
	r.bytes += n
	return n, err
}

func (r *recorder) Flush() {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
