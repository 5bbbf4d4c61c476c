package pull

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Merge styles, with Gitea's names.
const (
	StyleMerge           = "merge"
	StyleRebase          = "rebase"
	StyleRebaseMerge     = "rebase-merge"
	StyleSquash          = "squash"
	StyleFastForwardOnly = "fast-forward-only"
	StyleManuallyMerged  = "manually-merged"
)

// ValidStyle reports a known merge style.
func ValidStyle(s string) bool {
	switch s {
	case StyleMerge, StyleRebase, StyleRebaseMerge, StyleSquash, StyleFastForwardOnly, StyleManuallyMerged:
		return true
	}
	return false
}

// StyleAllowed reports whether the repository's settings allow style.
func StyleAllowed(r *repo.Repository, style string) bool {
	st := r.Settings
	switch style {
	case StyleMerge:
		return st.AllowMergeCommits
	case StyleRebase:
		return st.AllowRebase
	case StyleRebaseMerge:
		return st.AllowRebaseExplicit
	case StyleSquash:
		return st.AllowSquashMerge
	case StyleFastForwardOnly:
		return st.AllowFastForwardOnly
	case StyleManuallyMerged:
		return st.AllowManualMerge
	}
	return false
}

// MergeOptions is a merge request.
type MergeOptions struct {
	Style string
	// Title and Message make the commit message; empty Title means the default.
	Title, Message string
	// HeadCommitID, when set, must be the head commit (else 409).
	HeadCommitID string
	// ManualCommitID is the merge commit of a manually-merged pull request.
	ManualCommitID string
	DeleteBranch   bool
	// Force asks to merge despite review rules (repository administrators).
	Force bool
}

// MergeContext is what a merge check sees.
type MergeContext struct {
	Doer *user.User
	Repo *repo.Repository
	Pull *PullRequest
	Opts MergeOptions
	// IsAdmin: the doer administers the base repository (may force).
	IsAdmin bool
}

// MergeCheck refuses a merge with an error (errs kinds; 405 for rule
// refusals). Branch protection adds its rules as checks.
type MergeCheck func(ctx context.Context, mc *MergeContext) error

// MergeSigning decides, by [repository.signing] MERGES, whether the
// instance signs the commits of merging head into base for doer; approved
// tells whether the base branch's rule is met by approvals. It returns the
// signing function (nil: unsigned).
type MergeSigning interface {
	Merge(ctx context.Context, doer *user.User, repoPath, base, head string,
		approved func(ctx context.Context) (bool, error)) (func(payload []byte) (string, error), error)
}

// SetMergeSigning sets the signing decision of merges and the review rules
// its "approved" condition reads; call it only while wiring.
func (s *Service) SetMergeSigning(m MergeSigning, rules ReviewRulesFunc) {
	s.signing, s.signingRules = m, rules
}

// AddMergeCheck registers a check; call it only while wiring.
func (s *Service) AddMergeCheck(c MergeCheck) { s.checks = append(s.checks, c) }

func notAllowed(format string, args ...any) error {
	return errs.Forbidden(format, args...).WithStatus(http.StatusMethodNotAllowed)
}

// CheckMergeable runs every rule a merge must pass, without merging: state,
// draft, style, mergeability, then the registered checks.
func (s *Service) CheckMergeable(ctx context.Context, mc *MergeContext) error {
	p := mc.Pull
	switch {
	case p.HasMerged:
		return notAllowed("The PR is already merged")
	case p.Issue.IsClosed:
		return notAllowed("The PR is closed")
	case s.IsWorkInProgress(p):
		return notAllowed("Work in progress PRs cannot be merged")
	case !StyleAllowed(mc.Repo, mc.Opts.Style):
		return notAllowed("%s is not allowed an allowed merge style for this repository", mc.Opts.Style)
	}
	if mc.Opts.Style != StyleManuallyMerged {
		switch p.Status {
		case StatusConflict:
			return notAllowed("Please try again later: the pull request has conflicts")
		case StatusError:
			return notAllowed("Please try again later: the pull request cannot be checked (missing branch or unrelated histories)")
		case StatusChecking:
			return notAllowed("Please try again later: the pull request is being checked")
		case StatusAncestor:
			return notAllowed("This pull request has no changes to merge: its head is already in %s", p.BaseBranch)
		case StatusEmpty:
			if mc.Opts.Style != StyleMerge && mc.Opts.Style != StyleRebaseMerge {
				return notAllowed("This pull request has no changes to merge")
			}
		}
	}
	for _, c := range s.checks {
		if err := c(ctx, mc); err != nil {
			return err
		}
	}
	return nil
}

