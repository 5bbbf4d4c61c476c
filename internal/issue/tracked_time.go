package issue

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// TrackedTime is time a user spent on an issue, in seconds. Deleted times
// stay in the table (marked) so that the timeline keeps its history.
type TrackedTime struct {
	ID      int64
	IssueID int64
	UserID  int64
	Time    int64
	Deleted bool
	Created time.Time
}

const trackedTimeColumns = "t.id, t.issue_id, t.user_id, t.time, t.deleted, t.created_unix"

func scanTrackedTime(row scanner) (*TrackedTime, error) {
	t := &TrackedTime{}
	var created int64
	if err := row.Scan(&t.ID, &t.IssueID, &t.UserID, &t.Time, &t.Deleted, &created); err != nil {
		return nil, err
	}
	t.Created = time.Unix(created, 0)
	return t, nil
}

// TimeFilter selects tracked times (deleted ones are never selected).
type TimeFilter struct {
	IssueID int64
	UserID  int64
	RepoID  int64
	// RepoCond, when set, is a condition over repository alias "r" joined
	// with its owner "o" (access.RepoCond) that the issue's repository must
	// meet; issues of disabled units are left out too.
	RepoCond string
	RepoArgs []any
	// Since and Before bound the creation time (inclusive), when set.
	Since, Before time.Time
	// Limit and Offset page the list; Limit 0 returns everything.
	Limit, Offset int
}

func (f TimeFilter) query() (string, []any) {
	from := " FROM tracked_time t JOIN issue i ON i.id = t.issue_id"
	where := " WHERE t.deleted = ?"
	args := []any{false}
	if f.RepoCond != "" {
		from += " JOIN repository r ON r.id = i.repo_id JOIN users o ON o.id = r.owner_id"
		where += ` AND (` + f.RepoCond + `) AND ((i.is_pull = ? AND r.units LIKE ?) OR (i.is_pull = ? AND r.units LIKE ?))`
		args = append(append(args, f.RepoArgs...), false, `%"repo.issues"%`, true, `%"repo.pulls"%`)
	}
	if f.IssueID != 0 {
		where += " AND t.issue_id = ?"
		args = append(args, f.IssueID)
	}
	if f.UserID != 0 {
		where += " AND t.user_id = ?"
		args = append(args, f.UserID)
	}
	if f.RepoID != 0 {
		where += " AND i.repo_id = ?"
		args = append(args, f.RepoID)
	}
	if !f.Since.IsZero() {
		where += " AND t.created_unix >= ?"
		args = append(args, f.Since.Unix())
	}
	if !f.Before.IsZero() {
		where += " AND t.created_unix <= ?"
		args = append(args, f.Before.Unix())
	}
	return from + where, args
}

// FindTrackedTimes lists tracked times in the order they were recorded, with
// the total count: two queries.
func (s *Service) FindTrackedTimes(ctx context.Context, f TimeFilter) ([]*TrackedTime, int64, error) {
	q, args := f.query()
	total, err := s.db.Count(ctx, "SELECT COUNT(*)"+q, args...)
	if err != nil {
		return nil, 0, err
	}
	tail := " ORDER BY t.created_unix, t.id"
	if f.Limit > 0 {
		tail += db.LimitOffset(f.Limit, f.Offset)
	}
	rows, err := s.db.Query(ctx, "SELECT "+trackedTimeColumns+q+tail, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*TrackedTime{}
	for rows.Next() {
		t, err := scanTrackedTime(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}

// GetTrackedTime loads a tracked time by id (deleted ones too).
func (s *Service) GetTrackedTime(ctx context.Context, id int64) (*TrackedTime, error) {
	t, err := scanTrackedTime(s.db.QueryRow(ctx, "SELECT "+trackedTimeColumns+" FROM tracked_time t WHERE t.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("tracked time does not exist [id: %d]", id)
	}
	return t, err
}

// timeContent is how time events store their amount: "|<seconds>", Gitea's format.
func timeContent(seconds int64) string { return "|" + strconv.FormatInt(seconds, 10) }

// MaxTrackedSeconds bounds one tracked time (100 years).
const MaxTrackedSeconds = 100 * 365 * 24 * 3600

// AddTime records seconds spent by u on is (created defaults to now) and
// the add_time_manual event.
func (s *Service) AddTime(ctx context.Context, u *user.User, is *Issue, seconds int64, created time.Time) (*TrackedTime, error) {
	if seconds == 0 {
		return nil, errs.InvalidField("time", "[Time]: Required")
	}
	if seconds > MaxTrackedSeconds || seconds < -MaxTrackedSeconds {
		return nil, errs.InvalidField("time", "[Time]: must be at most %d seconds", int64(MaxTrackedSeconds))
	}
	if created.IsZero() {
		created = time.Now()
	}
	t := &TrackedTime{IssueID: is.ID, UserID: u.ID, Time: seconds, Created: created}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		var err error
		if t.ID, err = s.insertTime(ctx, t); err != nil {
			return err
		}
		return s.insertComment(ctx, &Comment{Type: CommentAddTimeManual, PosterID: u.ID, IssueID: is.ID,
			Content: timeContent(seconds), TimeID: t.ID})
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (s *Service) insertTime(ctx context.Context, t *TrackedTime) (int64, error) {
	return s.db.Insert(ctx, "INSERT INTO tracked_time (issue_id, user_id, time, deleted, created_unix) VALUES (?, ?, ?, ?, ?)",
		t.IssueID, t.UserID, t.Time, false, t.Created.Unix())
}

// DeleteTime marks one tracked time deleted and records the
// delete_time_manual event in the name of the time's owner, as Gitea does.
func (s *Service) DeleteTime(ctx context.Context, t *TrackedTime) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, "UPDATE tracked_time SET deleted = ? WHERE id = ? AND deleted = ?", true, t.ID, false)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFound("tracked time was already deleted [id: %d]", t.ID)
		}
		t.Deleted = true
		return s.insertComment(ctx, &Comment{Type: CommentDeleteTimeManual, PosterID: t.UserID, IssueID: t.IssueID,
			Content: timeContent(t.Time), TimeID: t.ID})
	})
}

