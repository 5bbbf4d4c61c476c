package pull

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
)

// DiffSides returns the old and new side of p's changes in base, its base
// repository: the merge base and the head commit (for a merged pull
// request, the head as merged and the merge base it had).
func (s *Service) DiffSides(ctx context.Context, base *repo.Repository, p *PullRequest) (string, string, error) {
	path := s.repos.Path(base)
	head := p.HeadCommitID
	if !p.HasMerged {
		if sha, err := s.git.ResolveCommit(ctx, path, p.HeadRef()); err == nil {
			head = sha
		}
	}
	if head == "" {
		return "", "", errs.NotFound("the head commit of the pull request is missing")
	}
	if p.HasMerged && p.MergeBase != "" {
		return p.MergeBase, head, nil
	}
	baseSHA, err := s.git.ResolveCommit(ctx, path, git.BranchPrefix+p.BaseBranch)
	if err != nil {
		if p.MergeBase != "" {
			return p.MergeBase, head, nil
		}
		return "", "", errs.NotFound("base branch does not exist [name: %s]", p.BaseBranch)
	}
	mb, err := s.git.MergeBase(ctx, path, baseSHA, head)
	if err != nil {
		return "", "", err
	}
	if mb == "" {
		return "", "", errs.Conflict("the head and the base have no common history")
	}
	return mb, head, nil
}
