package v1

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// pathID reads a numeric path parameter; ok is false (and 404 written) when it is not a number.
func (a *API) pathID(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	if err != nil {
		a.notFound(w, r)
		return 0, false
	}
	return id, true
}

// queryBool reads a boolean query parameter.
func queryBool(r *http.Request, name string) bool {
	b, _ := strconv.ParseBool(r.URL.Query().Get(name))
	return b
}

// likeEscape is the clause that goes after "LIKE ?" for patterns made by likePattern.
const likeEscape = " ESCAPE '!'"

// likePattern escapes a search keyword for LIKE (with likeEscape) and wraps it
// in wildcards, lower-cased.
func likePattern(q string) string {
	q = strings.ToLower(q)
	q = strings.NewReplacer(`!`, `!!`, `%`, `!%`, `_`, `!_`).Replace(q)
	return "%" + q + "%"
}
