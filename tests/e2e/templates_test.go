package e2e

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTemplates lists and fetches every gitignore template, license and label
// template over raw HTTP, signed out, and checks 404 for unknown names.
func TestTemplates(t *testing.T) {
	s := StartServer(t)

	t.Run("gitignore", func(t *testing.T) {
		resp := s.Do("GET", "api/v1/gitignore/templates")
		if resp.Status != 200 {
			t.Fatalf("list: %d %s", resp.Status, resp.Body)
		}
		var names []string
		resp.Decode(t, &names)
		for _, want := range []string{"Go", "Python", "Node", "C++", "VisualStudioCode", "macOS"} {
			if !slices.Contains(names, want) {
				t.Errorf("list lacks %q: %v", want, names)
			}
		}
		for _, n := range names {
			r := s.Do("GET", "api/v1/gitignore/templates/"+url.PathEscape(n))
			var info struct {
				Name   string `json:"name"`
				Source string `json:"source"`
			}
			if r.Status != 200 {
				t.Fatalf("get %s: %d %s", n, r.Status, r.Body)
			}
			r.Decode(t, &info)
			if info.Name != n || strings.TrimSpace(info.Source) == "" {
				t.Errorf("get %s = %+v", n, info)
			}
		}
		// '+' escaped by the client.
		if r := s.Do("GET", "api/v1/gitignore/templates/C%2B%2B"); r.Status != 200 || !strings.Contains(string(r.Body), `"name":"C++"`) {
			t.Errorf("get C%%2B%%2B: %d %s", r.Status, r.Body)
		}
		for _, n := range []string{"Nope", "go"} {
			if r := s.Do("GET", "api/v1/gitignore/templates/"+n); r.Status != 404 {
				t.Errorf("get %s: %d, want 404", n, r.Status)
			}
		}
	})

	t.Run("licenses", func(t *testing.T) {
		resp := s.Do("GET", "api/v1/licenses")
		if resp.Status != 200 {
			t.Fatalf("list: %d %s", resp.Status, resp.Body)
		}
		var list []struct {
			Key  string `json:"key"`
			Name string `json:"name"`
			URL  string `json:"url"`
		}
		resp.Decode(t, &list)
		keys := map[string]bool{}
		for _, l := range list {
			keys[l.Key] = true
			if l.Name != l.Key || l.URL != s.URL+"api/v1/licenses/"+l.Key {
				t.Errorf("entry %+v", l)
			}
		}
		for _, want := range []string{"MIT", "Apache-2.0", "GPL-3.0", "BSD-3-Clause", "MPL-2.0", "Unlicense"} {
			if !keys[want] {
				t.Errorf("list lacks %s", want)
			}
		}
		for _, l := range list {
			r := s.Do("GET", "api/v1/licenses/"+url.PathEscape(l.Key))
			if r.Status != 200 {
				t.Fatalf("get %s: %d %s", l.Key, r.Status, r.Body)
			}
			var info struct {
				Key            string `json:"key"`
				Name           string `json:"name"`
				URL            string `json:"url"`
				Implementation string `json:"implementation"`
				Body           string `json:"body"`
			}
			r.Decode(t, &info)
			if info.Key != l.Key || info.Name != l.Key || info.URL != l.URL || info.Implementation == "" || len(info.Body) < 100 {
				t.Errorf("get %s: key=%q name=%q url=%q implementation=%q body %d bytes", l.Key, info.Key, info.Name, info.URL, info.Implementation, len(info.Body))
			}
		}
		r := s.Do("GET", "api/v1/licenses/MIT")
		if !strings.Contains(string(r.Body), "Permission is hereby granted") {
			t.Errorf("MIT body: %s", r.Body)
		}
		for _, n := range []string{"Nope", "mit"} {
			if r := s.Do("GET", "api/v1/licenses/"+n); r.Status != 404 {
				t.Errorf("get %s: %d, want 404", n, r.Status)
			}
		}
	})

	t.Run("labels", func(t *testing.T) {
		resp := s.Do("GET", "api/v1/label/templates")
		if resp.Status != 200 {
			t.Fatalf("list: %d %s", resp.Status, resp.Body)
		}
		var names []string
		resp.Decode(t, &names)
		if !slices.Contains(names, "Default") || !slices.Contains(names, "Advanced") {
			t.Fatalf("list = %v", names)
		}
		color := regexp.MustCompile(`^[0-9a-f]{6}$`)
		for _, n := range names {
			r := s.Do("GET", "api/v1/label/templates/"+url.PathEscape(n))
			if r.Status != 200 {
				t.Fatalf("get %s: %d %s", n, r.Status, r.Body)
			}
			var labels []struct {
				Name        string `json:"name"`
				Color       string `json:"color"`
				Description string `json:"description"`
				Exclusive   bool   `json:"exclusive"`
			}
			r.Decode(t, &labels)
			if len(labels) == 0 {
				t.Errorf("%s: no labels", n)
			}
			for _, l := range labels {
				// Gitea sends the color without '#'.
				if l.Name == "" || !color.MatchString(l.Color) {
					t.Errorf("%s: label %+v", n, l)
				}
				if l.Exclusive && !strings.Contains(l.Name, "/") {
					t.Errorf("%s: unscoped exclusive label %+v", n, l)
				}
			}
			if n == "Default" && labels[0].Name != "bug" {
				t.Errorf("Default starts with %+v", labels[0])
			}
		}
		if r := s.Do("GET", "api/v1/label/templates/Nope"); r.Status != 404 {
			t.Errorf("get Nope: %d, want 404", r.Status)
		}
	})
}
