package repo

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Commit status states, from worst to best as a combined status ranks them.
const (
	StatusError   = "error"
	StatusFailure = "failure"
	StatusWarning = "warning"
	StatusPending = "pending"
	StatusSuccess = "success"
)

// statusRank orders states for the combined status: the lowest wins.
var statusRank = map[string]int{StatusError: 0, StatusFailure: 1, StatusWarning: 2, StatusPending: 3, StatusSuccess: 4}

// ValidStatusState reports whether s is one of the five states.
func ValidStatusState(s string) bool { _, ok := statusRank[s]; return ok }

// CommitStatus is one report of a CI system about a commit.
type CommitStatus struct {
	ID          int64
	RepoID      int64
	SHA         string
	Index       int64
	State       string
	TargetURL   string
	Description string
	Context     string
	CreatorID   int64
	Created     time.Time
	Updated     time.Time
}

const statusColumns = "id, repo_id, sha, idx, state, COALESCE(target_url, ''), COALESCE(description, ''), context, creator_id, created_unix, updated_unix"

func scanStatus(row interface{ Scan(...any) error }) (*CommitStatus, error) {
	c := &CommitStatus{}
	var created, updated int64
	if err := row.Scan(&c.ID, &c.RepoID, &c.SHA, &c.Index, &c.State, &c.TargetURL, &c.Description, &c.Context, &c.CreatorID, &created, &updated); err != nil {
		return nil, err
	}
	c.Created, c.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return c, nil
}

// CreateStatusOptions is a status report.
type CreateStatusOptions struct {
	State, TargetURL, Description, Context string
}

// CreateStatus records a status of commit sha (a full commit id of r) by doer.
func (s *Service) CreateStatus(ctx context.Context, r *Repository, doer *user.User, sha string, o CreateStatusOptions) (*CommitStatus, error) {
	if !ValidStatusState(o.State) {
		return nil, errs.InvalidField("state", "[State]: must be one of error, failure, pending, success, warning; got %q", o.State)
	}
	if utf8.RuneCountInString(o.TargetURL) > 2048 {
		return nil, errs.InvalidField("target_url", "[TargetURL]: MaxSize (at most 2048 characters)")
	}
	if utf8.RuneCountInString(o.Description) > 1024 {
		return nil, errs.InvalidField("description", "[Description]: MaxSize (at most 1024 characters)")
	}
	c := &CommitStatus{RepoID: r.ID, SHA: sha, State: o.State, TargetURL: strings.TrimSpace(o.TargetURL),
		Description: o.Description, Context: strings.TrimSpace(o.Context), CreatorID: doer.ID}
	if c.Context == "" {
		c.Context = "default"
	}
	if utf8.RuneCountInString(c.Context) > 255 {
		return nil, errs.InvalidField("context", "[Context]: MaxSize (at most 255 characters)")
	}
	now := time.Now()
	c.Created, c.Updated = now.Truncate(time.Second), now.Truncate(time.Second)
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		// The commit's next index; the unique index settles races.
		if err := s.db.QueryRow(ctx, "SELECT COALESCE(MAX(idx), 0) + 1 FROM commit_status WHERE repo_id = ? AND sha = ?", r.ID, sha).Scan(&c.Index); err != nil {
			return err
		}
		id, err := s.db.Insert(ctx, "INSERT INTO commit_status (repo_id, sha, idx, state, target_url, description, context, creator_id, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			c.RepoID, c.SHA, c.Index, c.State, c.TargetURL, c.Description, c.Context, c.CreatorID, now.Unix(), now.Unix())
		c.ID = id
		if err != nil {
			return err
		}
		for _, l := range s.statusTx {
			if err := l(ctx, r, c); err != nil {
				return err
			}
		}
		return nil
	})
	if db.IsUniqueViolation(err) {
		return nil, errs.Conflict("another status of this commit was being recorded; try again")
	}
	if err != nil {
		return nil, err
	}
	for _, l := range s.statusListeners {
		l(ctx, r, c)
	}
	return c, nil
}

// StatusListener is told about every recorded commit status (auto-merge, webhooks).
type StatusListener func(ctx context.Context, r *Repository, c *CommitStatus)

// StatusTxListener is told about a commit status inside the transaction
// that records it (webhook deliveries are written there).
type StatusTxListener func(ctx context.Context, r *Repository, c *CommitStatus) error

// AddStatusTxListener registers a listener; call it only while wiring.
func (s *Service) AddStatusTxListener(l StatusTxListener) { s.statusTx = append(s.statusTx, l) }

// AddStatusListener registers a listener; call it only while wiring.
func (s *Service) AddStatusListener(l StatusListener) {
	s.statusListeners = append(s.statusListeners, l)
}

// ListStatuses lists the statuses of commit sha of r — all of them, or only
// those in state — with the total; sort is Gitea's ("" newest first, "oldest",
// "recentupdate", "leastupdate", "leastindex", "highestindex").
func (s *Service) ListStatuses(ctx context.Context, r *Repository, sha, state, sort string, limit, offset int) ([]*CommitStatus, int64, error) {
	where := "repo_id = ? AND sha = ?"
	args := []any{r.ID, sha}
	if state != "" {
		if !ValidStatusState(state) {
			return nil, 0, errs.InvalidField("state", "invalid state %q", state)
		}
		where += " AND state = ?"
		args = append(args, state)
	}
	var order string
	switch sort {
	case "", "newest":
		order = "id DESC"
	case "oldest":
		order = "id ASC"
	case "recentupdate":
		order = "updated_unix DESC, id DESC"
	case "leastupdate":
		order = "updated_unix ASC, id ASC"
	case "leastindex":
		order = "idx ASC"
	case "highestindex":
		order = "idx DESC"
	default:
		return nil, 0, errs.InvalidField("sort", "invalid sort %q", sort)
	}
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM commit_status WHERE "+where, args...)
	if err != nil {
		return nil, 0, err
	}
	list, err := s.statuses(ctx, "WHERE "+where+" ORDER BY "+order+db.LimitOffset(limit, offset), args...)
	return list, total, err
}

// LatestStatuses returns the latest status of each context of commit sha,
// by context, and the combined state (the worst of them; "" without any).
func (s *Service) LatestStatuses(ctx context.Context, r *Repository, sha string) ([]*CommitStatus, string, error) {
	list, err := s.statuses(ctx, "WHERE id IN (SELECT MAX(id) FROM commit_status WHERE repo_id = ? AND sha = ? GROUP BY context) ORDER BY context, id", r.ID, sha)
	if err != nil {
		return nil, "", err
	}
	state := ""
	for _, c := range list {
		if state == "" || statusRank[c.State] < statusRank[state] {
			state = c.State
		}
	}
	return list, state, nil
}

func (s *Service) statuses(ctx context.Context, tail string, args ...any) ([]*CommitStatus, error) {
	rows, err := s.db.Query(ctx, "SELECT "+statusColumns+" FROM commit_status "+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*CommitStatus
	for rows.Next() {
		c, err := scanStatus(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
