// Package avatar draws the default avatar of a user or organization: an SVG
// square in a colour derived from the name, with the name's first letter.
package avatar

import (
	"crypto/sha256"
	"fmt"
	"html"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SVG returns the default avatar of name.
func SVG(name string) []byte {
	sum := sha256.Sum256([]byte(strings.ToLower(name)))
	hue := (int(sum[0])<<8 | int(sum[1])) % 360
	r, _ := utf8.DecodeRuneInString(name)
	if r == utf8.RuneError {
		r = '?'
	}
	letter := html.EscapeString(string(unicode.ToUpper(r)))
	return []byte(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">`+
		`<rect width="256" height="256" fill="hsl(%d,55%%,45%%)"/>`+
		`<text x="128" y="128" dy=".35em" text-anchor="middle" font-family="sans-serif" font-size="140" fill="#fff">%s</text></svg>`, hue, letter))
}

// Handler serves GET /avatars/{name}. Avatars are public, like Gitea's.
func Handler(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if name == "" || len(name) > 255 {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write(SVG(name))
}
