package v1

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/go-chi/chi/v5"
)

// Route is one method and path the API serves, as the router knows it.
type Route struct {
	Method string
	Path   string // relative to /api/v1, with {param} placeholders
}

var paramPattern = regexp.MustCompile(`\{([^}:]+)(:[^}]*)?\}`)

// Routes lists every route of the router, sorted; the API document is built from it.
func (a *API) Routes() []Route {
	var out []Route
	_ = chi.Walk(a.router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !strings.HasPrefix(route, "/api/v1/") {
			return nil
		}
		p := strings.TrimPrefix(route, "/api/v1")
		p = strings.ReplaceAll(p, "/*", "")
		if len(p) > 1 {
			p = strings.TrimSuffix(p, "/")
		}
		p = paramPattern.ReplaceAllString(p, "{$1}")
		out = append(out, Route{Method: method, Path: p})
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// ServeSwagger serves GET /swagger.v1.json: a Swagger 2.0 document of the
// routes that really exist, derived from the router.
func (a *API) ServeSwagger(w http.ResponseWriter, r *http.Request) {
	paths := map[string]map[string]any{}
	for _, rt := range a.Routes() {
		ops := paths[rt.Path]
		if ops == nil {
			ops = map[string]any{}
			paths[rt.Path] = ops
		}
		var params []map[string]any
		for _, m := range paramPattern.FindAllStringSubmatch(rt.Path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "type": "string"})
		}
		op := map[string]any{
			"operationId": strings.ToLower(rt.Method) + strings.NewReplacer("/", "_", "{", "", "}", "").Replace(rt.Path),
			"responses":   map[string]any{"default": map[string]any{"description": "see Gitea 1.23's API"}},
		}
		if params != nil {
			op["parameters"] = params
		}
		ops[strings.ToLower(rt.Method)] = op
	}
	doc := map[string]any{
		"swagger":  "2.0",
		"info":     map[string]any{"title": "Cairn API", "version": VersionString(a.Version), "description": "Gitea-compatible API served by Cairn."},
		"basePath": "/api/v1",
		"consumes": []string{"application/json", "text/plain"},
		"produces": []string{"application/json", "text/html"},
		"schemes":  []string{"http", "https"},
		"securityDefinitions": map[string]any{
			"BasicAuth":                map[string]any{"type": "basic"},
			"AuthorizationHeaderToken": map[string]any{"type": "apiKey", "name": "Authorization", "in": "header"},
			"SudoHeader":               map[string]any{"type": "apiKey", "name": "Sudo", "in": "header"},
			"Token":                    map[string]any{"type": "apiKey", "name": "token", "in": "query"},
		},
		"paths": paths,
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(doc)
}
