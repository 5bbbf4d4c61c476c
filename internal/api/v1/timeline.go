package v1

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// trackedTimeJSON is Gitea's TrackedTime as the timeline shows it.
type trackedTimeJSON struct {
	ID       int64        `json:"id"`
	Created  time.Time    `json:"created"`
	Time     int64        `json:"time"`
	UserID   int64        `json:"user_id"`
	UserName string       `json:"user_name"`
	IssueID  int64        `json:"issue_id"`
	Issue    *types.Issue `json:"issue"`
}

// listTimeline serves GET /repos/{owner}/{repo}/issues/{index}/timeline:
// comments and events, oldest first, paginated, with since (updated at or
// after) and before (created before). References from repositories or units
// the caller cannot read are left out.
func (a *API) listTimeline(w http.ResponseWriter, r *http.Request) {
	rc, is, ok := a.loadIssue(w, r)
	if !ok {
		return
	}
	since, err := parseTimeParam(r, "since")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	before, err := parseTimeParam(r, "before")
	if err != nil {
		a.fail(w, r, err)
		return
	}
	pg := a.paging(r)
	list, total, err := a.Issues.Timeline(r.Context(), is.ID, issue.TimelineOptions{Since: since, Before: before, Limit: pg.Limit, Offset: pg.Offset()})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out, err := a.toTimeline(r.Context(), rc, is, list, doer(r))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
}

// timelineRows are the rows a page of timeline entries refers to.
type timelineRows struct {
	users       map[int64]*user.User
	labels      map[int64]*issue.Label
	milestones  map[int64]*issue.Milestone
	issues      map[int64]*issue.Issue // referencing and dependent issues
	wireIssues  map[int64]*types.Issue // those of them the caller may read
	comments    map[int64]*issue.Comment
	times       map[int64]*issue.TrackedTime
	perms       map[int64]access.RepoPerm // caller's access to the repositories of issues
	repos       map[int64]*repo.Repository
	self        *types.Issue // the issue itself, for tracked times
	readableRef func(repoID int64, isPull bool) bool
}

