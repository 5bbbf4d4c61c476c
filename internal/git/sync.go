package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Sync styles reported by SyncBranch, with Gitea's names.
const (
	SyncFastForward = "fast-forward"
	SyncMerge       = "merge"
)

// ErrMergeConflict is returned when a merge cannot be made without a person.
var ErrMergeConflict = errors.New("git: merge conflicts")

// SyncBranchOptions says how SyncBranch brings a branch up to date.
type SyncBranchOptions struct {
	// Upstream is the repository the branch follows (a path on disk).
	Upstream string
	// Branch is the branch, by the same name in both repositories.
	Branch string
	// Message and Author make the merge commit, when one is needed.
	Message string
	Author  Signature
	// BeforeUpdate, when set, is called just before the branch moves, as in
	// CommitFilesOptions; an error leaves the branch untouched.
	BeforeUpdate func(ctx context.Context, oldSHA, newSHA string) error
}

// SyncBranch brings Branch of repoPath up to date with Branch of
// opts.Upstream: the upstream commits are fetched, then the branch moves
// forward to the upstream tip when it has nothing of its own (or is
// created), or receives a merge commit when the two have diverged
// (ErrMergeConflict when they conflict). A branch that already contains the
// upstream tip is left alone. It returns the style and the branch's old and
// new commits ("" old when created; old == new when nothing changed).
func (g *Git) SyncBranch(ctx context.Context, repoPath string, opts SyncBranchOptions) (style, oldSHA, newSHA string, err error) {
	if !ValidBranchName(opts.Branch) {
		return "", "", "", fmt.Errorf("%w: branch name %q", ErrInvalidArgument, opts.Branch)
	}
	ref := BranchPrefix + opts.Branch
	up, err := g.ResolveCommit(ctx, opts.Upstream, ref)
	if err != nil {
		return "", "", "", err
	}
	err = g.repoCommand(repoPath, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head").EndOfOptions().Values(opts.Upstream, ref).Run(ctx)
	if err != nil {
		return "", "", "", err
	}
	cur, err := g.ResolveCommit(ctx, repoPath, ref)
	if errors.Is(err, ErrNotFound) {
		cur, err = "", nil
	}
	if err != nil {
		return "", "", "", err
	}
	move := func(style, next string) (string, string, string, error) {
		u := refUpdate{ref: ref, newSHA: next, oldSHA: cur, create: cur == ""}
		if opts.BeforeUpdate != nil {
			if err := opts.BeforeUpdate(ctx, cur, next); err != nil {
				return "", "", "", err
			}
		}
		if err := g.updateRefs(ctx, repoPath, u); err != nil {
			if errors.Is(err, ErrAlreadyExists) {
				err = fmt.Errorf("%w: %w", ErrConflict, err)
			}
			return "", "", "", err
		}
		return style, cur, next, nil
	}
	switch {
	case cur == "":
		return move(SyncFastForward, up)
	case cur == up:
		return SyncFastForward, cur, cur, nil
	}
	if ok, err := g.isAncestor(ctx, repoPath, cur, up); err != nil {
		return "", "", "", err
	} else if ok {
		return move(SyncFastForward, up)
	}
	if ok, err := g.isAncestor(ctx, repoPath, up, cur); err != nil {
		return "", "", "", err
	} else if ok {
		return SyncMerge, cur, cur, nil // the branch already has every upstream commit
	}
	treeOut, err := g.repoCommand(repoPath, "merge-tree", "--write-tree", "--no-messages").EndOfOptions().Values(cur, up).Output(ctx)
	if exitCode(err) == 1 {
		return "", "", "", ErrMergeConflict
	}
	if err != nil {
		return "", "", "", err
	}
	tree, _, _ := strings.Cut(strings.TrimSpace(string(treeOut)), "\n")
	msg := opts.Message
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	a := opts.Author
	if a.When.IsZero() {
		a.When = g.now()
	}
	out, err := g.repoCommand(repoPath, "commit-tree").Values(tree).Args("-p").Values(cur).Args("-p").Values(up).Env(
		"GIT_AUTHOR_NAME="+a.Name, "GIT_AUTHOR_EMAIL="+a.Email, "GIT_AUTHOR_DATE="+gitDate(a.When),
		"GIT_COMMITTER_NAME="+a.Name, "GIT_COMMITTER_EMAIL="+a.Email, "GIT_COMMITTER_DATE="+gitDate(a.When),
	).Stdin(strings.NewReader(msg)).Output(ctx)
	if err != nil {
		return "", "", "", err
	}
	return move(SyncMerge, strings.TrimSpace(string(out)))
}

// isAncestor reports whether commit a is an ancestor of (or is) commit b.
func (g *Git) isAncestor(ctx context.Context, repoPath, a, b string) (bool, error) {
	err := g.repoCommand(repoPath, "merge-base", "--is-ancestor").EndOfOptions().Values(a, b).Run(ctx)
	if err == nil {
		return true, nil
	}
	if exitCode(err) == 1 {
		return false, nil
	}
	return false, err
}
