package notify

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// Status is the state of a thread for its user (Gitea's values).
type Status int

// Thread statuses.
const (
	StatusUnread Status = 1
	StatusRead   Status = 2
	StatusPinned Status = 3
)

// ParseStatus reads "unread", "read" or "pinned" (any case).
func ParseStatus(s string) (Status, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "unread":
		return StatusUnread, true
	case "read":
		return StatusRead, true
	case "pinned":
		return StatusPinned, true
	}
	return 0, false
}

// Source is what a thread is about (Gitea's values).
type Source int

// Thread sources.
const (
	SourceIssue      Source = 1
	SourcePull       Source = 2
	SourceCommit     Source = 3
	SourceRepository Source = 4
)

// ParseSubjectType reads a subject type filter: "issue", "pull", "commit" or "repository".
func ParseSubjectType(s string) (Source, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "issue":
		return SourceIssue, true
	case "pull":
		return SourcePull, true
	case "commit":
		return SourceCommit, true
	case "repository":
		return SourceRepository, true
	}
	return 0, false
}

// Thread is one notification thread: a user's unread/read/pinned state about
// one issue or pull request (one row per user and issue).
type Thread struct {
	ID        int64
	UserID    int64
	RepoID    int64
	Status    Status
	Source    Source
	IssueID   int64
	CommitID  string
	CommentID int64
	UpdatedBy int64
	Created   time.Time
	Updated   time.Time
}

// threadColumns is the select list scanThread reads, for alias "n".
const threadColumns = `n.id, n.user_id, n.repo_id, n.status, n.source, n.issue_id, n.commit_id, n.comment_id,
	n.updated_by, n.created_unix, n.updated_unix`

type scanner interface{ Scan(dest ...any) error }

func scanThread(row scanner) (*Thread, error) {
	t := &Thread{}
	var created, updated int64
	if err := row.Scan(&t.ID, &t.UserID, &t.RepoID, &t.Status, &t.Source, &t.IssueID, &t.CommitID, &t.CommentID,
		&t.UpdatedBy, &created, &updated); err != nil {
		return nil, err
	}
	t.Created, t.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return t, nil
}

// Store reads and writes notification threads.
type Store struct{ db *db.DB }

// NewStore returns a Store over d.
func NewStore(d *db.DB) *Store { return &Store{db: d} }

// ListOptions select a user's threads.
type ListOptions struct {
	UserID int64
	// RepoID restricts to one repository when not 0.
	RepoID int64
	// Statuses and Sources restrict when not empty.
	Statuses []Status
	Sources  []Source
	// Since keeps threads updated at or after the instant, Before those
	// updated at or before it.
	Since  time.Time
	Before time.Time
	// Limit 0 selects every match (for marking many at once).
	Limit  int
	Offset int
	// Total, when the caller counted the matches already, lets List read
	// a page past the middle from the other end.
	Total int64
}

func (o ListOptions) from() (string, []any) {
	return o.fromStatuses(o.Statuses)
}

// fromStatuses is the FROM and WHERE clause of o with the given statuses.
func (o ListOptions) fromStatuses(statuses []Status) (string, []any) {
	q := " FROM notification n WHERE n.user_id = ?"
	args := []any{o.UserID}
	switch len(statuses) {
	case 0:
	case 1:
		q += " AND n.status = ?"
		args = append(args, int(statuses[0]))
	default:
		q += " AND n.status IN " + db.In(len(statuses))
		for _, s := range statuses {
			args = append(args, int(s))
		}
	}
	if o.RepoID != 0 {
		q += " AND n.repo_id = ?"
		args = append(args, o.RepoID)
	}
	if len(o.Sources) > 0 {
		q += " AND n.source IN " + db.In(len(o.Sources))
		for _, s := range o.Sources {
			args = append(args, int(s))
		}
	}
	if !o.Since.IsZero() {
		q += " AND n.updated_unix >= ?"
		args = append(args, o.Since.Unix())
	}
	if !o.Before.IsZero() {
		q += " AND n.updated_unix <= ?"
		args = append(args, o.Before.Unix())
	}
	return q, args
}

