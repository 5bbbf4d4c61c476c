package v1

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
)

// issueUnit is the unit an issue belongs to: pull requests live in the pulls unit.
func issueUnit(is *issue.Issue) string {
	if is.IsPull {
		return repo.UnitPulls
	}
	return repo.UnitIssues
}

// canReadIssues reports whether the caller can read issues or pull requests of the repository.
func canReadIssues(rc *repoContext) bool {
	return (rc.Repo.HasUnit(repo.UnitIssues) && rc.Perm.CanRead(repo.UnitIssues)) ||
		(rc.Repo.HasUnit(repo.UnitPulls) && rc.Perm.CanRead(repo.UnitPulls))
}

// loadIssue loads issue {index} of the current repository; an issue whose
// unit the caller cannot read answers exactly like one that does not exist.
func (a *API) loadIssue(w http.ResponseWriter, r *http.Request) (*repoContext, *issue.Issue, bool) {
	rc := currentRepo(r)
	idx, err := strconv.ParseInt(chi.URLParam(r, "index"), 10, 64)
	if err != nil {
		a.fail(w, r, errs.NotFound("issue does not exist [index: %s]", chi.URLParam(r, "index")))
		return nil, nil, false
	}
	is, err := a.Issues.GetByIndex(r.Context(), rc.Repo.ID, idx)
	if err == nil {
		unit := issueUnit(is)
		if !rc.Repo.HasUnit(unit) || !rc.Perm.CanRead(unit) {
			err = issue.ErrIndexNotExist(rc.Repo.ID, idx)
		}
	}
	if err != nil {
		a.fail(w, r, err)
		return nil, nil, false
	}
	return rc, is, true
}

// loadWritableIssue is loadIssue for routes that change issue metadata: it
// also answers 403 to callers who cannot write to the issue's unit.
func (a *API) loadWritableIssue(w http.ResponseWriter, r *http.Request) (*repoContext, *issue.Issue, bool) {
	rc, is, ok := a.loadIssue(w, r)
	if ok && !canWriteIssue(rc, is) {
		a.errorJSON(w, http.StatusForbidden, "user should have a permission to write to the issue")
		return nil, nil, false
	}
	return rc, is, ok
}

// canWriteIssue reports whether the caller may change issue metadata (labels,
// milestone, assignees, state of others' issues).
func canWriteIssue(rc *repoContext, is *issue.Issue) bool { return rc.Perm.CanWrite(issueUnit(is)) }

// isPoster reports whether the caller opened the issue.
func isPoster(r *http.Request, is *issue.Issue) bool {
	d := doer(r)
	return d != nil && d.ID == is.PosterID
}

// listIssues serves GET /repos/{owner}/{repo}/issues.
func (a *API) listIssues(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !canReadIssues(rc) {
		a.notFound(w, r)
		return
	}
	o, err := a.issueListOptions(r, rc.Repo)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	o.RepoIDs = []int64{rc.Repo.ID}
	o.Loaded = rc.Repo
	// Units the caller cannot read are left out.
	canIssues := rc.Repo.HasUnit(repo.UnitIssues) && rc.Perm.CanRead(repo.UnitIssues)
	canPulls := rc.Repo.HasUnit(repo.UnitPulls) && rc.Perm.CanRead(repo.UnitPulls)
	switch {
	case o.IsPull == nil && !canPulls:
		o.IsPull = boolPtr(false)
	case o.IsPull == nil && !canIssues:
		o.IsPull = boolPtr(true)
	case o.IsPull != nil && ((*o.IsPull && !canPulls) || (!*o.IsPull && !canIssues)):
		a.setTotal(w, r, a.paging(r), 0)
		writeJSON(w, http.StatusOK, []*types.Issue{})
		return
	}
	a.writeIssueList(w, r, o, map[int64]*repo.Repository{rc.Repo.ID: rc.Repo})
}

func boolPtr(b bool) *bool { return &b }

