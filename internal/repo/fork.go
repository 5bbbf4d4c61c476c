package repo

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/user"
)

// copyTimeout bounds the git work of a fork or a template generation.
const copyTimeout = time.Hour

// ForkOptions describes a new fork.
type ForkOptions struct {
	// Name of the fork; default the name of the original.
	Name string
}

// Fork copies base into a new repository of owner. The fork is a full,
// independent copy of the branches and tags (a --no-local clone: no shared
// objects, no alternates), so it keeps working, with its history, when the
// original is deleted. It is private when the original is. An owner has at
// most one fork of a repository. On failure nothing is left.
func (s *Service) Fork(ctx context.Context, doer, owner *user.User, base *Repository, o ForkOptions) (*Repository, error) {
	name := o.Name
	if name == "" {
		name = base.Name
	}
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	existing, err := s.List(ctx, "WHERE r.owner_id = ? AND r.fork_id = ? AND r.is_fork = ?", owner.ID, base.ID, true)
	if err != nil {
		return nil, err
	}
	if len(existing) > 0 {
		return nil, errs.Conflict("repository is already forked by user [uname: %s, repo path: %s, fork path: %s]",
			owner.Name, base.FullName(), existing[0].FullName())
	}
	fork, err := s.Create(ctx, doer, owner, CreateOptions{
		Name: name, Description: base.Description, DefaultBranch: base.DefaultBranch, ObjectFormat: base.ObjectFormat,
		Private: base.IsPrivate, IsFork: true, ForkID: base.ID,
	})
	if err != nil {
		return nil, err
	}
	// Counted now, so that the cleanup of a failed copy (which uncounts a
	// deleted fork) balances.
	if err := s.Store.AddToCounter(ctx, base.ID, "num_forks", 1); err != nil {
		return nil, s.abandon(ctx, fork, err)
	}
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), copyTimeout)
	defer cancel()
	if err := s.cloneLocal(gctx, s.Path(base), s.Path(fork)); err != nil {
		return nil, s.abandon(ctx, fork, err)
	}
	if err := s.finishCopy(gctx, fork, base.DefaultBranch); err != nil {
		return nil, s.abandon(ctx, fork, err)
	}
	return s.GetByID(ctx, fork.ID)
}

// cloneLocal makes dst a bare copy of the branches and tags of the bare
// repository src, object by object (--no-local), with no remote left behind.
func (s *Service) cloneLocal(ctx context.Context, src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	err := s.Git.Command("clone", "--bare", "--no-local", "--quiet", "--template=").
		Env("GIT_ALLOW_PROTOCOL=file").EndOfOptions().Values(src, dst).Run(ctx)
	if err != nil {
		return err
	}
	return s.Git.Command("remote", "remove", "origin").Repo(dst).Run(ctx)
}

// finishCopy records what a repository filled by Cairn (fork, migration,
// template) holds: object format, emptiness, default branch, size; and marks
// it ready. HEAD is pointed at the default branch, or at an existing branch
// when the wanted one does not exist.
func (s *Service) finishCopy(ctx context.Context, r *Repository, wantBranch string) error {
	path := s.Path(r)
	format, err := s.Git.ObjectFormat(ctx, path)
	if err != nil {
		return err
	}
	empty, err := s.Git.IsEmpty(ctx, path)
	if err != nil {
		return err
	}
	branch := wantBranch
	if branch == "" {
		if head, err := s.Git.HeadBranch(ctx, path); err == nil {
			branch = head
		}
	}
	if !empty {
		if branch == "" || !s.hasBranch(ctx, path, branch) {
			branch = s.someBranch(ctx, path, branch)
		}
	}
	if ValidateDefaultBranch(branch) != nil {
		// Nothing usable: git allows longer branch names than a default
		// branch may have.
		branch = s.cfg.Repository.DefaultBranch
	}
	if err := s.Git.SetHeadBranch(ctx, path, branch); err != nil {
		return err
	}
	_, err = s.db.Exec(ctx, "UPDATE repository SET object_format = ?, is_empty = ?, default_branch = ?, size = ?, status = ?, updated_unix = ? WHERE id = ?",
		format, empty, branch, dirSize(path), StatusReady, time.Now().Unix(), r.ID)
	return err
}

// hasBranch reports whether the repository has a branch name that can be its
// default branch.
func (s *Service) hasBranch(ctx context.Context, path, name string) bool {
	if ValidateDefaultBranch(name) != nil {
		return false
	}
	_, err := s.Git.GetBranch(ctx, path, name)
	return err == nil
}

// someBranch picks a default branch among the existing ones: the configured
// default, then main, then master, then the first that can be a default
// branch; fallback when there is none.
func (s *Service) someBranch(ctx context.Context, path, fallback string) string {
	for _, b := range []string{s.cfg.Repository.DefaultBranch, "main", "master"} {
		if s.hasBranch(ctx, path, b) {
			return b
		}
	}
	list, _, err := s.Git.ListBranches(ctx, path, git.ListOptions{Limit: 100})
	if err != nil {
		return fallback
	}
	for _, b := range list {
		if ValidateDefaultBranch(b.Name) == nil {
			return b.Name
		}
	}
	return fallback
}

// abandon deletes a repository whose creation failed and returns cause.
func (s *Service) abandon(ctx context.Context, r *Repository, cause error) error {
	ctx = context.WithoutCancel(ctx)
	if fresh, err := s.Store.GetByID(ctx, r.ID); err == nil {
		r = fresh
	}
	if err := s.Delete(ctx, r); err != nil && !errs.IsNotFound(err) {
		return errors.Join(cause, err)
	}
	return cause
}
