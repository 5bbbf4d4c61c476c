package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// fndGiteaOperations reads testdata/gitea/gitea-1.23-operations.tsv: the set of "METHOD path".
func fndGiteaOperations(t testing.TB) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(), "testdata", "gitea", "gitea-1.23-operations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	ops := map[string]bool{}
	header := true
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if header {
			header = false
			if len(cols) < 4 || cols[2] != "method" || cols[3] != "path" {
				t.Fatalf("unexpected TSV header %q", sc.Text())
			}
			continue
		}
		if len(cols) < 4 {
			continue
		}
		ops[strings.ToUpper(cols[2])+" "+cols[3]] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ops) < 300 {
		t.Fatalf("only %d operations read from the TSV", len(ops))
	}
	return ops
}

// fndSwaggerOps fetches /swagger.v1.json and returns its operations as "METHOD path".
func fndSwaggerOps(t testing.TB, s *Server) []string {
	t.Helper()
	r := s.Do("GET", "swagger.v1.json")
	fndStatus(t, r, 200, "GET /swagger.v1.json")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("swagger Content-Type %q", r.Header.Get("Content-Type"))
	}
	var doc struct {
		Swagger  string                               `json:"swagger"`
		BasePath string                               `json:"basePath"`
		Info     struct{ Version string }             `json:"info"`
		Paths    map[string]map[string]map[string]any `json:"paths"`
	}
	r.Decode(t, &doc)
	if doc.Swagger != "2.0" || doc.BasePath != "/api/v1" || doc.Info.Version != "1.23.0+cairn.0.1.0" {
		t.Fatalf("swagger header: %q %q %q", doc.Swagger, doc.BasePath, doc.Info.Version)
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var ops []string
	for path, methods := range doc.Paths {
		for m, op := range methods {
			ops = append(ops, strings.ToUpper(m)+" "+path)
			// Every path parameter is declared.
			declared := map[string]bool{}
			if ps, ok := op["parameters"].([]any); ok {
				for _, p := range ps {
					if pm, ok := p.(map[string]any); ok && pm["in"] == "path" {
						declared[pm["name"].(string)] = true
					}
				}
			}
			for _, pm := range param.FindAllStringSubmatch(path, -1) {
				if !declared[pm[1]] {
					t.Errorf("%s %s: path parameter %q not declared", m, path, pm[1])
				}
			}
			if _, ok := op["operationId"].(string); !ok {
				t.Errorf("%s %s: no operationId", m, path)
			}
		}
	}
	sort.Strings(ops)
	return ops
}

func TestSwaggerListsOnlyGiteaRoutes(t *testing.T) {
	s := StartServer(t)
	gitea := fndGiteaOperations(t)
	ops := fndSwaggerOps(t, s)
	have := map[string]bool{}
	// Routes Cairn serves beyond Gitea 1.23, each documented in docs/design-notes.md.
	extensions := map[string]bool{
		"PUT /repos/{owner}/{repo}/issues/{index}/lock":    true,
		"DELETE /repos/{owner}/{repo}/issues/{index}/lock": true,
		// Recent deliveries of webhooks (docs/webhooks.md).
		"GET /repos/{owner}/{repo}/hooks/{id}/deliveries":                       true,
		"GET /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}":            true,
		"POST /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}/redeliver": true,
		"GET /orgs/{org}/hooks/{id}/deliveries":                                 true,
		"GET /orgs/{org}/hooks/{id}/deliveries/{delivery}":                      true,
		"POST /orgs/{org}/hooks/{id}/deliveries/{delivery}/redeliver":           true,
		"GET /user/hooks/{id}/deliveries":                                       true,
		"GET /user/hooks/{id}/deliveries/{delivery}":                            true,
		"POST /user/hooks/{id}/deliveries/{delivery}/redeliver":                 true,
		"GET /admin/hooks/{id}/deliveries":                                      true,
		"GET /admin/hooks/{id}/deliveries/{delivery}":                           true,
		"POST /admin/hooks/{id}/deliveries/{delivery}/redeliver":                true,
	}
	for _, op := range ops {
		have[op] = true
		if !gitea[op] && !extensions[op] {
			t.Errorf("swagger lists %s, which Gitea 1.23 does not have", op)
		}
	}
	// The document lists the foundation's routes.
	for _, op := range []string{
		"GET /version", "GET /settings/api", "GET /settings/ui", "GET /settings/repository", "GET /settings/attachment",
		"GET /user", "GET /user/settings", "PATCH /user/settings", "GET /user/emails", "POST /user/emails", "DELETE /user/emails",
		"GET /user/keys", "POST /user/keys", "GET /user/keys/{id}", "DELETE /user/keys/{id}",
		"GET /user/followers", "GET /user/following", "GET /user/following/{username}", "PUT /user/following/{username}", "DELETE /user/following/{username}",
		"GET /users/search", "GET /users/{username}", "GET /users/{username}/keys", "GET /users/{username}/followers",
		"GET /users/{username}/following", "GET /users/{username}/following/{target}",
		"GET /users/{username}/tokens", "POST /users/{username}/tokens", "DELETE /users/{username}/tokens/{token}",
		"GET /admin/users", "POST /admin/users", "PATCH /admin/users/{username}", "DELETE /admin/users/{username}",
		"POST /admin/users/{username}/rename", "POST /admin/users/{username}/keys", "DELETE /admin/users/{username}/keys/{id}",
		"GET /admin/emails", "GET /admin/emails/search",
	} {
		if !have[op] {
			t.Errorf("swagger does not list %s", op)
		}
	}
	// Every documented operation is really routed: the method is known for the path (no 405),
	// and a path without parameters is not a "no such route" 404.
	param := regexp.MustCompile(`\{[^}]+\}`)
	for _, op := range ops {
		method, path, _ := strings.Cut(op, " ")
		concrete := param.ReplaceAllString(path, "zz-placeholder-9")
		r := s.Do(method, "api/v1"+concrete, Token(s.AdminTok), RawBody(`{}`))
		if r.Status == 405 {
			t.Errorf("%s is documented but answers 405", op)
		}
		if !param.MatchString(path) && r.Status == 404 && strings.Contains(string(r.Body), "The target couldn't be found.") {
			t.Errorf("%s is documented but not routed: %s", op, r.Body)
		}
	}
}
