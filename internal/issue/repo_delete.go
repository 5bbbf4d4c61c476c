package issue

import (
	"context"

	"github.com/cairn-forge/cairn/internal/repo"
)

// DeleteRepoData removes the issues, comments, labels, milestones and
// everything else of a repository being deleted. It is a repo.DeleteHook and
// runs inside the deleting transaction.
func (s *Service) DeleteRepoData(ctx context.Context, r *repo.Repository) error {
	if err := s.deleteIssues(ctx, "repo_id = ?", r.ID); err != nil {
		return err
	}
	for _, q := range []string{
		"DELETE FROM notification WHERE repo_id = ?",
		"DELETE FROM issue_index WHERE repo_id = ?",
		"DELETE FROM milestone WHERE repo_id = ?",
		"DELETE FROM label WHERE repo_id = ?",
	} {
		if _, err := s.db.Exec(ctx, q, r.ID); err != nil {
			return err
		}
	}
	return s.dropAttachments(ctx, "repo_id = ?", r.ID)
}
