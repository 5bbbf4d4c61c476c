package issue

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// EventKind names what happened to an issue.
type EventKind string

// Issue events, announced after the change is committed.
const (
	EventOpened         EventKind = "opened"
	EventEdited         EventKind = "edited"
	EventClosed         EventKind = "closed"
	EventReopened       EventKind = "reopened"
	EventAssigned       EventKind = "assigned"
	EventUnassigned     EventKind = "unassigned"
	EventLabelUpdated   EventKind = "label_updated"
	EventLabelCleared   EventKind = "label_cleared"
	EventMilestoned     EventKind = "milestoned"
	EventDemilestoned   EventKind = "demilestoned"
	EventCommentCreated EventKind = "comment_created"
	EventCommentEdited  EventKind = "comment_edited"
	EventCommentDeleted EventKind = "comment_deleted"
	EventReferenced     EventKind = "referenced"
)

// Event is one change, for notifications and webhooks.
type Event struct {
	Kind    EventKind
	Doer    *user.User
	Repo    *repo.Repository
	Issue   *Issue
	Comment *Comment // for comment events
	// AssigneeID is set for assigned and unassigned events.
	AssigneeID int64
	// Changed and From tell what an edited event changed ("title" or
	// "body" of the issue; a comment's body) and its earlier value.
	Changed string
	From    string
}

// Listener receives events after their transaction committed.
type Listener func(ctx context.Context, e Event)

// TxListener receives events inside the transaction of their change (to
// record an outbox row); an error undoes the change.
type TxListener func(ctx context.Context, e Event) error

// Service applies the issue rules.
type Service struct {
	db        *db.DB
	repos     *repo.Service
	users     *user.Store
	listeners []Listener
	txListen  []TxListener

	closingBlocker ClosingBlocker
	files          AttachmentStore // where attachment files live (SetAttachmentStorage)
	// labelTemplates gives the label sets applied at repository creation (SetLabelTemplates).
	labelTemplates LabelTemplates
	// counts remembers search totals on PostgreSQL (nil elsewhere).
	counts *countCache
}

// NewService returns the issue service.
func NewService(d *db.DB, repos *repo.Service, users *user.Store) *Service {
	s := &Service{db: d, repos: repos, users: users}
	if d.Dialect == db.Postgres {
		s.counts = newCountCache(maxCachedCounts)
	}
	return s
}

// AddListener registers an event listener; call it only while wiring.
func (s *Service) AddListener(l Listener) { s.listeners = append(s.listeners, l) }

// AddTxListener registers a listener that runs inside the change's
// transaction; call it only while wiring.
func (s *Service) AddTxListener(l TxListener) { s.txListen = append(s.txListen, l) }

// Notify announces e: the transaction listeners at once, in the
// transaction ctx carries (call it there, so what they record commits with
// the change), the other listeners once that transaction has committed.
func (s *Service) Notify(ctx context.Context, e Event) error {
	return db.Announce(s.db, ctx, e, s.txListen, func(ctx context.Context) {
		for _, l := range s.listeners {
			l(ctx, e)
		}
	})
}

// MaxTitleLength is the longest issue title, in characters.
const MaxTitleLength = 255

func validateTitle(t string) (string, error) {
	t = strings.TrimSpace(t)
	if t == "" {
		return "", errs.InvalidField("title", "[Title]: Required")
	}
	if utf8.RuneCountInString(t) > MaxTitleLength {
		return "", errs.InvalidField("title", "[Title]: MaxSize (at most %d characters)", MaxTitleLength)
	}
	return t, nil
}

