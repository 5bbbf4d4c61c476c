package web

import (
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/issueform"
	"github.com/cairn-forge/cairn/internal/repo"
)

// issueTemplates are the issue templates and configuration of a
// repository's default branch.
type issueTemplates struct {
	list   []*issueform.Template
	config issueform.Config
}

// loadIssueTemplates reads the templates and the configuration of the
// default branch; invalid templates are left out (and logged), an invalid
// configuration is the default one.
func (h *Handler) loadIssueTemplates(ctx context.Context, rp *repo.Repository) (*issueTemplates, error) {
	out := &issueTemplates{config: issueform.DefaultConfig()}
	if rp.IsEmpty {
		return out, nil
	}
	gitDir := h.Repos.Path(rp)
	forms, err := issueform.Load(ctx, h.Git, gitDir, rp.DefaultBranch)
	if err != nil {
		return nil, err
	}
	for p, problem := range forms.Invalid {
		slog.Debug("issue template skipped", "repo", rp.ID, "file", p, "problem", problem)
	}
	out.list = forms.Templates
	if c, err := forms.Config(ctx, h.Git, gitDir); err == nil {
		out.config = c
	}
	return out, nil
}

// issueTemplateChoice is a template offered on the new issue page.
type issueTemplateChoice struct {
	Name, About, Link string
	Selected          bool
}

// issueFormOption is one choice of a dropdown or checkbox field.
type issueFormOption struct {
	Label    string
	Required bool
	Checked  bool
}

// issueFormField is one field of an issue form, ready for the page.
type issueFormField struct {
	Type        string
	Name        string // the input's name
	Label       string
	Description string
	Placeholder string
	Value       string
	Required    bool
	Multiple    bool
	Options     []issueFormOption
	// Markdown is the rendered text of a markdown element.
	Markdown template.HTML
}

// newIssueView is the data of /{owner}/{repo}/issues/new.
type newIssueView struct {
	Action    string
	Templates []issueTemplateChoice
	Contact   []issueform.ContactLink
	// Blank reports whether a blank issue may be opened.
	Blank    bool
	Template string // the chosen template's path
	About    string
	Fields   []issueFormField
	Title    string
	Content  string
	Error    string
	Writer   bool
	Labels   []issueLabelView
	Miles    []*issue.Milestone
	Mile     int64
	Assign   string
	Attach   bool
	MaxFiles int
}

// newIssueForm serves GET /{owner}/{repo}/issues/new (and /new/choose): the
// repository's templates and the form, filled from ?template=.
func (h *Handler) newIssueForm(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.newIssueRepo(r)
	if err != nil {
		return err
	}
	v, tpls, err := h.newIssueData(r, rc)
	if err != nil {
		return err
	}
	if t := findIssueTemplate(tpls, r.URL.Query().Get("template")); t != nil {
		h.applyIssueTemplate(r.Context(), rc, v, t, nil)
	} else if !v.Blank && len(v.Templates) > 0 {
		v.Template = "" // choose a template first
	}
	return h.renderRepo(w, r, http.StatusOK, "issue_new", "New issue", rc, v)
}

// newIssueRepo loads the repository of the new issue pages: signed in, the
// issues unit readable, not archived.
func (h *Handler) newIssueRepo(r *http.Request) (*repoCtx, error) {
	rc, err := h.loadRepoUnit(r, repo.UnitIssues, "issues")
	if err != nil {
		return nil, err
	}
	if !rc.Repo.HasUnit(repo.UnitIssues) {
		return nil, errs.NotFound("no such page")
	}
	if err := signedIn(r); err != nil {
		return nil, err
	}
	if rc.Repo.IsArchived {
		return nil, errs.Forbidden("This repository is archived: no issues can be opened.")
	}
	return rc, nil
}

// newIssueData loads the choices of the new issue page.
func (h *Handler) newIssueData(r *http.Request, rc *repoCtx) (*newIssueView, *issueTemplates, error) {
	ctx := r.Context()
	tpls, err := h.loadIssueTemplates(ctx, rc.Repo)
	if err != nil {
		return nil, nil, err
	}
	v := &newIssueView{Action: rc.Link + "/issues/new", Blank: tpls.config.BlankIssuesEnabled || len(tpls.list) == 0,
		Contact: tpls.config.ContactLinks, Writer: rc.Perm.CanWrite(repo.UnitIssues),
		Attach: h.Config.Attachment.Enabled, MaxFiles: h.Config.Attachment.MaxFiles}
	for _, t := range tpls.list {
		v.Templates = append(v.Templates, issueTemplateChoice{Name: t.Name, About: t.About,
			Link: rc.Link + "/issues/new?template=" + url.QueryEscape(t.FileName)})
	}
	if v.Writer {
		all, err := h.Issues.ListLabels(ctx, "WHERE l.repo_id = ? OR (l.org_id = ? AND l.org_id <> 0) ORDER BY l.name, l.id", rc.Repo.ID, issueOrgID(rc))
		if err != nil {
			return nil, nil, err
		}
		for _, l := range all {
			if !l.IsArchived() {
				v.Labels = append(v.Labels, toIssueLabel(l))
			}
		}
		if v.Miles, err = h.Issues.ListMilestones(ctx, "WHERE m.repo_id = ? AND m.is_closed = ? ORDER BY m.name, m.id", rc.Repo.ID, false); err != nil {
			return nil, nil, err
		}
	}
	return v, tpls, nil
}

