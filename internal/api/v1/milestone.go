package v1

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
)

// milestoneRoutes registers /repos/{owner}/{repo}/milestones (called from
// labelRoutes). Readers of the repository read; writers of issues or pull
// requests change.
func (a *API) milestoneRoutes(r chi.Router) {
	r.Get("/milestones", a.listMilestones)
	r.With(a.reqIssuesWriter).Post("/milestones", a.createMilestone)
	r.Get("/milestones/{id}", a.getMilestone)
	r.With(a.reqIssuesWriter).Patch("/milestones/{id}", a.editMilestone)
	r.With(a.reqIssuesWriter).Delete("/milestones/{id}", a.deleteMilestone)
}

// milestoneState reads a milestone state: "" (none given), "open" or "closed".
func milestoneState(s string) (closed bool, err error) {
	switch s {
	case "", "open":
		return false, nil
	case "closed":
		return true, nil
	}
	return false, errs.InvalidField("state", "invalid state %q: open or closed", s)
}

// listMilestones serves GET /repos/{owner}/{repo}/milestones (state: open,
// closed or all, open by default; name: part of the title).
func (a *API) listMilestones(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	q := r.URL.Query()
	pg := a.paging(r)
	list, total, err := a.Issues.ListRepoMilestones(r.Context(), rc.Repo.ID, issue.MilestoneFilter{State: q.Get("state"), Name: q.Get("name")},
		pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]*types.Milestone, 0, len(list))
	for _, m := range list {
		out = append(out, toMilestone(m))
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// loadMilestone loads {id}: a milestone id or, failing that, a title.
func (a *API) loadMilestone(w http.ResponseWriter, r *http.Request) (*repoContext, *issue.Milestone, bool) {
	rc := currentRepo(r)
	m, err := a.Issues.MilestoneByIDOrName(r.Context(), rc.Repo.ID, chi.URLParam(r, "id"))
	if err != nil {
		a.fail(w, r, err)
		return nil, nil, false
	}
	return rc, m, true
}

// getMilestone serves GET /repos/{owner}/{repo}/milestones/{id}.
func (a *API) getMilestone(w http.ResponseWriter, r *http.Request) {
	if _, m, ok := a.loadMilestone(w, r); ok {
		writeJSON(w, http.StatusOK, toMilestone(m))
	}
}

// createMilestone serves POST /repos/{owner}/{repo}/milestones.
func (a *API) createMilestone(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var o types.CreateMilestoneOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	closed, err := milestoneState(o.State)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	opts := issue.MilestoneOptions{Title: o.Title, Description: o.Description, Closed: closed}
	if o.Deadline != nil {
		opts.Deadline = *o.Deadline
	}
	m, err := a.Issues.CreateMilestone(r.Context(), rc.Repo, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, toMilestone(m))
}

// editMilestone serves PATCH /repos/{owner}/{repo}/milestones/{id}. As in
// Gitea, an empty title and a zero due date leave those fields alone.
func (a *API) editMilestone(w http.ResponseWriter, r *http.Request) {
	rc, m, ok := a.loadMilestone(w, r)
	if !ok {
		return
	}
	var o types.EditMilestoneOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	var c issue.MilestoneChanges
	if o.Title != nil && *o.Title != "" {
		c.Title = o.Title
	}
	c.Description = o.Description
	if o.Deadline != nil && !o.Deadline.IsZero() {
		c.Deadline = o.Deadline
	}
	if o.State != nil {
		if *o.State == "" {
			a.fail(w, r, errs.InvalidField("state", "invalid state \"\": open or closed"))
			return
		}
		closed, err := milestoneState(*o.State)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		c.Closed = &closed
	}
	if err := a.Issues.EditMilestone(r.Context(), rc.Repo, m, c); err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toMilestone(m))
}

// deleteMilestone serves DELETE /repos/{owner}/{repo}/milestones/{id}; its
// issues lose their milestone.
func (a *API) deleteMilestone(w http.ResponseWriter, r *http.Request) {
	rc, m, ok := a.loadMilestone(w, r)
	if !ok {
		return
	}
	if err := a.Issues.DeleteMilestone(r.Context(), rc.Repo, m); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}
