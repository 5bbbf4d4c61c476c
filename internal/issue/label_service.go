package issue

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/templates"
	"github.com/cairn-forge/cairn/internal/user"
)

// Label limits, in characters (Gitea's label form).
const (
	MaxLabelNameLength        = 50
	MaxLabelDescriptionLength = 200
)

// LabelTemplates gives the labels of a named label template; templates.Set
// implements it.
type LabelTemplates interface {
	LabelTemplate(name string) ([]templates.Label, error)
}

// SetLabelTemplates registers the label templates ApplyLabelTemplate uses;
// call it only while wiring.
func (s *Service) SetLabelTemplates(t LabelTemplates) { s.labelTemplates = t }

// ExclusiveScope is the scope of an exclusive label: the part of its name
// before the last '/', or "" when the label is not exclusive or not scoped.
// An issue carries at most one label of each scope.
func (l *Label) ExclusiveScope() string {
	if !l.Exclusive {
		return ""
	}
	i := strings.LastIndexByte(l.Name, '/')
	if i <= 0 || i == len(l.Name)-1 {
		return ""
	}
	return l.Name[:i]
}

// LabelOwner says whose labels an operation works on: a repository's
// (RepoID) or an organization's (OrgID).
type LabelOwner struct {
	RepoID int64
	OrgID  int64
}

// cond selects the owner's labels over alias l.
func (o LabelOwner) cond() (string, int64) {
	if o.OrgID > 0 {
		return "l.org_id = ?", o.OrgID
	}
	return "l.repo_id = ?", o.RepoID
}

// String names the owner in error messages.
func (o LabelOwner) String() string {
	if o.OrgID > 0 {
		return "org_id: " + itoa(o.OrgID)
	}
	return "repo_id: " + itoa(o.RepoID)
}

// LabelOptions describes a new label.
type LabelOptions struct {
	Name        string
	Color       string // six hex digits, optional leading '#'
	Description string
	Exclusive   bool
	Archived    bool
}

// LabelChanges is an edit of a label; nil fields stay as they are.
type LabelChanges struct {
	Name        *string
	Color       *string
	Description *string
	Exclusive   *bool
	Archived    *bool
}

func checkLabelName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errs.InvalidField("name", "[Name]: Required")
	}
	if utf8.RuneCountInString(name) > MaxLabelNameLength {
		return "", errs.InvalidField("name", "[Name]: MaxSize (at most %d characters)", MaxLabelNameLength)
	}
	return name, nil
}

func checkLabelDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	if utf8.RuneCountInString(d) > MaxLabelDescriptionLength {
		return "", errs.InvalidField("description", "[Description]: MaxSize (at most %d characters)", MaxLabelDescriptionLength)
	}
	return d, nil
}

// CreateLabel adds a label to a repository or an organization. The color is
// checked and stored normalized (NormalizeColor).
func (s *Service) CreateLabel(ctx context.Context, owner LabelOwner, o LabelOptions) (*Label, error) {
	name, err := checkLabelName(o.Name)
	if err != nil {
		return nil, err
	}
	desc, err := checkLabelDescription(o.Description)
	if err != nil {
		return nil, err
	}
	color, err := NormalizeColor(o.Color)
	if err != nil {
		return nil, err
	}
	now := time.Unix(time.Now().Unix(), 0)
	l := &Label{RepoID: owner.RepoID, OrgID: owner.OrgID, Name: name, Exclusive: o.Exclusive, Description: desc,
		Color: color, Created: now, Updated: now}
	if o.Archived {
		l.Archived = now
	}
	l.ID, err = s.insertLabel(ctx, l)
	return l, err
}