// Count counts the threads matching o. With the index on (user_id, status,
// updated_unix) it reads the index only.
func (s *Store) Count(ctx context.Context, o ListOptions) (int64, error) {
	from, args := o.from()
	return s.db.Count(ctx, "SELECT COUNT(*)"+from, args...)
}

// allStatuses are every status a thread can have.
var allStatuses = []Status{StatusUnread, StatusRead, StatusPinned}

// orderBy is the order of thread lists: most recently updated first;
// orderByOldest the other way round.
const (
	orderBy       = " ORDER BY n.updated_unix DESC, n.id DESC"
	orderByOldest = " ORDER BY n.updated_unix ASC, n.id ASC"
)

// List returns the threads matching o, most recently updated first, in one
// query. A page is read status by status through the index on (user_id,
// status, updated_unix) — each status gives its first Offset+Limit ids in
// order — and the page is cut from their merge: no sort of all the user's
// threads, and only the rows of the page are read. With o.Total known, a
// page past the middle is read from the oldest end, so at most half of the
// threads are skipped.
func (s *Store) List(ctx context.Context, o ListOptions) ([]*Thread, error) {
	var q string
	var args []any
	oldestFirst := false
	if o.Limit <= 0 {
		from, fargs := o.from()
		q, args = "SELECT "+threadColumns+from+orderBy, fargs
	} else {
		limit, offset, order := o.Limit, o.Offset, orderBy
		if o.Total > 0 {
			var ok bool
			if offset, limit, oldestFirst, ok = db.Window(o.Offset, o.Limit, o.Total); !ok {
				return nil, nil
			}
			if oldestFirst {
				order = orderByOldest
			}
		}
		statuses := allStatuses
		if len(o.Statuses) > 0 {
			statuses = nil
			for _, st := range allStatuses {
				if slices.Contains(o.Statuses, st) {
					statuses = append(statuses, st)
				}
			}
		}
		var parts []string
		for i, st := range statuses {
			from, fargs := o.fromStatuses([]Status{st})
			alias := "p" + string(rune('a'+i))
			parts = append(parts, "SELECT "+alias+".id FROM (SELECT n.id"+from+order+db.LimitOffset(offset+limit, 0)+") "+alias)
			args = append(args, fargs...)
		}
		q = "SELECT " + threadColumns + " FROM (" + strings.Join(parts, " UNION ALL ") + ") page JOIN notification n ON n.id = page.id" +
			order + db.LimitOffset(limit, offset)
	}
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Thread
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if oldestFirst {
		slices.Reverse(out)
	}
	return out, rows.Err()
}

