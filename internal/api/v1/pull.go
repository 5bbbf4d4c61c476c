package v1

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
)

// pullRoutes registers /repos/{owner}/{repo}/pulls and the commit's pull
// request. Reading needs read access to the pulls unit; opening one needs
// only that (readers propose from forks); merging needs code write access.
func (a *API) pullRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.reqUnitRead(repo.UnitPulls))
		r.Get("/pulls", a.handle(a.listPulls))
		r.With(a.signedIn).Post("/pulls", a.handle(a.createPull))
		r.Get("/pulls/pinned", a.handle(a.listPinnedPulls))
		r.Get("/pulls/{index}", a.handle(a.getPull))
		// A head may hold slashes ("owner/repo:branch", "feature/x").
		r.Get("/pulls/{base}/{head}", a.handle(a.getPullByBaseHead))
		r.Get("/pulls/{base}/{head}/*", a.handle(a.getPullByBaseHead))
		r.With(a.signedIn).Patch("/pulls/{index}", a.handle(a.editPull))
		r.Get("/pulls/{index}/merge", a.handle(a.isPullMerged))
		r.With(a.signedIn).Post("/pulls/{index}/merge", a.handle(a.mergePull))
		r.With(a.signedIn).Delete("/pulls/{index}/merge", a.handle(a.cancelAutoMerge))
		r.With(a.signedIn).Post("/pulls/{index}/update", a.handle(a.updatePull))
		a.pullDiffRoutes(r)
		a.pullReviewRoutes(r)
	})
	r.With(a.reqUnitRead(repo.UnitCode)).Get("/commits/{sha}/pull", a.handle(a.getCommitPull))
}

// loadPull loads pull request {index} of the current repository, answering
// the failure itself (for handlers in the older style).
func (a *API) loadPull(w http.ResponseWriter, r *http.Request) (*repoContext, *pull.PullRequest, bool) {
	rc, p, err := a.pullOf(r)
	if err != nil {
		a.fail(w, r, err)
		return nil, nil, false
	}
	return rc, p, true
}

// pullOf loads pull request {index} of the current repository.
func (a *API) pullOf(r *http.Request) (*repoContext, *pull.PullRequest, error) {
	return a.pullByIndex(r, chi.URLParam(r, "index"))
}

// pullByIndex loads pull request number raw of the current repository.
func (a *API) pullByIndex(r *http.Request, raw string) (*repoContext, *pull.PullRequest, error) {
	rc := currentRepo(r)
	idx, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || idx <= 0 {
		return nil, nil, pull.ErrNotExist(rc.Repo.ID, 0)
	}
	p, err := a.Pulls.GetByIndex(r.Context(), rc.Repo.ID, idx)
	if err != nil {
		return nil, nil, err
	}
	return rc, p, nil
}

// listPulls serves GET /repos/{owner}/{repo}/pulls.
func (a *API) listPulls(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	q := r.URL.Query()
	o := issue.ListOptions{RepoIDs: []int64{rc.Repo.ID}, IsPull: boolPtr(true), State: q.Get("state")}
	switch q.Get("sort") {
	case "", "newest":
	case "oldest", "recentupdate", "leastupdate", "mostcomment", "leastcomment", "priority":
		o.Sort = q.Get("sort")
	default:
		return errs.InvalidField("sort", "invalid sort %q", q.Get("sort"))
	}
	switch o.State {
	case "", "open", "closed", "all":
	default:
		return errs.InvalidField("state", "invalid state %q: open, closed or all", o.State)
	}
	if m := q.Get("milestone"); m != "" {
		id, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			return errs.InvalidField("milestone", "invalid milestone %q", m)
		}
		if id > 0 {
			o.MilestoneIDs = []int64{id}
		}
	}
	for _, l := range q["labels"] {
		for _, part := range strings.Split(l, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			id, err := strconv.ParseInt(part, 10, 64)
			if err != nil {
				return errs.InvalidField("labels", "invalid label id %q", part)
			}
			o.LabelIDs = append(o.LabelIDs, id)
		}
	}
	if name := q.Get("poster"); name != "" {
		u, err := a.visibleAccount(r, name)
		if errs.IsNotFound(err) {
			err = errs.InvalidField("poster", "user %q does not exist", name)
		}
		if err != nil {
			return err
		}
		o.PosterID = u.ID
	}
	return a.writePullList(w, r, rc, o)
}

