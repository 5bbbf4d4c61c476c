package v1

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// trackedTimeRoutes registers tracked time and stopwatch routes under
// /repos/{owner}/{repo}. Every one needs a signed-in caller, as in Gitea.
func (a *API) trackedTimeRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.signedIn)
		r.Get("/issues/{index}/times", a.listIssueTimes)
		r.Post("/issues/{index}/times", a.addTime)
		r.Delete("/issues/{index}/times", a.resetTimes)
		r.Delete("/issues/{index}/times/{id}", a.deleteTime)
		r.Post("/issues/{index}/stopwatch/start", a.startStopwatch)
		r.Post("/issues/{index}/stopwatch/stop", a.stopStopwatch)
		r.Delete("/issues/{index}/stopwatch/delete", a.cancelStopwatch)
	})
}

// repoTimeRoutes registers the repository's tracked time lists, which Gitea
// places under the repository token scope rather than the issue scope.
func (a *API) repoTimeRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.signedIn, a.reqUnitRead(repo.UnitIssues))
		r.Get("/times", a.listRepoTimes)
		r.Get("/times/{user}", a.listUserRepoTimes)
	})
}

// userTimeRoutes registers /user/times and /user/stopwatches.
func (a *API) userTimeRoutes(r chi.Router) {
	r.Get("/times", a.listMyTimes)
	r.Get("/stopwatches", a.listMyStopwatches)
}

// timetrackerEnabled: [service] ENABLE_TIMETRACKING and the repository's own switch.
func (a *API) timetrackerEnabled(rp *repo.Repository) bool {
	return a.Config.Service.EnableTimetracking && rp.Settings.EnableTimeTracker
}

// canUseTimetracker follows Gitea: the tracker is enabled and either the
// repository lets anyone track time, or the caller writes issues, opened the
// issue or is assigned to it.
func (a *API) canUseTimetracker(ctx context.Context, rc *repoContext, is *issue.Issue, d *user.User) (bool, error) {
	if !a.timetrackerEnabled(rc.Repo) {
		return false, nil
	}
	if !rc.Repo.Settings.AllowOnlyContributorsToTrack || canWriteIssue(rc, is) || d.ID == is.PosterID {
		return true, nil
	}
	ids, err := a.Issues.AssigneeIDs(ctx, is.ID)
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		if id == d.ID {
			return true, nil
		}
	}
	return false, nil
}

// requireTimetracker writes Gitea's answer when the caller cannot track time
// on the issue: 400 when the tracker is disabled, 403 otherwise.
func (a *API) requireTimetracker(w http.ResponseWriter, r *http.Request, rc *repoContext, is *issue.Issue) bool {
	ok, err := a.canUseTimetracker(r.Context(), rc, is, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return false
	}
	if !ok {
		if !a.timetrackerEnabled(rc.Repo) {
			a.errorJSON(w, http.StatusBadRequest, "time tracking disabled")
		} else {
			a.errorJSON(w, http.StatusForbidden, "user is not allowed to track time on this issue")
		}
		return false
	}
	return true
}

// timeFilter reads ?user=, ?since= and ?before= (RFC 3339; 422 otherwise)
// and applies Gitea's rule: callers who are neither site administrators nor
// writers of issues see only their own times, and asking for someone
// else's answers 403.
func (a *API) timeFilter(r *http.Request, rc *repoContext) (issue.TimeFilter, error) {
	var f issue.TimeFilter
	var err error
	if f.Since, err = parseTimeParam(r, "since"); err != nil {
		return f, err
	}
	if f.Before, err = parseTimeParam(r, "before"); err != nil {
		return f, err
	}
	d := doer(r)
	if name := strings.TrimSpace(r.URL.Query().Get("user")); name != "" {
		u, err := a.visibleIndividual(r, name)
		if err != nil {
			return f, err
		}
		f.UserID = u.ID
	}
	if !d.IsAdmin && f.UserID != d.ID && !rc.Perm.CanWrite(repo.UnitIssues) {
		if f.UserID != 0 {
			return f, errs.Forbidden("query by user not allowed; not enough rights")
		}
		f.UserID = d.ID
	}
	if r.URL.Query().Get("page") != "" {
		pg := a.paging(r)
		f.Limit, f.Offset = pg.Limit, pg.Offset()
	}
	return f, nil
}