// Get loads one thread by id.
func (s *Store) Get(ctx context.Context, id int64) (*Thread, error) {
	t, err := scanThread(s.db.QueryRow(ctx, "SELECT "+threadColumns+" FROM notification n WHERE n.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("notification does not exist [id: %d]", id)
	}
	return t, err
}

// VisibleRepos returns which of the repositories satisfy cond, a condition
// on repository alias "r" joined with owner alias "o" (access.RepoCond): one
// query. Threads are created only for users who can read the issue; this
// check at display time hides the threads of repositories a user can no
// longer see, at the cost of one query per page.
func (s *Store) VisibleRepos(ctx context.Context, repoIDs []int64, cond string, args []any) (map[int64]bool, error) {
	out := map[int64]bool{}
	seen := map[int64]bool{}
	var ids []int64
	for _, id := range repoIDs {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT r.id FROM repository r JOIN users o ON o.id = r.owner_id WHERE r.id IN "+db.In(len(ids))+" AND ("+cond+")",
		append(db.Int64Args(ids), args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// statusChunk bounds the ids of one UPDATE.
const statusChunk = 500

// SetStatus moves the threads to status st and bumps their update time;
// it returns the time written. Threads are updated a chunk at a time.
func (s *Store) SetStatus(ctx context.Context, threads []*Thread, st Status) (time.Time, error) {
	now := time.Now()
	ids := make([]int64, 0, len(threads))
	for _, t := range threads {
		ids = append(ids, t.ID)
	}
	for len(ids) > 0 {
		n := min(len(ids), statusChunk)
		if _, err := s.db.Exec(ctx, "UPDATE notification SET status = ?, updated_unix = ? WHERE id IN "+db.In(n),
			append([]any{int(st), now.Unix()}, db.Int64Args(ids[:n])...)...); err != nil {
			return now, err
		}
		ids = ids[n:]
	}
	for _, t := range threads {
		t.Status, t.Updated = st, time.Unix(now.Unix(), 0)
	}
	return now, nil
}

// CountUnread counts the unread threads of user uid (index only).
func (s *Store) CountUnread(ctx context.Context, uid int64) (int64, error) {
	return s.Count(ctx, ListOptions{UserID: uid, Statuses: []Status{StatusUnread}})
}

// upsertChunk bounds the recipients handled by one round of statements.
const upsertChunk = 300

// upsert makes sure each of uids has an unread-or-updated thread about issue
// issueID: new threads are created unread; existing read ones become unread
// and point at comment commentID; unread and pinned ones keep their state and
// comment. Every touched thread gets a new update time. It runs a fixed number
// of statements per upsertChunk recipients (plus one per recipient only when a
// concurrent creation races).
func (s *Store) upsert(ctx context.Context, uids []int64, repoID, issueID int64, src Source, commentID, doerID int64) error {
	for len(uids) > 0 {
		n := min(len(uids), upsertChunk)
		if err := s.upsertSome(ctx, uids[:n], repoID, issueID, src, commentID, doerID); err != nil {
			return err
		}
		uids = uids[n:]
	}
	return nil
}

func (s *Store) upsertSome(ctx context.Context, uids []int64, repoID, issueID int64, src Source, commentID, doerID int64) error {
	now := db.Now()
	rows, err := s.db.Query(ctx, "SELECT id, user_id, status FROM notification WHERE issue_id = ? AND user_id IN "+db.In(len(uids)),
		append([]any{issueID}, db.Int64Args(uids)...)...)
	if err != nil {
		return err
	}
	existing := map[int64]bool{}
	var readIDs, otherIDs []int64
	for rows.Next() {
		var id, uid int64
		var st Status
		if err := rows.Scan(&id, &uid, &st); err != nil {
			rows.Close()
			return err
		}
		existing[uid] = true
		if st == StatusRead {
			readIDs = append(readIDs, id)
		} else {
			otherIDs = append(otherIDs, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(readIDs) > 0 {
		if _, err := s.db.Exec(ctx, "UPDATE notification SET status = ?, comment_id = ?, updated_by = ?, updated_unix = ? WHERE id IN "+db.In(len(readIDs)),
			append([]any{int(StatusUnread), commentID, doerID, now}, db.Int64Args(readIDs)...)...); err != nil {
			return err
		}
	}
	if len(otherIDs) > 0 {
		if _, err := s.db.Exec(ctx, "UPDATE notification SET updated_by = ?, updated_unix = ? WHERE id IN "+db.In(len(otherIDs)),
			append([]any{doerID, now}, db.Int64Args(otherIDs)...)...); err != nil {
			return err
		}
	}
	var fresh []int64
	for _, uid := range uids {
		if !existing[uid] {
			fresh = append(fresh, uid)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	const cols = 9
	values := make([]string, 0, len(fresh))
	args := make([]any, 0, len(fresh)*cols)
	for _, uid := range fresh {
		values = append(values, "(?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, uid, repoID, int(StatusUnread), int(src), issueID, commentID, doerID, now, now)
	}
	const insert = "INSERT INTO notification (user_id, repo_id, status, source, issue_id, comment_id, updated_by, created_unix, updated_unix) VALUES "
	_, err = s.db.Exec(ctx, insert+strings.Join(values, ", "), args...)
	if err == nil || !db.IsUniqueViolation(err) || db.InTx(ctx) {
		return err
	}
	// A concurrent event created some of these threads first: go one by one.
	for i, uid := range fresh {
		_, err := s.db.Exec(ctx, insert+values[0], args[i*cols:(i+1)*cols]...)
		if err == nil {
			continue
		}
		if !db.IsUniqueViolation(err) {
			return err
		}
		if _, err := s.db.Exec(ctx, `UPDATE notification SET status = CASE WHEN status = ? THEN ? ELSE status END,
			updated_by = ?, updated_unix = ? WHERE user_id = ? AND issue_id = ?`,
			int(StatusRead), int(StatusUnread), doerID, now, uid, issueID); err != nil {
			return err
		}
	}
	return nil
}
