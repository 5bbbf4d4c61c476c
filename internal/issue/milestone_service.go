package issue

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
)

// MaxMilestoneTitleLength is the longest milestone title, in characters.
const MaxMilestoneTitleLength = 255

// MilestoneOptions describes a new milestone.
type MilestoneOptions struct {
	Title       string
	Description string
	Deadline    time.Time // zero for none
	Closed      bool
}

// MilestoneChanges is an edit of a milestone; nil fields stay as they are.
type MilestoneChanges struct {
	Title       *string
	Description *string
	Deadline    *time.Time
	Closed      *bool
}

func checkMilestoneTitle(t string) (string, error) {
	t = strings.TrimSpace(t)
	if t == "" {
		return "", errs.InvalidField("title", "[Title]: Required")
	}
	if utf8.RuneCountInString(t) > MaxMilestoneTitleLength {
		return "", errs.InvalidField("title", "[Title]: MaxSize (at most %d characters)", MaxMilestoneTitleLength)
	}
	return t, nil
}

func checkMilestoneDescription(d string) error {
	if len(d) > MaxCommentLength {
		return errs.InvalidField("description", "[Description]: MaxSize (at most %d bytes)", MaxCommentLength)
	}
	return nil
}

func unixOrNone(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// CreateMilestone adds a milestone to r and keeps r's milestone counters.
func (s *Service) CreateMilestone(ctx context.Context, r *repo.Repository, o MilestoneOptions) (*Milestone, error) {
	title, err := checkMilestoneTitle(o.Title)
	if err != nil {
		return nil, err
	}
	if err := checkMilestoneDescription(o.Description); err != nil {
		return nil, err
	}
	now := time.Unix(time.Now().Unix(), 0)
	m := &Milestone{RepoID: r.ID, Name: title, Content: o.Description, IsClosed: o.Closed, Created: now, Updated: now}
	if !o.Deadline.IsZero() {
		m.Deadline = time.Unix(o.Deadline.Unix(), 0)
	}
	if o.Closed {
		m.Closed = now
	}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		var err error
		m.ID, err = s.db.Insert(ctx, `INSERT INTO milestone (repo_id, name, content, is_closed, deadline_unix, closed_unix,
			created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, m.Name, m.Content, m.IsClosed, unixOrNone(m.Deadline), unixOrNone(m.Closed), now.Unix(), now.Unix())
		if err != nil {
			return err
		}
		if err := s.repos.Store.AddToCounter(ctx, r.ID, "num_milestones", 1); err != nil {
			return err
		}
		if o.Closed {
			return s.repos.Store.AddToCounter(ctx, r.ID, "num_closed_milestones", 1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// GetMilestone loads milestone id of repository repoID; 404 otherwise.
func (s *Service) GetMilestone(ctx context.Context, repoID, id int64) (*Milestone, error) {
	m, err := scanMilestone(s.db.QueryRow(ctx, "SELECT "+MilestoneColumns+" FROM milestone m WHERE m.id = ? AND m.repo_id = ?", id, repoID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("milestone does not exist [id: %d, repo_id: %d]", id, repoID)
	}
	return m, err
}

// MilestoneByIDOrName loads a milestone of repository repoID by its id or,
// failing that, by its title (as Gitea does: a number that is no milestone's
// id is tried as a title).
func (s *Service) MilestoneByIDOrName(ctx context.Context, repoID int64, key string) (*Milestone, error) {
	if id, err := strconv.ParseInt(key, 10, 64); err == nil && id > 0 {
		m, err := s.GetMilestone(ctx, repoID, id)
		if !errs.IsNotFound(err) {
			return m, err
		}
	}
	list, err := s.ListMilestones(ctx, "WHERE m.repo_id = ? AND m.name = ? ORDER BY m.id"+db.LimitOffset(1, 0), repoID, key)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errs.NotFound("milestone does not exist [name: %s, repo_id: %d]", key, repoID)
	}
	return list[0], nil
}

// MilestoneFilter selects milestones of one repository.
type MilestoneFilter struct {
	// State is "open" (the default, also for unknown values), "closed" or "all".
	State string
	// Name keeps milestones whose title contains it, case-insensitively.
	Name string
}

func (f MilestoneFilter) where(repoID int64) (string, []any) {
	where, args := "m.repo_id = ?", []any{repoID}
	switch f.State {
	case "all":
	case "closed":
		where += " AND m.is_closed = ?"
		args = append(args, true)
	default:
		where += " AND m.is_closed = ?"
		args = append(args, false)
	}
	if f.Name != "" {
		where += " AND LOWER(m.name) LIKE ? ESCAPE '!'"
		args = append(args, likePattern(f.Name))
	}
	return where, args
}

// ListRepoMilestones returns one page of a repository's milestones and the
// total: one count query and one page query. Milestones come by due date,
// those without one last, then by id.
func (s *Service) ListRepoMilestones(ctx context.Context, repoID int64, f MilestoneFilter, limit, offset int) ([]*Milestone, int64, error) {
	where, args := f.where(repoID)
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM milestone m WHERE "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.ListMilestones(ctx, "WHERE "+where+
		" ORDER BY CASE WHEN m.deadline_unix = 0 THEN 1 ELSE 0 END, m.deadline_unix, m.id"+db.LimitOffset(limit, offset), args...)
	return list, total, err
}

// EditMilestone applies changes to m, keeping the repository's counters when
// it is closed or reopened. Everything is checked before anything is written.
func (s *Service) EditMilestone(ctx context.Context, r *repo.Repository, m *Milestone, c MilestoneChanges) error {
	next := *m
	var err error
	if c.Title != nil {
		if next.Name, err = checkMilestoneTitle(*c.Title); err != nil {
			return err
		}
	}
	if c.Description != nil {
		if err := checkMilestoneDescription(*c.Description); err != nil {
			return err
		}
		next.Content = *c.Description
	}
	if c.Deadline != nil {
		next.Deadline = time.Time{}
		if !c.Deadline.IsZero() {
			next.Deadline = time.Unix(c.Deadline.Unix(), 0)
		}
	}
	now := time.Unix(time.Now().Unix(), 0)
	if c.Closed != nil && *c.Closed != m.IsClosed {
		next.IsClosed = *c.Closed
		next.Closed = time.Time{}
		if next.IsClosed {
			next.Closed = now
		}
	}
	next.Updated = now
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, `UPDATE milestone SET name = ?, content = ?, deadline_unix = ?, is_closed = ?, closed_unix = ?,
			updated_unix = ? WHERE id = ? AND is_closed = ?`,
			next.Name, next.Content, unixOrNone(next.Deadline), next.IsClosed, unixOrNone(next.Closed), now.Unix(), m.ID, m.IsClosed)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.Conflict("the milestone was changed at the same time, try again")
		}
		if next.IsClosed == m.IsClosed {
			return nil
		}
		delta := 1
		if !next.IsClosed {
			delta = -1
		}
		return s.repos.Store.AddToCounter(ctx, r.ID, "num_closed_milestones", delta)
	})
	if err != nil {
		return err
	}
	*m = next
	return nil
}

// DeleteMilestone removes m; its issues keep going without a milestone.
func (s *Service) DeleteMilestone(ctx context.Context, r *repo.Repository, m *Milestone) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, "DELETE FROM milestone WHERE id = ? AND repo_id = ?", m.ID, r.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if _, err := s.db.Exec(ctx, "UPDATE issue SET milestone_id = 0 WHERE milestone_id = ? AND repo_id = ?", m.ID, r.ID); err != nil {
			return err
		}
		if err := s.repos.Store.AddToCounter(ctx, r.ID, "num_milestones", -1); err != nil {
			return err
		}
		if m.IsClosed {
			return s.repos.Store.AddToCounter(ctx, r.ID, "num_closed_milestones", -1)
		}
		return nil
	})
}