func (a *API) writeIssueList(w http.ResponseWriter, r *http.Request, o issue.ListOptions, repos map[int64]*repo.Repository) {
	pg := a.paging(r)
	o.Limit, o.Offset = pg.Limit, pg.Offset()
	list, total, err := a.Issues.Search(r.Context(), o)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toIssues(r.Context(), list, repos, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// parseTimeParam reads an RFC 3339 query parameter.
func parseTimeParam(r *http.Request, name string) (time.Time, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, errs.InvalidField(name, "[%s]: must be a date-time in RFC 3339 format, got %q", fieldTitle(name), v)
	}
	return t, nil
}

// issueListOptions reads Gitea's issue list filters. Label and milestone names
// are resolved against repository rp (nil for cross-repository search).
func (a *API) issueListOptions(r *http.Request, rp *repo.Repository) (issue.ListOptions, error) {
	q := r.URL.Query()
	o := issue.ListOptions{State: q.Get("state"), Keyword: q.Get("q"), Sort: q.Get("sort")}
	var err error
	if o.Since, err = parseTimeParam(r, "since"); err != nil {
		return o, err
	}
	if o.Before, err = parseTimeParam(r, "before"); err != nil {
		return o, err
	}
	switch q.Get("type") {
	case "":
	case "issues":
		o.IsPull = boolPtr(false)
	case "pulls":
		o.IsPull = boolPtr(true)
	default:
		return o, errs.InvalidField("type", "invalid type %q: issues or pulls", q.Get("type"))
	}
	ctx := r.Context()
	if labels := strings.TrimSpace(q.Get("labels")); labels != "" && rp != nil {
		ids, err := a.resolveLabelNames(ctx, rp, strings.Split(labels, ","))
		if err != nil {
			return o, err
		}
		if ids == nil {
			ids = []int64{-1}
		}
		o.LabelIDs = ids
	}
	if ms := strings.TrimSpace(q.Get("milestones")); ms != "" && rp != nil {
		for _, m := range strings.Split(ms, ",") {
			m = strings.TrimSpace(m)
			if strings.EqualFold(m, "none") || m == "0" {
				o.NoMilestone = true
				continue
			}
			if id, err := strconv.ParseInt(m, 10, 64); err == nil {
				o.MilestoneIDs = append(o.MilestoneIDs, id)
				continue
			}
			list, err := a.Issues.ListMilestones(ctx, "WHERE m.repo_id = ? AND LOWER(m.name) = ?", rp.ID, strings.ToLower(m))
			if err != nil {
				return o, err
			}
			for _, x := range list {
				o.MilestoneIDs = append(o.MilestoneIDs, x.ID)
			}
			if len(list) == 0 {
				o.MilestoneIDs = append(o.MilestoneIDs, -1)
			}
		}
	}
	for param, dst := range map[string]*int64{"created_by": &o.PosterID, "assigned_by": &o.AssigneeID, "mentioned_by": &o.MentionedID} {
		name := q.Get(param)
		if name == "" {
			continue
		}
		u, err := a.visibleAccount(r, name)
		if errs.IsNotFound(err) {
			return o, errs.InvalidField(param, "user %q does not exist", name)
		}
		if err != nil {
			return o, err
		}
		*dst = u.ID
	}
	return o, nil
}

// resolveLabelNames turns label names (or ids) into ids of labels usable in rp.
func (a *API) resolveLabelNames(ctx context.Context, rp *repo.Repository, names []string) ([]int64, error) {
	var ids []int64
	var byName []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if id, err := strconv.ParseInt(n, 10, 64); err == nil {
			ids = append(ids, id)
			continue
		}
		byName = append(byName, strings.ToLower(n))
	}
	if len(byName) > 0 {
		args := []any{rp.ID, rp.OwnerID}
		ph := make([]string, len(byName))
		for i, n := range byName {
			ph[i] = "?"
			args = append(args, n)
		}
		list, err := a.Issues.ListLabels(ctx, "WHERE (l.repo_id = ? OR l.org_id = ?) AND LOWER(l.name) IN ("+strings.Join(ph, ",")+")", args...)
		if err != nil {
			return nil, err
		}
		if len(list) < len(byName) {
			return []int64{-1}, nil
		}
		for _, l := range list {
			ids = append(ids, l.ID)
		}
	}
	return ids, nil
}

