package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/activity"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// dashboardOrgLimit is how many organizations the dashboard lists.
const dashboardOrgLimit = 50

// assignedRepoLimit bounds how many repositories the assigned-work counts
// look at (those with the most open assigned issues first).
const assignedRepoLimit = 1000

// dashboardPage is the signed-in home page's data.
type dashboardPage struct {
	Keyword string
	// Repos are the repositories the user owns or may access (the API's
	// GET /user/repos), most recently updated first.
	Repos []*repo.Repository
	Pager pager
	Orgs  []*user.User
	// OrgCount is how many organizations the user belongs to.
	OrgCount int64
	// AssignedIssues and AssignedPulls count the open issues and pull
	// requests assigned to the user in repositories whose unit they may read.
	AssignedIssues, AssignedPulls int64
	CanCreateOrg                  bool
	// Feed is the recent activity in the user's repositories and their own.
	Feed []feedEntry
}

// dashboardFeedLimit is how many actions the dashboard shows.
const dashboardFeedLimit = 20

// feedEntry is one action as the dashboard shows it.
type feedEntry struct {
	*activity.Action
	// Verb says what happened ("pushed to", "opened issue", ...).
	Verb string
	// Ref is the branch or tag name, Link the issue, pull request, release,
	// branch or repository page the action points at, and Title its text.
	Ref, Link, Title string
	// Commits are the newest commits of a push.
	Commits []*activity.PushCommit
}

// dashboard lists the signed-in user's repositories (owned, collaborating,
// through teams), organizations and open work assigned to them, in a fixed
// number of queries.
func (h *Handler) dashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u := doer(r)
	data := dashboardPage{Keyword: strings.TrimSpace(r.URL.Query().Get("q")), CanCreateOrg: canCreateOrg(u)}
	where, args := repo.AccessibleCond(u.ID)
	if data.Keyword != "" {
		kw, kwArgs, err := repo.SearchOptions{Keyword: data.Keyword, IncludeDesc: true}.Cond()
		if err != nil {
			return err
		}
		where = "(" + where + ") AND " + kw
		args = append(args, kwArgs...)
	}
	vis, visArgs := access.RepoCond(u)
	page := pageNumber(r)
	list, total, err := h.Repos.ListVisible(ctx, where, args, vis, visArgs, "r.updated_unix DESC, r.id DESC", listPageSize, (page-1)*listPageSize)
	if err != nil {
		return err
	}
	data.Repos, data.Pager = list, newPager(r, page, total)
	if data.Orgs, data.OrgCount, err = h.Orgs.ListUserOrgs(ctx, u.ID, true, "", nil, dashboardOrgLimit, 0); err != nil {
		return err
	}
	if data.AssignedIssues, data.AssignedPulls, err = h.assignedCounts(ctx, u); err != nil {
		return err
	}
	actions, _, err := h.Activity.Feed(ctx, u, activity.FeedOptions{Page: 1, Limit: dashboardFeedLimit})
	if err != nil {
		return err
	}
	for _, a := range actions {
		data.Feed = append(data.Feed, newFeedEntry(a))
	}
	return h.render(w, r, http.StatusOK, "dashboard", "Dashboard", data)
}