// loadTimelineRows loads everything list refers to with a fixed number of
// queries: users, labels, milestones, other issues and their repositories
// (with the caller's permissions), referencing comments and tracked times.
func (a *API) loadTimelineRows(ctx context.Context, rc *repoContext, is *issue.Issue, list []*issue.Comment, v *user.User) (*timelineRows, error) {
	var userIDs, labelIDs, milestoneIDs, issueIDs, commentIDs, timeIDs []int64
	for _, c := range list {
		userIDs = append(userIDs, c.PosterID)
		if c.AssigneeID > 0 {
			userIDs = append(userIDs, c.AssigneeID)
		}
		if c.LabelID > 0 {
			labelIDs = append(labelIDs, c.LabelID)
		}
		if c.MilestoneID > 0 {
			milestoneIDs = append(milestoneIDs, c.MilestoneID)
		}
		if c.OldMilestoneID > 0 {
			milestoneIDs = append(milestoneIDs, c.OldMilestoneID)
		}
		if c.RefIssueID > 0 {
			issueIDs = append(issueIDs, c.RefIssueID)
		}
		if c.DependentIssueID > 0 {
			issueIDs = append(issueIDs, c.DependentIssueID)
		}
		if c.RefCommentID > 0 {
			commentIDs = append(commentIDs, c.RefCommentID)
		}
		if c.TimeID > 0 {
			timeIDs = append(timeIDs, c.TimeID)
		}
	}
	rows := &timelineRows{perms: map[int64]access.RepoPerm{rc.Repo.ID: rc.Perm}, repos: map[int64]*repo.Repository{rc.Repo.ID: rc.Repo}}
	var err error
	if rows.comments, err = a.Issues.CommentsByIDs(ctx, commentIDs); err != nil {
		return nil, err
	}
	for _, c := range rows.comments {
		userIDs = append(userIDs, c.PosterID)
	}
	if rows.times, err = a.Issues.TrackedTimesByIDs(ctx, timeIDs); err != nil {
		return nil, err
	}
	for _, t := range rows.times {
		userIDs = append(userIDs, t.UserID)
	}
	if rows.users, err = a.Users.Store.GetByIDs(ctx, userIDs); err != nil {
		return nil, err
	}
	if rows.labels, err = a.Issues.LabelsByIDs(ctx, labelIDs); err != nil {
		return nil, err
	}
	if rows.milestones, err = a.Issues.MilestonesByIDs(ctx, milestoneIDs); err != nil {
		return nil, err
	}
	if rows.issues, err = a.Issues.GetByIDs(ctx, issueIDs); err != nil {
		return nil, err
	}
	// The caller's access to the other repositories involved: those it may
	// see (RepoCond), then their unit permissions, in a fixed number of queries.
	var otherRepos []int64
	for _, c := range list {
		if c.RefRepoID > 0 && c.RefRepoID != rc.Repo.ID {
			otherRepos = append(otherRepos, c.RefRepoID)
		}
	}
	for _, oi := range rows.issues {
		if oi.RepoID != rc.Repo.ID {
			otherRepos = append(otherRepos, oi.RepoID)
		}
	}
	if len(otherRepos) > 0 {
		cond, args := access.RepoCond(v)
		visible, err := a.Repos.Store.List(ctx, "WHERE r.id IN "+db.In(len(otherRepos))+" AND ("+cond+")", append(db.Int64Args(otherRepos), args...)...)
		if err != nil {
			return nil, err
		}
		ownerIDs := make([]int64, 0, len(visible))
		for _, rp := range visible {
			ownerIDs = append(ownerIDs, rp.OwnerID)
			rows.repos[rp.ID] = rp
		}
		owners, err := a.Users.Store.GetByIDs(ctx, ownerIDs)
		if err != nil {
			return nil, err
		}
		perms, err := a.Access.RepoPermissions(ctx, v, visible, owners)
		if err != nil {
			return nil, err
		}
		for id, p := range perms {
			rows.perms[id] = p
		}
	}
	rows.readableRef = func(repoID int64, isPull bool) bool {
		rp, ok := rows.repos[repoID]
		if !ok {
			return false
		}
		unit := repo.UnitIssues
		if isPull {
			unit = repo.UnitPulls
		}
		return rp.HasUnit(unit) && rows.perms[repoID].CanRead(unit)
	}
	var readable []*issue.Issue
	for _, oi := range rows.issues {
		if rows.readableRef(oi.RepoID, oi.IsPull) {
			readable = append(readable, oi)
		}
	}
	if len(rows.times) > 0 {
		readable = append(readable, is)
	}
	rows.wireIssues = map[int64]*types.Issue{}
	if len(readable) > 0 {
		wire, err := a.toIssues(ctx, readable, rows.repos, v)
		if err != nil {
			return nil, err
		}
		for i, oi := range readable {
			if oi.ID == is.ID {
				rows.self = wire[i]
				continue
			}
			rows.wireIssues[oi.ID] = wire[i]
		}
	}
	return rows, nil
}

