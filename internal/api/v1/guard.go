package v1

import (
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/errs"
)

// GuardPaths answers 404, in Gitea's error shape, to a request whose path
// holds a NUL character or bytes that are not UTF-8, before any route runs:
// such a path names nothing that can exist (PostgreSQL cannot even compare
// with it), on the API, git over HTTP, avatars and attachments alike.
func (a *API) GuardPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; strings.IndexByte(p, 0) >= 0 || !utf8.ValidString(p) {
			a.notFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkQuery refuses, with 422 naming the parameter, a query parameter whose
// name or value holds a NUL character or bytes that are not UTF-8.
func checkQuery(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := storableText(k, k); err != nil {
			return errs.Invalid("query parameter names must be UTF-8 text without NUL characters")
		}
		for _, v := range q[k] {
			if err := storableText(k, v); err != nil {
				return errs.InvalidField(k, "query parameter %q must be UTF-8 text without NUL characters", k)
			}
		}
	}
	return nil
}
