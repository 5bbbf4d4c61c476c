package v1

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// labelRoutes registers repository labels, issue labels and milestones under
// /repos/{owner}/{repo} (issue scope). As in Gitea, any reader of the
// repository may read labels and milestones; changing them needs write access
// to issues or pull requests.
func (a *API) labelRoutes(r chi.Router) {
	r.Get("/labels", a.listRepoLabels)
	r.With(a.reqIssuesWriter).Post("/labels", a.createRepoLabel)
	r.Get("/labels/{id}", a.getRepoLabel)
	r.With(a.reqIssuesWriter).Patch("/labels/{id}", a.editRepoLabel)
	r.With(a.reqIssuesWriter).Delete("/labels/{id}", a.deleteRepoLabel)

	r.Get("/issues/{index}/labels", a.listIssueLabels)
	r.With(a.signedIn).Post("/issues/{index}/labels", a.changeIssueLabels(false))
	r.With(a.signedIn).Put("/issues/{index}/labels", a.changeIssueLabels(true))
	r.With(a.signedIn).Delete("/issues/{index}/labels", a.clearIssueLabels)
	r.With(a.signedIn).Delete("/issues/{index}/labels/{id}", a.removeIssueLabel)

	a.milestoneRoutes(r)
}

// orgLabelRoutes registers /orgs/{org}/labels (organization scope). Anyone
// who may see the organization lists its labels; reading one label needs a
// caller (Gitea 1.23's reqToken); changing them needs an organization owner.
func (a *API) orgLabelRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.scope(auth.CatOrganization))
		r.Get("/orgs/{org}/labels", a.listOrgLabels)
		r.Group(func(r chi.Router) {
			r.Use(a.signedIn)
			r.Post("/orgs/{org}/labels", a.createOrgLabel)
			r.Get("/orgs/{org}/labels/{id}", a.getOrgLabel)
			r.Patch("/orgs/{org}/labels/{id}", a.editOrgLabel)
			r.Delete("/orgs/{org}/labels/{id}", a.deleteOrgLabel)
		})
	})
}