// toTimeline renders a page of timeline entries of issue is.
func (a *API) toTimeline(ctx context.Context, rc *repoContext, is *issue.Issue, list []*issue.Comment, v *user.User) ([]*types.TimelineComment, error) {
	out := make([]*types.TimelineComment, 0, len(list))
	if len(list) == 0 {
		return out, nil
	}
	rows, err := a.loadTimelineRows(ctx, rc, is, list, v)
	if err != nil {
		return nil, err
	}
	userOf := func(id int64) *user.User {
		if u, ok := rows.users[id]; ok {
			return u
		}
		return user.Ghost()
	}
	teams, err := a.reviewTimelineTeams(ctx, list)
	if err != nil {
		return nil, err
	}
	issueHTML := a.issueHTMLURL(rc.Repo, is)
	for _, c := range list {
		// References made from issues the caller cannot read are not shown.
		if issue.IsRefType(c.Type) && c.RefIssueID > 0 && !rows.readableRef(c.RefRepoID, c.RefIsPull) {
			continue
		}
		tc := &types.TimelineComment{
			ID: c.ID, Type: c.Type.String(), Poster: a.toUser(userOf(c.PosterID), v), Body: c.Content,
			Created: c.Created, Updated: c.Updated, OldTitle: c.OldTitle, NewTitle: c.NewTitle, OldRef: c.OldRef,
			NewRef: c.NewRef, RefAction: issue.RefAction(c.RefAction).String(), RefCommitSHA: c.CommitSHA,
			RemovedAssignee: c.RemovedAssignee, ReviewID: c.ReviewID,
			HTMLURL: issueHTML + "#issuecomment-" + strconv.FormatInt(c.ID, 10),
		}
		if is.IsPull {
			tc.PRURL = issueHTML
		} else {
			tc.IssueURL = issueHTML
		}
		switch c.Type {
		case issue.CommentAddTimeManual, issue.CommentStopTracking, issue.CommentDeleteTimeManual:
			// Time events store "|<seconds>"; the API shows the duration in words, as Gitea does.
			if secs, ok := strings.CutPrefix(c.Content, "|"); ok {
				if n, err := strconv.ParseInt(secs, 10, 64); err == nil {
					tc.Body = issue.FormatDuration(n)
				}
			}
		}
		if l, ok := rows.labels[c.LabelID]; ok {
			orgName := ""
			if l.OrgID > 0 && l.OrgID == rc.Owner.ID {
				orgName = rc.Owner.Name
			}
			tc.Label = a.toLabel(l, rc.Repo, orgName)
		}
		if m, ok := rows.milestones[c.MilestoneID]; ok {
			tc.Milestone = toMilestone(m)
		}
		if m, ok := rows.milestones[c.OldMilestoneID]; ok {
			tc.OldMilestone = toMilestone(m)
		}
		if c.AssigneeID > 0 {
			tc.Assignee = a.toUser(userOf(c.AssigneeID), v)
		}
		if t, ok := teams[c.AssigneeTeamID]; ok && c.AssigneeTeamID > 0 {
			tc.AssigneeTeam = a.toTeam(t, rc.Owner, v) // a team asked for a review
		}
		if c.RefIssueID > 0 {
			tc.RefIssue = rows.wireIssues[c.RefIssueID]
		}
		if c.DependentIssueID > 0 {
			tc.DependentIssue = rows.wireIssues[c.DependentIssueID]
		}
		if rc2, ok := rows.comments[c.RefCommentID]; ok && tc.RefIssue != nil {
			tc.RefComment = a.toRefComment(rc2, rows.issues[c.RefIssueID], rows.repos[c.RefRepoID], userOf(rc2.PosterID), v)
		}
		if t, ok := rows.times[c.TimeID]; ok {
			tu := userOf(t.UserID)
			tc.TrackedTime = &trackedTimeJSON{ID: t.ID, Created: t.Created, Time: t.Time, UserID: t.UserID,
				UserName: tu.Name, IssueID: t.IssueID, Issue: rows.self}
		}
		out = append(out, tc)
	}
	return out, nil
}

// issueHTMLURL is the web address of an issue or pull request.
func (a *API) issueHTMLURL(rp *repo.Repository, is *issue.Issue) string {
	kind := "/issues/"
	if is.IsPull {
		kind = "/pulls/"
	}
	return a.repoLink(rp) + kind + strconv.FormatInt(is.Index, 10)
}

// toRefComment renders the comment a reference was made from.
func (a *API) toRefComment(c *issue.Comment, src *issue.Issue, rp *repo.Repository, poster *user.User, v *user.User) *types.Comment {
	out := &types.Comment{ID: c.ID, Poster: a.toUser(poster, v), OriginalAuthor: c.OriginalAuthor,
		OriginalAuthorID: c.OriginalAuthorID, Body: c.Content, Created: types.Time(c.Created), Updated: types.Time(c.Updated),
		Attachments: []*types.Attachment{}}
	if src != nil && rp != nil {
		html := a.issueHTMLURL(rp, src)
		out.HTMLURL = html + "#issuecomment-" + strconv.FormatInt(c.ID, 10)
		if src.IsPull {
			out.PRURL = html
		} else {
			out.IssueURL = html
		}
	}
	return out
}
