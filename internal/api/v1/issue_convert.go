package v1

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (a *API) repoLink(r *repo.Repository) string { return a.rootURL + r.FullName() }

func (a *API) toLabel(l *issue.Label, r *repo.Repository, orgName string) *types.Label {
	out := &types.Label{ID: l.ID, Name: l.Name, Exclusive: l.Exclusive, IsArchived: l.IsArchived(), Color: l.Color, Description: l.Description}
	switch {
	case l.RepoID > 0 && r != nil:
		out.URL = a.rootURL + "api/v1/repos/" + r.FullName() + "/labels/" + strconv.FormatInt(l.ID, 10)
	case l.OrgID > 0 && orgName != "":
		out.URL = a.rootURL + "api/v1/orgs/" + url.PathEscape(orgName) + "/labels/" + strconv.FormatInt(l.ID, 10)
	}
	return out
}

func toMilestone(m *issue.Milestone) *types.Milestone {
	if m == nil {
		return nil
	}
	updated := m.Updated
	return &types.Milestone{ID: m.ID, Title: m.Name, Description: m.Content, State: m.State(),
		OpenIssues: m.NumIssues - m.NumClosedIssues, ClosedIssues: m.NumClosedIssues, Created: m.Created,
		Updated: &updated, Closed: timePtr(m.Closed), Deadline: timePtr(m.Deadline)}
}

// issueExtras are the rows a list of issues needs, loaded in batches.
type issueExtras struct {
	users       map[int64]*user.User
	labels      map[int64][]*issue.Label
	milestones  map[int64]*issue.Milestone
	assignees   map[int64][]int64
	repos       map[int64]*repo.Repository
	attachments map[int64][]*issue.Attachment
	pulls       map[int64]*pull.PullRequest
}

// loadIssueExtras loads posters, assignees, labels, milestones, repositories,
// attachments and pull requests of list with a fixed number of queries;
// pulls, when the caller has them, are the pull requests of list's pull
// request issues by issue id (nil: loaded).
func (a *API) loadIssueExtras(ctx context.Context, list []*issue.Issue, repos map[int64]*repo.Repository,
	pulls map[int64]*pull.PullRequest) (*issueExtras, error) {
	ex := &issueExtras{repos: repos, pulls: pulls}
	ids := make([]int64, 0, len(list))
	var userIDs, milestoneIDs, repoIDs []int64
	for _, is := range list {
		ids = append(ids, is.ID)
		userIDs = append(userIDs, is.PosterID)
		if is.MilestoneID > 0 {
			milestoneIDs = append(milestoneIDs, is.MilestoneID)
		}
		if _, ok := repos[is.RepoID]; !ok {
			repoIDs = append(repoIDs, is.RepoID)
		}
	}
	var err error
	if ex.assignees, err = a.Issues.AssigneesOf(ctx, ids); err != nil {
		return nil, err
	}
	for _, as := range ex.assignees {
		userIDs = append(userIDs, as...)
	}
	if len(repoIDs) > 0 {
		more, err := a.Repos.Store.GetByIDs(ctx, repoIDs)
		if err != nil {
			return nil, err
		}
		if ex.repos == nil {
			ex.repos = map[int64]*repo.Repository{}
		}
		for id, r := range more {
			ex.repos[id] = r
		}
	}
	if ex.users, err = a.Users.Store.GetByIDs(ctx, userIDs); err != nil {
		return nil, err
	}
	if ex.labels, err = a.Issues.LabelsOf(ctx, ids); err != nil {
		return nil, err
	}
	if ex.milestones, err = a.Issues.MilestonesByIDs(ctx, milestoneIDs); err != nil {
		return nil, err
	}
	if ex.attachments, err = a.Issues.AttachmentsOfIssues(ctx, ids); err != nil {
		return nil, err
	}
	if ex.pulls != nil {
		return ex, nil
	}
	var pullIDs []int64
	for _, is := range list {
		if is.IsPull {
			pullIDs = append(pullIDs, is.ID)
		}
	}
	if ex.pulls, err = a.Pulls.ByIssueIDs(ctx, pullIDs); err != nil {
		return nil, err
	}
	return ex, nil
}

// userOrGhost returns the loaded user id, or Gitea's ghost for deleted accounts.
func (ex *issueExtras) userOrGhost(id int64) *user.User {
	if u, ok := ex.users[id]; ok {
		return u
	}
	return user.Ghost()
}

