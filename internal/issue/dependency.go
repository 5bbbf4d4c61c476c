package issue

import (
	"context"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Dependencies: a row (issue_id, dependency_id) of issue_dependency means
// that issue_id depends on dependency_id, i.e. dependency_id blocks issue_id.
// Dependencies may cross repositories.

// statusPreconditionFailed is the status Gitea answers when an issue with
// open dependencies is closed.
const statusPreconditionFailed = 412

// dependsOn reports whether issue from depends on issue to, directly or
// through other dependencies (one recursive query).
func (s *Service) dependsOn(ctx context.Context, from, to int64) (bool, error) {
	n, err := s.db.Count(ctx, `WITH RECURSIVE chain (id) AS (
			SELECT dependency_id FROM issue_dependency WHERE issue_id = ?
			UNION
			SELECT d.dependency_id FROM issue_dependency d JOIN chain c ON d.issue_id = c.id
		) SELECT COUNT(*) FROM chain WHERE id = ?`, from, to)
	return n > 0, err
}

// AddDependency makes target depend on dep (dep blocks target) and records
// an add_dependency event on both. An issue cannot depend on itself, twice
// on the same issue, or on an issue that (transitively) depends on it.
func (s *Service) AddDependency(ctx context.Context, doer *user.User, target, dep *Issue) error {
	if target.ID == dep.ID {
		return errs.Invalid("an issue cannot depend on itself")
	}
	now := time.Now()
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		exists, err := s.db.Exists(ctx, "SELECT 1 FROM issue_dependency WHERE issue_id = ? AND dependency_id = ?", target.ID, dep.ID)
		if err != nil {
			return err
		}
		if exists {
			return errs.Invalid("issue dependency does already exist [issue id: %d, dependency id: %d]", target.ID, dep.ID)
		}
		cycle, err := s.dependsOn(ctx, dep.ID, target.ID)
		if err != nil {
			return err
		}
		if cycle {
			return errs.Invalid("circular dependency: the dependency already depends on this issue [issue id: %d, dependency id: %d]", target.ID, dep.ID)
		}
		if _, err := s.db.Insert(ctx, "INSERT INTO issue_dependency (user_id, issue_id, dependency_id, created_unix) VALUES (?, ?, ?, ?)",
			doer.ID, target.ID, dep.ID, now.Unix()); err != nil {
			return err
		}
		return s.dependencyEvents(ctx, doer, target, dep, CommentAddDependency, now)
	})
}

// RemoveDependency removes the dependency of target on dep and records a
// remove_dependency event on both (404 when there is no such dependency).
func (s *Service) RemoveDependency(ctx context.Context, doer *user.User, target, dep *Issue) error {
	now := time.Now()
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, "DELETE FROM issue_dependency WHERE issue_id = ? AND dependency_id = ?", target.ID, dep.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFound("issue dependency does not exist [issue id: %d, dependency id: %d]", target.ID, dep.ID)
		}
		return s.dependencyEvents(ctx, doer, target, dep, CommentRemoveDependency, now)
	})
}

// dependencyEvents records the event on both issues, each naming the other.
func (s *Service) dependencyEvents(ctx context.Context, doer *user.User, target, dep *Issue, typ CommentType, now time.Time) error {
	if err := s.insertComment(ctx, &Comment{Type: typ, PosterID: doer.ID, IssueID: target.ID, DependentIssueID: dep.ID, Created: now}); err != nil {
		return err
	}
	return s.insertComment(ctx, &Comment{Type: typ, PosterID: doer.ID, IssueID: dep.ID, DependentIssueID: target.ID, Created: now})
}

// DependencyList selects one side of an issue's dependencies.
type DependencyList struct {
	IssueID int64
	// Blocks lists the issues IssueID blocks; otherwise the issues it depends on.
	Blocks bool
	// RepoID orders issues of this repository first.
	RepoID int64
	// RepoCond is a condition over repository alias "r" joined with owner
	// "o" (access.RepoCond) that the listed issues' repositories must meet;
	// issues of disabled units are left out too.
	RepoCond string
	RepoArgs []any
	// Limit and Offset page the list.
	Limit, Offset int
}

// ListDependencies lists blockers (or blocked issues) of an issue with the
// total: two queries.
func (s *Service) ListDependencies(ctx context.Context, o DependencyList) ([]*Issue, int64, error) {
	on, by := "d.dependency_id = i.id", "d.issue_id = ?"
	if o.Blocks {
		on, by = "d.issue_id = i.id", "d.dependency_id = ?"
	}
	q := `JOIN issue_dependency d ON ` + on + ` JOIN repository r ON r.id = i.repo_id JOIN users o ON o.id = r.owner_id
		WHERE ` + by + ` AND (` + o.RepoCond + `) AND ((i.is_pull = ? AND r.units LIKE ?) OR (i.is_pull = ? AND r.units LIKE ?))`
	args := append(append([]any{o.IssueID}, o.RepoArgs...), false, `%"repo.issues"%`, true, `%"repo.pulls"%`)
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM issue i "+q, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.ListIssues(ctx, q+` ORDER BY CASE WHEN i.repo_id = ? THEN 0 ELSE 1 END, i.repo_id, i.created_unix DESC, i.id DESC`+
		limitOffset(o.Limit, o.Offset), append(args, o.RepoID)...)
	return list, total, err
}

func limitOffset(limit, offset int) string {
	if limit <= 0 {
		return ""
	}
	return " LIMIT " + itoa(int64(limit)) + " OFFSET " + itoa(int64(offset))
}

// DependencyBlocker is the ClosingBlocker of dependencies: when r has
// dependencies enabled, an issue that depends on an open issue cannot be
// closed (412, Gitea's status and message).
func (s *Service) DependencyBlocker(ctx context.Context, r *repo.Repository, is *Issue) error {
	if !r.Settings.EnableIssueDependencies {
		return nil
	}
	open, err := s.db.Exists(ctx, `SELECT 1 FROM issue_dependency d JOIN issue i ON i.id = d.dependency_id
		WHERE d.issue_id = ? AND i.is_closed = ?`, is.ID, false)
	if err != nil || !open {
		return err
	}
	what := "issue"
	if is.IsPull {
		what = "pull request"
	}
	return errs.Invalid("cannot close this %s because it still has open dependencies", what).WithStatus(statusPreconditionFailed)
}