// lock serializes merges of one pull request.
func (s *Service) lock(id int64) func() {
	m, _ := s.merging.LoadOrStore(id, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// Merge merges p into its base branch as mc.Doer. The commit is made on the
// bare repository without a working tree, then goes through the same push
// rules as a push (their refusal is 409 with their message), moves the base
// branch only if it did not move meanwhile, and is recorded like a push.
func (s *Service) Merge(ctx context.Context, mc *MergeContext) error {
	unlock := s.lock(mc.Pull.ID)
	defer unlock()
	p, err := s.GetByID(ctx, mc.Pull.ID)
	if err != nil {
		return err
	}
	mc.Pull = p
	base := mc.Repo
	path := s.repos.Path(base)
	if !p.HasMerged && !p.Issue.IsClosed {
		// Make sure the status describes today's tips.
		if err := s.syncHeadRef(ctx, p, base); err != nil {
			return err
		}
		headNow, baseNow, err := s.tips(ctx, path, p)
		if err == nil && headNow != "" && baseNow != "" && (p.Status == StatusChecking || headNow != p.CheckedHead || baseNow != p.CheckedBase) {
			if p, err = s.CheckNow(ctx, p); err != nil {
				return err
			}
			mc.Pull = p
		}
	}
	if err := s.CheckMergeable(ctx, mc); err != nil {
		return err
	}
	headSHA, baseSHA, err := s.tips(ctx, path, p)
	if err != nil || headSHA == "" {
		return errs.Conflict("the head of the pull request cannot be read")
	}
	if mc.Opts.HeadCommitID != "" && mc.Opts.HeadCommitID != headSHA {
		return errs.Conflict("head out of date: the head commit is %s, not %s", headSHA, mc.Opts.HeadCommitID)
	}
	baseRef := git.BranchPrefix + p.BaseBranch
	if baseSHA == "" {
		return errs.Conflict("the base branch %s cannot be read", p.BaseBranch)
	}
	var merged string
	status := StatusMergeable
	if mc.Opts.Style == StyleManuallyMerged {
		merged, err = s.manualCommit(ctx, path, p, mc.Opts.ManualCommitID, baseSHA, headSHA)
		if err != nil {
			return err
		}
		status = StatusManuallyMerged
	} else {
		merged, err = s.makeMerge(ctx, mc, path, baseSHA, headSHA)
		if err != nil {
			return err
		}
		update := hooks.RefUpdate{OldSHA: baseSHA, NewSHA: merged, Ref: baseRef}
		resp, err := s.repos.PreReceive(ctx, hooks.Request{RepoID: base.ID, PusherID: mc.Doer.ID, PullRequestID: p.ID,
			Updates: []hooks.RefUpdate{update}})
		if err != nil {
			return err
		}
		if !resp.Allowed {
			msg := strings.TrimSpace(resp.Message)
			if msg == "" {
				msg = "the merge was refused by a repository rule"
			}
			return errs.Conflict("%s", msg)
		}
		if err := s.git.UpdateRef(ctx, path, baseRef, merged, baseSHA); err != nil {
			if errors.Is(err, git.ErrConflict) {
				return errs.Conflict("the base branch %s moved while merging; try again", p.BaseBranch)
			}
			return err
		}
	}
	// The branch moved: record it even if the caller went away.
	rec := context.WithoutCancel(ctx)
	now := time.Now()
	err = s.db.WithTx(rec, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, `UPDATE pull_request SET has_merged = ?, merged_commit_id = ?, merger_id = ?, merged_unix = ?,
			status = ?, head_commit_id = ? WHERE id = ? AND has_merged = ?`, true, merged, mc.Doer.ID, now.Unix(), status, headSHA, p.ID, false)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.Conflict("the pull request was merged meanwhile")
		}
		if _, err := s.db.Exec(ctx, "DELETE FROM pull_auto_merge WHERE pull_id = ?", p.ID); err != nil {
			return err
		}
		if err := s.issues.CloseAsMerged(ctx, mc.Doer, base, p.Issue, merged); err != nil {
			return err
		}
		wasClosed := p.Issue.IsClosed
		p.HasMerged, p.MergedCommitID, p.MergerID, p.Merged, p.Status, p.HeadCommitID = true, merged, mc.Doer.ID, now, status, headSHA
		p.Issue.IsClosed, p.Issue.Closed, p.Issue.Updated = true, now, now
		if !wasClosed {
			if err := s.issues.Notify(ctx, issue.Event{Kind: issue.EventClosed, Doer: mc.Doer, Repo: base, Issue: p.Issue}); err != nil {
				return err
			}
		}
		return s.notify(ctx, Event{Kind: EventMerged, Doer: mc.Doer, Repo: base, Pull: p})
	})
	if err != nil {
		return err
	}
	if mc.Opts.Style != StyleManuallyMerged {
		if err := s.repos.AfterPush(rec, base, hooks.Request{RepoID: base.ID, PusherID: mc.Doer.ID, PullRequestID: p.ID,
			Updates: []hooks.RefUpdate{{OldSHA: baseSHA, NewSHA: merged, Ref: baseRef}}}); err != nil {
			slog.Error("pull: record merge", "repo", base.ID, "pull", p.Index, "err", err)
		}
	}
	if mc.Opts.DeleteBranch {
		if err := s.deleteHeadBranch(rec, mc.Doer, p); err != nil {
			slog.Info("pull: head branch kept after merge", "repo", p.HeadRepoID, "branch", p.HeadBranch, "reason", err)
		}
	}
	return nil
}

