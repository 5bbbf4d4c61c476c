package v1

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/issueform"
)

// loadIssueForms reads the issue templates and finds the configuration file
// of the default branch.
func (a *API) loadIssueForms(ctx context.Context, rc *repoContext) (*issueform.Forms, error) {
	if rc.Repo.IsEmpty {
		return &issueform.Forms{}, nil
	}
	return issueform.Load(ctx, a.Repos.Git, a.Repos.Path(rc.Repo), rc.Repo.DefaultBranch)
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
	for p, problem := range forms.Invalid {
		slog.Debug("issue template skipped", "repo", rc.Repo.OwnerName+"/"+rc.Repo.Name, "file", p, "problem", problem)
	}
	out := make([]*types.IssueTemplate, 0, len(forms.Templates))
	for _, t := range forms.Templates {
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
	c, _ := forms.Config(r.Context(), a.Repos.Git, a.Repos.Path(rc.Repo))
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
	if _, err := forms.Config(r.Context(), a.Repos.Git, a.Repos.Path(rc.Repo)); err != nil {
		out = types.IssueConfigValidation{Valid: false, Message: err.Error()}
	}
	writeJSON(w, http.StatusOK, out)
}