// ResetTimes deletes every time u tracked on is, recording one
// delete_time_manual event with the total. It answers 404 when there is none.
func (s *Service) ResetTimes(ctx context.Context, u *user.User, is *Issue) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		var n, sum int64
		if err := s.db.QueryRow(ctx, "SELECT COUNT(*), COALESCE(SUM(time), 0) FROM tracked_time WHERE issue_id = ? AND user_id = ? AND deleted = ?",
			is.ID, u.ID, false).Scan(&n, &sum); err != nil {
			return err
		}
		if n == 0 {
			return errs.NotFound("no tracked time of %s on this issue", u.Name)
		}
		if _, err := s.db.Exec(ctx, "UPDATE tracked_time SET deleted = ? WHERE issue_id = ? AND user_id = ? AND deleted = ?",
			true, is.ID, u.ID, false); err != nil {
			return err
		}
		return s.insertComment(ctx, &Comment{Type: CommentDeleteTimeManual, PosterID: u.ID, IssueID: is.ID, Content: timeContent(sum)})
	})
}

// Stopwatch is a running timer of a user on an issue.
type Stopwatch struct {
	ID      int64
	IssueID int64
	UserID  int64
	Created time.Time
}

// Seconds is how long the stopwatch has been running at now.
func (sw *Stopwatch) Seconds(now time.Time) int64 {
	d := now.Unix() - sw.Created.Unix()
	if d < 0 {
		return 0
	}
	return d
}

const stopwatchColumns = "w.id, w.issue_id, w.user_id, w.created_unix"

func scanStopwatch(row scanner) (*Stopwatch, error) {
	sw := &Stopwatch{}
	var created int64
	if err := row.Scan(&sw.ID, &sw.IssueID, &sw.UserID, &created); err != nil {
		return nil, err
	}
	sw.Created = time.Unix(created, 0)
	return sw, nil
}

func (s *Service) listStopwatches(ctx context.Context, tail string, args ...any) ([]*Stopwatch, error) {
	rows, err := s.db.Query(ctx, "SELECT "+stopwatchColumns+" FROM stopwatch w "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Stopwatch{}
	for rows.Next() {
		sw, err := scanStopwatch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sw)
	}
	return out, rows.Err()
}