// getIssue serves GET /repos/{owner}/{repo}/issues/{index}.
func (a *API) getIssue(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	a.writeIssue(w, r, http.StatusOK, rc, is)
}

func (a *API) writeIssue(w http.ResponseWriter, r *http.Request, status int, rc *repoContext, is *issue.Issue) {
	out, err := a.toIssueOne(r.Context(), is, rc.Repo, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, out)
}

// assigneeIDs resolves assignee names; each must be able to work on the
// repository (write access to issues or pulls), as Gitea requires.
func (a *API) assigneeIDs(r *http.Request, rc *repoContext, unit string, single string, names []string) ([]int64, error) {
	ctx := r.Context()
	if single != "" {
		names = append([]string{single}, names...)
	}
	var ids []int64
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[strings.ToLower(n)] {
			continue
		}
		seen[strings.ToLower(n)] = true
		missing := errs.InvalidField("assignees", "user %q does not exist", n)
		u, err := a.Users.Store.GetByName(ctx, n)
		if errs.IsNotFound(err) || (err == nil && u.IsOrganization()) {
			return nil, missing
		}
		if err != nil {
			return nil, err
		}
		if err := a.Access.CheckAssignable(ctx, viewer(r), u, rc.Repo, rc.Owner, unit); err != nil {
			return nil, err
		}
		ids = append(ids, u.ID)
	}
	return ids, nil
}

