package v1

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
	"github.com/cairn-forge/cairn/internal/webhook"
)

// AddWebhookSources makes the API's converters the webhooks' event source:
// each change of an issue, pull request, release, reference, commit status
// or repository is turned into Gitea's payload, inside the transaction of
// the change, for the hooks that want it. Call it once while wiring.
func (a *API) AddWebhookSources() {
	if a.Webhooks == nil {
		return
	}
	a.Issues.AddTxListener(a.issueHookEvent)
	a.Pulls.AddTxListener(a.pullHookEvent)
	a.Releases.AddListener(a.releaseHookEvent)
	a.Repos.AddPushTxListener(a.pushHookEvents)
	a.Repos.AddStatusTxListener(a.statusHookEvent)
	a.Repos.AddCreateHook(a.repoCreatedHookEvents)
	a.Repos.AddDeleteHook(a.repoDeletedHookEvent)
	a.Webhooks.SetPushTester(a.testPushPayload)
}

// pushCommitsShown bounds the commits a push payload lists (total_commits
// still counts them all).
const pushCommitsShown = 20

// hookRepo renders a repository for payloads as Gitea does: as its owner
// sees it (full permissions), with nothing private about other users.
func (a *API) hookRepo(ctx context.Context, r *repo.Repository) (*types.Repository, error) {
	out, err := a.toRepoOne(ctx, nil, r)
	if err != nil {
		return nil, err
	}
	out.Permissions = &types.Permission{Admin: true, Push: true, Pull: true}
	return out, nil
}

// hookUser renders a user for payloads (as an anonymous viewer: private
// e-mail addresses stay hidden). nil is the ghost user.
func (a *API) hookUser(u *user.User) *types.User {
	if u == nil {
		u = user.Ghost()
	}
	return a.toUser(u, nil)
}

func (a *API) hookUserByID(ctx context.Context, id int64) (*types.User, error) {
	if id <= 0 {
		return a.hookUser(nil), nil
	}
	u, err := a.Users.Store.GetByID(ctx, id)
	if errs.IsNotFound(err) {
		return a.hookUser(nil), nil
	}
	if err != nil {
		return nil, err
	}
	return a.hookUser(u), nil
}

// fire records e for r's hooks (the repository's, its owner's, the system's).
func (a *API) fire(ctx context.Context, r *repo.Repository, t webhook.EventType, branch string, payload func(ctx context.Context) (any, error)) error {
	return a.Webhooks.Fire(ctx, webhook.Event{Type: t, RepoID: r.ID, OwnerID: r.OwnerID, Branch: branch, Payload: payload})
}

// hookRepoContext is the repoContext converters need, for a payload.
func (a *API) hookRepoContext(ctx context.Context, r *repo.Repository) (*repoContext, error) {
	owner, err := a.Users.Store.GetByID(ctx, r.OwnerID)
	if err != nil {
		return nil, err
	}
	return &repoContext{Owner: owner, Repo: r}, nil
}

// hookPull renders the pull request of issue is.
func (a *API) hookPull(ctx context.Context, r *repo.Repository, p *pull.PullRequest) (*types.PullRequest, error) {
	rc, err := a.hookRepoContext(ctx, r)
	if err != nil {
		return nil, err
	}
	list, err := a.toPulls(ctx, rc, []*pull.PullRequest{p}, nil)
	if err != nil {
		return nil, err
	}
	return list[0], nil
}

// issueEventTypes maps an issue event to the hook events of issues and of
// pull requests and the payload's action.
func issueEventTypes(k issue.EventKind) (forIssue, forPull webhook.EventType, action string) {
	switch k {
	case issue.EventOpened, issue.EventClosed, issue.EventReopened, issue.EventEdited:
		return webhook.EventIssues, webhook.EventPullRequest, string(k)
	case issue.EventAssigned, issue.EventUnassigned:
		return webhook.EventIssueAssign, webhook.EventPullRequestAssign, string(k)
	case issue.EventLabelUpdated, issue.EventLabelCleared:
		return webhook.EventIssueLabel, webhook.EventPullRequestLabel, string(k)
	case issue.EventMilestoned, issue.EventDemilestoned:
		return webhook.EventIssueMilestone, webhook.EventPullRequestMilestone, string(k)
	case issue.EventCommentCreated:
		return webhook.EventIssueComment, webhook.EventPullRequestComment, "created"
	case issue.EventCommentEdited:
		return webhook.EventIssueComment, webhook.EventPullRequestComment, "edited"
	case issue.EventCommentDeleted:
		return webhook.EventIssueComment, webhook.EventPullRequestComment, "deleted"
	}
	return "", "", ""
}