// manualCommit checks the commit a manually-merged pull request names: it
// must be on the base branch and contain the head.
func (s *Service) manualCommit(ctx context.Context, path string, p *PullRequest, sha, baseSHA, headSHA string) (string, error) {
	if !git.IsSHA(sha) {
		return "", errs.InvalidField("MergeCommitID", "a manually merged pull request needs the full merge commit id")
	}
	full, err := s.git.ResolveCommit(ctx, path, sha)
	if err != nil {
		return "", errs.InvalidField("MergeCommitID", "commit %s does not exist", sha)
	}
	if ok, err := s.git.IsAncestor(ctx, path, full, baseSHA); err != nil {
		return "", err
	} else if !ok {
		return "", errs.InvalidField("MergeCommitID", "commit %s is not on branch %s", sha, p.BaseBranch)
	}
	if ok, err := s.git.IsAncestor(ctx, path, headSHA, full); err != nil {
		return "", err
	} else if !ok {
		return "", errs.InvalidField("MergeCommitID", "commit %s does not contain the head of the pull request", sha)
	}
	return full, nil
}

// makeMerge writes the merge's objects and returns the new base tip.
func (s *Service) makeMerge(ctx context.Context, mc *MergeContext, path, baseSHA, headSHA string) (string, error) {
	p := mc.Pull
	committer := s.repos.Signature(mc.Doer)
	author := committer
	var msg string
	var later func() (string, error)
	if mc.Opts.Style == StyleSquash && s.opts.CoAuthorTrailers {
		// The trailers need the squashed commits' authors (git log): read
		// them while the merge tree is being made.
		type message struct {
			text string
			err  error
		}
		ready := make(chan message, 1)
		go func() {
			text, err := s.mergeMessage(ctx, mc, path, baseSHA, headSHA)
			ready <- message{text, err}
		}()
		later = func() (string, error) { m := <-ready; return m.text, m.err }
	} else {
		var err error
		if msg, err = s.mergeMessage(ctx, mc, path, baseSHA, headSHA); err != nil {
			return "", err
		}
	}
	if mc.Opts.Style == StyleSquash {
		if poster, err := s.users.GetByID(ctx, p.Issue.PosterID); err == nil {
			author = s.repos.Signature(poster)
			author.When = committer.When
		}
	}
	opts := git.MergeOptions{Style: mc.Opts.Style, Base: baseSHA, Head: headSHA, Message: msg, MessageLater: later,
		Author: author, Committer: committer}
	if p.CheckedBase == baseSHA && p.CheckedHead == headSHA && p.Status == StatusMergeable {
		opts.MergeBase = p.MergeBase // the check computed it for these tips
	}
	if s.signing != nil && mc.Opts.Style != StyleFastForwardOnly {
		sign, err := s.signing.Merge(ctx, mc.Doer, path, baseSHA, headSHA, s.approvedForSigning(s.signingRules, mc))
		if err != nil {
			return "", err
		}
		opts.Sign = sign
	}
	out, err := s.git.Merge(ctx, path, opts)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, git.ErrMergeConflict):
		var ce *git.MergeConflictError
		if errors.As(err, &ce) && len(ce.Files) > 0 {
			return "", errs.Conflict("merge failed because of conflict: %s", strings.Join(ce.Files, ", "))
		}
		return "", errs.Conflict("merge failed because of conflict")
	case errors.Is(err, git.ErrNotFastForward):
		return "", errs.Conflict("the base branch is not an ancestor of the head: it cannot be fast-forwarded")
	}
	return "", err
}

