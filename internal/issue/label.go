package issue

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// Label is a repository label (RepoID set) or an organization label (OrgID set).
type Label struct {
	ID              int64
	RepoID          int64
	OrgID           int64
	Name            string
	Exclusive       bool
	Description     string
	Color           string // six lowercase hex digits, no '#'
	NumIssues       int
	NumClosedIssues int
	Archived        time.Time // zero when not archived
	Created         time.Time
	Updated         time.Time
}

// IsArchived reports whether the label is archived.
func (l *Label) IsArchived() bool { return !l.Archived.IsZero() }

var colorPattern = regexp.MustCompile(`^#?[0-9a-fA-F]{6}$`)

// NormalizeColor checks a label color against the one pattern accepted
// everywhere (six hex digits, optional leading '#') and returns it as stored
// and shown: six lowercase hex digits without '#'.
func NormalizeColor(c string) (string, error) {
	c = strings.TrimSpace(c)
	if !colorPattern.MatchString(c) {
		return "", errs.InvalidField("color", "invalid color %q: six hexadecimal digits with an optional leading '#' are expected", c)
	}
	return strings.ToLower(strings.TrimPrefix(c, "#")), nil
}

// LabelColumns is the select list scanLabel reads, for alias "l".
const LabelColumns = `l.id, l.repo_id, l.org_id, l.name, l.exclusive, l.description, l.color, l.num_issues,
	l.num_closed_issues, l.archived_unix, l.created_unix, l.updated_unix`

func scanLabel(row scanner) (*Label, error) {
	l := &Label{}
	var archived, created, updated int64
	if err := row.Scan(&l.ID, &l.RepoID, &l.OrgID, &l.Name, &l.Exclusive, &l.Description, &l.Color, &l.NumIssues,
		&l.NumClosedIssues, &archived, &created, &updated); err != nil {
		return nil, err
	}
	l.Archived, l.Created, l.Updated = unixOrZero(archived), time.Unix(created, 0), time.Unix(updated, 0)
	return l, nil
}

// ListLabels selects labels with the given tail (over alias l).
func (s *Service) ListLabels(ctx context.Context, tail string, args ...any) ([]*Label, error) {
	rows, err := s.db.Query(ctx, "SELECT "+LabelColumns+" FROM label l "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Label
	for rows.Next() {
		l, err := scanLabel(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LabelsOf returns the labels of many issues in one query, in name order.
func (s *Service) LabelsOf(ctx context.Context, issueIDs []int64) (map[int64][]*Label, error) {
	out := map[int64][]*Label{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT il.issue_id, "+LabelColumns+" FROM issue_label il JOIN label l ON l.id = il.label_id WHERE il.issue_id IN "+
		db.In(len(issueIDs))+" ORDER BY l.name", db.Int64Args(issueIDs)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var issueID int64
		l, err := scanLabel(prefixScanner{rows, &issueID})
		if err != nil {
			return nil, err
		}
		out[issueID] = append(out[issueID], l)
	}
	return out, rows.Err()
}

// prefixScanner scans one leading column into first, the rest into dest.
type prefixScanner struct {
	row   scanner
	first any
}

func (p prefixScanner) Scan(dest ...any) error { return p.row.Scan(append([]any{p.first}, dest...)...) }

// CheckLabels returns the labels with the given ids that issues of repository
// repoID may carry (its own and, for organization repositories, the
// organization's); any other id is a 422.
func (s *Service) CheckLabels(ctx context.Context, repoID, orgID int64, ids []int64) ([]*Label, error) {
	ids = uniq(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := s.ListLabels(ctx, "WHERE l.id IN "+db.In(len(ids))+" AND (l.repo_id = ? OR (l.org_id = ? AND l.org_id <> 0))",
		append(db.Int64Args(ids), repoID, orgID)...)
	if err != nil {
		return nil, err
	}
	if len(list) != len(ids) {
		return nil, errs.InvalidField("labels", "some labels do not exist in this repository or its organization")
	}
	return list, nil
}