// createIssue serves POST /repos/{owner}/{repo}/issues.
func (a *API) createIssue(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !rc.Repo.HasUnit(repo.UnitIssues) || !rc.Perm.CanRead(repo.UnitIssues) {
		a.notFound(w, r) // the issue unit is off, or the caller may not read it
		return
	}
	var o types.CreateIssueOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	ctx := r.Context()
	opts := issue.CreateOptions{Title: o.Title, Body: o.Body, Ref: o.Ref}
	if err := firstErr(required("title", o.Title), maxLen("title", o.Title, issue.MaxTitleLength), maxLen("ref", o.Ref, 255)); err != nil {
		a.fail(w, r, err)
		return
	}
	// Only writers set metadata; Gitea silently drops it for others.
	if rc.Perm.CanWrite(repo.UnitIssues) {
		labels, err := a.Issues.CheckLabels(ctx, rc.Repo.ID, orgIDOf(rc), o.Labels)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		for _, l := range labels {
			opts.LabelIDs = append(opts.LabelIDs, l.ID)
		}
		if err := a.Issues.CheckMilestone(ctx, rc.Repo.ID, o.Milestone); err != nil {
			a.fail(w, r, err)
			return
		}
		opts.MilestoneID = o.Milestone
		if opts.AssigneeIDs, err = a.assigneeIDs(r, rc, repo.UnitIssues, o.Assignee, o.Assignees); err != nil {
			a.fail(w, r, err)
			return
		}
		if o.Deadline != nil {
			opts.Deadline = *o.Deadline
		}
		opts.Closed = o.Closed
	}
	is, err := a.Issues.Create(ctx, doer(r), rc.Repo, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeIssue(w, r, http.StatusCreated, rc, is)
}

func orgIDOf(rc *repoContext) int64 {
	if rc.Owner.IsOrganization() {
		return rc.Owner.ID
	}
	return 0
}

// editIssue serves PATCH /repos/{owner}/{repo}/issues/{index}: it changes
// only the fields given (title, body, ref, state, assignees, milestone, due
// date), never the poster, and answers 201 as Gitea does.
func (a *API) editIssue(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	var o types.EditIssueOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := a.applyIssueEdit(r, rc, is, o); err != nil {
		a.fail(w, r, err)
		return
	}
	fresh, err := a.Issues.GetByID(r.Context(), is.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeIssue(w, r, http.StatusCreated, rc, fresh)
}

// applyIssueEdit validates every field of o, then applies them one by one
// (issues and pull requests): writers change metadata, the poster title,
// body and state.
func (a *API) applyIssueEdit(r *http.Request, rc *repoContext, is *issue.Issue, o types.EditIssueOption) error {
	ctx := r.Context()
	d := doer(r)
	writer := canWriteIssue(rc, is)
	if !writer && !isPoster(r, is) {
		return errs.Forbidden("user should have a permission to write to the issue or be its poster")
	}
	if is.IsLocked && !writer {
		return errs.Forbidden("the conversation is locked")
	}
	// Validate everything before changing anything. An empty title means
	// "unchanged": the Go SDK always sends the key.
	if o.Title != nil && *o.Title == "" {
		o.Title = nil
	}
	if o.Title != nil {
		if err := firstErr(required("title", *o.Title), maxLen("title", *o.Title, issue.MaxTitleLength)); err != nil {
			return err
		}
	}
	var closeTo *bool
	if o.State != nil {
		switch *o.State {
		case "open":
			closeTo = boolPtr(false)
		case "closed":
			closeTo = boolPtr(true)
		default:
			return errs.InvalidField("state", "invalid state %q: open or closed", *o.State)
		}
	}
	var assignees []int64
	setAssignees := writer && (o.Assignee != nil || o.Assignees != nil)
	if setAssignees {
		single := ""
		if o.Assignee != nil {
			single = *o.Assignee
		}
		var err error
		if assignees, err = a.assigneeIDs(r, rc, issueUnit(is), single, o.Assignees); err != nil {
			return err
		}
	}
	if writer && o.Milestone != nil {
		if err := a.Issues.CheckMilestone(ctx, rc.Repo.ID, *o.Milestone); err != nil {
			return err
		}
	}
	if o.Ref != nil {
		if err := maxLen("ref", *o.Ref, 255); err != nil {
			return err
		}
	}
	steps := []func() error{}
	if o.Title != nil {
		steps = append(steps, func() error { return a.Issues.ChangeTitle(ctx, d, rc.Repo, is, *o.Title) })
	}
	if o.Body != nil {
		steps = append(steps, func() error { return a.Issues.ChangeContent(ctx, d, rc.Repo, is, *o.Body) })
	}
	if o.Ref != nil {
		steps = append(steps, func() error { return a.Issues.ChangeRef(ctx, d, is, *o.Ref) })
	}
	if writer && (o.Deadline != nil || (o.RemoveDeadline != nil && *o.RemoveDeadline)) {
		deadline := time.Time{}
		if o.Deadline != nil && !(o.RemoveDeadline != nil && *o.RemoveDeadline) {
			deadline = dayEnd(*o.Deadline)
		}
		steps = append(steps, func() error { return a.Issues.SetDeadline(ctx, d, is, deadline) })
	}
	if writer && o.Milestone != nil {
		steps = append(steps, func() error { return a.Issues.SetMilestone(ctx, d, rc.Repo, is, *o.Milestone) })
	}
	if setAssignees {
		steps = append(steps, func() error { return a.Issues.SetAssignees(ctx, d, rc.Repo, is, assignees) })
	}
	if closeTo != nil {
		steps = append(steps, func() error { return a.Issues.ChangeStatus(ctx, d, rc.Repo, is, *closeTo) })
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// dayEnd keeps the date of a due date at the end of that day, in its zone, as Gitea stores due dates.
func dayEnd(t time.Time) time.Time {
	y, m, dd := t.Date()
	return time.Date(y, m, dd, 23, 59, 59, 0, t.Location())
}

// deleteIssue serves DELETE /repos/{owner}/{repo}/issues/{index} (repository admins).
func (a *API) deleteIssue(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	if !rc.Perm.IsAdmin() {
		a.errorJSON(w, http.StatusForbidden, "user should be an owner or a collaborator with admin write of a repository")
		return
	}
	if err := a.Issues.Delete(r.Context(), rc.Repo, is); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// updateDeadline serves POST /repos/{owner}/{repo}/issues/{index}/deadline.
func (a *API) updateDeadline(w http.ResponseWriter, r *http.Request) {
	_, is, ok := a.loadWritableIssue(w, r)
	if !ok {
		return
	}
	var o types.EditDeadlineOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	deadline := time.Time{}
	if o.Deadline != nil && !o.Deadline.IsZero() {
		deadline = dayEnd(*o.Deadline)
	}
	if err := a.Issues.SetDeadline(r.Context(), doer(r), is, deadline); err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, types.IssueDeadline{Deadline: timePtr(deadline)})
}

// searchIssues serves GET /repos/issues/search: issues of every repository
// the caller may read, with Gitea's filters.
func (a *API) searchIssues(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := viewer(r)
	o, err := a.issueListOptions(r, nil)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	cond, cargs := access.RepoCond(v)
	repoWhere := "SELECT r.id FROM repository r JOIN users o ON o.id = r.owner_id WHERE " + cond
	args := cargs
	if owner := q.Get("owner"); owner != "" {
		repoWhere += " AND o.lower_name = ?"
		args = append(args, strings.ToLower(owner))
	}
	if t := q.Get("team"); t != "" && q.Get("owner") != "" {
		repoWhere += " AND r.id IN (SELECT tr.repo_id FROM team_repo tr JOIN team t ON t.id = tr.team_id WHERE t.lower_name = ?)"
		args = append(args, strings.ToLower(t))
	}
	if labels := strings.TrimSpace(q.Get("labels")); labels != "" {
		var names []any
		ph := []string{}
		for _, n := range strings.Split(labels, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, strings.ToLower(n))
				ph = append(ph, "?")
			}
		}
		if len(names) > 0 {
			o.RepoCond = "i.id IN (SELECT il.issue_id FROM issue_label il JOIN label l ON l.id = il.label_id WHERE LOWER(l.name) IN (" + strings.Join(ph, ",") + "))"
			o.RepoArgs = names
		}
	}
	if ms := strings.TrimSpace(q.Get("milestones")); ms != "" {
		var names []any
		ph := []string{}
		for _, n := range strings.Split(ms, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, strings.ToLower(n))
				ph = append(ph, "?")
			}
		}
		if len(names) > 0 {
			c := "i.milestone_id IN (SELECT m.id FROM milestone m WHERE LOWER(m.name) IN (" + strings.Join(ph, ",") + "))"
			if o.RepoCond != "" {
				o.RepoCond += " AND " + c
			} else {
				o.RepoCond = c
			}
			o.RepoArgs = append(o.RepoArgs, names...)
		}
	}
	units, unitCond, unitArgs, err := a.readableIssueRepos(r.Context(), r, repoWhere, args)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	o.UnitRepos = units
	if unitCond != "" {
		if o.RepoCond != "" {
			o.RepoCond = "(" + unitCond + ") AND " + o.RepoCond
			o.RepoArgs = append(unitArgs, o.RepoArgs...)
		} else {
			o.RepoCond = "(" + unitCond + ")"
			o.RepoArgs = unitArgs
		}
	}
	d := doer(r)
	if d != nil {
		if queryBool(r, "created") {
			o.PosterID = d.ID
		}
		if queryBool(r, "assigned") {
			o.AssigneeID = d.ID
		}
		if queryBool(r, "mentioned") {
			o.MentionedID = d.ID
		}
		if queryBool(r, "review_requested") || queryBool(r, "reviewed") {
			o.IsPull = boolPtr(true)
		}
	}
	a.writeIssueList(w, r, o, nil)
}

