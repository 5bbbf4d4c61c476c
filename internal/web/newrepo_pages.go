package web

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/templates"
	"github.com/cairn-forge/cairn/internal/user"
)

// repoFormValues are the fields of the new-repository form.
type repoFormValues struct {
	OwnerID                         int64
	Name, Description               string
	Private, AutoInit, Template     bool
	Readme, License, IssueLabels    string
	Gitignores                      []string
	DefaultBranch, ObjectFormatName string
}

// HasGitignore reports whether the form selected the .gitignore template name.
func (v repoFormValues) HasGitignore(name string) bool {
	for _, g := range v.Gitignores {
		if g == name {
			return true
		}
	}
	return false
}

// newRepoPage is the data of the new-repository form.
type newRepoPage struct {
	// Owners are the doer and the organizations they may create in.
	Owners []*user.User
	Form   repoFormValues
	Error  string
	// ForcePrivate: [repository] FORCE_PRIVATE makes every new repository private.
	ForcePrivate  bool
	DefaultBranch string
	Readmes       []string
	Gitignores    []string
	Licenses      []templates.LicenseInfo
	LabelSets     []string
}

// creatableOwners returns u and the organizations u may create
// repositories in (a team with can_create_org_repo, the Owners team, or any
// organization u belongs to for a site administrator): three queries.
func (h *Handler) creatableOwners(ctx context.Context, u *user.User) ([]*user.User, error) {
	orgs, _, err := h.Orgs.ListUserOrgs(ctx, u.ID, true, "", nil, 0, 0)
	if err != nil {
		return nil, err
	}
	out := []*user.User{u}
	if len(orgs) == 0 {
		return out, nil
	}
	allowed := map[int64]bool{}
	if !u.IsAdmin {
		rows, err := h.DB.Query(ctx, `SELECT DISTINCT t.org_id FROM team t JOIN team_user tu ON tu.team_id = t.id
			WHERE tu.uid = ? AND (t.can_create_org_repo = ? OR t.authorize = ?)`, u.ID, true, int(access.ModeOwner))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			allowed[id] = true
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for _, o := range orgs {
		if u.IsAdmin || allowed[o.ID] {
			out = append(out, o)
		}
	}
	return out, nil
}

// lastRepoPrivate reports whether u's most recently created repository is
// private ([repository] DEFAULT_PRIVATE = last).
func (h *Handler) lastRepoPrivate(ctx context.Context, u *user.User) (bool, error) {
	var private bool
	err := h.DB.QueryRow(ctx, "SELECT is_private FROM repository WHERE owner_id = ? ORDER BY created_unix DESC, id DESC LIMIT 1", u.ID).Scan(&private)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return private, err
}

// renderNewRepo shows the new-repository form with values and an error.
func (h *Handler) renderNewRepo(w http.ResponseWriter, r *http.Request, status int, form repoFormValues, msg string) error {
	owners, err := h.creatableOwners(r.Context(), doer(r))
	if err != nil {
		return err
	}
	set := h.Templates
	data := newRepoPage{Owners: owners, Form: form, Error: msg, ForcePrivate: h.Config.Repository.ForcePrivate,
		DefaultBranch: h.Config.Repository.DefaultBranch, Readmes: set.Readmes(), Gitignores: set.Gitignores(),
		Licenses: set.Licenses(), LabelSets: set.LabelTemplates()}
	return h.render(w, r, status, "repo_create", "New repository", data)
}

// newRepoForm serves GET /repo/create (?org= preselects an organization).
func (h *Handler) newRepoForm(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	u := doer(r)
	form := repoFormValues{OwnerID: u.ID, Readme: templates.DefaultReadmeName}
	if id, err := strconv.ParseInt(r.URL.Query().Get("org"), 10, 64); err == nil && id > 0 {
		form.OwnerID = id
	}
	switch h.Config.Repository.DefaultPrivate {
	case "private":
		form.Private = true
	case "last":
		var err error
		if form.Private, err = h.lastRepoPrivate(r.Context(), u); err != nil {
			return err
		}
	}
	return h.renderNewRepo(w, r, http.StatusOK, form, "")
}

// createRepo serves POST /repo/create: the repository is created for the
// doer or an organization they may create in, by the same service call as
// the API's POST /user/repos and /orgs/{org}/repos.
func (h *Handler) createRepo(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	ctx := r.Context()
	u := doer(r)
	if err := r.ParseForm(); err != nil {
		return errs.BadRequest("the form could not be read")
	}
	f := r.PostForm
	form := repoFormValues{Name: strings.TrimSpace(f.Get("repo_name")), Description: strings.TrimSpace(f.Get("description")),
		Private: f.Get("private") != "", AutoInit: f.Get("auto_init") != "", Template: f.Get("template") != "",
		Readme: f.Get("readme"), License: f.Get("license"), IssueLabels: f.Get("issue_labels"),
		DefaultBranch: strings.TrimSpace(f.Get("default_branch")), ObjectFormatName: f.Get("object_format_name")}
	for _, g := range f["gitignores"] {
		if g = strings.TrimSpace(g); g != "" {
			form.Gitignores = append(form.Gitignores, g)
		}
	}
	form.OwnerID, _ = strconv.ParseInt(f.Get("uid"), 10, 64)
	if form.OwnerID == 0 {
		form.OwnerID = u.ID
	}
	owner := u
	if form.OwnerID != u.ID {
		o, err := h.Orgs.GetByID(ctx, form.OwnerID)
		if err != nil {
			return err
		}
		if ok, err := h.Access.CanSeeOrg(ctx, u, o); err != nil || !ok {
			if err == nil {
				err = org.ErrNameNotExist(o.Name)
			}
			return err
		}
		role, err := h.Access.RoleInOrg(ctx, u, o)
		if err != nil {
			return err
		}
		if !role.CanCreateRepo {
			return h.renderNewRepo(w, r, http.StatusForbidden, form, "You may not create repositories in "+o.Name+".")
		}
		owner = o
	}
	if form.Name == "" {
		return h.renderNewRepo(w, r, http.StatusUnprocessableEntity, form, "The repository needs a name.")
	}
	rp, err := h.Repos.Create(ctx, u, owner, repo.CreateOptions{
		Name: form.Name, Description: form.Description, DefaultBranch: form.DefaultBranch, ObjectFormat: form.ObjectFormatName,
		Private: form.Private, AutoInit: form.AutoInit, IsTemplate: form.Template, Readme: form.Readme,
		Gitignores: strings.Join(form.Gitignores, ","), License: form.License, IssueLabels: form.IssueLabels,
	})
	if err != nil {
		if !userError(err) {
			return err
		}
		status := http.StatusUnprocessableEntity
		if errs.Is(err, errs.KindForbidden) {
			status = http.StatusForbidden
		}
		return h.renderNewRepo(w, r, status, form, errMessage(err, "The repository could not be created."))
	}
	http.Redirect(w, r, "/"+url.PathEscape(owner.Name)+"/"+url.PathEscape(rp.Name), http.StatusSeeOther)
	return nil
}

// orgFormValues are the fields of the new-organization form.
type orgFormValues struct {
	Name, Visibility          string
	RepoAdminChangeTeamAccess bool
}

// newOrgPage is the data of the new-organization form.
type newOrgPage struct {
	Form  orgFormValues
	Error string
}

// mayCreateOrg refuses a user who may not create organizations (the API's
// rule for POST /orgs).
func mayCreateOrg(r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	if !canCreateOrg(doer(r)) {
		return errs.Forbidden("You may not create organizations.")
	}
	return nil
}

// newOrgForm serves GET /org/create.
func (h *Handler) newOrgForm(w http.ResponseWriter, r *http.Request) error {
	if err := mayCreateOrg(r); err != nil {
		return err
	}
	form := orgFormValues{Visibility: h.Config.Service.DefaultOrgVisibility, RepoAdminChangeTeamAccess: true}
	return h.render(w, r, http.StatusOK, "org_create", "New organization", newOrgPage{Form: form})
}

// createOrg serves POST /org/create through the organization service, as
// the API's POST /orgs does.
func (h *Handler) createOrg(w http.ResponseWriter, r *http.Request) error {
	if err := mayCreateOrg(r); err != nil {
		return err
	}
	form := orgFormValues{Name: strings.TrimSpace(r.PostFormValue("org_name")), Visibility: r.PostFormValue("visibility"),
		RepoAdminChangeTeamAccess: r.PostFormValue("repo_admin_change_team_access") != ""}
	fail := func(msg string) error {
		return h.render(w, r, http.StatusUnprocessableEntity, "org_create", "New organization", newOrgPage{Form: form, Error: msg})
	}
	vis, ok := user.ParseVisibility(form.Visibility)
	if !ok {
		return fail("Choose public, limited or private.")
	}
	if form.Name == "" {
		return fail("The organization needs a name.")
	}
	o, err := h.Orgs.Create(r.Context(), doer(r), org.CreateOptions{Name: form.Name, Visibility: vis,
		RepoAdminChangeTeamAccess: form.RepoAdminChangeTeamAccess})
	if err != nil {
		if !userError(err) {
			return err
		}
		return fail(errMessage(err, "The organization could not be created."))
	}
	http.Redirect(w, r, "/"+url.PathEscape(o.Name), http.StatusSeeOther)
	return nil
}