// reqIssuesWriter lets through callers who may write issues or pull
// requests of the current repository, and its administrators (Gitea's
// reqRepoWriter(issues, pulls)).
func (a *API) reqIssuesWriter(next http.Handler) http.Handler {
	return a.signedIn(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := currentRepo(r).Perm
		if !p.CanWrite(repo.UnitIssues) && !p.CanWrite(repo.UnitPulls) && !p.IsAdmin() {
			a.errorJSON(w, http.StatusForbidden, "user should have a permission to write to a repo")
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// repoLabelOwner is the current repository as a label owner.
func repoLabelOwner(rc *repoContext) issue.LabelOwner { return issue.LabelOwner{RepoID: rc.Repo.ID} }

// writeLabels writes labels as the repository (and its owner, for
// organization labels) shows them.
func (a *API) writeLabels(w http.ResponseWriter, status int, list []*issue.Label, rp *repo.Repository, ownerName string) {
	out := make([]*types.Label, 0, len(list))
	for _, l := range list {
		out = append(out, a.toLabel(l, rp, ownerName))
	}
	writeJSON(w, status, out)
}

// listRepoLabels serves GET /repos/{owner}/{repo}/labels.
func (a *API) listRepoLabels(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	pg := a.paging(r)
	list, total, err := a.Issues.ListOwnerLabels(r.Context(), repoLabelOwner(rc), r.URL.Query().Get("sort"), pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	a.writeLabels(w, http.StatusOK, list, rc.Repo, rc.Owner.Name)
}

// getRepoLabel serves GET /repos/{owner}/{repo}/labels/{id} ({id} may be a name).
func (a *API) getRepoLabel(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	l, err := a.Issues.LabelByIDOrName(r.Context(), repoLabelOwner(rc), chi.URLParam(r, "id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toLabel(l, rc.Repo, rc.Owner.Name))
}

// createLabelFrom decodes a CreateLabelOption and creates the label.
func (a *API) createLabelFrom(r *http.Request, owner issue.LabelOwner) (*issue.Label, error) {
	var o types.CreateLabelOption
	if err := decode(r, &o); err != nil {
		return nil, err
	}
	if err := firstErr(required("name", o.Name), required("color", o.Color)); err != nil {
		return nil, err
	}
	return a.Issues.CreateLabel(r.Context(), owner, issue.LabelOptions{Name: o.Name, Color: o.Color, Description: o.Description,
		Exclusive: o.Exclusive, Archived: o.IsArchived})
}

// editLabelFrom decodes an EditLabelOption and applies it to l.
func (a *API) editLabelFrom(r *http.Request, l *issue.Label) error {
	var o types.EditLabelOption
	if err := decode(r, &o); err != nil {
		return err
	}
	return a.Issues.EditLabel(r.Context(), l, issue.LabelChanges{Name: o.Name, Color: o.Color, Description: o.Description,
		Exclusive: o.Exclusive, Archived: o.IsArchived})
}

// createRepoLabel serves POST /repos/{owner}/{repo}/labels.
func (a *API) createRepoLabel(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	l, err := a.createLabelFrom(r, repoLabelOwner(rc))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, a.toLabel(l, rc.Repo, rc.Owner.Name))
}

// editRepoLabel serves PATCH /repos/{owner}/{repo}/labels/{id}.
func (a *API) editRepoLabel(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	l, err := a.Issues.LabelByIDOrName(r.Context(), repoLabelOwner(rc), chi.URLParam(r, "id"))
	if err == nil {
		err = a.editLabelFrom(r, l)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toLabel(l, rc.Repo, rc.Owner.Name))
}

// deleteRepoLabel serves DELETE /repos/{owner}/{repo}/labels/{id}.
func (a *API) deleteRepoLabel(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	l, err := a.Issues.LabelByIDOrName(r.Context(), repoLabelOwner(rc), chi.URLParam(r, "id"))
	if err == nil {
		err = a.Issues.DeleteLabel(r.Context(), l)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// listIssueLabels serves GET /repos/{owner}/{repo}/issues/{index}/labels.
func (a *API) listIssueLabels(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	a.writeIssueLabels(w, r, rc, is)
}

func (a *API) writeIssueLabels(w http.ResponseWriter, r *http.Request, rc *repoContext, is *issue.Issue) {
	list, err := a.Issues.IssueLabels(r.Context(), is.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeLabels(w, http.StatusOK, list, rc.Repo, rc.Owner.Name)
}

// loadIssueForLabels loads the issue and checks the caller may change its labels.
func (a *API) loadIssueForLabels(w http.ResponseWriter, r *http.Request) (*repoContext, *issue.Issue, bool) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return nil, nil, false
	}
	if !canWriteIssue(rc, is) {
		a.errorJSON(w, http.StatusForbidden, "write permission is required")
		return nil, nil, false
	}
	return rc, is, true
}

// issueLabelsFrom decodes an IssueLabelsOption: label ids (numbers) or label
// names (strings), not both, as Gitea takes them.
func issueLabelsFrom(r *http.Request) (ids []int64, names []string, err error) {
	var o types.IssueLabelsOption
	if err := decode(r, &o); err != nil {
		return nil, nil, err
	}
	for _, raw := range o.Labels {
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '"' {
			var name string
			if err := json.Unmarshal(raw, &name); err != nil {
				return nil, nil, errs.InvalidField("labels", "invalid label name %s", raw)
			}
			names = append(names, name)
			continue
		}
		id, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, nil, errs.BadRequest("a label must be an integer or a string")
		}
		ids = append(ids, id)
	}
	if len(ids) > 0 && len(names) > 0 {
		return nil, nil, errs.BadRequest("labels should be an array of strings or integers")
	}
	return ids, names, nil
}

// changeIssueLabels serves POST (add) and PUT (replace)
// /repos/{owner}/{repo}/issues/{index}/labels; both answer 200 with the
// issue's labels.
func (a *API) changeIssueLabels(replace bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rc, is, ok := a.loadIssueForLabels(w, r)
		if !ok {
			return
		}
		ids, names, err := issueLabelsFrom(r)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		ctx := r.Context()
		labels, err := a.Issues.ResolveLabels(ctx, rc.Repo.ID, orgIDOf(rc), ids, names)
		if err == nil {
			if replace {
				err = a.Issues.ReplaceLabels(ctx, doer(r), rc.Repo, is, labels)
			} else {
				err = a.Issues.AddLabels(ctx, doer(r), rc.Repo, is, labels)
			}
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		a.writeIssueLabels(w, r, rc, is)
	}
}

// clearIssueLabels serves DELETE /repos/{owner}/{repo}/issues/{index}/labels.
func (a *API) clearIssueLabels(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssueForLabels(w, r)
	if !ok {
		return
	}
	if err := a.Issues.ClearLabels(r.Context(), doer(r), rc.Repo, is); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// removeIssueLabel serves DELETE /repos/{owner}/{repo}/issues/{index}/labels/{id}.
// A label that does not exist or cannot be used in the repository is a 422
// (as Gitea answers for unknown labels); one the issue does not carry
// changes nothing.
func (a *API) removeIssueLabel(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssueForLabels(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		a.fail(w, r, errs.InvalidField("id", "label does not exist [label_id: %s]", chi.URLParam(r, "id")))
		return
	}
	labels, err := a.Issues.CheckLabels(ctx, rc.Repo.ID, orgIDOf(rc), []int64{id})
	if err == nil && len(labels) != 1 {
		err = errs.InvalidField("id", "label does not exist [label_id: %d]", id)
	}
	if err == nil {
		err = a.Issues.RemoveLabel(ctx, doer(r), rc.Repo, is, labels[0])
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// loadOrgForLabels loads {org} for a label route: 404 when the caller may not
// see it, 403 unless the caller owns it when write is set.
func (a *API) loadOrgForLabels(w http.ResponseWriter, r *http.Request, write bool) (*user.User, bool) {
	o, ok := a.loadOrg(w, r)
	if !ok {
		return nil, false
	}
	if write && !a.requireOrgOwner(w, r, o) {
		return nil, false
	}
	return o, true
}

func orgLabelOwner(o *user.User) issue.LabelOwner { return issue.LabelOwner{OrgID: o.ID} }

// listOrgLabels serves GET /orgs/{org}/labels.
func (a *API) listOrgLabels(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrgForLabels(w, r, false)
	if !ok {
		return
	}
	pg := a.paging(r)
	list, total, err := a.Issues.ListOwnerLabels(r.Context(), orgLabelOwner(o), r.URL.Query().Get("sort"), pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	a.writeLabels(w, http.StatusOK, list, nil, o.Name)
}

// getOrgLabel serves GET /orgs/{org}/labels/{id} ({id} may be a name).
func (a *API) getOrgLabel(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrgForLabels(w, r, false)
	if !ok {
		return
	}
	l, err := a.Issues.LabelByIDOrName(r.Context(), orgLabelOwner(o), chi.URLParam(r, "id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toLabel(l, nil, o.Name))
}

// createOrgLabel serves POST /orgs/{org}/labels.
func (a *API) createOrgLabel(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrgForLabels(w, r, true)
	if !ok {
		return
	}
	l, err := a.createLabelFrom(r, orgLabelOwner(o))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, a.toLabel(l, nil, o.Name))
}

// editOrgLabel serves PATCH /orgs/{org}/labels/{id}.
func (a *API) editOrgLabel(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrgForLabels(w, r, true)
	if !ok {
		return
	}
	l, err := a.Issues.LabelByIDOrName(r.Context(), orgLabelOwner(o), chi.URLParam(r, "id"))
	if err == nil {
		err = a.editLabelFrom(r, l)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toLabel(l, nil, o.Name))
}

// deleteOrgLabel serves DELETE /orgs/{org}/labels/{id}.
func (a *API) deleteOrgLabel(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrgForLabels(w, r, true)
	if !ok {
		return
	}
	l, err := a.Issues.LabelByIDOrName(r.Context(), orgLabelOwner(o), chi.URLParam(r, "id"))
	if err == nil {
		err = a.Issues.DeleteLabel(r.Context(), l)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}