func (a *API) toIssue(is *issue.Issue, ex *issueExtras, v *user.User) *types.Issue {
	r := ex.repos[is.RepoID]
	out := &types.Issue{
		ID: is.ID, Index: is.Index, Poster: a.toUser(ex.userOrGhost(is.PosterID), v), OriginalAuthor: is.OriginalAuthor,
		OriginalAuthorID: is.OriginalAuthorID, Title: is.Title, Body: is.Content, Ref: is.Ref, State: is.State(),
		IsLocked: is.IsLocked, Comments: is.NumComments, Created: types.Time(is.Created), Updated: types.Time(is.Updated),
		Closed: timePtr(is.Closed), Deadline: timePtr(is.Deadline), PinOrder: is.PinOrder,
		Labels: []*types.Label{}, Assignees: nil, Attachments: []*types.Attachment{},
	}
	if r != nil {
		owner := r.OwnerName
		out.URL = a.rootURL + "api/v1/repos/" + r.FullName() + "/issues/" + strconv.FormatInt(is.Index, 10)
		kind := "/issues/"
		if is.IsPull {
			kind = "/pulls/"
		}
		out.HTMLURL = a.repoLink(r) + kind + strconv.FormatInt(is.Index, 10)
		out.Repo = &types.RepositoryMeta{ID: r.ID, Name: r.Name, Owner: owner, FullName: r.FullName()}
		for _, l := range ex.labels[is.ID] {
			out.Labels = append(out.Labels, a.toLabel(l, r, owner))
		}
		for _, at := range ex.attachments[is.ID] {
			out.Attachments = append(out.Attachments, a.toAttachment(at, r))
		}
		if is.IsPull {
			meta := &types.PullRequestMeta{HTMLURL: out.HTMLURL,
				IsDraft: pull.IsWorkInProgress(is.Title, a.Pulls.WorkInProgressPrefixes())}
			if p, ok := ex.pulls[is.ID]; ok && p.HasMerged {
				t := p.Merged
				meta.HasMerged, meta.Merged = true, &t
			}
			out.PullRequest = meta
		}
	}
	if m, ok := ex.milestones[is.MilestoneID]; ok {
		out.Milestone = toMilestone(m)
	}
	for i, id := range ex.assignees[is.ID] {
		u := a.toUser(ex.userOrGhost(id), v)
		if i == 0 {
			out.Assignee = u
		}
		out.Assignees = append(out.Assignees, u)
	}
	return out
}

// toIssues renders a list of issues for the caller. repos may hold the
// repositories already loaded (nil for none).
func (a *API) toIssues(ctx context.Context, list []*issue.Issue, repos map[int64]*repo.Repository, v *user.User) ([]*types.Issue, error) {
	ex, err := a.loadIssueExtras(ctx, list, repos, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*types.Issue, 0, len(list))
	for _, is := range list {
		out = append(out, a.toIssue(is, ex, v))
	}
	return out, nil
}

func (a *API) toIssueOne(ctx context.Context, is *issue.Issue, r *repo.Repository, v *user.User) (*types.Issue, error) {
	list, err := a.toIssues(ctx, []*issue.Issue{is}, map[int64]*repo.Repository{r.ID: r}, v)
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

// toComments renders plain comments of one repository with posters and attachments in batches.
func (a *API) toComments(ctx context.Context, list []*issue.Comment, r *repo.Repository, issues map[int64]*issue.Issue, v *user.User) ([]*types.Comment, error) {
	var userIDs, ids []int64
	for _, c := range list {
		userIDs = append(userIDs, c.PosterID)
		ids = append(ids, c.ID)
	}
	users, err := a.Users.Store.GetByIDs(ctx, userIDs)
	if err != nil {
		return nil, err
	}
	atts, err := a.Issues.AttachmentsOfComments(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*types.Comment, 0, len(list))
	for _, c := range list {
		poster, ok := users[c.PosterID]
		if !ok {
			poster = user.Ghost()
		}
		tc := &types.Comment{ID: c.ID, Poster: a.toUser(poster, v), OriginalAuthor: c.OriginalAuthor,
			OriginalAuthorID: c.OriginalAuthorID, Body: c.Content, Created: types.Time(c.Created), Updated: types.Time(c.Updated),
			Attachments: []*types.Attachment{}}
		if is, ok := issues[c.IssueID]; ok {
			idx := strconv.FormatInt(is.Index, 10)
			if is.IsPull {
				tc.PRURL = a.repoLink(r) + "/pulls/" + idx
				tc.HTMLURL = tc.PRURL + "#issuecomment-" + strconv.FormatInt(c.ID, 10)
			} else {
				tc.IssueURL = a.repoLink(r) + "/issues/" + idx
				tc.HTMLURL = tc.IssueURL + "#issuecomment-" + strconv.FormatInt(c.ID, 10)
			}
		}
		for _, at := range atts[c.ID] {
			tc.Attachments = append(tc.Attachments, a.toAttachment(at, r))
		}
		out = append(out, tc)
	}
	return out, nil
}

func (a *API) toAttachment(at *issue.Attachment, r *repo.Repository) *types.Attachment {
	return &types.Attachment{ID: at.ID, Name: at.Name, Size: at.Size, DownloadCount: at.DownloadCount, Created: at.Created,
		UUID: at.UUID, DownloadURL: a.rootURL + "attachments/" + at.UUID}
}
