package repo

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
)

// ErrTargetNotFound is CreateTag's answer when the target names no branch
// or commit of the repository.
var ErrTargetNotFound = errors.New("repo: the target is no branch or commit of the repository")

// ChangeRefs applies a reference change Cairn makes itself for pusherID
// (0: nobody signed in): the repository's push rules are asked first with
// the updates in check, as for a push (a refusal is errs.Forbidden with
// their message), then apply runs, then updates are recorded (emptiness,
// default branch) and announced to the push listeners. The recording goes
// on when the caller's context ends: the change has happened.
func (s *Service) ChangeRefs(ctx context.Context, r *Repository, pusherID int64, check, updates []hooks.RefUpdate, apply func() error) error {
	resp, err := s.PreReceive(ctx, hooks.Request{RepoID: r.ID, PusherID: pusherID, Updates: check})
	if err != nil {
		return err
	}
	if !resp.Allowed {
		return errs.Forbidden("%s", strings.TrimSpace(resp.Message))
	}
	if err := apply(); err != nil {
		return err
	}
	if err := s.AfterPush(context.WithoutCancel(ctx), r, hooks.Request{RepoID: r.ID, PusherID: pusherID, Updates: updates}); err != nil {
		slog.Error("recording a reference change", "repo", r.ID, "err", err)
	}
	return nil
}

// CreateTag creates the lightweight tag name at target (a branch, tag or
// commit; the default branch when empty) through ChangeRefs, and returns
// its commit. The caller has checked that the doer may write the code and
// that the tag does not exist. Errors: ErrTargetNotFound; errs.Forbidden
// when a push rule (tag protection) refuses; errs.Conflict when the tag was
// created meanwhile; errs.InvalidField("tag_name") when git refuses the name.
func (s *Service) CreateTag(ctx context.Context, r *Repository, pusherID int64, name, target string) (string, error) {
	if target == "" {
		target = r.DefaultBranch
	}
	if !git.ValidRefName(target) || !git.ValidRevision(target) {
		return "", ErrTargetNotFound
	}
	path := s.Path(r)
	commit, err := s.Git.ResolveCommit(ctx, path, target)
	if errors.Is(err, git.ErrNotFound) {
		return "", ErrTargetNotFound
	}
	if err != nil {
		return "", err
	}
	up := []hooks.RefUpdate{{OldSHA: strings.Repeat("0", len(commit)), NewSHA: commit, Ref: git.TagPrefix + name}}
	err = s.ChangeRefs(ctx, r, pusherID, up, up, func() error {
		_, err := s.Git.CreateTag(ctx, path, git.CreateTagOptions{Name: name, Target: commit})
		switch {
		case errors.Is(err, git.ErrAlreadyExists), errors.Is(err, git.ErrConflict):
			return errs.Conflict("The tag %q was created meanwhile.", name)
		case errors.Is(err, git.ErrNotFound):
			return ErrTargetNotFound
		case errors.Is(err, git.ErrInvalidArgument):
			return errs.InvalidField("tag_name", "The tag %q cannot be created: %v", name, err)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return commit, nil
}
