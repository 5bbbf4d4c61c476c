package web

import (
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
)

// milestonesPerPage is the length of a page of the milestone list.
const milestonesPerPage = 20

// milestoneView is a milestone as the list shows it.
type milestoneView struct {
	*issue.Milestone
	Description template.HTML
	// Percent is the share of its issues that are closed.
	Percent int
	Overdue bool
}

// OpenIssues is the number of its open issues.
func (m *milestoneView) OpenIssues() int { return m.NumIssues - m.NumClosedIssues }

// milestonesPage is the data of the milestone list and of its forms.
type milestonesPage struct {
	Milestones []*milestoneView
	State      string
	Open       int
	Closed     int
	CanWrite   bool
	CanIssues  bool
	Prev, Next string
	// Form is set on the new and edit forms.
	Form *milestoneForm
}

// milestoneForm is a milestone as entered in its form.
type milestoneForm struct {
	// ID is the milestone being edited (0: a new one).
	ID          int64
	Title       string
	Description string
	// Deadline is the due date as YYYY-MM-DD ("" for none).
	Deadline string
	Error    string
}

// milestones lists a repository's open or closed milestones with their
// progress and due dates (readers of its issues or pull requests).
func (h *Handler) milestones(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadLabelsRepo(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	state := q.Get("state")
	if state != "closed" {
		state = "open"
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	ctx := r.Context()
	list, total, err := h.Issues.ListRepoMilestones(ctx, rc.Repo.ID, issue.MilestoneFilter{State: state},
		milestonesPerPage, (page-1)*milestonesPerPage)
	if err != nil {
		return err
	}
	now := h.Now()
	views := make([]*milestoneView, 0, len(list))
	for _, m := range list {
		v := &milestoneView{Milestone: m, Description: h.noteHTML(ctx, rc, m.Content)}
		if m.NumIssues > 0 {
			v.Percent = m.NumClosedIssues * 100 / m.NumIssues
		}
		v.Overdue = !m.IsClosed && !m.Deadline.IsZero() && m.Deadline.Before(now)
		views = append(views, v)
	}
	data := milestonesPage{Milestones: views, State: state, Closed: rc.Repo.NumClosedMilestones,
		Open: rc.Repo.NumMilestones - rc.Repo.NumClosedMilestones, CanWrite: canWriteLabels(rc),
		CanIssues: rc.Perm.CanRead(repo.UnitIssues)}
	link := rc.Link + "/milestones?state=" + state + "&page="
	if page > 1 {
		data.Prev = link + strconv.Itoa(page-1)
	}
	if int64(page*milestonesPerPage) < total {
		data.Next = link + strconv.Itoa(page+1)
	}
	return h.renderRepo(w, r, http.StatusOK, "milestones", "Milestones", rc, data)
}

// milestoneOf loads milestone {id} of the repository.
func (h *Handler) milestoneOf(r *http.Request, rc *repoCtx) (*issue.Milestone, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, errs.NotFound("no such milestone")
	}
	return h.Issues.GetMilestone(r.Context(), rc.Repo.ID, id)
}

// writableMilestone loads milestone {id} for a change by someone who may
// write the repository's issues.
func (h *Handler) writableMilestone(r *http.Request) (*repoCtx, *issue.Milestone, error) {
	rc, err := h.labelsWriter(r)
	if err != nil {
		return nil, nil, err
	}
	m, err := h.milestoneOf(r, rc)
	return rc, m, err
}

// renderMilestoneForm shows the new or edit form.
func (h *Handler) renderMilestoneForm(w http.ResponseWriter, r *http.Request, rc *repoCtx, status int, f *milestoneForm) error {
	title := "New milestone"
	if f.ID > 0 {
		title = "Edit milestone"
	}
	return h.renderRepo(w, r, status, "milestones", title, rc, milestonesPage{Form: f, CanWrite: true})
}

// newMilestoneForm shows the form of a new milestone.
func (h *Handler) newMilestoneForm(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.labelsWriter(r)
	if err != nil {
		return err
	}
	return h.renderMilestoneForm(w, r, rc, http.StatusOK, &milestoneForm{})
}

// editMilestoneForm shows the edit form of milestone {id}.
func (h *Handler) editMilestoneForm(w http.ResponseWriter, r *http.Request) error {
	rc, m, err := h.writableMilestone(r)
	if err != nil {
		return err
	}
	f := &milestoneForm{ID: m.ID, Title: m.Name, Description: m.Content}
	if !m.Deadline.IsZero() {
		f.Deadline = m.Deadline.UTC().Format(time.DateOnly)
	}
	return h.renderMilestoneForm(w, r, rc, http.StatusOK, f)
}

// milestoneFormValues reads a posted milestone form; the due date is the
// end of the chosen day (UTC).
func milestoneFormValues(r *http.Request) (*milestoneForm, time.Time, error) {
	f := &milestoneForm{Title: r.PostFormValue("title"), Description: r.PostFormValue("content"),
		Deadline: strings.TrimSpace(r.PostFormValue("deadline"))}
	if f.Deadline == "" {
		return f, time.Time{}, nil
	}
	d, err := time.Parse(time.DateOnly, f.Deadline)
	if err != nil {
		return f, time.Time{}, errs.InvalidField("deadline", "The due date %q is not a date (YYYY-MM-DD).", f.Deadline)
	}
	return f, d.Add(24*time.Hour - time.Second), nil
}

// milestoneRefusal shows a refused change on the form; other errors are
// the error page's.
func (h *Handler) milestoneRefusal(w http.ResponseWriter, r *http.Request, rc *repoCtx, f *milestoneForm, err error) error {
	var e *errs.Error
	if !errors.As(err, &e) || (e.Kind != errs.KindInvalid && e.Kind != errs.KindConflict) {
		return err
	}
	f.Error = e.Message
	return h.renderMilestoneForm(w, r, rc, http.StatusUnprocessableEntity, f)
}

// createMilestone adds a milestone from the form.
func (h *Handler) createMilestone(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.labelsWriter(r)
	if err != nil {
		return err
	}
	f, deadline, err := milestoneFormValues(r)
	if err != nil {
		return h.milestoneRefusal(w, r, rc, f, err)
	}
	m, err := h.Issues.CreateMilestone(r.Context(), rc.Repo, issue.MilestoneOptions{Title: f.Title, Description: f.Description, Deadline: deadline})
	if err != nil {
		return h.milestoneRefusal(w, r, rc, f, err)
	}
	h.flash(w, "success", "Milestone "+m.Name+" created.")
	http.Redirect(w, r, rc.Link+"/milestones", http.StatusSeeOther)
	return nil
}

// editMilestone saves the edit form of milestone {id}; an empty due date
// removes it.
func (h *Handler) editMilestone(w http.ResponseWriter, r *http.Request) error {
	rc, m, err := h.writableMilestone(r)
	if err != nil {
		return err
	}
	f, deadline, err := milestoneFormValues(r)
	f.ID = m.ID
	if err != nil {
		return h.milestoneRefusal(w, r, rc, f, err)
	}
	err = h.Issues.EditMilestone(r.Context(), rc.Repo, m, issue.MilestoneChanges{Title: &f.Title, Description: &f.Description, Deadline: &deadline})
	if err != nil {
		return h.milestoneRefusal(w, r, rc, f, err)
	}
	h.flash(w, "success", "Milestone "+m.Name+" saved.")
	http.Redirect(w, r, rc.Link+"/milestones?state="+m.State(), http.StatusSeeOther)
	return nil
}

// setMilestoneState closes (close) or reopens milestone {id}.
func (h *Handler) setMilestoneState(closed bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc, m, err := h.writableMilestone(r)
		if err != nil {
			return err
		}
		if err := h.Issues.EditMilestone(r.Context(), rc.Repo, m, issue.MilestoneChanges{Closed: &closed}); err != nil {
			return err
		}
		verb := "reopened"
		if closed {
			verb = "closed"
		}
		h.flash(w, "success", "Milestone "+m.Name+" "+verb+".")
		http.Redirect(w, r, rc.Link+"/milestones?state="+m.State(), http.StatusSeeOther)
		return nil
	}
}

// deleteMilestone deletes milestone {id}; its issues keep going without one.
func (h *Handler) deleteMilestone(w http.ResponseWriter, r *http.Request) error {
	rc, m, err := h.writableMilestone(r)
	if err != nil {
		return err
	}
	if err := h.Issues.DeleteMilestone(r.Context(), rc.Repo, m); err != nil {
		return err
	}
	h.flash(w, "success", "Milestone "+m.Name+" deleted.")
	http.Redirect(w, r, rc.Link+"/milestones?state="+m.State(), http.StatusSeeOther)
	return nil
}