// findIssueTemplate is the template stored at path, or nil.
func findIssueTemplate(tpls *issueTemplates, path string) *issueform.Template {
	if path == "" {
		return nil
	}
	for _, t := range tpls.list {
		if t.FileName == path {
			return t
		}
	}
	return nil
}

// applyIssueTemplate fills the form from template t (with the posted values of
// form fields when the form is shown again).
func (h *Handler) applyIssueTemplate(ctx context.Context, rc *repoCtx, v *newIssueView, t *issueform.Template, posted map[string][]string) {
	v.Template, v.About = t.FileName, t.About
	if v.Title == "" {
		v.Title = t.Title
	}
	if v.Content == "" {
		v.Content = t.Content
	}
	for i := range v.Templates {
		v.Templates[i].Selected = strings.HasSuffix(v.Templates[i].Link, "="+url.QueryEscape(t.FileName))
	}
	if v.Writer && posted == nil {
		want := map[string]bool{}
		for _, n := range t.Labels {
			want[strings.ToLower(n)] = true
		}
		for i := range v.Labels {
			v.Labels[i].Checked = want[strings.ToLower(v.Labels[i].Name)]
		}
		v.Assign = strings.Join(t.Assignees, ", ")
	}
	for _, f := range t.Fields {
		ff := issueFormField{Type: f.Type, Name: "form-field-" + f.ID, Label: issueAttrString(f.Attributes, "label"),
			Description: issueAttrString(f.Attributes, "description"), Placeholder: issueAttrString(f.Attributes, "placeholder"),
			Value: issueAttrString(f.Attributes, "value"), Required: issueAttrBool(f.Validations, "required"), Multiple: issueAttrBool(f.Attributes, "multiple")}
		if f.Type == "markdown" {
			ff.Markdown = h.renderIssueMarkdown(ctx, rc, issueAttrString(f.Attributes, "value"))
		}
		if vals, ok := posted[ff.Name]; ok && len(vals) > 0 {
			ff.Value = vals[0]
		}
		opts, _ := f.Attributes["options"].([]any)
		for j, o := range opts {
			var fo issueFormOption
			switch x := o.(type) {
			case string:
				fo.Label = x
				fo.Checked = slices.Contains(posted[ff.Name], x)
			case map[string]any:
				fo.Label, _ = x["label"].(string)
				fo.Required, _ = x["required"].(bool)
				fo.Checked = len(posted[ff.Name+"-"+strconv.Itoa(j)]) > 0
			}
			ff.Options = append(ff.Options, fo)
		}
		v.Fields = append(v.Fields, ff)
	}
}