// nextIndex reserves the next number of a repository's issues and pull
// requests. It must run inside a transaction: the upsert locks the
// repository's issue_index row, so concurrent creations get distinct,
// consecutive numbers.
func (s *Service) nextIndex(ctx context.Context, repoID int64) (int64, error) {
	var idx int64
	switch s.db.Dialect {
	case db.MySQL:
		if _, err := s.db.Exec(ctx, "INSERT INTO issue_index (repo_id, max_index) VALUES (?, 1) ON DUPLICATE KEY UPDATE max_index = max_index + 1", repoID); err != nil {
			return 0, err
		}
		err := s.db.QueryRow(ctx, "SELECT max_index FROM issue_index WHERE repo_id = ?", repoID).Scan(&idx)
		return idx, err
	default:
		err := s.db.QueryRow(ctx, `INSERT INTO issue_index (repo_id, max_index) VALUES (?, 1)
			ON CONFLICT (repo_id) DO UPDATE SET max_index = issue_index.max_index + 1 RETURNING max_index`, repoID).Scan(&idx)
		return idx, err
	}
}

// CreateOptions describes a new issue.
type CreateOptions struct {
	Title       string
	Body        string
	LabelIDs    []int64
	MilestoneID int64
	AssigneeIDs []int64
	Deadline    time.Time
	Ref         string
	Closed      bool
	IsPull      bool
	// InTx, when set, runs inside the creating transaction once the issue
	// has its id and number (a pull request stores its own row there).
	InTx func(ctx context.Context, is *Issue) error
}