// writeTimes answers a list of tracked times with X-Total-Count (and Link when paged).
func (a *API) writeTimes(w http.ResponseWriter, r *http.Request, f issue.TimeFilter) {
	list, total, err := a.Issues.FindTrackedTimes(r.Context(), f)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toTrackedTimes(r.Context(), list, viewer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if f.Limit > 0 {
		a.setTotal(w, r, a.paging(r), total)
	} else {
		w.Header().Set("X-Total-Count", itoa(total))
	}
	writeJSON(w, http.StatusOK, out)
}

// toTrackedTimes renders times with their issues and users in a fixed number of queries.
func (a *API) toTrackedTimes(ctx context.Context, list []*issue.TrackedTime, v *user.User) ([]*types.TrackedTime, error) {
	var issueIDs, userIDs []int64
	for _, t := range list {
		issueIDs = append(issueIDs, t.IssueID)
		userIDs = append(userIDs, t.UserID)
	}
	issues, err := a.Issues.GetByIDs(ctx, issueIDs)
	if err != nil {
		return nil, err
	}
	issueList := make([]*issue.Issue, 0, len(issues))
	for _, is := range issues {
		issueList = append(issueList, is)
	}
	rendered, err := a.toIssues(ctx, issueList, nil, v)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*types.Issue, len(rendered))
	for _, is := range rendered {
		byID[is.ID] = is
	}
	users, err := a.Users.Store.GetByIDs(ctx, userIDs)
	if err != nil {
		return nil, err
	}
	out := make([]*types.TrackedTime, 0, len(list))
	for _, t := range list {
		name := user.Ghost().Name
		if u, ok := users[t.UserID]; ok {
			name = u.Name
		}
		out = append(out, &types.TrackedTime{ID: t.ID, Created: t.Created, Time: t.Time, UserID: t.UserID, UserName: name,
			IssueID: t.IssueID, Issue: byID[t.IssueID]})
	}
	return out, nil
}