func issueAttrString(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func issueAttrBool(m map[string]any, k string) bool {
	b, _ := m[k].(bool)
	return b
}

// issueFormBody composes the issue body of a filled issue form: each answered
// field under its label as a heading, checkboxes as a task list.
func issueFormBody(t *issueform.Template, form map[string][]string) (string, error) {
	var b strings.Builder
	for _, f := range t.Fields {
		if f.Type == "markdown" || !slices.Contains(f.Visible, "content") {
			continue
		}
		name := "form-field-" + f.ID
		label := issueAttrString(f.Attributes, "label")
		var answer string
		switch f.Type {
		case "checkboxes":
			opts, _ := f.Attributes["options"].([]any)
			var lines []string
			for j, o := range opts {
				m, _ := o.(map[string]any)
				optLabel, _ := m["label"].(string)
				checked := len(form[name+"-"+strconv.Itoa(j)]) > 0
				if req, _ := m["required"].(bool); req && !checked {
					return "", errs.InvalidField(name, "%q must be checked", optLabel)
				}
				mark := " "
				if checked {
					mark = "x"
				}
				lines = append(lines, "- ["+mark+"] "+optLabel)
			}
			answer = strings.Join(lines, "\n")
		case "dropdown":
			opts, _ := f.Attributes["options"].([]any)
			var picked []string
			for _, v := range form[name] {
				for _, o := range opts {
					if s, _ := o.(string); s == v && !slices.Contains(picked, v) {
						picked = append(picked, v)
					}
				}
			}
			if len(picked) > 1 && !issueAttrBool(f.Attributes, "multiple") {
				picked = picked[:1]
			}
			answer = strings.Join(picked, ", ")
		default:
			if vals := form[name]; len(vals) > 0 {
				answer = strings.TrimSpace(vals[0])
			}
			if answer != "" && f.Type == "textarea" {
				if lang := issueAttrString(f.Attributes, "render"); lang != "" {
					answer = "```" + lang + "\n" + answer + "\n```"
				}
			}
		}
		if answer == "" && issueAttrBool(f.Validations, "required") {
			return "", errs.InvalidField(name, "%q is required", label)
		}
		if answer == "" {
			answer = "_No response_"
		}
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", label, answer)
	}
	return strings.TrimSpace(b.String()), nil
}

// createIssue serves POST /{owner}/{repo}/issues/new: the issue (writers
// also set labels, milestone and assignees, as the API allows), its
// attachments, then its page.
func (h *Handler) createIssue(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.newIssueRepo(r)
	if err != nil {
		return err
	}
	if err := parseIssueForm(r); err != nil {
		return err
	}
	ctx := r.Context()
	v, tpls, err := h.newIssueData(r, rc)
	if err != nil {
		return err
	}
	v.Title, v.Content = strings.TrimSpace(r.PostFormValue("title")), r.PostFormValue("content")
	v.Assign = r.PostFormValue("assignees")
	v.Mile, _ = strconv.ParseInt(r.PostFormValue("milestone_id"), 10, 64)
	labelIDs, _ := issueFormIDs(r, "label_ids")
	for i := range v.Labels {
		v.Labels[i].Checked = slices.Contains(labelIDs, v.Labels[i].ID)
	}
	t := findIssueTemplate(tpls, r.PostFormValue("template"))
	if t != nil {
		h.applyIssueTemplate(ctx, rc, v, t, r.PostForm)
	}
	again := func(err error) error {
		if !userError(err) {
			return err
		}
		v.Error = errMessage(err, "The issue could not be created.")
		return h.renderRepo(w, r, http.StatusUnprocessableEntity, "issue_new", "New issue", rc, v)
	}
	if t == nil && !v.Blank {
		return again(errs.Invalid("Choose one of the templates: blank issues are not enabled here."))
	}
	body := v.Content
	if t != nil && len(t.Fields) > 0 {
		if body, err = issueFormBody(t, r.PostForm); err != nil {
			return again(err)
		}
	}
	if v.Title == "" {
		return again(errs.InvalidField("title", "The title cannot be empty."))
	}
	opts := issue.CreateOptions{Title: v.Title, Body: body}
	if t != nil && strings.TrimSpace(t.Ref) != "" {
		opts.Ref = t.Ref
		if !strings.HasPrefix(opts.Ref, "refs/") {
			opts.Ref = git.BranchPrefix + opts.Ref
		}
	}
	if v.Writer {
		labels, err := h.Issues.CheckLabels(ctx, rc.Repo.ID, issueOrgID(rc), labelIDs)
		if err != nil {
			return again(err)
		}
		for _, l := range labels {
			opts.LabelIDs = append(opts.LabelIDs, l.ID)
		}
		if err := h.Issues.CheckMilestone(ctx, rc.Repo.ID, v.Mile); err != nil {
			return again(err)
		}
		opts.MilestoneID = v.Mile
		probe := &issueCtx{rc: rc, issue: &issue.Issue{RepoID: rc.Repo.ID}, unit: repo.UnitIssues, doer: doer(r)}
		if opts.AssigneeIDs, err = h.assigneeIDsByName(r, probe, v.Assign); err != nil {
			return again(err)
		}
	}
	files := issueFormFiles(r)
	if len(files) > 0 {
		if err := h.checkIssueUploads(files); err != nil {
			return again(err)
		}
	}
	is, err := h.Issues.Create(ctx, doer(r), rc.Repo, opts)
	if err != nil {
		return again(err)
	}
	c := &issueCtx{rc: rc, issue: is, unit: repo.UnitIssues, doer: doer(r)}
	if err := h.storeIssueUploads(r, c, nil, files); err != nil {
		return h.issueBack(w, r, c.link(), err)
	}
	http.Redirect(w, r, c.link(), http.StatusSeeOther)
	return nil
}
