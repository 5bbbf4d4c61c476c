package oauth2

import (
	"net"
	"net/url"
	"strings"
	"unicode"

	"github.com/cairn-forge/cairn/internal/errs"
)

// Limits on what an application registers.
const (
	maxNameLength     = 255
	maxRedirectURIs   = 20
	maxRedirectLength = 1024
)

// forbiddenSchemes are URI schemes a browser would run or read locally
// rather than navigate to: never a redirection target.
var forbiddenSchemes = map[string]bool{"javascript": true, "data": true, "vbscript": true, "file": true, "about": true, "blob": true}

// NormalizeRedirectURIs trims the URIs, drops blank lines and exact
// repeats, and checks each (ValidRedirectURI). At least one is required.
func NormalizeRedirectURIs(uris []string) ([]string, error) {
	out := make([]string, 0, len(uris))
	seen := map[string]bool{}
	for _, u := range uris {
		u = strings.TrimSpace(u)
		if u == "" || seen[u] {
			continue
		}
		if err := ValidRedirectURI(u); err != nil {
			return nil, err
		}
		seen[u] = true
		out = append(out, u)
	}
	if len(out) == 0 {
		return nil, errs.InvalidField("redirect_uris", "[RedirectURIs]: Required")
	}
	if len(out) > maxRedirectURIs {
		return nil, errs.InvalidField("redirect_uris", "[RedirectURIs]: at most %d redirect URIs", maxRedirectURIs)
	}
	return out, nil
}

// ValidRedirectURI checks one redirection endpoint (RFC 6749 section
// 3.1.2): an absolute URI without a fragment. http and https URIs need a
// host; other schemes (a native application's private-use scheme, as RFC
// 8252 section 7.1 describes) are accepted, except those a browser would
// execute (javascript:, data:, ...).
func ValidRedirectURI(raw string) error {
	bad := func(why string) error {
		return errs.InvalidField("redirect_uris", "[RedirectURIs]: %q is not a valid redirect URI: %s", raw, why)
	}
	if len(raw) > maxRedirectLength {
		return bad("too long")
	}
	if strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return bad("it contains spaces or control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("it does not parse")
	}
	if u.Scheme == "" {
		return bad("it must be an absolute URI with a scheme")
	}
	scheme := strings.ToLower(u.Scheme)
	if forbiddenSchemes[scheme] {
		return bad("the " + scheme + " scheme is not allowed")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return bad("it must not contain a fragment")
	}
	if u.User != nil {
		return bad("it must not contain user information")
	}
	if scheme == "http" || scheme == "https" {
		if u.Host == "" || u.Hostname() == "" {
			return bad("it has no host")
		}
		if p := u.Port(); p != "" && !validPort(p) {
			return bad("its port is not valid")
		}
	} else if u.Opaque == "" && u.Path == "" && u.Host == "" {
		return bad("it has nothing after the scheme")
	}
	return nil
}

func validPort(p string) bool {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return false
		}
	}
	return n > 0
}

// AllowsRedirect reports whether uri is one of the application's redirect
// URIs, compared exactly. For a public client an http loopback address
// (127.0.0.1, ::1) matches whatever its port, as RFC 8252 section 7.3 asks:
// native applications listen on a port chosen when they run.
func (a *Application) AllowsRedirect(uri string) bool {
	for _, r := range a.RedirectURIs {
		if r == uri {
			return true
		}
	}
	if a.ConfidentialClient {
		return false
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return false
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return false
	}
	u.Host = u.Hostname()
	if strings.Contains(u.Host, ":") { // IPv6 literal
		u.Host = "[" + u.Host + "]"
	}
	bare := u.String()
	for _, r := range a.RedirectURIs {
		if r == bare {
			return true
		}
	}
	return false
}
