package issue

import (
	"context"

	"github.com/cairn-forge/cairn/internal/repo"
)

// DeleteRepoData removes the issues, comments, labels, milestones and
// everything else of a repository being deleted. It is a repo.DeleteHook and
// runs inside the deleting transaction.
func (s *Service) DeleteRepoData(ctx context.Context, r *repo.Repository) error {
	issues := "SELECT id FROM issue WHERE repo_id = ?"
	for _, q := range []string{
		"DELETE FROM reaction WHERE issue_id IN (" + issues + ")",
		"DELETE FROM comment WHERE issue_id IN (" + issues + ")",
		"DELETE FROM issue_label WHERE issue_id IN (" + issues + ")",
		"DELETE FROM issue_assignees WHERE issue_id IN (" + issues + ")",
		"DELETE FROM issue_user WHERE issue_id IN (" + issues + ")",
		"DELETE FROM issue_watch WHERE issue_id IN (" + issues + ")",
		"DELETE FROM tracked_time WHERE issue_id IN (" + issues + ")",
		"DELETE FROM stopwatch WHERE issue_id IN (" + issues + ")",
		"DELETE FROM issue_dependency WHERE issue_id IN (" + issues + ") OR dependency_id IN (" + issues + ")",
		"DELETE FROM notification WHERE repo_id = ?",
		"DELETE FROM issue WHERE repo_id = ?",
		"DELETE FROM issue_index WHERE repo_id = ?",
		"DELETE FROM milestone WHERE repo_id = ?",
		"DELETE FROM label WHERE repo_id = ?",
		// Attachment files are kept until a cleanup removes rows without a repository.
		"UPDATE attachment SET issue_id = 0, comment_id = 0 WHERE repo_id = ?",
	} {
		args := []any{r.ID}
		if n := countPlaceholders(q); n == 2 {
			args = append(args, r.ID)
		}
		if _, err := s.db.Exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

func countPlaceholders(q string) int {
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
		}
	}
	return n
}