// StartStopwatch starts u's stopwatch on is (409 when one is already
// running there). Stopwatches u runs on other issues are stopped first, as
// Gitea does: one user times one issue at a time.
func (s *Service) StartStopwatch(ctx context.Context, u *user.User, is *Issue) error {
	now := time.Now()
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		running, err := s.listStopwatches(ctx, "WHERE w.user_id = ? ORDER BY w.id", u.ID)
		if err != nil {
			return err
		}
		for _, sw := range running {
			if sw.IssueID == is.ID {
				return errs.Conflict("cannot start a stopwatch again if it already exists")
			}
		}
		for _, sw := range running {
			if _, err := s.finishStopwatch(ctx, u, sw, now); err != nil {
				return err
			}
		}
		if _, err := s.db.Insert(ctx, "INSERT INTO stopwatch (issue_id, user_id, created_unix) VALUES (?, ?, ?)", is.ID, u.ID, now.Unix()); err != nil {
			if db.IsUniqueViolation(err) {
				return errs.Conflict("cannot start a stopwatch again if it already exists")
			}
			return err
		}
		return s.insertComment(ctx, &Comment{Type: CommentStartTracking, PosterID: u.ID, IssueID: is.ID, Created: now})
	})
}

// finishStopwatch turns a running stopwatch into tracked time with the
// stop_tracking event; it returns nil when another request removed it first.
func (s *Service) finishStopwatch(ctx context.Context, u *user.User, sw *Stopwatch, now time.Time) (*TrackedTime, error) {
	res, err := s.db.Exec(ctx, "DELETE FROM stopwatch WHERE id = ?", sw.ID)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil
	}
	t := &TrackedTime{IssueID: sw.IssueID, UserID: u.ID, Time: sw.Seconds(now), Created: now}
	if t.ID, err = s.insertTime(ctx, t); err != nil {
		return nil, err
	}
	return t, s.insertComment(ctx, &Comment{Type: CommentStopTracking, PosterID: u.ID, IssueID: sw.IssueID,
		Content: timeContent(t.Time), TimeID: t.ID, Created: now})
}

// StopStopwatch stops u's stopwatch on is and records the time spent
// (409 when none is running).
func (s *Service) StopStopwatch(ctx context.Context, u *user.User, is *Issue) (*TrackedTime, error) {
	var t *TrackedTime
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		list, err := s.listStopwatches(ctx, "WHERE w.user_id = ? AND w.issue_id = ?", u.ID, is.ID)
		if err != nil {
			return err
		}
		if len(list) > 0 {
			t, err = s.finishStopwatch(ctx, u, list[0], time.Now())
			if err != nil {
				return err
			}
		}
		if t == nil {
			return errs.Conflict("cannot stop a non-existent stopwatch")
		}
		return nil
	})
	return t, err
}

// CancelStopwatch discards u's stopwatch on is without recording time
// (409 when none is running).
func (s *Service) CancelStopwatch(ctx context.Context, u *user.User, is *Issue) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, "DELETE FROM stopwatch WHERE user_id = ? AND issue_id = ?", u.ID, is.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.Conflict("cannot cancel a non-existent stopwatch")
		}
		return s.insertComment(ctx, &Comment{Type: CommentCancelTracking, PosterID: u.ID, IssueID: is.ID})
	})
}

// ListStopwatches lists uid's running stopwatches on issues of repositories
// meeting repoCond (over "r" and owner "o"), with the total: two queries.
func (s *Service) ListStopwatches(ctx context.Context, uid int64, repoCond string, repoArgs []any, limit, offset int) ([]*Stopwatch, int64, error) {
	joins := `JOIN issue i ON i.id = w.issue_id JOIN repository r ON r.id = i.repo_id JOIN users o ON o.id = r.owner_id
		WHERE w.user_id = ? AND (` + repoCond + `)`
	args := append([]any{uid}, repoArgs...)
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM stopwatch w "+joins, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.listStopwatches(ctx, joins+" ORDER BY w.created_unix, w.id"+db.LimitOffset(limit, offset), args...)
	return list, total, err
}

// FormatDuration renders seconds for people, keeping the two largest
// units: 66 → "1 minute 6 seconds", 52410 → "14 hours 33 minutes".
func FormatDuration(seconds int64) string {
	if seconds < 0 {
		return "-" + FormatDuration(-seconds)
	}
	units := []struct {
		name string
		size int64
	}{
		{"year", 365 * 86400}, {"month", 30 * 86400}, {"week", 7 * 86400}, {"day", 86400},
		{"hour", 3600}, {"minute", 60}, {"second", 1},
	}
	var parts []string
	rest := seconds
	for _, u := range units {
		n := rest / u.size
		rest -= n * u.size
		if n == 0 {
			if len(parts) > 0 {
				break
			}
			continue
		}
		name := u.name
		if n != 1 {
			name += "s"
		}
		parts = append(parts, strconv.FormatInt(n, 10)+" "+name)
		if len(parts) == 2 {
			break
		}
	}
	if len(parts) == 0 {
		return "0 seconds"
	}
	return strings.Join(parts, " ")
}