func (s *Service) insertLabel(ctx context.Context, l *Label) (int64, error) {
	var archived int64
	if l.IsArchived() {
		archived = l.Archived.Unix()
	}
	return s.db.Insert(ctx, `INSERT INTO label (repo_id, org_id, name, exclusive, description, color, archived_unix,
		created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.RepoID, l.OrgID, l.Name, l.Exclusive, l.Description, l.Color, archived, l.Created.Unix(), l.Updated.Unix())
}

// GetLabel loads label id of owner; 404 when owner has no such label.
func (s *Service) GetLabel(ctx context.Context, owner LabelOwner, id int64) (*Label, error) {
	cond, arg := owner.cond()
	l, err := scanLabel(s.db.QueryRow(ctx, "SELECT "+LabelColumns+" FROM label l WHERE l.id = ? AND "+cond, id, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("label does not exist [label_id: %d, %s]", id, owner)
	}
	return l, err
}

// LabelByIDOrName loads a label of owner named by its id or, when key is not
// a number, by its name (case-insensitive; an exact match wins).
func (s *Service) LabelByIDOrName(ctx context.Context, owner LabelOwner, key string) (*Label, error) {
	if id, err := strconv.ParseInt(key, 10, 64); err == nil {
		return s.GetLabel(ctx, owner, id)
	}
	cond, arg := owner.cond()
	list, err := s.ListLabels(ctx, "WHERE "+cond+" AND LOWER(l.name) = ? ORDER BY l.id", arg, strings.ToLower(key))
	if err != nil {
		return nil, err
	}
	for _, l := range list {
		if l.Name == key {
			return l, nil
		}
	}
	if len(list) == 0 {
		return nil, errs.NotFound("label does not exist [name: %s, %s]", key, owner)
	}
	return list[0], nil
}

// labelOrders are the sort orders of label lists (Gitea's "sort" values).
var labelOrders = map[string]string{
	"":                      "l.name, l.id",
	"alphabetically":        "l.name, l.id",
	"reversealphabetically": "l.name DESC, l.id DESC",
	"leastissues":           "l.num_issues, l.name, l.id",
	"mostissues":            "l.num_issues DESC, l.name, l.id",
}

// ListOwnerLabels returns one page of owner's labels and their total: one
// count query and one page query. Unknown sort values sort by name.
func (s *Service) ListOwnerLabels(ctx context.Context, owner LabelOwner, sortBy string, limit, offset int) ([]*Label, int64, error) {
	cond, arg := owner.cond()
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM label l WHERE "+cond, arg)
	if err != nil {
		return nil, 0, err
	}
	order, ok := labelOrders[sortBy]
	if !ok {
		order = labelOrders[""]
	}
	list, err := s.ListLabels(ctx, "WHERE "+cond+" ORDER BY "+order+db.LimitOffset(limit, offset), arg)
	return list, total, err
}

// EditLabel applies changes to l. Everything is checked before anything is
// written; an empty change leaves the label as it is.
func (s *Service) EditLabel(ctx context.Context, l *Label, c LabelChanges) error {
	next := *l
	var err error
	if c.Name != nil {
		if next.Name, err = checkLabelName(*c.Name); err != nil {
			return err
		}
	}
	if c.Description != nil {
		if next.Description, err = checkLabelDescription(*c.Description); err != nil {
			return err
		}
	}
	if c.Color != nil {
		if next.Color, err = NormalizeColor(*c.Color); err != nil {
			return err
		}
	}
	if c.Exclusive != nil {
		next.Exclusive = *c.Exclusive
	}
	now := time.Unix(time.Now().Unix(), 0)
	if c.Archived != nil {
		switch {
		case !*c.Archived:
			next.Archived = time.Time{}
		case !l.IsArchived():
			// Only a newly archived label gets a new date.
			next.Archived = now
		}
	}
	var archived int64
	if next.IsArchived() {
		archived = next.Archived.Unix()
	}
	next.Updated = now
	if _, err := s.db.Exec(ctx, "UPDATE label SET name = ?, description = ?, color = ?, exclusive = ?, archived_unix = ?, updated_unix = ? WHERE id = ?",
		next.Name, next.Description, next.Color, next.Exclusive, archived, now.Unix(), l.ID); err != nil {
		return err
	}
	*l = next
	return nil
}

// DeleteLabel removes a label, takes it off every issue and drops the
// timeline entries about it.
func (s *Service) DeleteLabel(ctx context.Context, l *Label) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, q := range []string{
			"DELETE FROM issue_label WHERE label_id = ?",
			"DELETE FROM comment WHERE label_id = ? AND type = " + strconv.Itoa(int(CommentLabel)),
			"DELETE FROM label WHERE id = ?",
		} {
			if _, err := s.db.Exec(ctx, q, l.ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// ApplyLabelTemplate creates the labels of a label template in repository
// repoID (repo.LabelInitializer). An unknown template is a 422 and creates
// nothing.
func (s *Service) ApplyLabelTemplate(ctx context.Context, repoID int64, template string) error {
	if s.labelTemplates == nil {
		return errs.InvalidField("issue_labels", "label templates are not available")
	}
	list, err := s.labelTemplates.LabelTemplate(template)
	if err != nil {
		if errs.IsNotFound(err) {
			return errs.InvalidField("issue_labels", "label template %q does not exist", template)
		}
		return err
	}
	now := time.Unix(time.Now().Unix(), 0)
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, t := range list {
			color, err := NormalizeColor(t.Color)
			if err != nil {
				return err
			}
			l := &Label{RepoID: repoID, Name: t.Name, Exclusive: t.Exclusive, Description: t.Description, Color: color, Created: now, Updated: now}
			if _, err := s.insertLabel(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// ResolveLabels returns the labels named by ids or by names that issues of
// repository repoID may carry: its own and, when orgID is not 0, the
// organization's. Names match case-insensitively; a name may match a
// repository label and an organization label, and then gives both. Anything
// that names no usable label is a 422.
func (s *Service) ResolveLabels(ctx context.Context, repoID, orgID int64, ids []int64, names []string) ([]*Label, error) {
	out, err := s.CheckLabels(ctx, repoID, orgID, ids)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	var args []any
	for _, n := range names {
		k := strings.ToLower(strings.TrimSpace(n))
		if k == "" {
			return nil, errs.InvalidField("labels", "a label name is empty")
		}
		if !want[k] {
			want[k] = true
			args = append(args, k)
		}
	}
	if len(args) == 0 {
		return out, nil
	}
	list, err := s.ListLabels(ctx, "WHERE (l.repo_id = ? OR (l.org_id = ? AND l.org_id <> 0)) AND LOWER(l.name) IN "+db.In(len(args))+" ORDER BY l.id",
		append([]any{repoID, orgID}, args...)...)
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	seen := map[int64]bool{}
	for _, l := range out {
		seen[l.ID] = true
	}
	for _, l := range list {
		found[strings.ToLower(l.Name)] = true
		if !seen[l.ID] {
			seen[l.ID] = true
			out = append(out, l)
		}
	}
	for _, k := range args {
		if !found[k.(string)] {
			return nil, errs.InvalidField("labels", "label %q does not exist in this repository or its organization", k)
		}
	}
	return out, nil
}

// byName sorts labels by name, then id, as issues list them.
func byName(list []*Label) []*Label {
	out := append([]*Label(nil), list...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// oneOfEachScope drops duplicates and, of labels sharing an exclusive scope,
// keeps only the last one (list in name order).
func oneOfEachScope(list []*Label) []*Label {
	lastOfScope := map[string]int{}
	for i, l := range list {
		if sc := l.ExclusiveScope(); sc != "" {
			lastOfScope[sc] = i
		}
	}
	seen := map[int64]bool{}
	var out []*Label
	for i, l := range list {
		if seen[l.ID] {
			continue
		}
		if sc := l.ExclusiveScope(); sc != "" && lastOfScope[sc] != i {
			continue
		}
		seen[l.ID] = true
		out = append(out, l)
	}
	return out
}

// IssueLabels returns the labels of one issue, in name order.
func (s *Service) IssueLabels(ctx context.Context, issueID int64) ([]*Label, error) {
	m, err := s.LabelsOf(ctx, []int64{issueID})
	return m[issueID], err
}

// labelChange is the work of one change of an issue's labels.
type labelChange struct {
	s       *Service
	doer    *user.User
	is      *Issue
	now     time.Time
	have    []*Label // the issue's labels as the change goes
	touched []int64  // labels whose counters need a recount
}

func (c *labelChange) has(id int64) bool {
	for _, l := range c.have {
		if l.ID == id {
			return true
		}
	}
	return false
}

// add puts l on the issue, first taking off the labels of its exclusive scope.
func (c *labelChange) add(ctx context.Context, l *Label) error {
	if c.has(l.ID) {
		return nil
	}
	if sc := l.ExclusiveScope(); sc != "" {
		for _, other := range append([]*Label(nil), c.have...) {
			if other.ExclusiveScope() == sc {
				if err := c.remove(ctx, other); err != nil {
					return err
				}
			}
		}
	}
	if _, err := c.s.db.Insert(ctx, "INSERT INTO issue_label (issue_id, label_id) VALUES (?, ?)", c.is.ID, l.ID); err != nil {
		return err
	}
	c.have = append(c.have, l)
	c.touched = append(c.touched, l.ID)
	return c.s.insertComment(ctx, &Comment{Type: CommentLabel, PosterID: c.doer.ID, IssueID: c.is.ID, LabelID: l.ID, Content: "1", Created: c.now})
}

// remove takes l off the issue.
func (c *labelChange) remove(ctx context.Context, l *Label) error {
	res, err := c.s.db.Exec(ctx, "DELETE FROM issue_label WHERE issue_id = ? AND label_id = ?", c.is.ID, l.ID)
	if err != nil {
		return err
	}
	for i, x := range c.have {
		if x.ID == l.ID {
			c.have = append(c.have[:i:i], c.have[i+1:]...)
			break
		}
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	c.touched = append(c.touched, l.ID)
	return c.s.insertComment(ctx, &Comment{Type: CommentLabel, PosterID: c.doer.ID, IssueID: c.is.ID, LabelID: l.ID, Created: c.now})
}

// changeLabels runs fn on the issue's current labels in one transaction,
// then recounts, touches the issue and announces kind if anything changed.
func (s *Service) changeLabels(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, kind EventKind,
	fn func(ctx context.Context, c *labelChange) error) error {
	c := &labelChange{s: s, doer: doer, is: is, now: time.Unix(time.Now().Unix(), 0)}
	run := func(ctx context.Context) error {
		var err error
		c.touched = nil
		if c.have, err = s.IssueLabels(ctx, is.ID); err != nil {
			return err
		}
		if err := fn(ctx, c); err != nil {
			return err
		}
		if len(c.touched) == 0 {
			return nil
		}
		if err := s.recountLabels(ctx, c.touched); err != nil {
			return err
		}
		if err := s.touch(ctx, is.ID, c.now); err != nil {
			return err
		}
		after := *is
		after.Updated = c.now
		return s.Notify(ctx, Event{Kind: kind, Doer: doer, Repo: r, Issue: &after})
	}
	err := s.db.WithTx(ctx, run)
	if db.IsUniqueViolation(err) && !db.InTx(ctx) {
		// A concurrent change added the same label first: start again from
		// the labels the issue has now.
		err = s.db.WithTx(ctx, run)
	}
	if err != nil || len(c.touched) == 0 {
		return err
	}
	is.Updated = c.now
	return nil
}

// AddLabels puts labels on an issue, recording one timeline event per label
// added or taken off. Adding an exclusive label takes off the issue's other
// labels of the same scope. The caller checks the labels (ResolveLabels).
func (s *Service) AddLabels(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, labels []*Label) error {
	labels = oneOfEachScope(byName(labels))
	return s.changeLabels(ctx, doer, r, is, EventLabelUpdated, func(ctx context.Context, c *labelChange) error {
		for _, l := range labels {
			if err := c.add(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReplaceLabels makes labels the issue's labels (of labels sharing an
// exclusive scope only the last by name is kept).
func (s *Service) ReplaceLabels(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, labels []*Label) error {
	labels = oneOfEachScope(byName(labels))
	keep := map[int64]bool{}
	for _, l := range labels {
		keep[l.ID] = true
	}
	return s.changeLabels(ctx, doer, r, is, EventLabelUpdated, func(ctx context.Context, c *labelChange) error {
		for _, l := range append([]*Label(nil), c.have...) {
			if !keep[l.ID] {
				if err := c.remove(ctx, l); err != nil {
					return err
				}
			}
		}
		for _, l := range labels {
			if err := c.add(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// RemoveLabel takes one label off an issue; a label the issue does not carry
// changes nothing.
func (s *Service) RemoveLabel(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, l *Label) error {
	return s.changeLabels(ctx, doer, r, is, EventLabelUpdated, func(ctx context.Context, c *labelChange) error {
		return c.remove(ctx, l)
	})
}

// ClearLabels takes every label off an issue.
func (s *Service) ClearLabels(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue) error {
	return s.changeLabels(ctx, doer, r, is, EventLabelCleared, func(ctx context.Context, c *labelChange) error {
		for _, l := range append([]*Label(nil), c.have...) {
			if err := c.remove(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// recountLabels refreshes num_issues and num_closed_issues of labels ids.
func (s *Service) recountLabels(ctx context.Context, ids []int64) error {
	ids = uniq(ids)
	if len(ids) == 0 {
		return nil
	}
	_, err := s.db.Exec(ctx, `UPDATE label SET
		num_issues = (SELECT COUNT(*) FROM issue_label il WHERE il.label_id = label.id),
		num_closed_issues = (SELECT COUNT(*) FROM issue_label il JOIN issue i ON i.id = il.issue_id WHERE il.label_id = label.id AND i.is_closed = ?)
		WHERE id IN `+db.In(len(ids)), append([]any{true}, db.Int64Args(ids)...)...)
	return err
}
