package issue

import (
	"context"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// Milestone groups issues of one repository towards a due date.
type Milestone struct {
	ID              int64
	RepoID          int64
	Name            string
	Content         string
	IsClosed        bool
	NumIssues       int
	NumClosedIssues int
	Deadline        time.Time // zero when none
	Closed          time.Time // zero when open
	Created         time.Time
	Updated         time.Time
}

// State is "open" or "closed".
func (m *Milestone) State() string {
	if m.IsClosed {
		return "closed"
	}
	return "open"
}

// MilestoneColumns is the select list scanMilestone reads, for alias "m".
const MilestoneColumns = `m.id, m.repo_id, m.name, COALESCE(m.content, ''), m.is_closed, m.num_issues, m.num_closed_issues,
	m.deadline_unix, m.closed_unix, m.created_unix, m.updated_unix`

func scanMilestone(row scanner) (*Milestone, error) {
	m := &Milestone{}
	var deadline, closed, created, updated int64
	if err := row.Scan(&m.ID, &m.RepoID, &m.Name, &m.Content, &m.IsClosed, &m.NumIssues, &m.NumClosedIssues,
		&deadline, &closed, &created, &updated); err != nil {
		return nil, err
	}
	m.Deadline, m.Closed, m.Created, m.Updated = unixOrZero(deadline), unixOrZero(closed), time.Unix(created, 0), time.Unix(updated, 0)
	return m, nil
}

// ListMilestones selects milestones with the given tail (over alias m).
func (s *Service) ListMilestones(ctx context.Context, tail string, args ...any) ([]*Milestone, error) {
	rows, err := s.db.Query(ctx, "SELECT "+MilestoneColumns+" FROM milestone m "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Milestone
	for rows.Next() {
		m, err := scanMilestone(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MilestonesByIDs loads many milestones keyed by id.
func (s *Service) MilestonesByIDs(ctx context.Context, ids []int64) (map[int64]*Milestone, error) {
	out := map[int64]*Milestone{}
	ids = uniq(ids)
	if len(ids) == 0 {
		return out, nil
	}
	list, err := s.ListMilestones(ctx, "WHERE m.id IN "+db.In(len(ids)), db.Int64Args(ids)...)
	for _, m := range list {
		out[m.ID] = m
	}
	return out, err
}
