package v1

import (
	"context"
	"strconv"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// toPulls renders pull requests of the current repository (the base) for
// the caller with a fixed number of queries: issue extras, head
// repositories, review requests, review comment counts, extra users and
// teams. Branch tips are read with one for-each-ref per repository.
func (a *API) toPulls(ctx context.Context, rc *repoContext, list []*pull.PullRequest, v *user.User) ([]*types.PullRequest, error) {
	issues := make([]*issue.Issue, len(list))
	ids := make([]int64, len(list))
	byIssue := make(map[int64]*pull.PullRequest, len(list))
	headIDs := []int64{}
	for i, p := range list {
		issues[i], ids[i] = p.Issue, p.IssueID
		byIssue[p.IssueID] = p
		if !p.IsSameRepo() && p.Flow == pull.FlowBranch {
			headIDs = append(headIDs, p.HeadRepoID)
		}
	}
	ex, err := a.loadIssueExtras(ctx, issues, map[int64]*repo.Repository{rc.Repo.ID: rc.Repo}, byIssue)
	if err != nil {
		return nil, err
	}
	heads, err := a.Repos.Store.GetByIDs(ctx, headIDs)
	if err != nil {
		return nil, err
	}
	repoList := []*repo.Repository{rc.Repo}
	for _, h := range heads {
		repoList = append(repoList, h)
	}
	wire, err := a.toRepos(ctx, v, repoList)
	if err != nil {
		return nil, err
	}
	wireByID := map[int64]*types.Repository{}
	for i, rp := range repoList {
		wireByID[rp.ID] = wire[i]
	}
	requests, err := a.Pulls.ReviewRequestsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	counts, err := a.Pulls.ReviewCommentCounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	var userIDs, teamIDs []int64
	for _, p := range list {
		if p.MergerID > 0 {
			userIDs = append(userIDs, p.MergerID)
		}
		for _, rr := range requests[p.IssueID] {
			if rr.ReviewerID > 0 {
				userIDs = append(userIDs, rr.ReviewerID)
			}
			if rr.TeamID > 0 {
				teamIDs = append(teamIDs, rr.TeamID)
			}
		}
	}
	users, err := a.Users.Store.GetByIDs(ctx, userIDs)
	if err != nil {
		return nil, err
	}
	teams, err := a.Orgs.TeamsByIDs(ctx, teamIDs)
	if err != nil {
		return nil, err
	}
	tips := newBranchTips(a, ctx)
	for _, p := range list {
		tips.want(rc.Repo, git.BranchPrefix+p.BaseBranch)
		if pullHeadRepo(p, rc.Repo, heads) == nil {
			tips.want(rc.Repo, p.HeadRef()) // no head branch to read
		}
		if h := pullHeadRepo(p, rc.Repo, heads); h != nil {
			tips.want(h, git.BranchPrefix+p.HeadBranch)
		}
	}
	out := make([]*types.PullRequest, 0, len(list))
	for _, p := range list {
		out = append(out, a.toPull(p, rc, ex, wireByID, heads, users, teams, requests[p.IssueID], counts[p.IssueID], tips, v))
	}
	return out, nil
}

// branchTips reads the references pull requests show, with one git call
// per repository for all of them.
type branchTips struct {
	a      *API
	ctx    context.Context
	wanted map[int64]map[string]bool
	repos  map[int64]*repo.Repository
	got    map[int64]map[string]string
}

func newBranchTips(a *API, ctx context.Context) *branchTips {
	return &branchTips{a: a, ctx: ctx, wanted: map[int64]map[string]bool{}, repos: map[int64]*repo.Repository{}}
}

// want notes a reference of r to read.
func (b *branchTips) want(r *repo.Repository, ref string) {
	if b.wanted[r.ID] == nil {
		b.wanted[r.ID] = map[string]bool{}
	}
	b.wanted[r.ID][ref] = true
	b.repos[r.ID] = r
}

// get returns the commit of ref in r ("" when it does not exist), reading
// every wanted reference at the first call.
func (b *branchTips) get(r *repo.Repository, ref string) string {
	if b.got == nil {
		b.got = map[int64]map[string]string{}
		for id, refs := range b.wanted {
			list := make([]string, 0, len(refs))
			for ref := range refs {
				list = append(list, ref)
			}
			tips, err := b.a.Repos.Git.RefTips(b.ctx, b.a.Repos.Path(b.repos[id]), list)
			if err == nil {
				b.got[id] = tips
			}
		}
	}
	if sha, ok := b.got[r.ID][ref]; ok || b.wanted[r.ID][ref] {
		return sha
	}
	// Not asked for beforehand (a fallback): read it alone.
	tips, err := b.a.Repos.Git.RefTips(b.ctx, b.a.Repos.Path(r), []string{ref})
	if err != nil {
		return ""
	}
	return tips[ref]
}

func (a *API) toPull(p *pull.PullRequest, rc *repoContext, ex *issueExtras, wire map[int64]*types.Repository,
	heads map[int64]*repo.Repository, users map[int64]*user.User, teams map[int64]*org.Team,
	requests []pull.PendingRequest, reviewComments int, tips *branchTips, v *user.User) *types.PullRequest {
	is := p.Issue
	ti := a.toIssue(is, ex, v)
	base := rc.Repo
	link := a.repoLink(base) + "/pulls/" + strconv.FormatInt(p.Index, 10)
	created, updated := pullTimes(is)
	out := &types.PullRequest{
		ID: p.ID, URL: link, Index: p.Index, Poster: ti.Poster, Title: is.Title, Body: is.Content, Labels: ti.Labels,
		Milestone: ti.Milestone, Assignee: ti.Assignee, Assignees: ti.Assignees, State: is.State(),
		Draft: a.Pulls.IsWorkInProgress(p), IsLocked: is.IsLocked, Comments: is.NumComments, ReviewComments: reviewComments,
		Additions: p.Additions, Deletions: p.Deletions, ChangedFiles: p.ChangedFiles,
		HTMLURL: link, DiffURL: link + ".diff", PatchURL: link + ".patch",
		AllowMaintainerEdit: p.AllowMaintainerEdit, MergeBase: p.MergeBase, Deadline: ti.Deadline,
		Created: created, Updated: updated, Closed: ti.Closed, PinOrder: is.PinOrder,
		RequestedReviewers: []*types.User{}, RequestedReviewersTeams: []*types.Team{},
	}
	if p.Status != pull.StatusChecking {
		out.Mergeable = p.Status != pull.StatusConflict && p.Status != pull.StatusError && !out.Draft
	}
	if p.HasMerged {
		t, sha := p.Merged, p.MergedCommitID
		out.HasMerged, out.Merged, out.MergedCommitID = true, &t, &sha
		merger := users[p.MergerID]
		if merger == nil {
			merger = user.Ghost()
		}
		out.MergedBy = a.toUser(merger, v)
	}
	for _, rr := range requests {
		if u, ok := users[rr.ReviewerID]; ok && rr.ReviewerID > 0 {
			out.RequestedReviewers = append(out.RequestedReviewers, a.toUser(u, v))
		}
		if t, ok := teams[rr.TeamID]; ok && rr.TeamID > 0 {
			out.RequestedReviewersTeams = append(out.RequestedReviewersTeams, a.toTeam(t, rc.Owner, v))
		}
	}
	out.Base = &types.PRBranchInfo{Name: p.BaseBranch, Ref: p.BaseBranch, RepoID: base.ID, Repo: wire[base.ID],
		Sha: tips.get(base, git.BranchPrefix+p.BaseBranch)}
	head := &types.PRBranchInfo{Name: p.HeadBranch, Ref: p.HeadRef(), RepoID: -1}
	if p.Flow == pull.FlowAGit {
		head.RepoID, head.Repo = base.ID, wire[base.ID]
	}
	if headRepo := pullHeadRepo(p, base, heads); headRepo != nil {
		head.RepoID, head.Repo = headRepo.ID, wire[headRepo.ID]
		if sha := tips.get(headRepo, git.BranchPrefix+p.HeadBranch); sha != "" {
			head.Ref, head.Sha = p.HeadBranch, sha
		}
	}
	if head.Sha == "" {
		head.Sha = tips.get(base, p.HeadRef()) // read now if the head branch is gone
	}
	out.Head = head
	return out
}

// pullHeadRepo is the repository holding p's head branch, nil for AGit pull
// requests and deleted head repositories.
func pullHeadRepo(p *pull.PullRequest, base *repo.Repository, heads map[int64]*repo.Repository) *repo.Repository {
	switch {
	case p.Flow == pull.FlowAGit:
		return nil
	case p.IsSameRepo():
		return base
	}
	return heads[p.HeadRepoID]
}
