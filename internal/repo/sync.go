package repo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/user"
)

// MergeUpstream brings branch of fork r up to date with the same branch of
// parent, the repository r was forked from, as doer: a fast-forward when the
// fork has no commits of its own there, else a merge commit by doer
// (refused when it conflicts). The fork's push rules apply, and the update
// is recorded like a push. It returns Gitea's merge style names.
func (s *Service) MergeUpstream(ctx context.Context, doer *user.User, r, parent *Repository, branch string) (string, error) {
	if r.IsArchived {
		return "", errs.Forbidden("the repository is archived")
	}
	if r.IsMirror {
		return "", errs.Forbidden("the repository is a mirror")
	}
	ref := git.BranchPrefix + branch
	style, oldSHA, newSHA, err := s.Git.SyncBranch(ctx, s.Path(r), git.SyncBranchOptions{
		Upstream: s.Path(parent), Branch: branch, Author: s.doerIdentity(doer),
		Message: fmt.Sprintf("Merge branch '%s' of %s/%s into %s", branch, parent.OwnerName, parent.Name, branch),
		BeforeUpdate: func(ctx context.Context, oldSHA, newSHA string) error {
			return s.checkFilesPush(ctx, r, doer, ref, oldSHA, newSHA)
		},
	})
	var de *errs.Error
	switch {
	case err == nil:
	case errors.As(err, &de):
		return "", err
	case errors.Is(err, git.ErrInvalidArgument):
		return "", errs.BadRequest("invalid branch name %q", branch)
	case errors.Is(err, git.ErrNotFound):
		return "", errs.NotFound("branch %s does not exist in %s/%s", branch, parent.OwnerName, parent.Name)
	case errors.Is(err, git.ErrMergeConflict):
		return "", errs.BadRequest("merge conflicts")
	case errors.Is(err, git.ErrConflict):
		return "", errs.Conflict("branch %s moved while it was being updated; try again", branch)
	default:
		return "", err
	}
	if oldSHA != newSHA {
		req := hooks.Request{RepoID: r.ID, PusherID: doer.ID, Updates: []hooks.RefUpdate{{
			OldSHA: zeroIfEmpty(oldSHA, newSHA), NewSHA: newSHA, Ref: ref,
		}}}
		// The branch moved: record it even if the caller went away.
		if err := s.AfterPush(context.WithoutCancel(ctx), r, req); err != nil {
			slog.Error("record upstream sync", "repo", r.ID, "branch", branch, "err", err)
		}
	}
	return style, nil
}
