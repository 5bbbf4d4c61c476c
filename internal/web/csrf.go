package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// The CSRF token of a form is an HMAC of what binds the visitor: the session
// key once signed in, else a random cookie set on the first page. A POST must
// carry the token of the same binding, in the form field _csrf or the header
// X-Csrf-Token, so a page on another site cannot forge one; browsers that
// send Sec-Fetch-Site are also refused a cross-site POST outright.
const (
	csrfField  = "_csrf"
	csrfHeader = "X-Csrf-Token"
	csrfCookie = "_csrf"
)

type csrfKeys struct {
	csrf  []byte
	flash []byte
}

func deriveKeys(secret []byte) csrfKeys {
	mac := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	return csrfKeys{csrf: mac("cairn web csrf"), flash: mac("cairn web flash")}
}

// token is the CSRF token for binding.
func (k csrfKeys) token(binding string) string {
	m := hmac.New(sha256.New, k.csrf)
	m.Write([]byte(binding))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// valid reports whether the request carries the token of binding.
func (k csrfKeys) valid(r *http.Request, binding string) bool {
	if binding == "" {
		return false
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" {
		return false
	}
	got := r.Header.Get(csrfHeader)
	if got == "" {
		got = r.PostFormValue(csrfField)
	}
	return got != "" && hmac.Equal([]byte(got), []byte(k.token(binding)))
}

// sign and open protect small cookie values (flash messages) from forgery.
func (k csrfKeys) sign(v string) string {
	m := hmac.New(sha256.New, k.flash)
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString([]byte(v)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (k csrfKeys) open(s string) (string, bool) {
	body, sig, ok := strings.Cut(s, ".")
	if !ok {
		return "", false
	}
	v, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", false
	}
	m := hmac.New(sha256.New, k.flash)
	m.Write(v)
	want := base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return "", false
	}
	return string(v), true
}