// mergeMessage is the commit message: the caller's title and message, or
// Gitea's defaults; squash messages get Co-authored-by trailers.
func (s *Service) mergeMessage(ctx context.Context, mc *MergeContext, path, baseSHA, headSHA string) (string, error) {
	p := mc.Pull
	title, body := strings.TrimSpace(mc.Opts.Title), strings.TrimSpace(mc.Opts.Message)
	if title == "" {
		title = s.defaultTitle(ctx, mc)
	}
	msg := title
	if body != "" {
		msg += "\n\n" + body
	}
	if mc.Opts.Style == StyleSquash && s.opts.CoAuthorTrailers {
		authors, err := s.git.CommitAuthors(ctx, path, baseSHA, headSHA)
		if err != nil {
			return "", err
		}
		var poster *user.User
		if u, err := s.users.GetByID(ctx, p.Issue.PosterID); err == nil {
			poster = u
		}
		var trailers []string
		seen := map[string]bool{}
		for _, a := range authors {
			key := strings.ToLower(a.Email)
			if seen[key] || (poster != nil && strings.EqualFold(a.Email, poster.Email)) {
				continue
			}
			seen[key] = true
			line := fmt.Sprintf("Co-authored-by: %s <%s>", a.Name, a.Email)
			if !strings.Contains(msg, line) {
				trailers = append(trailers, line)
			}
		}
		if len(trailers) > 0 {
			msg += "\n\n" + strings.Join(trailers, "\n")
		}
	}
	return msg + "\n", nil
}

// defaultTitle is Gitea's default merge commit title.
func (s *Service) defaultTitle(ctx context.Context, mc *MergeContext) string {
	p := mc.Pull
	if mc.Opts.Style == StyleSquash {
		return fmt.Sprintf("%s (#%d)", p.Issue.Title, p.Index)
	}
	from := p.HeadBranch
	if !p.IsSameRepo() {
		if head, err := s.repos.GetByID(ctx, p.HeadRepoID); err == nil {
			from = head.FullName() + ":" + p.HeadBranch
		}
	}
	return fmt.Sprintf("Merge pull request '%s' (#%d) from %s into %s", p.Issue.Title, p.Index, from, p.BaseBranch)
}

// deleteHeadBranch removes the head branch after a merge when nothing else
// needs it: not the head repository's default branch, no other open pull
// request from it, the doer may write there, and it still points at the
// merged head.
func (s *Service) deleteHeadBranch(ctx context.Context, doer *user.User, p *PullRequest) error {
	if p.Flow != FlowBranch {
		return nil
	}
	head, err := s.repos.GetByID(ctx, p.HeadRepoID)
	if err != nil {
		return err
	}
	if head.DefaultBranch == p.HeadBranch {
		return errors.New("the default branch is never deleted")
	}
	perm, err := s.Permission(ctx, doer, head)
	if err != nil {
		return err
	}
	if !perm.CanWrite(repo.UnitCode) {
		return errors.New("the doer cannot write to the head repository")
	}
	n, err := s.db.Count(ctx, `SELECT COUNT(*) FROM pull_request p JOIN issue i ON i.id = p.issue_id
		WHERE p.head_repo_id = ? AND p.head_branch = ? AND p.has_merged = ? AND i.is_closed = ?`, head.ID, p.HeadBranch, false, false)
	if err != nil {
		return err
	}
	if n > 0 {
		return errors.New("other open pull requests use the branch")
	}
	path := s.repos.Path(head)
	ref := git.BranchPrefix + p.HeadBranch
	sha, err := s.git.ResolveCommit(ctx, path, ref)
	if err != nil {
		return err
	}
	if sha != p.HeadCommitID {
		return errors.New("the branch has new commits")
	}
	zero := strings.Repeat("0", len(sha))
	req := hooks.Request{RepoID: head.ID, PusherID: doer.ID, Updates: []hooks.RefUpdate{{OldSHA: sha, NewSHA: zero, Ref: ref}}}
	resp, err := s.repos.PreReceive(ctx, req)
	if err != nil {
		return err
	}
	if !resp.Allowed {
		return errors.New(resp.Message)
	}
	if err := s.git.DeleteBranch(ctx, path, p.HeadBranch, sha); err != nil {
		return err
	}
	if err := s.repos.AfterPush(ctx, head, req); err != nil {
		return err
	}
	return s.issues.AddEvent(ctx, &issue.Comment{Type: issue.CommentDeleteBranch, PosterID: doer.ID, IssueID: p.IssueID, OldRef: p.HeadBranch})
}