// changes is the payload's record of what an edit changed.
func changes(e issue.Event) *types.ChangesPayload {
	switch e.Changed {
	case "title":
		return &types.ChangesPayload{Title: &types.ChangesFromPayload{From: e.From}}
	case "body":
		return &types.ChangesPayload{Body: &types.ChangesFromPayload{From: e.From}}
	}
	return nil
}

// issueHookEvent is the issue.TxListener of webhooks.
func (a *API) issueHookEvent(ctx context.Context, e issue.Event) error {
	if e.Repo == nil || e.Issue == nil || e.Doer == nil {
		return nil
	}
	forIssue, forPull, action := issueEventTypes(e.Kind)
	if forIssue == "" {
		return nil
	}
	is, r := e.Issue, e.Repo
	t := forIssue
	if is.IsPull {
		t = forPull
	}
	comment := e.Kind == issue.EventCommentCreated || e.Kind == issue.EventCommentEdited || e.Kind == issue.EventCommentDeleted
	return a.fire(ctx, r, t, "", func(ctx context.Context) (any, error) {
		repoOut, err := a.hookRepo(ctx, r)
		if err != nil {
			return nil, err
		}
		issueOut, err := a.toIssueOne(ctx, is, r, nil)
		if err != nil {
			return nil, err
		}
		sender := a.hookUser(e.Doer)
		if comment {
			p := &types.IssueCommentPayload{Action: types.HookIssueCommentAction(action), Issue: issueOut,
				Repository: repoOut, Sender: sender, IsPull: is.IsPull}
			if e.Comment != nil {
				list, err := a.toComments(ctx, []*issue.Comment{e.Comment}, r, map[int64]*issue.Issue{is.ID: is}, nil)
				if err != nil {
					return nil, err
				}
				if len(list) > 0 {
					p.Comment = list[0]
				}
			}
			if e.Kind == issue.EventCommentEdited {
				p.Changes = &types.ChangesPayload{Body: &types.ChangesFromPayload{From: e.From}}
			}
			return p, nil
		}
		if !is.IsPull {
			return &types.IssuePayload{Action: types.HookIssueAction(action), Index: is.Index, Changes: changes(e),
				Issue: issueOut, Repository: repoOut, Sender: sender}, nil
		}
		p, err := a.Pulls.GetByIssueID(ctx, is.ID)
		if err != nil {
			return nil, err
		}
		p.Issue = is
		prOut, err := a.hookPull(ctx, r, p)
		if err != nil {
			return nil, err
		}
		return &types.PullRequestPayload{Action: types.HookIssueAction(action), Index: is.Index, Changes: changes(e),
			PullRequest: prOut, Repository: repoOut, Sender: sender}, nil
	})
}