// Create opens an issue in r. Labels, milestone and assignees must already
// be checked by the caller (CheckLabels, CheckMilestone, CheckAssignees).
func (s *Service) Create(ctx context.Context, doer *user.User, r *repo.Repository, o CreateOptions) (*Issue, error) {
	title, err := validateTitle(o.Title)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	is := &Issue{RepoID: r.ID, PosterID: doer.ID, Title: title, Content: o.Body, MilestoneID: o.MilestoneID,
		IsPull: o.IsPull, Ref: o.Ref, Deadline: o.Deadline, Created: now, Updated: now}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		idx, err := s.nextIndex(ctx, r.ID)
		if err != nil {
			return err
		}
		is.Index = idx
		var deadline int64
		if !o.Deadline.IsZero() {
			deadline = o.Deadline.Unix()
		}
		is.ID, err = s.db.Insert(ctx, `INSERT INTO issue (repo_id, idx, poster_id, title, content, milestone_id, is_pull, ref,
			deadline_unix, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, idx, doer.ID, title, o.Body, o.MilestoneID, o.IsPull, o.Ref, deadline, now.Unix(), now.Unix())
		if err != nil {
			return err
		}
		counter := "num_issues"
		if o.IsPull {
			counter = "num_pulls"
		}
		if err := s.repos.Store.AddToCounter(ctx, r.ID, counter, 1); err != nil {
			return err
		}
		for _, lid := range uniq(o.LabelIDs) {
			if _, err := s.db.Insert(ctx, "INSERT INTO issue_label (issue_id, label_id) VALUES (?, ?)", is.ID, lid); err != nil {
				return err
			}
		}
		for _, uid := range uniq(o.AssigneeIDs) {
			if _, err := s.db.Insert(ctx, "INSERT INTO issue_assignees (issue_id, assignee_id) VALUES (?, ?)", is.ID, uid); err != nil {
				return err
			}
		}
		if err := s.recount(ctx, is.ID); err != nil {
			return err
		}
		if err := s.setWatch(ctx, doer.ID, is.ID, true); err != nil {
			return err
		}
		if o.InTx != nil {
			if err := o.InTx(ctx, is); err != nil {
				return err
			}
		}
		if err := s.Notify(ctx, Event{Kind: EventOpened, Doer: doer, Repo: r, Issue: is}); err != nil {
			return err
		}
		for _, uid := range uniq(o.AssigneeIDs) {
			if err := s.Notify(ctx, Event{Kind: EventAssigned, Doer: doer, Repo: r, Issue: is, AssigneeID: uid}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if o.Closed {
		if err := s.ChangeStatus(ctx, doer, r, is, true); err != nil {
			return nil, err
		}
	}
	return is, nil
}

func uniq(ids []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, id := range ids {
		if id > 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// recount refreshes the label and milestone counters that issue id touches.
func (s *Service) recount(ctx context.Context, issueID int64) error {
	if _, err := s.db.Exec(ctx, `UPDATE label SET
		num_issues = (SELECT COUNT(*) FROM issue_label il WHERE il.label_id = label.id),
		num_closed_issues = (SELECT COUNT(*) FROM issue_label il JOIN issue i ON i.id = il.issue_id WHERE il.label_id = label.id AND i.is_closed = ?)
		WHERE id IN (SELECT label_id FROM issue_label WHERE issue_id = ?)`, true, issueID); err != nil {
		return err
	}
	return s.RecountMilestone(ctx, issueID)
}

// RecountMilestone refreshes the counters of the milestone of issue id.
func (s *Service) RecountMilestone(ctx context.Context, issueID int64) error {
	_, err := s.db.Exec(ctx, `UPDATE milestone SET
		num_issues = (SELECT COUNT(*) FROM issue i WHERE i.milestone_id = milestone.id),
		num_closed_issues = (SELECT COUNT(*) FROM issue i WHERE i.milestone_id = milestone.id AND i.is_closed = ?)
		WHERE id = (SELECT milestone_id FROM issue WHERE id = ?)`, true, issueID)
	return err
}

// RecountMilestoneByID refreshes the counters of milestone id.
func (s *Service) RecountMilestoneByID(ctx context.Context, id int64) error {
	if id == 0 {
		return nil
	}
	_, err := s.db.Exec(ctx, `UPDATE milestone SET
		num_issues = (SELECT COUNT(*) FROM issue i WHERE i.milestone_id = milestone.id),
		num_closed_issues = (SELECT COUNT(*) FROM issue i WHERE i.milestone_id = milestone.id AND i.is_closed = ?)
		WHERE id = ?`, true, id)
	return err
}

// ClosingBlocker refuses closing an issue that depends on open issues. The
// dependency code registers it; nil means no check.
type ClosingBlocker func(ctx context.Context, r *repo.Repository, is *Issue) error

// SetClosingBlocker registers the dependency check; call it only while wiring.
func (s *Service) SetClosingBlocker(b ClosingBlocker) { s.closingBlocker = b }

// ChangeStatus closes or reopens an issue, recording the event.
func (s *Service) ChangeStatus(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, closed bool) error {
	if is.IsClosed == closed {
		return nil
	}
	if closed && s.closingBlocker != nil {
		if err := s.closingBlocker(ctx, r, is); err != nil {
			return err
		}
	}
	now := time.Now()
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		var closedUnix int64
		if closed {
			closedUnix = now.Unix()
		}
		res, err := s.db.Exec(ctx, "UPDATE issue SET is_closed = ?, closed_unix = ?, updated_unix = ? WHERE id = ? AND is_closed = ?",
			closed, closedUnix, now.Unix(), is.ID, !closed)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		counter := "num_closed_issues"
		if is.IsPull {
			counter = "num_closed_pulls"
		}
		delta := 1
		if !closed {
			delta = -1
		}
		if err := s.repos.Store.AddToCounter(ctx, r.ID, counter, delta); err != nil {
			return err
		}
		typ := CommentClose
		if !closed {
			typ = CommentReopen
		}
		if err := s.insertComment(ctx, &Comment{Type: typ, PosterID: doer.ID, IssueID: is.ID, Created: now}); err != nil {
			return err
		}
		if err := s.recount(ctx, is.ID); err != nil {
			return err
		}
		is.IsClosed, is.Updated, is.Closed = closed, now, time.Time{}
		kind := EventReopened
		if closed {
			is.Closed, kind = now, EventClosed
		}
		return s.Notify(ctx, Event{Kind: kind, Doer: doer, Repo: r, Issue: is})
	})
	if err != nil {
		is.IsClosed = !closed
		return err
	}
	return nil
}

// touch sets the update time of an issue.
func (s *Service) touch(ctx context.Context, issueID int64, t time.Time) error {
	_, err := s.db.Exec(ctx, "UPDATE issue SET updated_unix = ? WHERE id = ?", t.Unix(), issueID)
	return err
}

// setWatch records an explicit subscription choice.
func (s *Service) setWatch(ctx context.Context, uid, issueID int64, watching bool) error {
	now := db.Now()
	res, err := s.db.Exec(ctx, "UPDATE issue_watch SET is_watching = ?, updated_unix = ? WHERE user_id = ? AND issue_id = ?", watching, now, uid, issueID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	_, err = s.db.Insert(ctx, "INSERT INTO issue_watch (user_id, issue_id, is_watching, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?)",
		uid, issueID, watching, now, now)
	return err
}

// Delete removes an issue and everything that hangs off it.
func (s *Service) Delete(ctx context.Context, r *repo.Repository, is *Issue) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.deleteIssues(ctx, "id = ?", is.ID); err != nil {
			return err
		}
		if err := s.RecountMilestoneByID(ctx, is.MilestoneID); err != nil {
			return err
		}
		if _, err := s.db.Exec(ctx, `UPDATE label SET
			num_issues = (SELECT COUNT(*) FROM issue_label il WHERE il.label_id = label.id),
			num_closed_issues = (SELECT COUNT(*) FROM issue_label il JOIN issue i ON i.id = il.issue_id WHERE il.label_id = label.id AND i.is_closed = ?)
			WHERE repo_id = ? OR org_id = ?`, true, r.ID, r.OwnerID); err != nil {
			return err
		}
		counter, closed := "num_issues", "num_closed_issues"
		if is.IsPull {
			counter, closed = "num_pulls", "num_closed_pulls"
		}
		if err := s.repos.Store.AddToCounter(ctx, r.ID, counter, -1); err != nil {
			return err
		}
		if is.IsClosed {
			return s.repos.Store.AddToCounter(ctx, r.ID, closed, -1)
		}
		return nil
	})
}

// deleteIssues removes the issues matching where (a condition on the issue
// table with one argument) and every row that hangs off them. Issue deletion
// and repository deletion both go through it.
func (s *Service) deleteIssues(ctx context.Context, where string, arg int64) error {
	sel := "SELECT id FROM issue WHERE " + where
	// The pull request half: its scheduled merge, then its reviews and row.
	if _, err := s.db.Exec(ctx, "DELETE FROM pull_auto_merge WHERE pull_id IN (SELECT id FROM pull_request WHERE issue_id IN ("+sel+"))", arg); err != nil {
		return err
	}
	for _, table := range []string{"reaction", "comment", "issue_label", "issue_assignees", "issue_user", "issue_watch",
		"tracked_time", "stopwatch", "notification", "review", "pull_request"} {
		if _, err := s.db.Exec(ctx, "DELETE FROM "+table+" WHERE issue_id IN ("+sel+")", arg); err != nil {
			return err
		}
	}
	if err := s.dropAttachments(ctx, "issue_id IN ("+sel+")", arg); err != nil {
		return err
	}
	if _, err := s.db.Exec(ctx, "DELETE FROM issue_dependency WHERE issue_id IN ("+sel+") OR dependency_id IN ("+sel+")", arg, arg); err != nil {
		return err
	}
	_, err := s.db.Exec(ctx, "DELETE FROM issue WHERE "+where, arg)
	return err
}

// CloseAsMerged closes the issue half of a merged pull request inside the
// caller's transaction: the merge_pull timeline entry (naming the merge
// commit) replaces the close entry, and the counters follow. After the
// commit, the caller updates is and announces EventClosed (Notify).
func (s *Service) CloseAsMerged(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, commitSHA string) error {
	now := time.Now()
	res, err := s.db.Exec(ctx, "UPDATE issue SET is_closed = ?, closed_unix = ?, updated_unix = ? WHERE id = ? AND is_closed = ?",
		true, now.Unix(), now.Unix(), is.ID, false)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if err := s.repos.Store.AddToCounter(ctx, r.ID, "num_closed_pulls", 1); err != nil {
			return err
		}
	}
	if err := s.insertComment(ctx, &Comment{Type: CommentMergePull, PosterID: doer.ID, IssueID: is.ID, CommitSHA: commitSHA, Created: now}); err != nil {
		return err
	}
	if err := s.recount(ctx, is.ID); err != nil {
		return err
	}
	return nil
}