// maxSearchRepos is how many visible repositories a search lists by id; beyond
// that it filters with a subquery instead.
const maxSearchRepos = 1000

// readableIssueRepos restricts a search to repositories (selected by
// repoWhere, "SELECT r.id FROM repository r JOIN users o ...") whose issues
// unit — or pulls unit, for pull requests — the caller can read. Up to
// maxSearchRepos repositories it checks each unit permission exactly and
// returns the lists of ids, which lets the database use its indexes (and
// SQLite answer from its full-text index alone); beyond that it returns a
// condition on "i" with a subquery instead.
func (a *API) readableIssueRepos(ctx context.Context, r *http.Request, repoWhere string, args []any) (*issue.UnitRepos, string, []any, error) {
	tail := strings.TrimPrefix(repoWhere, "SELECT r.id FROM repository r JOIN users o ON o.id = r.owner_id ")
	list, err := a.Repos.List(ctx, tail+" ORDER BY r.id"+db.LimitOffset(maxSearchRepos+1, 0), args...)
	if err != nil {
		return nil, "", nil, err
	}
	if len(list) > maxSearchRepos {
		// Too many to list: every visible repository with the unit enabled.
		var parts []string
		var out []any
		for _, u := range []struct {
			unit string
			pull bool
		}{{repo.UnitIssues, false}, {repo.UnitPulls, true}} {
			if a.Repos.UnitDisabled(u.unit) {
				continue
			}
			parts = append(parts, "(i.is_pull = ? AND i.repo_id IN ("+repoWhere+" AND r.units LIKE ?))")
			out = append(append(append(out, u.pull), args...), "%\""+u.unit+"\"%")
		}
		if len(parts) == 0 {
			return nil, "1 = 0", nil, nil
		}
		return nil, strings.Join(parts, " OR "), out, nil
	}
	var ownerIDs []int64
	for _, rp := range list {
		ownerIDs = append(ownerIDs, rp.OwnerID)
	}
	owners, err := a.Users.Store.GetByIDs(ctx, ownerIDs)
	if err != nil {
		return nil, "", nil, err
	}
	perms, err := a.Access.RepoPermissions(ctx, viewer(r), list, owners)
	if err != nil {
		return nil, "", nil, err
	}
	units := &issue.UnitRepos{Issues: []int64{}, Pulls: []int64{}}
	for _, rp := range list {
		p := perms[rp.ID]
		if rp.HasUnit(repo.UnitIssues) && p.CanRead(repo.UnitIssues) {
			units.Issues = append(units.Issues, rp.ID)
		}
		if rp.HasUnit(repo.UnitPulls) && p.CanRead(repo.UnitPulls) {
			units.Pulls = append(units.Pulls, rp.ID)
		}
	}
	return units, "", nil, nil
}

