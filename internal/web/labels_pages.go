package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
)

// labelsPerPage is the length of a page of the label list.
const labelsPerPage = 100

// labelsPage is the data of a repository's label list.
type labelsPage struct {
	Labels []*issue.Label
	// OrgLabels are the owning organization's labels, usable here too.
	OrgLabels []*issue.Label
	Total     int64
	CanWrite  bool
	// CanIssues links the counts to the issue list.
	CanIssues  bool
	Sort       string
	Prev, Next string
	// Error is the refusal of the last change; Form what it held.
	Error string
	Form  labelForm
}

// labelForm is a label as entered in a form.
type labelForm struct {
	ID          int64
	Name        string
	Color       string
	Description string
	Exclusive   bool
	Archived    bool
}

// labelSorts are the orders the list offers (the issue service's names).
var labelSorts = map[string]bool{"": true, "alphabetically": true, "reversealphabetically": true, "leastissues": true, "mostissues": true}

// canWriteLabels: writers of issues or pull requests and administrators,
// as the API's reqIssuesWriter.
func canWriteLabels(rc *repoCtx) bool {
	return rc.Perm.CanWrite(repo.UnitIssues) || rc.Perm.CanWrite(repo.UnitPulls) || rc.Perm.IsAdmin()
}

// loadLabelsRepo loads the repository of a label or milestone page: the
// visitor must read its issues or its pull requests (with both units off,
// or unreadable, the pages are not found), as Gitea's
// reqRepoIssuesOrPullsReader.
func (h *Handler) loadLabelsRepo(r *http.Request) (*repoCtx, error) {
	rc, err := h.loadRepo(r)
	if err != nil {
		return nil, err
	}
	if !rc.Perm.CanRead(repo.UnitIssues) && !rc.Perm.CanRead(repo.UnitPulls) {
		return nil, errs.NotFound("no such page")
	}
	rc.Tab = "issues"
	return rc, nil
}

// labelsWriter loads the repository of a label or milestone change: the
// visitor must be signed in and write issues or pull requests.
func (h *Handler) labelsWriter(r *http.Request) (*repoCtx, error) {
	rc, err := h.loadLabelsRepo(r)
	if err != nil {
		return nil, err
	}
	if err := signedIn(r); err != nil {
		return nil, err
	}
	if !canWriteLabels(rc) {
		return nil, errs.Forbidden("You need write access to the issues or pull requests of this repository.")
	}
	return rc, nil
}

// labels lists a repository's labels with their issue counts (readers of
// its issues or pull requests).
func (h *Handler) labels(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadLabelsRepo(r)
	if err != nil {
		return err
	}
	return h.renderLabels(w, r, rc, http.StatusOK, labelsPage{})
}

// renderLabels renders the label list with data's error and form.
func (h *Handler) renderLabels(w http.ResponseWriter, r *http.Request, rc *repoCtx, status int, data labelsPage) error {
	q := r.URL.Query()
	sortBy := q.Get("sort")
	if !labelSorts[sortBy] {
		sortBy = ""
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	ctx := r.Context()
	list, total, err := h.Issues.ListOwnerLabels(ctx, issue.LabelOwner{RepoID: rc.Repo.ID}, sortBy, labelsPerPage, (page-1)*labelsPerPage)
	if err != nil {
		return err
	}
	if rc.Owner.IsOrganization() && page == 1 {
		if data.OrgLabels, _, err = h.Issues.ListOwnerLabels(ctx, issue.LabelOwner{OrgID: rc.Owner.ID}, sortBy, labelsPerPage, 0); err != nil {
			return err
		}
	}
	data.Labels, data.Total, data.Sort = list, total, sortBy
	data.CanWrite = canWriteLabels(rc)
	data.CanIssues = rc.Perm.CanRead(repo.UnitIssues)
	link := rc.Link + "/labels?sort=" + sortBy + "&page="
	if page > 1 {
		data.Prev = link + strconv.Itoa(page-1)
	}
	if int64(page*labelsPerPage) < total {
		data.Next = link + strconv.Itoa(page+1)
	}
	if data.Form.Color == "" {
		data.Form.Color = "#0969da"
	}
	return h.renderRepo(w, r, status, "labels", "Labels", rc, data)
}

// labelFormValues reads a posted label form.
func labelFormValues(r *http.Request) labelForm {
	f := labelForm{Name: r.PostFormValue("name"), Color: strings.TrimSpace(r.PostFormValue("color")),
		Description: r.PostFormValue("description"), Exclusive: r.PostFormValue("exclusive") != "",
		Archived: r.PostFormValue("archived") != ""}
	f.ID, _ = strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	return f
}

// labelRefusal shows a refused label change on the list; other errors are
// the error page's.
func (h *Handler) labelRefusal(w http.ResponseWriter, r *http.Request, rc *repoCtx, f labelForm, err error) error {
	var e *errs.Error
	if !errors.As(err, &e) || (e.Kind != errs.KindInvalid && e.Kind != errs.KindConflict && e.Kind != errs.KindAlreadyExists) {
		return err
	}
	return h.renderLabels(w, r, rc, http.StatusUnprocessableEntity, labelsPage{Error: e.Message, Form: f})
}

// createLabel adds a label from the form.
func (h *Handler) createLabel(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.labelsWriter(r)
	if err != nil {
		return err
	}
	f := labelFormValues(r)
	l, err := h.Issues.CreateLabel(r.Context(), issue.LabelOwner{RepoID: rc.Repo.ID}, issue.LabelOptions{Name: f.Name,
		Color: f.Color, Description: f.Description, Exclusive: f.Exclusive, Archived: f.Archived})
	if err != nil {
		return h.labelRefusal(w, r, rc, f, err)
	}
	h.flash(w, "success", "Label "+l.Name+" created.")
	http.Redirect(w, r, rc.Link+"/labels", http.StatusSeeOther)
	return nil
}

// editLabel saves the edit form of label id.
func (h *Handler) editLabel(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.labelsWriter(r)
	if err != nil {
		return err
	}
	f := labelFormValues(r)
	l, err := h.Issues.GetLabel(r.Context(), issue.LabelOwner{RepoID: rc.Repo.ID}, f.ID)
	if err != nil {
		return err
	}
	err = h.Issues.EditLabel(r.Context(), l, issue.LabelChanges{Name: &f.Name, Color: &f.Color, Description: &f.Description,
		Exclusive: &f.Exclusive, Archived: &f.Archived})
	if err != nil {
		return h.labelRefusal(w, r, rc, f, err)
	}
	h.flash(w, "success", "Label "+l.Name+" saved.")
	http.Redirect(w, r, rc.Link+"/labels", http.StatusSeeOther)
	return nil
}

// deleteLabel deletes label id; issues lose it.
func (h *Handler) deleteLabel(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.labelsWriter(r)
	if err != nil {
		return err
	}
	id, _ := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	l, err := h.Issues.GetLabel(r.Context(), issue.LabelOwner{RepoID: rc.Repo.ID}, id)
	if err != nil {
		return err
	}
	if err := h.Issues.DeleteLabel(r.Context(), l); err != nil {
		return err
	}
	h.flash(w, "success", "Label "+l.Name+" deleted.")
	http.Redirect(w, r, rc.Link+"/labels", http.StatusSeeOther)
	return nil
}
