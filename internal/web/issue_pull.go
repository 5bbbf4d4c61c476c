package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// issueMergeStyle is one merge button of the merge box.
type issueMergeStyle struct {
	Value, Label string
	Default      bool
}

// issueMergeStyles lists the merge styles in the order the buttons show them.
var issueMergeStyles = []issueMergeStyle{
	{pull.StyleMerge, "Create merge commit", false},
	{pull.StyleRebase, "Rebase and fast-forward", false},
	{pull.StyleRebaseMerge, "Rebase and create merge commit", false},
	{pull.StyleSquash, "Squash and merge", false},
	{pull.StyleFastForwardOnly, "Fast-forward only", false},
	{pull.StyleManuallyMerged, "Mark as manually merged", false},
}

// issuePullView is the pull request half of a pull request page: branches,
// mergeability, status checks and the merge box.
type issuePullView struct {
	P *pull.PullRequest
	// Head and Base name the branches ("owner:branch" across repositories).
	Head, Base         string
	HeadLink, BaseLink string
	FilesLink          string
	CommitsLink        string
	State              string // open, closed or merged
	Draft              bool
	// Status is the mergeability (mergeable, conflict, checking, error,
	// empty, ancestor) and StatusText says it in words.
	Status     string
	StatusText string
	Conflicts  []string
	Checks     []*repo.CommitStatus
	CheckState string
	Approvals  int
	Rejections int
	// CanMerge shows the merge form; Refusal is what the merge checks
	// (state, branch protection, reviews, statuses) would answer now.
	CanMerge     bool
	Refusal      string
	Styles       []issueMergeStyle
	DeleteBranch bool
	CanForce     bool
	// AutoMerge is the merge scheduled for when the head's checks succeed
	// (nil: none); CanCancelAutoMerge lets the visitor cancel it.
	AutoMerge          *pull.AutoMerge
	CanCancelAutoMerge bool
	Merger             *user.User
	MergedCommit       string
}

// viewPullConversation serves /{owner}/{repo}/pulls/{index}: the conversation, the
// branches and the merge box. An issue's number is sent to its own page.
func (h *Handler) viewPullConversation(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssue(r)
	if err != nil {
		return err
	}
	if !c.issue.IsPull {
		http.Redirect(w, r, c.link(), http.StatusSeeOther)
		return nil
	}
	ctx := r.Context()
	p, err := h.Pulls.GetByIssueID(ctx, c.issue.ID)
	if err != nil {
		return err
	}
	p.Issue = c.issue
	v, err := h.issueView(r, c)
	if err != nil {
		return err
	}
	if v.Pull, err = h.issuePullBox(ctx, c, p); err != nil {
		return err
	}
	return h.renderRepo(w, r, http.StatusOK, "pull_view", c.issue.Title+" · Pull request #"+strconv.FormatInt(c.issue.Index, 10), c.rc, v)
}

// issuePullStatus describes the mergeability of an open pull request.
var issuePullStatus = map[pull.Status][2]string{
	pull.StatusConflict:       {"conflict", "This pull request has conflicts with the base branch."},
	pull.StatusChecking:       {"checking", "Checking whether this pull request can be merged…"},
	pull.StatusMergeable:      {"mergeable", "This pull request can be merged automatically."},
	pull.StatusManuallyMerged: {"merged", "This pull request was merged manually."},
	pull.StatusError:          {"error", "This pull request cannot be checked: a branch is missing or the histories are unrelated."},
	pull.StatusEmpty:          {"empty", "This pull request changes no files."},
	pull.StatusAncestor:       {"ancestor", "The head branch is already contained in the base branch."},
}

