package pull

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// CanPushHead reports whether doer may push to p's head branch: write
// access to the head repository's code, or, when the poster allowed
// maintainers to edit, write access to the base repository's code.
func (s *Service) CanPushHead(ctx context.Context, doer *user.User, base, head *repo.Repository, p *PullRequest) (bool, error) {
	perm, err := s.Permission(ctx, doer, head)
	if err != nil {
		return false, err
	}
	if perm.CanWrite(repo.UnitCode) {
		return true, nil
	}
	if !p.AllowMaintainerEdit {
		return false, nil
	}
	bp, err := s.Permission(ctx, doer, base)
	if err != nil {
		return false, err
	}
	return bp.CanWrite(repo.UnitCode), nil
}

// Update brings p's head branch up to date with its base as doer: the base
// merged into the head (style "merge") or the head's commits replayed onto
// the base (style "rebase", a forced update of the head branch). The new
// head goes through the head repository's push rules and is recorded like a push.
func (s *Service) Update(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, style string) error {
	if p.Flow != FlowBranch {
		return errs.Invalid("a pull request opened by a push to refs/for/ is updated by pushing again")
	}
	head := base
	if !p.IsSameRepo() {
		h, err := s.repos.GetByID(ctx, p.HeadRepoID)
		if errs.IsNotFound(err) {
			return errs.NotFound("the head repository no longer exists")
		}
		if err != nil {
			return err
		}
		head = h
	}
	ok, err := s.CanPushHead(ctx, doer, base, head, p)
	if err != nil {
		return err
	}
	if !ok {
		return errs.Forbidden("user has no permission to update the head branch of this pull request")
	}
	headPath, basePath := s.repos.Path(head), s.repos.Path(base)
	headRef := git.BranchPrefix + p.HeadBranch
	headSHA, err := s.git.ResolveCommit(ctx, headPath, headRef)
	if errors.Is(err, git.ErrNotFound) {
		return errs.NotFound("head branch does not exist [name: %s]", p.HeadBranch)
	}
	if err != nil {
		return err
	}
	baseRef := git.BranchPrefix + p.BaseBranch
	baseSHA, err := s.git.ResolveCommit(ctx, basePath, baseRef)
	if err != nil {
		return errs.NotFound("base branch does not exist [name: %s]", p.BaseBranch)
	}
	if !p.IsSameRepo() {
		// The base's commits must be in the head repository.
		tmp := "refs/cairn/update/" + strconv.FormatInt(p.ID, 10)
		if err := s.git.FetchRef(ctx, headPath, basePath, baseRef, tmp); err != nil {
			return err
		}
		defer func() { _ = s.git.DeleteRef(context.WithoutCancel(ctx), headPath, tmp) }()
	}
	if ok, err := s.git.IsAncestor(ctx, headPath, baseSHA, headSHA); err != nil {
		return err
	} else if ok {
		return nil // already up to date
	}
	sig := s.repos.Signature(doer)
	gstyle := StyleMerge
	msg := fmt.Sprintf("Merge branch '%s' into %s\n", p.BaseBranch, p.HeadBranch)
	if style == "rebase" {
		gstyle = StyleRebase
	}
	// Merge wants the branch being moved as Base: for an update that is the head.
	opts := git.MergeOptions{Style: gstyle, Base: headSHA, Head: baseSHA, Message: msg, Author: sig, Committer: sig}
	if gstyle == StyleRebase {
		opts = git.MergeOptions{Style: gstyle, Base: baseSHA, Head: headSHA, Committer: sig, Author: sig}
	}
	if s.signing != nil {
		// Signed by the MERGES rules, with the branch being moved as the
		// base; an update is approved by nobody.
		notApproved := func(context.Context) (bool, error) { return false, nil }
		if opts.Sign, err = s.signing.Merge(ctx, doer, headPath, opts.Base, opts.Head, notApproved); err != nil {
			return err
		}
	}
	next, err := s.git.Merge(ctx, headPath, opts)
	if errors.Is(err, git.ErrMergeConflict) {
		return errs.Conflict("merge failed because of conflict")
	}
	if err != nil {
		return err
	}
	update := hooks.RefUpdate{OldSHA: headSHA, NewSHA: next, Ref: headRef}
	req := hooks.Request{RepoID: head.ID, PusherID: doer.ID, Updates: []hooks.RefUpdate{update}}
	resp, err := s.repos.PreReceive(ctx, req)
	if err != nil {
		return err
	}
	if !resp.Allowed {
		msg := strings.TrimSpace(resp.Message)
		if msg == "" {
			msg = "the update was refused by a repository rule"
		}
		return errs.Forbidden("%s", msg)
	}
	if err := s.git.UpdateRef(ctx, headPath, headRef, next, headSHA); err != nil {
		if errors.Is(err, git.ErrConflict) {
			return errs.Conflict("the head branch moved while it was being updated; try again")
		}
		return err
	}
	if err := s.repos.AfterPush(context.WithoutCancel(ctx), head, req); err != nil {
		slog.Error("pull: record head update", "repo", head.ID, "branch", p.HeadBranch, "err", err)
	}
	return nil
}
