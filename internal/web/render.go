package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/notify"
	"github.com/cairn-forge/cairn/internal/user"
)

//go:embed templates
var templateFS embed.FS

// views are the page templates. The layout and the shared partials are
// parsed at start; each page is parsed onto its own copy of them the first
// time it is needed (copying them for every page at start took a fifth of
// a start's CPU). TestEveryPageParses parses them all.
type views struct {
	base  *template.Template
	pages map[string]*pageTemplate
}

// pageTemplate is one page, parsed once on first use.
type pageTemplate struct {
	file string
	once sync.Once
	t    *template.Template
	err  error
}

func loadViews(funcs template.FuncMap) (*views, error) {
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout/*.tmpl")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFS, "templates/*.tmpl")
	if err != nil {
		return nil, err
	}
	v := &views{base: base, pages: map[string]*pageTemplate{}}
	for _, n := range names {
		v.pages[strings.TrimSuffix(path.Base(n), ".tmpl")] = &pageTemplate{file: n}
	}
	return v, nil
}

// page returns the template of page name, parsing it the first time.
func (v *views) page(name string) (*template.Template, error) {
	p, ok := v.pages[name]
	if !ok {
		return nil, fmt.Errorf("web: no template %q", name)
	}
	p.once.Do(func() {
		clone, err := v.base.Clone()
		if err != nil {
			p.err = err
			return
		}
		if p.t, err = clone.ParseFS(templateFS, p.file); err != nil {
			p.err = fmt.Errorf("template %s: %w", p.file, err)
		}
	})
	return p.t, p.err
}

// Page is what every template receives: the layout's data and the page's own.
type Page struct {
	Title   string
	Doer    *user.User
	CSRF    string
	Flash   *Flash
	AppName string
	Version string
	// Path is the request path (the sign-in link returns there).
	Path string
	// CSS and JS are the content-hashed asset URLs.
	CSS, JS string
	// AllowRegistration shows the sign-up link.
	AllowRegistration bool
	// Unread counts the signed-in user's unread notifications.
	Unread int64
	// Data is the page's own data.
	Data any
}

// Flash is a one-time message shown on the next page.
type Flash struct {
	Kind    string // success, error, info
	Message string
}

const flashCookie = "cairn_flash"

// flash sets a message for the next page the visitor sees.
func (h *Handler) flash(w http.ResponseWriter, kind, msg string) {
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: h.keys.sign(kind + "\x00" + msg), Path: "/",
		HttpOnly: true, Secure: h.sessions.secure, SameSite: http.SameSiteLaxMode})
}

// takeFlash reads and clears the flash message.
func (h *Handler) takeFlash(w http.ResponseWriter, r *http.Request) *Flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true})
	v, ok := h.keys.open(c.Value)
	if !ok {
		return nil
	}
	kind, msg, _ := strings.Cut(v, "\x00")
	return &Flash{Kind: kind, Message: msg}
}

// render writes page name with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) error {
	t, err := h.views.page(name)
	if err != nil {
		return err
	}
	v := visitorOf(r)
	p := &Page{Title: title, Doer: doer(r), AppName: "Cairn", Version: h.Version, Path: r.URL.RequestURI(),
		CSS: h.assets.url("cairn.css"), JS: h.assets.url("cairn.js"), Data: data,
		AllowRegistration: !h.Config.Service.DisableRegistration}
	if v.binding != "" {
		p.CSRF = h.keys.token(v.binding)
	}
	p.Flash = h.takeFlash(w, r)
	if p.Doer != nil {
		n, err := notify.NewStore(h.DB).CountUnread(r.Context(), p.Doer.ID)
		if err != nil {
			return err
		}
		p.Unread = n
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		return fmt.Errorf("web: rendering %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
	return nil
}

// errorPage is the data of the error page.
type errorPage struct {
	Status  int
	Message string
}

// renderError writes the error page.
func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	title := http.StatusText(status)
	if err := h.render(w, r, status, "error", title, errorPage{Status: status, Message: msg}); err != nil {
		slog.Error("web: error page", "err", err)
		http.Error(w, msg, status)
	}
}

// fail renders err as its page: 404 for what does not exist or may not be
// seen, sign-in for a signed-out visitor who needs an account, 403, 422 for
// bad input, 500 (logged, not shown) for the rest.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errs.IsNotFound(err):
		h.renderError(w, r, http.StatusNotFound, "The page you are looking for does not exist or you may not see it.")
	case errs.Is(err, errs.KindUnauthorized) && doer(r) == nil:
		h.redirectToLogin(w, r)
	case errs.Is(err, errs.KindForbidden), errs.Is(err, errs.KindUnauthorized):
		h.renderError(w, r, http.StatusForbidden, errMessage(err, "You may not do this."))
	case errs.Is(err, errs.KindInvalid), errs.Is(err, errs.KindBadRequest), errs.Is(err, errs.KindConflict), errs.Is(err, errs.KindAlreadyExists):
		h.renderError(w, r, http.StatusUnprocessableEntity, errMessage(err, "The request is not valid."))
	case errs.Is(err, errs.KindTooLarge):
		h.renderError(w, r, http.StatusRequestEntityTooLarge, errMessage(err, "The request is too large."))
	case errs.Is(err, errs.KindTooManyRequests):
		h.renderError(w, r, http.StatusTooManyRequests, errMessage(err, "Too many requests: try again later."))
	default:
		slog.Error("web: page failed", "path", r.URL.Path, "err", err)
		h.renderError(w, r, http.StatusInternalServerError, "Something went wrong on our side; it has been logged.")
	}
}

// errMessage is the user-facing message of a domain error, or def.
func errMessage(err error, def string) string {
	var e *errs.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return def
}

// funcs are the template functions.
func (h *Handler) funcs() template.FuncMap {
	return template.FuncMap{
		"avatar": func(u *user.User) string {
			if u == nil {
				return "/avatars/ghost"
			}
			if u.Avatar != "" {
				return "/avatars/custom/" + url.PathEscape(u.Avatar)
			}
			return "/avatars/" + url.PathEscape(u.LowerName)
		},
		"pathEscape": url.PathEscape,
		// asset is the content-hashed URL of a static file.
		"asset": func(name string) string { return h.assets.url(name) },
		// pathEscapeSegments escapes each segment of a slash-separated path.
		"pathEscapeSegments": escapeSegments,
		"since":              func(t time.Time) string { return since(h.Now(), t) },
		"isoTime":            func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"add":                func(a, b int) int { return a + b },
		"sub":                func(a, b int) int { return a - b },
		"fileSize":           fileSize,
		"shortSHA": func(s string) string {
			if len(s) > 10 {
				return s[:10]
			}
			return s
		},
		"firstLine": func(s string) string {
			line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
			return line
		},
	}
}

// escapeSegments escapes each segment of a slash-separated path.
func escapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// since is a short relative time ("3 minutes ago").
func since(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		s = plural(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		s = plural(int(d/time.Hour), "hour")
	case d < 30*24*time.Hour:
		s = plural(int(d/(24*time.Hour)), "day")
	case d < 365*24*time.Hour:
		s = plural(int(d/(30*24*time.Hour)), "month")
	default:
		s = plural(int(d/(365*24*time.Hour)), "year")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// fileSize is a byte count for people.
func fileSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