// pullHookEvent is the pull.TxListener of webhooks.
func (a *API) pullHookEvent(ctx context.Context, e pull.Event) error {
	if e.Repo == nil || e.Pull == nil || e.Doer == nil {
		return nil
	}
	var t webhook.EventType
	var action string
	var review *pull.Review
	switch e.Kind {
	case pull.EventSynchronized:
		t, action = webhook.EventPullRequestSync, "synchronized"
	case pull.EventMerged:
		t, action = webhook.EventPullRequest, "closed"
	case pull.EventRetargeted:
		t, action = webhook.EventPullRequest, "edited"
	case pull.EventReviewRequested, pull.EventReviewUnrequest:
		if e.ReviewerID == 0 {
			return nil // a team: Gitea announces only user requests
		}
		t, action = webhook.EventPullRequestReviewRequest, string(e.Kind)
	case pull.EventReviewed:
		rv, err := a.Pulls.GetReview(ctx, e.ReviewID)
		if err != nil {
			return err
		}
		switch rv.Type {
		case pull.ReviewApprove:
			t = webhook.EventPullRequestReviewApproved
		case pull.ReviewReject:
			t = webhook.EventPullRequestReviewRejected
		case pull.ReviewComment:
			t = webhook.EventPullRequestReviewComment
		default:
			return nil
		}
		review, action = rv, "reviewed"
	default:
		return nil
	}
	p, r := e.Pull, e.Repo
	return a.fire(ctx, r, t, "", func(ctx context.Context) (any, error) {
		repoOut, err := a.hookRepo(ctx, r)
		if err != nil {
			return nil, err
		}
		if p.Issue == nil {
			if p.Issue, err = a.Issues.GetByID(ctx, p.IssueID); err != nil {
				return nil, err
			}
		}
		prOut, err := a.hookPull(ctx, r, p)
		if err != nil {
			return nil, err
		}
		out := &types.PullRequestPayload{Action: types.HookIssueAction(action), Index: p.Index, PullRequest: prOut,
			Repository: repoOut, Sender: a.hookUser(e.Doer)}
		if e.Kind == pull.EventSynchronized {
			out.CommitID = p.HeadCommitID
		}
		if review != nil {
			out.Review = &types.ReviewPayload{Type: string(t), Content: review.Content}
			out.CommitID = review.CommitID
		}
		if e.ReviewerID > 0 {
			if out.RequestedReviewer, err = a.hookUserByID(ctx, e.ReviewerID); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// releaseHookEvent is the release.Listener of webhooks; drafts are not
// announced (only writers may see them), as in Gitea.
func (a *API) releaseHookEvent(ctx context.Context, e release.Event) error {
	rel := e.Release
	if rel == nil || rel.IsTag || rel.IsDraft {
		return nil
	}
	r, err := a.Repos.GetByID(ctx, rel.RepoID)
	if err != nil {
		return err
	}
	return a.fire(ctx, r, webhook.EventRelease, "", func(ctx context.Context) (any, error) {
		rc, err := a.hookRepoContext(ctx, r)
		if err != nil {
			return nil, err
		}
		repoOut, err := a.hookRepo(ctx, r)
		if err != nil {
			return nil, err
		}
		list, err := a.toReleases(ctx, rc, nil, []*release.Release{rel})
		if err != nil {
			return nil, err
		}
		sender, err := a.hookUserByID(ctx, e.DoerID)
		if err != nil {
			return nil, err
		}
		return &types.ReleasePayload{Action: types.HookReleaseAction(e.Kind), Release: list[0], Repository: repoOut, Sender: sender}, nil
	})
}

// refKind splits a reference into its kind (branch or tag) and short name;
// other references (pull request heads, notes) are not announced.
func refKind(ref string) (kind, name string) {
	if n, ok := strings.CutPrefix(ref, git.BranchPrefix); ok {
		return "branch", n
	}
	if n, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		return "tag", n
	}
	return "", ""
}

// pushHookEvents is the repo.PushTxListener of webhooks: for each branch
// or tag update a create or delete event, and a push event for each one
// that points somewhere, whoever made it (a push, the API, a merge). The
// payloads are built before the transaction, the deliveries written in it.
func (a *API) pushHookEvents(ctx context.Context, r *repo.Repository, req hooks.Request) (func(ctx context.Context) error, error) {
	var records []func(ctx context.Context) error
	prepare := func(t webhook.EventType, branch string, payload func(ctx context.Context) (any, error)) error {
		rec, err := a.Webhooks.Prepare(ctx, webhook.Event{Type: t, RepoID: r.ID, OwnerID: r.OwnerID, Branch: branch, Payload: payload})
		if err == nil {
			records = append(records, rec)
		}
		return err
	}
	for _, u := range req.Updates {
		kind, name := refKind(u.Ref)
		if kind == "" {
			continue
		}
		created, deleted := isZeroID(u.OldSHA), isZeroID(u.NewSHA)
		branch := ""
		if kind == "branch" {
			branch = name
		}
		if created {
			if err := prepare(webhook.EventCreate, branch, func(ctx context.Context) (any, error) {
				repoOut, sender, err := a.hookRepoAndUser(ctx, r, req.PusherID)
				if err != nil {
					return nil, err
				}
				return &types.CreatePayload{Sha: u.NewSHA, Ref: name, RefType: kind, Repo: repoOut, Sender: sender}, nil
			}); err != nil {
				return nil, err
			}
		}
		if deleted {
			if err := prepare(webhook.EventDelete, branch, func(ctx context.Context) (any, error) {
				repoOut, sender, err := a.hookRepoAndUser(ctx, r, req.PusherID)
				if err != nil {
					return nil, err
				}
				return &types.DeletePayload{Ref: name, RefType: kind, PusherType: "user", Repo: repoOut, Sender: sender}, nil
			}); err != nil {
				return nil, err
			}
			continue
		}
		if err := prepare(webhook.EventPush, branch, func(ctx context.Context) (any, error) {
			return a.pushPayload(ctx, r, req.PusherID, u)
		}); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context) error {
		for _, rec := range records {
			if err := rec(ctx); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func isZeroID(sha string) bool { return strings.Trim(sha, "0") == "" }

func (a *API) hookRepoAndUser(ctx context.Context, r *repo.Repository, uid int64) (*types.Repository, *types.User, error) {
	repoOut, err := a.hookRepo(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	u, err := a.hookUserByID(ctx, uid)
	return repoOut, u, err
}

// pushPayload is Gitea's push payload of one reference update: the
// commits it brings, newest first (at most pushCommitsShown, all counted),
// with their changed files, and the new head.
func (a *API) pushPayload(ctx context.Context, r *repo.Repository, pusherID int64, u hooks.RefUpdate) (*types.PushPayload, error) {
	rc, err := a.hookRepoContext(ctx, r)
	if err != nil {
		return nil, err
	}
	path := a.Repos.Path(r)
	opts := git.RevListOptions{Revs: []string{u.NewSHA}, Limit: pushCommitsShown}
	compare := ""
	if isZeroID(u.OldSHA) {
		// A new reference: what it brings beyond the default branch.
		kind, name := refKind(u.Ref)
		if !(kind == "branch" && name == r.DefaultBranch) && r.DefaultBranch != "" {
			if _, err := a.Repos.Git.ResolveCommit(ctx, path, git.BranchPrefix+r.DefaultBranch); err == nil {
				opts.Not = []string{git.BranchPrefix + r.DefaultBranch}
			}
		}
	} else {
		opts.Not = []string{u.OldSHA}
		compare = a.repoHTMLURL(rc) + "/compare/" + u.OldSHA + "..." + u.NewSHA
	}
	shas, err := a.Repos.Git.RevList(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	total := len(shas)
	if total == pushCommitsShown {
		if total, err = a.Repos.Git.CountCommits(ctx, path, opts); err != nil {
			return nil, err
		}
	}
	revs := shas
	headIncluded := len(shas) > 0 && shas[0] == u.NewSHA
	if !headIncluded {
		revs = append([]string{u.NewSHA}, shas...)
	}
	objs, err := a.Repos.Git.ReadCommits(ctx, path, revs)
	if err != nil {
		return nil, err
	}
	plain := make([]git.Commit, len(objs))
	for i, c := range objs {
		plain[i] = c.Commit
	}
	files, err := a.Repos.Git.CommitsFiles(ctx, path, plain)
	if err != nil {
		return nil, err
	}
	emails := make([]string, 0, 2*len(objs))
	for _, c := range objs {
		emails = append(emails, c.Author.Email, c.Committer.Email)
	}
	users, err := a.usersByEmail(ctx, nil, emails)
	if err != nil {
		return nil, err
	}
	toCommit := func(c git.CommitObject) *types.PayloadCommit {
		pc := a.toPayloadCommit(rc, c, users)
		pc.Added, pc.Removed, pc.Modified = []string{}, []string{}, []string{}
		for _, f := range files[c.SHA] {
			switch f.Status {
			case "A":
				pc.Added = append(pc.Added, f.Path)
			case "D":
				pc.Removed = append(pc.Removed, f.Path)
			default:
				pc.Modified = append(pc.Modified, f.Path)
			}
		}
		return pc
	}
	verified, err := a.verifications(ctx, objs)
	if err != nil {
		return nil, err
	}
	commits := make([]*types.PayloadCommit, 0, len(shas))
	var head *types.PayloadCommit
	for i, c := range objs {
		pc := toCommit(c)
		pc.Verification = verified[i]
		if i == 0 {
			head = pc
		}
		if i > 0 || headIncluded {
			commits = append(commits, pc)
		}
	}
	repoOut, err := a.hookRepo(ctx, r)
	if err != nil {
		return nil, err
	}
	pusher, err := a.hookUserByID(ctx, pusherID)
	if err != nil {
		return nil, err
	}
	return &types.PushPayload{Ref: u.Ref, Before: u.OldSHA, After: u.NewSHA, CompareURL: compare, Commits: commits,
		TotalCommits: total, HeadCommit: head, Repo: repoOut, Pusher: pusher, Sender: pusher}, nil
}

// testPushPayload is the webhook.PushTester of hook tests: the head commit
// of ref (default branch when empty) as a one-commit push by sender.
func (a *API) testPushPayload(ctx context.Context, repoID int64, sender *user.User, ref string) ([]byte, error) {
	rp, err := a.Repos.GetByID(ctx, repoID)
	if err != nil {
		return nil, err
	}
	rc, err := a.hookRepoContext(ctx, rp)
	if err != nil {
		return nil, err
	}
	if ref == "" {
		ref = rc.Repo.DefaultBranch
	}
	full := ref
	if !strings.HasPrefix(full, "refs/") {
		full = git.BranchPrefix + ref
	}
	path := a.Repos.Path(rc.Repo)
	sha, err := a.Repos.Git.ResolveCommit(ctx, path, full)
	if err != nil {
		return nil, errs.NotFound("GetRefCommitID: reference %q does not exist", ref)
	}
	objs, err := a.Repos.Git.ReadCommits(ctx, path, []string{sha})
	if err != nil {
		return nil, err
	}
	users, err := a.usersByEmail(ctx, nil, []string{objs[0].Author.Email, objs[0].Committer.Email})
	if err != nil {
		return nil, err
	}
	commit := a.toPayloadCommit(rc, objs[0], users)
	commit.Added, commit.Removed, commit.Modified = []string{}, []string{}, []string{}
	repoOut, err := a.hookRepo(ctx, rc.Repo)
	if err != nil {
		return nil, err
	}
	caller := a.hookUser(sender)
	return json.Marshal(&types.PushPayload{Ref: full, Before: sha, After: sha, CompareURL: a.repoHTMLURL(rc) + "/compare/" + sha + "..." + sha,
		Commits: []*types.PayloadCommit{commit}, TotalCommits: 1, HeadCommit: commit, Repo: repoOut, Pusher: caller, Sender: caller})
}

// statusHookEvent is the repo.StatusTxListener of webhooks.
func (a *API) statusHookEvent(ctx context.Context, r *repo.Repository, c *repo.CommitStatus) error {
	return a.fire(ctx, r, webhook.EventStatus, "", func(ctx context.Context) (any, error) {
		rc, err := a.hookRepoContext(ctx, r)
		if err != nil {
			return nil, err
		}
		repoOut, sender, err := a.hookRepoAndUser(ctx, r, c.CreatorID)
		if err != nil {
			return nil, err
		}
		out := &types.CommitStatusPayload{ID: c.ID, SHA: c.SHA, State: c.State, TargetURL: c.TargetURL,
			Description: c.Description, Context: c.Context, Repo: repoOut, Sender: sender,
			CreatedAt: c.Created, UpdatedAt: c.Updated}
		if objs, err := a.Repos.Git.ReadCommits(ctx, a.Repos.Path(r), []string{c.SHA}); err == nil && len(objs) == 1 {
			users, err := a.usersByEmail(ctx, nil, []string{objs[0].Author.Email, objs[0].Committer.Email})
			if err != nil {
				return nil, err
			}
			out.Commit = a.toPayloadCommit(rc, objs[0], users)
		}
		return out, nil
	})
}

// repoCreatedHookEvents is the repo.CreateHook of webhooks: a repository
// event for the owner's and system hooks and, for a fork, a fork event for
// the original's hooks.
func (a *API) repoCreatedHookEvents(ctx context.Context, doer *user.User, r *repo.Repository) error {
	if err := a.fire(ctx, r, webhook.EventRepository, "", func(ctx context.Context) (any, error) {
		return a.repositoryPayload(ctx, r, "created", doer)
	}); err != nil {
		return err
	}
	if !r.IsFork || r.ForkID == 0 {
		return nil
	}
	base, err := a.Repos.GetByID(ctx, r.ForkID)
	if errs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return a.fire(ctx, base, webhook.EventFork, "", func(ctx context.Context) (any, error) {
		baseOut, err := a.hookRepo(ctx, base)
		if err != nil {
			return nil, err
		}
		forkOut, err := a.hookRepo(ctx, r)
		if err != nil {
			return nil, err
		}
		return &types.ForkPayload{Forkee: baseOut, Repo: forkOut, Sender: a.hookUser(doer)}, nil
	})
}

// repoDeletedHookEvent is the repo.DeleteHook of webhooks: the owner's and
// system hooks hear of it (the repository's own hooks go with it). The
// sender is the owner: deletion does not carry who asked.
func (a *API) repoDeletedHookEvent(ctx context.Context, r *repo.Repository) error {
	return a.fire(ctx, r, webhook.EventRepository, "", func(ctx context.Context) (any, error) {
		owner, err := a.Users.Store.GetByID(ctx, r.OwnerID)
		if err != nil {
			return nil, err
		}
		return a.repositoryPayload(ctx, r, "deleted", owner)
	})
}

func (a *API) repositoryPayload(ctx context.Context, r *repo.Repository, action string, doer *user.User) (*types.RepositoryPayload, error) {
	repoOut, err := a.hookRepo(ctx, r)
	if err != nil {
		return nil, err
	}
	out := &types.RepositoryPayload{Action: types.HookRepoAction(action), Repository: repoOut, Sender: a.hookUser(doer)}
	if owner, err := a.Users.Store.GetByID(ctx, r.OwnerID); err == nil && owner.IsOrganization() {
		out.Organization = a.hookUser(owner)
	}
	return out, nil
}