// listPinnedPulls serves GET /repos/{owner}/{repo}/pulls/pinned.
func (a *API) listPinnedPulls(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	o := issue.ListOptions{RepoIDs: []int64{rc.Repo.ID}, IsPull: boolPtr(true), State: "all", Pinned: true}
	list, _, err := a.Issues.Search(r.Context(), o)
	if err != nil {
		return err
	}
	out, err := a.toPullsOfIssues(r.Context(), rc, list, r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *API) writePullList(w http.ResponseWriter, r *http.Request, rc *repoContext, o issue.ListOptions) error {
	pg := a.paging(r)
	o.Limit, o.Offset = pg.Limit, pg.Offset()
	o.Loaded = rc.Repo
	list, total, err := a.Issues.Search(r.Context(), o)
	if err != nil {
		return err
	}
	out, err := a.toPullsOfIssues(r.Context(), rc, list, r)
	if err != nil {
		return err
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// toPullsOfIssues renders the pull requests of a page of issues.
func (a *API) toPullsOfIssues(ctx context.Context, rc *repoContext, list []*issue.Issue, r *http.Request) ([]*types.PullRequest, error) {
	ids := make([]int64, len(list))
	for i, is := range list {
		ids[i] = is.ID
	}
	rows, err := a.Pulls.ByIssueIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	pulls := make([]*pull.PullRequest, 0, len(list))
	for _, is := range list {
		if p, ok := rows[is.ID]; ok {
			p.Issue = is
			pulls = append(pulls, p)
		}
	}
	return a.toPulls(ctx, rc, pulls, doer(r))
}

// getPull serves GET /repos/{owner}/{repo}/pulls/{index}.
// With a .diff or .patch suffix it serves the pull request's diff or patch.
func (a *API) getPull(w http.ResponseWriter, r *http.Request) error {
	if idx, kind, ok := pullDiffKind(chi.URLParam(r, "index")); ok {
		rc, p, err := a.pullByIndex(r, idx)
		if err != nil {
			return err
		}
		return a.servePullDiff(w, r, rc, p, kind)
	}
	rc, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	return a.writePull(w, r, http.StatusOK, rc, p)
}

func (a *API) writePull(w http.ResponseWriter, r *http.Request, status int, rc *repoContext, p *pull.PullRequest) error {
	out, err := a.toPulls(r.Context(), rc, []*pull.PullRequest{p}, doer(r))
	if err != nil {
		return err
	}
	writeJSON(w, status, out[0])
	return nil
}

// getPullByBaseHead serves GET /repos/{owner}/{repo}/pulls/{base}/{head},
// head as "branch", "owner:branch" or "owner/repo:branch".
func (a *API) getPullByBaseHead(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	base, head := chi.URLParam(r, "base"), chi.URLParam(r, "head")
	if rest := chi.URLParam(r, "*"); rest != "" {
		head += "/" + rest
	}
	hr, branch, err := a.resolveHead(r, rc, head)
	if err != nil {
		return err
	}
	p, err := a.Pulls.GetByBaseHead(r.Context(), rc.Repo, base, hr.Repo.ID, branch)
	if err != nil {
		return err
	}
	return a.writePull(w, r, http.StatusOK, rc, p)
}

// resolveHead finds the repository and branch a head names, in base's fork
// network: "branch" (base itself), "owner:branch" (owner's repository of
// the network) or "owner/repo:branch". A repository the caller cannot read
// answers as missing.
func (a *API) resolveHead(r *http.Request, rc *repoContext, head string) (*repoContext, string, error) {
	ctx := r.Context()
	who, branch, found := strings.Cut(head, ":")
	if !found {
		return rc, head, nil
	}
	if branch == "" || who == "" {
		return nil, "", errs.InvalidField("head", "invalid head %q", head)
	}
	missing := errs.NotFound("head repository does not exist [head: %s]", head)
	var cand *repo.Repository
	if owner, name, ok := strings.Cut(who, "/"); ok {
		rp, err := a.Repos.Get(ctx, owner, name)
		if errs.IsNotFound(err) {
			return nil, "", missing
		}
		if err != nil {
			return nil, "", err
		}
		cand = rp
	} else {
		var err error
		if cand, err = a.networkRepoOf(ctx, rc.Repo, who); err != nil {
			return nil, "", err
		}
		if cand == nil {
			return nil, "", missing
		}
	}
	if !a.sameNetwork(ctx, rc.Repo, cand) {
		return nil, "", missing
	}
	hc, err := a.loadRepo(ctx, r, cand.OwnerName, cand.Name)
	if errs.IsNotFound(err) {
		return nil, "", missing
	}
	if err != nil {
		return nil, "", err
	}
	if !hc.Repo.HasUnit(repo.UnitCode) || !hc.Perm.CanRead(repo.UnitCode) {
		return nil, "", missing
	}
	return hc, branch, nil
}

// networkRepoOf returns the repository of base's fork network owned by
// ownerName: base itself, its parent, a fork of base, or a fork of its parent.
func (a *API) networkRepoOf(ctx context.Context, base *repo.Repository, ownerName string) (*repo.Repository, error) {
	if strings.EqualFold(base.OwnerName, ownerName) {
		return base, nil
	}
	owner, err := a.Users.Store.GetByName(ctx, ownerName)
	if errs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	roots := []int64{base.ID}
	if base.IsFork && base.ForkID > 0 {
		roots = append(roots, base.ForkID)
		list, err := a.Repos.List(ctx, "WHERE r.id = ? AND r.owner_id = ?", base.ForkID, owner.ID)
		if err != nil {
			return nil, err
		}
		if len(list) > 0 {
			return list[0], nil
		}
	}
	for _, root := range roots {
		list, err := a.Repos.List(ctx, "WHERE r.fork_id = ? AND r.owner_id = ? ORDER BY r.id", root, owner.ID)
		if err != nil {
			return nil, err
		}
		if len(list) > 0 {
			return list[0], nil
		}
	}
	return nil, nil
}

// sameNetwork reports whether a and b are one repository, parent and fork,
// or forks of one parent.
func (a *API) sameNetwork(_ context.Context, x, y *repo.Repository) bool {
	root := func(r *repo.Repository) int64 {
		if r.IsFork && r.ForkID > 0 {
			return r.ForkID
		}
		return r.ID
	}
	return x.ID == y.ID || root(x) == root(y) || x.ForkID == y.ID || y.ForkID == x.ID
}

// createPull serves POST /repos/{owner}/{repo}/pulls.
func (a *API) createPull(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	var o types.CreatePullRequestOption
	if err := decode(r, &o); err != nil {
		return err
	}
	if err := firstErr(required("head", o.Head), required("base", o.Base), required("title", o.Title),
		maxLen("title", o.Title, issue.MaxTitleLength)); err != nil {
		return err
	}
	if strings.HasPrefix(o.Base, "-") || !git.ValidBranchName(o.Base) {
		return errs.InvalidField("base", "invalid base branch %q", o.Base)
	}
	ctx := r.Context()
	hc, branch, err := a.resolveHead(r, rc, o.Head)
	if err != nil {
		return err
	}
	if strings.HasPrefix(branch, "-") || !git.ValidBranchName(branch) {
		return errs.InvalidField("head", "invalid head branch %q", branch)
	}
	if hc.Repo.ID == rc.Repo.ID && !rc.Perm.CanRead(repo.UnitCode) {
		return errs.NotFound("The target couldn't be found.")
	}
	opts := pull.CreateOptions{HeadRepo: hc.Repo, HeadBranch: branch, BaseBranch: o.Base,
		Issue: issue.CreateOptions{Title: o.Title, Body: o.Body}}
	if rc.Perm.CanWrite(repo.UnitPulls) {
		labels, err := a.Issues.CheckLabels(ctx, rc.Repo.ID, orgIDOf(rc), o.Labels)
		if err != nil {
			return err
		}
		for _, l := range labels {
			opts.Issue.LabelIDs = append(opts.Issue.LabelIDs, l.ID)
		}
		if err := a.Issues.CheckMilestone(ctx, rc.Repo.ID, o.Milestone); err != nil {
			return err
		}
		opts.Issue.MilestoneID = o.Milestone
		if opts.Issue.AssigneeIDs, err = a.assigneeIDs(r, rc, repo.UnitPulls, o.Assignee, o.Assignees); err != nil {
			return err
		}
		if o.Deadline != nil && !o.Deadline.IsZero() {
			opts.Issue.Deadline = dayEnd(*o.Deadline)
		}
	}
	reviewers, err := a.checkReviewRequests(r, rc, nil, o.Reviewers, o.TeamReviewers)
	if err != nil {
		return err
	}
	p, err := a.Pulls.Create(ctx, doer(r), rc.Repo, opts)
	if err != nil {
		return err
	}
	if err := a.applyReviewRequests(r, rc, p, reviewers); err != nil {
		return err
	}
	return a.writePull(w, r, http.StatusCreated, rc, p)
}

// editPull serves PATCH /repos/{owner}/{repo}/pulls/{index}: the issue
// fields as editIssue, plus retargeting and allow_maintainer_edit; 201 as Gitea.
func (a *API) editPull(w http.ResponseWriter, r *http.Request) error {
	rc, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	var o types.EditPullRequestOption
	if err := decode(r, &o); err != nil {
		return err
	}
	ctx := r.Context()
	d := doer(r)
	is := p.Issue
	writer := canWriteIssue(rc, is)
	if !writer && !isPoster(r, is) {
		return statusError(http.StatusForbidden, "user should have a permission to write to the pull request or be its poster")
	}
	if o.Base != "" && o.Base != p.BaseBranch && !rc.Perm.CanWrite(repo.UnitCode) {
		return statusError(http.StatusForbidden, "Cannot change base: no write access to the base branch")
	}
	if o.Base != "" && (strings.HasPrefix(o.Base, "-") || !git.ValidBranchName(o.Base)) {
		return errs.InvalidField("base", "invalid base branch %q", o.Base)
	}
	if o.AllowMaintainerEdit != nil && !isPoster(r, is) && !d.IsAdmin {
		return statusError(http.StatusForbidden, "only the poster of the pull request may allow maintainers to edit it")
	}
	edit := types.EditIssueOption{Body: o.Body, State: o.State, Deadline: o.Deadline, RemoveDeadline: o.RemoveDeadline}
	if o.Title != "" {
		edit.Title = &o.Title
	}
	if o.Assignee != "" {
		edit.Assignee = &o.Assignee
	}
	if o.Assignees != nil {
		edit.Assignees = o.Assignees
	}
	if o.Milestone != 0 {
		edit.Milestone = &o.Milestone
	}
	if p.HasMerged && o.State != nil {
		return statusError(http.StatusPreconditionFailed, "cannot change state of this pull request, it was already merged")
	}
	if err := a.applyIssueEdit(r, rc, is, edit); err != nil {
		return err
	}
	if writer && o.Labels != nil {
		labels, err := a.Issues.CheckLabels(ctx, rc.Repo.ID, orgIDOf(rc), o.Labels)
		if err != nil {
			return err
		}
		if err := a.Issues.ReplaceLabels(ctx, d, rc.Repo, is, labels); err != nil {
			return err
		}
	}
	if o.Base != "" && o.Base != p.BaseBranch {
		if err := a.Pulls.ChangeBase(ctx, d, rc.Repo, p, o.Base); err != nil {
			return err
		}
	}
	if o.AllowMaintainerEdit != nil {
		if err := a.Pulls.SetAllowMaintainerEdit(ctx, p, *o.AllowMaintainerEdit); err != nil {
			return err
		}
	}
	fresh, err := a.Pulls.GetByID(ctx, p.ID)
	if err != nil {
		return err
	}
	return a.writePull(w, r, http.StatusCreated, rc, fresh)
}

// isPullMerged serves GET /repos/{owner}/{repo}/pulls/{index}/merge: 204 when merged, else 404.
func (a *API) isPullMerged(w http.ResponseWriter, r *http.Request) error {
	_, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	if !p.HasMerged {
		return errs.NotFound("The target couldn't be found.")
	}
	empty(w, http.StatusNoContent)
	return nil
}

// mergePull serves POST /repos/{owner}/{repo}/pulls/{index}/merge.
func (a *API) mergePull(w http.ResponseWriter, r *http.Request) error {
	rc, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	var o types.MergePullRequestOption
	if err := decode(r, &o); err != nil {
		return err
	}
	style := strings.TrimSpace(o.Do)
	if style == "" {
		style = rc.Repo.Settings.DefaultMergeStyle
	}
	if !pull.ValidStyle(style) {
		return errs.InvalidField("Do", "[Do]: must be one of merge, rebase, rebase-merge, squash, fast-forward-only, manually-merged")
	}
	if o.HeadCommitID != "" && !git.IsSHA(o.HeadCommitID) {
		return errs.InvalidField("head_commit_id", "invalid commit id %q", o.HeadCommitID)
	}
	if !rc.Perm.CanWrite(repo.UnitCode) {
		return statusError(http.StatusMethodNotAllowed, "User not allowed to merge PR")
	}
	deleteBranch := rc.Repo.Settings.DefaultDeleteBranchAfterMerge
	if o.DeleteBranchAfterMerge != nil {
		deleteBranch = *o.DeleteBranchAfterMerge
	}
	mc := &pull.MergeContext{Doer: doer(r), Repo: rc.Repo, Pull: p, IsAdmin: rc.Perm.IsAdmin(), Opts: pull.MergeOptions{
		Style: style, Title: o.MergeTitleField, Message: o.MergeMessageField, HeadCommitID: o.HeadCommitID,
		ManualCommitID: o.MergeCommitID, DeleteBranch: deleteBranch, Force: o.ForceMerge && rc.Perm.IsAdmin(),
	}}
	ctx := r.Context()
	if o.MergeWhenChecksSucceed {
		if p.HasMerged || p.Issue.IsClosed {
			return statusError(http.StatusMethodNotAllowed, "The PR is already merged or closed")
		}
		scheduled, err := a.Pulls.ScheduleAutoMerge(ctx, mc)
		if err != nil {
			return err
		}
		if scheduled {
			empty(w, http.StatusCreated)
			return nil
		}
	}
	if err := a.Pulls.Merge(ctx, mc); err != nil {
		return err
	}
	empty(w, http.StatusOK)
	return nil
}

// cancelAutoMerge serves DELETE /repos/{owner}/{repo}/pulls/{index}/merge:
// the one who scheduled it, or a repository administrator.
func (a *API) cancelAutoMerge(w http.ResponseWriter, r *http.Request) error {
	rc, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	am, err := a.Pulls.GetAutoMerge(ctx, p.ID)
	if err != nil {
		return err
	}
	if am == nil {
		return errs.NotFound("The target couldn't be found.")
	}
	if d := doer(r); am.DoerID != d.ID && !rc.Perm.IsAdmin() {
		return statusError(http.StatusForbidden, "user has no permission to cancel the scheduled auto merge")
	}
	if err := a.Pulls.CancelAutoMerge(ctx, p); err != nil {
		return err
	}
	empty(w, http.StatusNoContent)
	return nil
}

// updatePull serves POST /repos/{owner}/{repo}/pulls/{index}/update: the base
// branch is merged into (style=merge) or the head rebased onto it
// (style=rebase), by someone who may push to the head branch.
func (a *API) updatePull(w http.ResponseWriter, r *http.Request) error {
	rc, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	style := r.URL.Query().Get("style")
	switch style {
	case "", "merge":
		style = "merge"
	case "rebase":
	default:
		return errs.InvalidField("style", "invalid update style %q: merge or rebase", style)
	}
	if p.HasMerged || p.Issue.IsClosed {
		return statusError(http.StatusUnprocessableEntity, "the pull request is closed or merged")
	}
	if style == "rebase" && !rc.Repo.Settings.AllowRebaseUpdate {
		return statusError(http.StatusForbidden, "rebase updates are not allowed in this repository")
	}
	if err := a.Pulls.Update(r.Context(), doer(r), rc.Repo, p, style); err != nil {
		return err
	}
	empty(w, http.StatusOK)
	return nil
}

// getCommitPull serves GET /repos/{owner}/{repo}/commits/{sha}/pull: the
// pull request whose merge made the commit.
func (a *API) getCommitPull(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	sha := chi.URLParam(r, "sha")
	if !rc.Repo.HasUnit(repo.UnitPulls) || !rc.Perm.CanRead(repo.UnitPulls) || !git.ValidRevision(sha) {
		return errs.NotFound("The target couldn't be found.")
	}
	full, err := a.Repos.Git.ResolveCommit(r.Context(), a.Repos.Path(rc.Repo), sha)
	if err != nil {
		return errs.NotFound("commit does not exist [id: %s]", sha)
	}
	p, err := a.Pulls.ByMergedCommit(r.Context(), rc.Repo.ID, full)
	if err != nil {
		return err
	}
	return a.writePull(w, r, http.StatusOK, rc, p)
}

// pullTimes are the issue times a pull request shows.
func pullTimes(is *issue.Issue) (created, updated *time.Time) {
	c, u := is.Created, is.Updated
	return &c, &u
}