// lockIssue serves PUT /repos/{owner}/{repo}/issues/{index}/lock.
func (a *API) lockIssue(w http.ResponseWriter, r *http.Request) {
	_, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	var o struct {
		Reason string `json:"lock_reason"`
	}
	if r.ContentLength != 0 {
		if err := decode(r, &o); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	if err := a.Issues.SetLocked(r.Context(), doer(r), is, true, o.Reason); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// unlockIssue serves DELETE /repos/{owner}/{repo}/issues/{index}/lock.
func (a *API) unlockIssue(w http.ResponseWriter, r *http.Request) {
	_, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	if err := a.Issues.SetLocked(r.Context(), doer(r), is, false, ""); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// pinIssue serves POST and DELETE /repos/{owner}/{repo}/issues/{index}/pin.
func (a *API) pinIssue(pinned bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, is, ok := a.loadIssue(w, r)
		if !ok {
			return
		}
		if err := a.Issues.SetPinned(r.Context(), doer(r), is, pinned, a.Config.RepositoryIssue.MaxPinned); err != nil {
			a.fail(w, r, err)
			return
		}
		empty(w, http.StatusNoContent)
	}
}

// movePin serves PATCH /repos/{owner}/{repo}/issues/{index}/pin/{position}.
func (a *API) movePin(w http.ResponseWriter, r *http.Request) {
	_, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	pos, err := strconv.Atoi(chi.URLParam(r, "position"))
	if err != nil {
		a.fail(w, r, errs.InvalidField("position", "position must be a number"))
		return
	}
	if err := a.Issues.MovePin(r.Context(), is, pos); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// listPinnedIssues serves GET /repos/{owner}/{repo}/issues/pinned.
func (a *API) listPinnedIssues(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !rc.Repo.HasUnit(repo.UnitIssues) || !rc.Perm.CanRead(repo.UnitIssues) {
		a.notFound(w, r)
		return
	}
	list, _, err := a.Issues.Search(r.Context(), issue.ListOptions{RepoIDs: []int64{rc.Repo.ID}, State: "all", IsPull: boolPtr(false), Pinned: true, Limit: 1000})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toIssues(r.Context(), list, map[int64]*repo.Repository{rc.Repo.ID: rc.Repo}, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
