package v1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issueform"
)

// issueForms is what the default branch holds for the issue tracker.
type issueForms struct {
	templates []*issueform.Template
	// invalid maps the path of each unreadable template to its problem.
	invalid map[string]error
	// config is the path and blob of the issue configuration, if any.
	configPath, configSHA string
}

// loadIssueForms reads the templates and finds the configuration file in the
// default branch: one ls-tree of the root, one per template directory that
// exists, one cat-file per template.
func (a *API) loadIssueForms(ctx context.Context, rc *repoContext) (*issueForms, error) {
	out := &issueForms{invalid: map[string]error{}}
	if rc.Repo.IsEmpty || rc.Repo.DefaultBranch == "" {
		return out, nil
	}
	gitDir := a.Repos.Path(rc.Repo)
	rev := "refs/heads/" + rc.Repo.DefaultBranch
	root, err := a.Repos.Git.ListTree(ctx, gitDir, rev, "", false)
	if errors.Is(err, git.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, e := range root {
		if e.Type == "tree" {
			dirs[e.Name] = true
		}
	}
	files := map[string]git.TreeEntry{}
	for _, dir := range issueform.TemplateDirs {
		top, _, _ := strings.Cut(dir, "/")
		if !dirs[top] {
			continue
		}
		entries, err := a.Repos.Git.ListTree(ctx, gitDir, rev, dir, false)
		if errors.Is(err, git.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type != "blob" {
				continue
			}
			files[e.Path] = e
			if !issueform.CouldBe(e.Name) || slices.Contains(issueform.ConfigFiles, e.Path) {
				continue
			}
			content, err := a.readSmallBlob(ctx, gitDir, e, issueform.MaxFileSize)
			if err != nil {
				out.invalid[e.Path] = err
				continue
			}
			t, err := issueform.Parse(e.Path, content)
			if err != nil {
				out.invalid[e.Path] = err
				continue
			}
			// A ref is taken for a branch unless it names a full ref, as Gitea does.
			if !strings.HasPrefix(t.Ref, "refs/") {
				t.Ref = "refs/heads/" + t.Ref
			}
			out.templates = append(out.templates, t)
		}
	}
	for _, p := range issueform.ConfigFiles {
		if e, ok := files[p]; ok {
			out.configPath, out.configSHA = p, e.SHA
			break
		}
	}
	return out, nil
}

// errBlobTooLarge refuses a file larger than a reader of small files takes.
var errBlobTooLarge = errors.New("file too large")

// readSmallBlob reads a small file of the repository (a template, a
// configuration, a license) whole, refusing one over max bytes.
func (a *API) readSmallBlob(ctx context.Context, gitDir string, e git.TreeEntry, max int64) ([]byte, error) {
	if e.Size > max {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", errBlobTooLarge, e.Size, max)
	}
	r, _, err := a.Repos.Git.ReadBlob(ctx, gitDir, e.SHA)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, max))
}

// issueConfig reads the issue configuration; without one it is the default.
func (a *API) issueConfig(ctx context.Context, rc *repoContext, forms *issueForms) (issueform.Config, error) {
	if forms.configSHA == "" {
		return issueform.DefaultConfig(), nil
	}
	content, err := a.readSmallBlob(ctx, a.Repos.Path(rc.Repo), git.TreeEntry{SHA: forms.configSHA}, issueform.MaxFileSize)
	if err != nil {
		return issueform.DefaultConfig(), err
	}
	c, err := issueform.ParseConfig(content)
	if err != nil {
		return c, fmt.Errorf("%s: %w", forms.configPath, err)
	}
	return c, nil
}

// listIssueTemplates serves GET /repos/{owner}/{repo}/issue_templates: the
// valid templates of the default branch (invalid ones are left out and logged).
func (a *API) listIssueTemplates(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	forms, err := a.loadIssueForms(r.Context(), rc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for p, problem := range forms.invalid {
		slog.Debug("issue template skipped", "repo", rc.Repo.OwnerName+"/"+rc.Repo.Name, "file", p, "problem", problem)
	}
	out := make([]*types.IssueTemplate, 0, len(forms.templates))
	for _, t := range forms.templates {
		it := &types.IssueTemplate{Name: t.Name, Title: t.Title, About: t.About, Labels: t.Labels, Assignees: t.Assignees,
			Ref: t.Ref, Content: t.Content, FileName: t.FileName}
		for _, f := range t.Fields {
			it.Fields = append(it.Fields, &types.IssueFormField{Type: f.Type, ID: f.ID, Attributes: f.Attributes,
				Validations: f.Validations, Visible: f.Visible})
		}
		out = append(out, it)
	}
	writeJSON(w, http.StatusOK, out)
}

// getIssueConfig serves GET /repos/{owner}/{repo}/issue_config: the issue
// configuration, or the default one when it is missing or invalid.
func (a *API) getIssueConfig(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	forms, err := a.loadIssueForms(r.Context(), rc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	c, _ := a.issueConfig(r.Context(), rc, forms)
	out := types.IssueConfig{BlankIssuesEnabled: c.BlankIssuesEnabled, ContactLinks: []*types.IssueConfigContactLink{}}
	for _, l := range c.ContactLinks {
		out.ContactLinks = append(out.ContactLinks, &types.IssueConfigContactLink{Name: l.Name, URL: l.URL, About: l.About})
	}
	writeJSON(w, http.StatusOK, out)
}

// validateIssueConfig serves GET /repos/{owner}/{repo}/issue_config/validate.
func (a *API) validateIssueConfig(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	forms, err := a.loadIssueForms(r.Context(), rc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := types.IssueConfigValidation{Valid: true}
	if _, err := a.issueConfig(r.Context(), rc, forms); err != nil {
		out = types.IssueConfigValidation{Valid: false, Message: err.Error()}
	}
	writeJSON(w, http.StatusOK, out)
}