// listIssueTimes serves GET /repos/{owner}/{repo}/issues/{index}/times.
func (a *API) listIssueTimes(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	if !a.timetrackerEnabled(rc.Repo) {
		a.fail(w, r, errs.NotFound("Timetracker is disabled"))
		return
	}
	f, err := a.timeFilter(r, rc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	f.IssueID, f.RepoID = is.ID, rc.Repo.ID
	a.writeTimes(w, r, f)
}

// listRepoTimes serves GET /repos/{owner}/{repo}/times.
func (a *API) listRepoTimes(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !a.timetrackerEnabled(rc.Repo) {
		a.errorJSON(w, http.StatusBadRequest, "time tracking disabled")
		return
	}
	f, err := a.timeFilter(r, rc)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	f.RepoID = rc.Repo.ID
	a.writeTimes(w, r, f)
}

// listUserRepoTimes serves GET /repos/{owner}/{repo}/times/{user} (deprecated
// in Gitea): the user's times in the repository, for the user themself and
// administrators.
func (a *API) listUserRepoTimes(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if !a.timetrackerEnabled(rc.Repo) {
		a.errorJSON(w, http.StatusBadRequest, "time tracking disabled")
		return
	}
	name := chi.URLParam(r, "user")
	u, err := a.visibleIndividual(r, name)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d := doer(r)
	if !rc.Perm.IsAdmin() && !d.IsAdmin && d.ID != u.ID {
		a.errorJSON(w, http.StatusForbidden, "query by user not allowed; not enough rights")
		return
	}
	a.writeTimes(w, r, issue.TimeFilter{RepoID: rc.Repo.ID, UserID: u.ID})
}

// listMyTimes serves GET /user/times: the caller's times on issues of
// repositories they can still see.
func (a *API) listMyTimes(w http.ResponseWriter, r *http.Request) {
	var f issue.TimeFilter
	var err error
	if f.Since, err = parseTimeParam(r, "since"); err != nil {
		a.fail(w, r, err)
		return
	}
	if f.Before, err = parseTimeParam(r, "before"); err != nil {
		a.fail(w, r, err)
		return
	}
	f.UserID = doer(r).ID
	f.RepoCond, f.RepoArgs = access.RepoCond(viewer(r))
	if r.URL.Query().Get("page") != "" {
		pg := a.paging(r)
		f.Limit, f.Offset = pg.Limit, pg.Offset()
	}
	a.writeTimes(w, r, f)
}

// addTime serves POST /repos/{owner}/{repo}/issues/{index}/times and answers
// 200 with the new time, as Gitea does. Site administrators, and repository
// administrators for others than themselves, may name the user.
func (a *API) addTime(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	o, err := decodeAddTime(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if !a.requireTimetracker(w, r, rc, is) {
		return
	}
	d := doer(r)
	u := d
	if o.User != "" && ((rc.Perm.IsAdmin() && !strings.EqualFold(d.Name, o.User)) || d.IsAdmin) {
		if u, err = a.visibleIndividual(r, o.User); err != nil {
			if errs.IsNotFound(err) {
				err = errs.InvalidField("user_name", "user %q does not exist", o.User)
			}
			a.fail(w, r, err)
			return
		}
	}
	t, err := a.Issues.AddTime(r.Context(), u, is, o.Time, o.Created)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toTrackedTimes(r.Context(), []*issue.TrackedTime{t}, viewer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out[0])
}

// decodeAddTime reads an AddTimeOption, naming the field when "created" is
// not an RFC 3339 date-time (422).
func decodeAddTime(r *http.Request) (types.AddTimeOption, error) {
	var raw struct {
		Time    int64           `json:"time"`
		Created json.RawMessage `json:"created"`
		User    string          `json:"user_name"`
	}
	if err := decode(r, &raw); err != nil {
		return types.AddTimeOption{}, err
	}
	o := types.AddTimeOption{Time: raw.Time, User: raw.User}
	if len(raw.Created) > 0 && string(raw.Created) != "null" {
		if err := json.Unmarshal(raw.Created, &o.Created); err != nil {
			return o, errs.InvalidField("created", "[Created]: must be a date-time in RFC 3339 format, got %s", raw.Created)
		}
	}
	return o, nil
}

// resetTimes serves DELETE /repos/{owner}/{repo}/issues/{index}/times: it
// deletes the caller's times on the issue (404 when there are none).
func (a *API) resetTimes(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok || !a.requireTimetracker(w, r, rc, is) {
		return
	}
	if err := a.Issues.ResetTimes(r.Context(), doer(r), is); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// deleteTime serves DELETE /repos/{owner}/{repo}/issues/{index}/times/{id}:
// only the time's owner and site administrators may delete it.
func (a *API) deleteTime(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok || !a.requireTimetracker(w, r, rc, is) {
		return
	}
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return
	}
	t, err := a.Issues.GetTrackedTime(r.Context(), id)
	if err == nil && t.IssueID != is.ID {
		err = errs.NotFound("tracked time does not exist [id: %d]", id)
	}
	if err == nil && t.Deleted {
		err = errs.NotFound("tracked time was already deleted [id: %d]", id)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if d := doer(r); !d.IsAdmin && t.UserID != d.ID {
		a.errorJSON(w, http.StatusForbidden, "only the user who tracked the time or a site administrator can delete it")
		return
	}
	if err := a.Issues.DeleteTime(r.Context(), t); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// stopwatchIssue loads the issue of a stopwatch route: the caller must
// write issues of its kind and be allowed to track time (403 otherwise).
func (a *API) stopwatchIssue(w http.ResponseWriter, r *http.Request) (*issue.Issue, bool) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return nil, false
	}
	if !canWriteIssue(rc, is) {
		a.errorJSON(w, http.StatusForbidden, "user should have a permission to write to the issue to use a stopwatch")
		return nil, false
	}
	can, err := a.canUseTimetracker(r.Context(), rc, is, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	if !can {
		a.errorJSON(w, http.StatusForbidden, "time tracking is disabled for this repository")
		return nil, false
	}
	return is, true
}

// startStopwatch serves POST .../issues/{index}/stopwatch/start (201; 409 when running).
func (a *API) startStopwatch(w http.ResponseWriter, r *http.Request) {
	is, ok := a.stopwatchIssue(w, r)
	if !ok {
		return
	}
	if err := a.Issues.StartStopwatch(r.Context(), doer(r), is); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusCreated)
}

// stopStopwatch serves POST .../issues/{index}/stopwatch/stop (201; 409 when none).
func (a *API) stopStopwatch(w http.ResponseWriter, r *http.Request) {
	is, ok := a.stopwatchIssue(w, r)
	if !ok {
		return
	}
	if _, err := a.Issues.StopStopwatch(r.Context(), doer(r), is); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusCreated)
}

// cancelStopwatch serves DELETE .../issues/{index}/stopwatch/delete (204; 409 when none).
func (a *API) cancelStopwatch(w http.ResponseWriter, r *http.Request) {
	is, ok := a.stopwatchIssue(w, r)
	if !ok {
		return
	}
	if err := a.Issues.CancelStopwatch(r.Context(), doer(r), is); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// listMyStopwatches serves GET /user/stopwatches.
func (a *API) listMyStopwatches(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	pg := a.paging(r)
	cond, args := access.RepoCond(viewer(r))
	list, total, err := a.Issues.ListStopwatches(ctx, doer(r).ID, cond, args, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var issueIDs []int64
	for _, sw := range list {
		issueIDs = append(issueIDs, sw.IssueID)
	}
	issues, err := a.Issues.GetByIDs(ctx, issueIDs)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var repoIDs []int64
	for _, is := range issues {
		repoIDs = append(repoIDs, is.RepoID)
	}
	repos, err := a.Repos.Store.GetByIDs(ctx, repoIDs)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	now := time.Now()
	out := make([]*types.StopWatch, 0, len(list))
	for _, sw := range list {
		is, rp := issues[sw.IssueID], (*repo.Repository)(nil)
		if is == nil {
			continue
		}
		if rp = repos[is.RepoID]; rp == nil {
			continue
		}
		secs := sw.Seconds(now)
		out = append(out, &types.StopWatch{Created: sw.Created, Seconds: secs, Duration: issue.FormatDuration(secs),
			IssueIndex: is.Index, IssueTitle: is.Title, RepoOwnerName: rp.OwnerName, RepoName: rp.Name})
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}
