package e2e

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// commitFiles writes files to the default branch of owner/repo in one commit.
func commitFiles(t *testing.T, s *Server, tok, full, op string, files map[string]string) {
	t.Helper()
	var ops []map[string]any
	for path, content := range files {
		o := map[string]any{"operation": op, "path": path, "content": base64.StdEncoding.EncodeToString([]byte(content))}
		if op == "update" {
			var cur struct {
				SHA string `json:"sha"`
			}
			s.Do("GET", "api/v1/repos/"+full+"/contents/"+path, Token(tok)).Decode(t, &cur)
			o["sha"] = cur.SHA
		}
		ops = append(ops, o)
	}
	mustStatus(t, s.Do("POST", "api/v1/repos/"+full+"/contents", Token(tok), JSON(map[string]any{"files": ops, "message": "templates"})),
		http.StatusCreated, "commit files")
}

// TestIssueTemplates: the templates and issue configuration of the default
// branch, valid ones listed, broken ones left out, config problems reported
// by the validation route.
func TestIssueTemplates(t *testing.T) {
	s := StartServer(t)
	alice := s.CreateUser("alice")
	bob := s.CreateUser("bob")
	createRepo(t, s, alice, "proj", false)
	commitFiles(t, s, alice.Token, "alice/proj", "create", map[string]string{
		".gitea/ISSUE_TEMPLATE/bug.md": "---\nname: Bug\nabout: Report a bug\ntitle: \"[bug] \"\nlabels: bug, triage\nref: main\n---\nSteps:\n",
		".gitea/ISSUE_TEMPLATE/feature.yaml": "name: Feature\ndescription: Ask for a feature\nbody:\n" +
			"  - type: markdown\n    attributes:\n      value: Thanks\n" +
			"  - type: textarea\n    id: what\n    attributes:\n      label: What\n    validations:\n      required: true\n",
		".gitea/ISSUE_TEMPLATE/broken.yaml": "name: Broken\nabout: no body\n",
		".gitea/ISSUE_TEMPLATE/config.yml":  "blank_issues_enabled: false\ncontact_links:\n  - name: Forum\n    url: https://forum.example.org\n    about: Ask here\n",
		".gitea/ISSUE_TEMPLATE/notes.txt":   "not a template",
		".github/ISSUE_TEMPLATE/other.md":   "---\nname: Other\nabout: Anything else\nref: refs/tags/v1\n---\n",
	})

	var list []struct {
		Name     string   `json:"name"`
		About    string   `json:"about"`
		Title    string   `json:"title"`
		Labels   []string `json:"labels"`
		Ref      string   `json:"ref"`
		Content  string   `json:"content"`
		FileName string   `json:"file_name"`
		Body     []struct {
			Type       string         `json:"type"`
			ID         string         `json:"id"`
			Attributes map[string]any `json:"attributes"`
			Visible    []string       `json:"visible"`
		} `json:"body"`
	}
	r := s.Do("GET", "api/v1/repos/alice/proj/issue_templates")
	mustStatus(t, r, http.StatusOK, "templates")
	r.Decode(t, &list)
	var names []string
	for _, it := range list {
		names = append(names, it.FileName)
	}
	if strings.Join(names, ",") != ".gitea/ISSUE_TEMPLATE/bug.md,.gitea/ISSUE_TEMPLATE/feature.yaml,.github/ISSUE_TEMPLATE/other.md" {
		t.Fatalf("templates = %v", names)
	}
	bug, feature, other := list[0], list[1], list[2]
	if bug.Name != "Bug" || bug.About != "Report a bug" || bug.Title != "[bug] " || strings.Join(bug.Labels, ",") != "bug,triage" ||
		bug.Ref != "refs/heads/main" || bug.Content != "Steps:\n" {
		t.Fatalf("bug template = %+v", bug)
	}
	if feature.About != "Ask for a feature" || feature.Ref != "refs/heads/" || len(feature.Body) != 2 || feature.Body[0].ID != "0" ||
		feature.Body[1].ID != "what" || feature.Body[1].Attributes["label"] != "What" || strings.Join(feature.Body[1].Visible, ",") != "form,content" {
		t.Fatalf("feature template = %+v", feature)
	}
	if other.Ref != "refs/tags/v1" {
		t.Fatalf("other template ref = %q", other.Ref)
	}

	var cfg struct {
		Blank bool `json:"blank_issues_enabled"`
		Links []struct {
			Name, URL, About string
		} `json:"contact_links"`
	}
	r = s.Do("GET", "api/v1/repos/alice/proj/issue_config", Token(bob.Token))
	mustStatus(t, r, http.StatusOK, "config")
	r.Decode(t, &cfg)
	if cfg.Blank || len(cfg.Links) != 1 || cfg.Links[0].URL != "https://forum.example.org" {
		t.Fatalf("config = %+v", cfg)
	}
	var v struct {
		Valid   bool   `json:"valid"`
		Message string `json:"message"`
	}
	s.Do("GET", "api/v1/repos/alice/proj/issue_config/validate").Decode(t, &v)
	if !v.Valid || v.Message != "" {
		t.Fatalf("validation = %+v", v)
	}
	// A broken configuration is reported, and the default applies.
	commitFiles(t, s, alice.Token, "alice/proj", "update", map[string]string{
		".gitea/ISSUE_TEMPLATE/config.yml": "contact_links:\n  - name: Forum\n    about: Ask here\n",
	})
	s.Do("GET", "api/v1/repos/alice/proj/issue_config/validate").Decode(t, &v)
	if v.Valid || !strings.Contains(v.Message, "missing url key") {
		t.Fatalf("validation of a broken config = %+v", v)
	}
	s.Do("GET", "api/v1/repos/alice/proj/issue_config").Decode(t, &cfg)
	if !cfg.Blank || len(cfg.Links) != 0 {
		t.Fatalf("config after breaking it = %+v", cfg)
	}

	// An empty repository has none of it; a private one stays hidden.
	mustStatus(t, s.Do("POST", "api/v1/user/repos", Token(alice.Token), JSON(map[string]any{"name": "empty"})), http.StatusCreated, "empty repo")
	r = s.Do("GET", "api/v1/repos/alice/empty/issue_templates")
	mustStatus(t, r, http.StatusOK, "empty templates")
	if strings.TrimSpace(string(r.Body)) != "[]" {
		t.Fatalf("templates of an empty repository = %s", r.Body)
	}
	s.Do("GET", "api/v1/repos/alice/empty/issue_config").Decode(t, &cfg)
	if !cfg.Blank || cfg.Links == nil || len(cfg.Links) != 0 {
		t.Fatalf("config of an empty repository = %+v", cfg)
	}
	createRepo(t, s, alice, "secret", true)
	mustStatus(t, s.Do("GET", "api/v1/repos/alice/secret/issue_templates", Token(bob.Token)), http.StatusNotFound, "private templates")
}