// assignedCounts counts the open issues and pull requests assigned to u,
// only in repositories u may see and whose issues (or pull requests) unit u
// may read: one grouped count, the repositories, their owners and the
// permissions in batches.
func (h *Handler) assignedCounts(ctx context.Context, u *user.User) (issues, pulls int64, err error) {
	type bucket struct {
		repoID int64
		isPull bool
		n      int64
	}
	rows, err := h.DB.Query(ctx, `SELECT i.repo_id, i.is_pull, COUNT(*) FROM issue i JOIN issue_assignees a ON a.issue_id = i.id
		WHERE a.assignee_id = ? AND i.is_closed = ? GROUP BY i.repo_id, i.is_pull ORDER BY COUNT(*) DESC, i.repo_id`+
		db.LimitOffset(assignedRepoLimit, 0), u.ID, false)
	if err != nil {
		return 0, 0, err
	}
	var buckets []bucket
	var ids []int64
	seen := map[int64]bool{}
	for rows.Next() {
		var b bucket
		if err := rows.Scan(&b.repoID, &b.isPull, &b.n); err != nil {
			rows.Close()
			return 0, 0, err
		}
		buckets = append(buckets, b)
		if !seen[b.repoID] {
			seen[b.repoID] = true
			ids = append(ids, b.repoID)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return 0, 0, err
	}
	vis, visArgs := access.RepoCond(u)
	repos, err := h.Repos.List(ctx, "WHERE r.id IN "+db.In(len(ids))+" AND "+vis, append(db.Int64Args(ids), visArgs...)...)
	if err != nil {
		return 0, 0, err
	}
	ownerIDs := make([]int64, 0, len(repos))
	for _, rp := range repos {
		ownerIDs = append(ownerIDs, rp.OwnerID)
	}
	owners, err := h.Users.Store.GetByIDs(ctx, ownerIDs)
	if err != nil {
		return 0, 0, err
	}
	perms, err := h.Access.RepoPermissions(ctx, u, repos, owners)
	if err != nil {
		return 0, 0, err
	}
	for _, b := range buckets {
		p, ok := perms[b.repoID]
		switch {
		case !ok:
		case b.isPull && p.CanRead(repo.UnitPulls):
			pulls += b.n
		case !b.isPull && p.CanRead(repo.UnitIssues):
			issues += b.n
		}
	}
	return issues, pulls, nil
}

// canCreateOrg reports whether u may create organizations (the API's rule
// for POST /orgs).
func canCreateOrg(u *user.User) bool {
	return u != nil && (u.IsAdmin || (u.AllowCreateOrganization && !u.IsRestricted))
}

// feedVerbs are the dashboard's words for each kind of action.
var feedVerbs = map[activity.OpType]string{
	activity.OpCreateRepo: "created repository", activity.OpRenameRepo: "renamed repository",
	activity.OpTransferRepo: "transferred repository", activity.OpCommitRepo: "pushed to",
	activity.OpPushTag: "pushed tag", activity.OpDeleteTag: "deleted tag", activity.OpDeleteBranch: "deleted branch",
	activity.OpCreateIssue: "opened issue", activity.OpCloseIssue: "closed issue", activity.OpReopenIssue: "reopened issue",
	activity.OpCommentIssue: "commented on issue", activity.OpCreatePullRequest: "opened pull request",
	activity.OpClosePullRequest: "closed pull request", activity.OpReopenPullRequest: "reopened pull request",
	activity.OpMergePullRequest: "merged pull request", activity.OpAutoMergePullRequest: "merged pull request",
	activity.OpCommentPull: "commented on pull request", activity.OpApprovePullRequest: "approved pull request",
	activity.OpRejectPullRequest: "requested changes on pull request", activity.OpPublishRelease: "published release",
	activity.OpPullReviewDismissed: "dismissed a review of pull request", activity.OpMirrorSyncPush: "synced",
}

// newFeedEntry describes an action for the dashboard.
func newFeedEntry(a *activity.Action) feedEntry {
	e := feedEntry{Action: a, Verb: feedVerbs[a.OpType]}
	if e.Verb == "" {
		e.Verb = strings.ReplaceAll(a.OpType.String(), "_", " ")
	}
	if a.Repo == nil {
		return e
	}
	repoLink := "/" + escapeSegments(a.Repo.OwnerName+"/"+a.Repo.Name)
	e.Link = repoLink
	switch {
	case a.IssueIndex() > 0:
		kind := "issues"
		if a.Issue != nil && a.Issue.IsPull {
			kind = "pulls"
		}
		e.Link = fmt.Sprintf("%s/%s/%d", repoLink, kind, a.IssueIndex())
		e.Title = fmt.Sprintf("#%d", a.IssueIndex())
		if a.Issue != nil {
			e.Title += " " + a.Issue.Title
		}
	case strings.HasPrefix(a.RefName, "refs/heads/"):
		e.Ref = strings.TrimPrefix(a.RefName, "refs/heads/")
		e.Link = repoLink + "/src/branch/" + escapeSegments(e.Ref)
	case strings.HasPrefix(a.RefName, "refs/tags/"):
		e.Ref = strings.TrimPrefix(a.RefName, "refs/tags/")
		e.Link = repoLink + "/src/tag/" + escapeSegments(e.Ref)
		if a.OpType == activity.OpPublishRelease {
			e.Link = repoLink + "/releases/tag/" + escapeSegments(e.Ref)
			e.Title = a.Content
		}
	}
	if a.OpType == activity.OpCommitRepo || a.OpType == activity.OpPushTag {
		var pc activity.PushCommits
		if json.Unmarshal([]byte(a.Content), &pc) == nil {
			e.Commits = pc.Commits
		}
	}
	return e
}