// issuePullBox loads the branches, statuses, reviews and merge checks of p.
func (h *Handler) issuePullBox(ctx context.Context, c *issueCtx, p *pull.PullRequest) (*issuePullView, error) {
	rc := c.rc
	link := c.link()
	v := &issuePullView{P: p, Base: p.BaseBranch, Head: p.HeadBranch, FilesLink: link + "/files", CommitsLink: link + "/commits",
		BaseLink: rc.Link + "/src/branch/" + escapeSegments(p.BaseBranch), Draft: h.Pulls.IsWorkInProgress(p)}
	if p.IsSameRepo() {
		v.HeadLink = rc.Link + "/src/branch/" + escapeSegments(p.HeadBranch)
	} else if hr, err := h.issueVisibleRepo(ctx, c.doer, p.HeadRepoID); err != nil {
		return nil, err
	} else if hr != nil {
		v.Head = hr.OwnerName + ":" + p.HeadBranch
		v.HeadLink = "/" + escapeSegments(hr.OwnerName+"/"+hr.Name) + "/src/branch/" + escapeSegments(p.HeadBranch)
	}
	switch {
	case p.HasMerged:
		v.State = "merged"
		v.MergedCommit = p.MergedCommitID
		users, err := h.Users.Store.GetByIDs(ctx, []int64{p.MergerID})
		if err != nil {
			return nil, err
		}
		v.Merger = issueUserOr(users, p.MergerID)
	case c.issue.IsClosed:
		v.State = "closed"
	default:
		v.State = "open"
		st := issuePullStatus[p.Status]
		v.Status, v.StatusText = st[0], st[1]
		v.Conflicts = p.ConflictedFiles
	}
	if p.HeadCommitID != "" {
		checks, state, err := h.Repos.LatestStatuses(ctx, rc.Repo, p.HeadCommitID)
		if err != nil {
			return nil, err
		}
		v.Checks, v.CheckState = checks, state
	}
	reviews, _, err := h.Pulls.ListReviews(ctx, c.doer, p, 200, 0)
	if err != nil {
		return nil, err
	}
	latest := map[int64]*pull.Review{}
	for _, rv := range reviews {
		if rv.Dismissed || rv.ReviewerID == 0 || (rv.Type != pull.ReviewApprove && rv.Type != pull.ReviewReject) {
			continue
		}
		latest[rv.ReviewerID] = rv
	}
	for _, rv := range latest {
		switch rv.Type {
		case pull.ReviewApprove:
			v.Approvals++
		case pull.ReviewReject:
			v.Rejections++
		}
	}
	if v.State != "open" || c.doer == nil || !rc.Perm.CanWrite(repo.UnitCode) {
		return v, nil
	}
	v.CanMerge = true
	am, err := h.Pulls.GetAutoMerge(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	v.AutoMerge, v.CanCancelAutoMerge = am, am != nil && (am.DoerID == c.doer.ID || rc.Perm.IsAdmin())
	v.CanForce = rc.Perm.IsAdmin()
	v.DeleteBranch = rc.Repo.Settings.DefaultDeleteBranchAfterMerge
	def := rc.Repo.Settings.DefaultMergeStyle
	for _, s := range issueMergeStyles {
		if pull.StyleAllowed(rc.Repo, s.Value) {
			v.Styles = append(v.Styles, s)
		}
	}
	if len(v.Styles) == 0 {
		v.Refusal = "No merge style is allowed in this repository."
		return v, nil
	}
	first := 0
	for i, s := range v.Styles {
		if s.Value == def {
			first = i
		}
	}
	v.Styles[0], v.Styles[first] = v.Styles[first], v.Styles[0]
	v.Styles[0].Default = true
	// What the merge checks answer now for the default button.
	mc := &pull.MergeContext{Doer: c.doer, Repo: rc.Repo, Pull: p, IsAdmin: rc.Perm.IsAdmin(),
		Opts: pull.MergeOptions{Style: v.Styles[0].Value}}
	if err := h.Pulls.CheckMergeable(ctx, mc); err != nil {
		if !userError(err) {
			return nil, err
		}
		v.Refusal = errMessage(err, "This pull request cannot be merged now.")
	}
	return v, nil
}

// issueVisibleRepo loads repository id when v may see it, else nil.
func (h *Handler) issueVisibleRepo(ctx context.Context, v *user.User, id int64) (*repo.Repository, error) {
	rp, err := h.Repos.GetByID(ctx, id)
	if errs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	owner, err := h.Users.Store.GetByID(ctx, rp.OwnerID)
	if errs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	perm, err := h.Access.RepoPermission(ctx, v, rp, owner)
	if err != nil {
		return nil, err
	}
	if !perm.HasAccess() {
		return nil, nil
	}
	if rp.OwnerName == "" {
		rp.OwnerName = owner.Name
	}
	return rp, nil
}

// postPullMerge serves POST /{owner}/{repo}/pulls/{index}/merge: the merge
// through the pull request service with the API's checks and messages;
// a refusal (state, protection, reviews, statuses, a pre-receive hook) is
// shown on the page as a flash error and changes nothing.
func (h *Handler) postPullMerge(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	if !c.issue.IsPull {
		return errs.NotFound("no such page")
	}
	ctx := r.Context()
	rc := c.rc
	if rc.Repo.IsArchived {
		return errs.Forbidden("This repository is archived: pull requests cannot be merged.")
	}
	if !rc.Perm.CanWrite(repo.UnitCode) {
		return errs.Forbidden("User not allowed to merge PR")
	}
	p, err := h.Pulls.GetByIssueID(ctx, c.issue.ID)
	if err != nil {
		return err
	}
	p.Issue = c.issue
	back := c.link()
	style := strings.TrimSpace(r.PostFormValue("do"))
	if style == "" {
		style = rc.Repo.Settings.DefaultMergeStyle
	}
	if !pull.ValidStyle(style) {
		return h.issueBack(w, r, back, errs.InvalidField("do", "[Do]: must be one of merge, rebase, rebase-merge, squash, fast-forward-only, manually-merged"))
	}
	head := strings.TrimSpace(r.PostFormValue("head_commit_id"))
	if head != "" && !git.IsSHA(head) {
		return h.issueBack(w, r, back, errs.InvalidField("head_commit_id", "invalid commit id %q", head))
	}
	mc := &pull.MergeContext{Doer: c.doer, Repo: rc.Repo, Pull: p, IsAdmin: rc.Perm.IsAdmin(), Opts: pull.MergeOptions{
		Style: style, Title: strings.TrimSpace(r.PostFormValue("merge_title_field")), Message: r.PostFormValue("merge_message_field"),
		HeadCommitID: head, ManualCommitID: strings.TrimSpace(r.PostFormValue("merge_commit_id")),
		DeleteBranch: issueFormBool(r.PostFormValue("delete_branch_after_merge")),
		Force:        issueFormBool(r.PostFormValue("force_merge")) && rc.Perm.IsAdmin(),
	}}
	if issueFormBool(r.PostFormValue("merge_when_checks_succeed")) {
		if p.HasMerged || p.Issue.IsClosed {
			return h.issueBack(w, r, back, errs.Invalid("The pull request is already merged or closed."))
		}
		scheduled, err := h.Pulls.ScheduleAutoMerge(ctx, mc)
		if err != nil {
			return h.issueBack(w, r, back, err)
		}
		if scheduled {
			return h.issueDone(w, r, back, "The pull request will be merged when all checks succeed.")
		}
	}
	if err := h.Pulls.Merge(ctx, mc); err != nil {
		return h.issueBack(w, r, back, err)
	}
	return h.issueDone(w, r, back, "The pull request was merged.")
}

// postCancelAutoMerge serves POST /{owner}/{repo}/pulls/{index}/cancel_auto_merge:
// the one who scheduled the merge, or a repository administrator, cancels it.
func (h *Handler) postCancelAutoMerge(w http.ResponseWriter, r *http.Request) error {
	c, err := h.loadIssueForm(r)
	if err != nil {
		return err
	}
	if !c.issue.IsPull {
		return errs.NotFound("no such page")
	}
	ctx := r.Context()
	p, err := h.Pulls.GetByIssueID(ctx, c.issue.ID)
	if err != nil {
		return err
	}
	am, err := h.Pulls.GetAutoMerge(ctx, p.ID)
	if err != nil {
		return err
	}
	back := c.link()
	if am == nil {
		return h.issueBack(w, r, back, errs.NotFound("No merge is scheduled."))
	}
	if am.DoerID != c.doer.ID && !c.rc.Perm.IsAdmin() {
		return errs.Forbidden("Only the one who scheduled the merge, or an administrator, may cancel it.")
	}
	if err := h.Pulls.CancelAutoMerge(ctx, p); err != nil {
		return h.issueBack(w, r, back, err)
	}
	return h.issueDone(w, r, back, "The scheduled merge was cancelled.")
}

// issueFormBool reads a checkbox or boolean form value.
func issueFormBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "1", "yes":
		return true
	}
	return false
}
