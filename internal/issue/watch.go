package issue

import (
	"context"
	"database/sql"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// Repository watch modes, as stored in the watch table (Gitea's values).
// Normal and auto watches subscribe to every issue of the repository; "don't
// watch" and none do not.
const (
	RepoWatchNone   = 0
	RepoWatchNormal = 1
	RepoWatchDont   = 2
	RepoWatchAuto   = 3
)

// participantTypes are the timeline entries whose posters take part in an
// issue: plain comments, code comments and reviews.
var participantTypes = []any{CommentPlain, CommentCode, CommentReview}

// WatchReason says why a user is (or is not) subscribed to an issue.
type WatchReason int

// Why a user watches an issue.
const (
	// WatchNone: nothing subscribes the user.
	WatchNone WatchReason = iota
	// WatchExplicit: the user subscribed to the issue (issue_watch, is_watching).
	WatchExplicit
	// WatchIgnored: the user unsubscribed from the issue explicitly, which
	// wins over every implicit reason.
	WatchIgnored
	// WatchRepository: the user watches the repository.
	WatchRepository
	// WatchParticipant: the user opened, commented on or is assigned to the issue.
	WatchParticipant
)

// WatchState is a user's subscription to one issue.
type WatchState struct {
	Watching bool
	Reason   WatchReason
	// Since is when the explicit choice was made (zero for implicit reasons).
	Since time.Time
}

// WatchStateOf tells whether user uid is subscribed to issue is, in one query:
// an explicit choice (issue_watch) wins; otherwise watching the repository
// (normal or auto mode) or taking part in the issue (poster, commenter,
// assignee) subscribes.
func (s *Service) WatchStateOf(ctx context.Context, uid int64, is *Issue) (WatchState, error) {
	if uid <= 0 {
		return WatchState{}, nil
	}
	var explicit, since sql.NullInt64
	var repoWatch, commented, assigned int64
	err := s.db.QueryRow(ctx, `SELECT
		(SELECT CASE WHEN w.is_watching = ? THEN 1 ELSE 0 END FROM issue_watch w WHERE w.user_id = ? AND w.issue_id = ?),
		(SELECT w.updated_unix FROM issue_watch w WHERE w.user_id = ? AND w.issue_id = ?),
		(SELECT COUNT(*) FROM watch rw WHERE rw.user_id = ? AND rw.repo_id = ? AND rw.mode IN (?, ?)),
		(SELECT COUNT(*) FROM comment c WHERE c.issue_id = ? AND c.poster_id = ? AND c.type IN (?, ?, ?)),
		(SELECT COUNT(*) FROM issue_assignees a WHERE a.issue_id = ? AND a.assignee_id = ?)`,
		true, uid, is.ID, uid, is.ID, uid, is.RepoID, RepoWatchNormal, RepoWatchAuto,
		is.ID, uid, participantTypes[0], participantTypes[1], participantTypes[2], is.ID, uid,
	).Scan(&explicit, &since, &repoWatch, &commented, &assigned)
	if err != nil {
		return WatchState{}, err
	}
	switch {
	case explicit.Valid && explicit.Int64 == 1:
		return WatchState{Watching: true, Reason: WatchExplicit, Since: time.Unix(since.Int64, 0)}, nil
	case explicit.Valid:
		return WatchState{Reason: WatchIgnored, Since: time.Unix(since.Int64, 0)}, nil
	case repoWatch > 0:
		return WatchState{Watching: true, Reason: WatchRepository}, nil
	case is.PosterID == uid || commented > 0 || assigned > 0:
		return WatchState{Watching: true, Reason: WatchParticipant}, nil
	}
	return WatchState{}, nil
}

// SetSubscription records uid's explicit choice to watch (or ignore) issue
// issueID. It reports whether anything changed: subscribing someone already
// subscribed (for any reason) or unsubscribing someone not subscribed is a
// no-op, as Gitea answers 200 instead of 201 then.
func (s *Service) SetSubscription(ctx context.Context, uid int64, is *Issue, watching bool) (bool, error) {
	changed := false
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		st, err := s.WatchStateOf(ctx, uid, is)
		if err != nil || st.Watching == watching {
			return err
		}
		changed = true
		return s.setWatch(ctx, uid, is.ID, watching)
	})
	return changed, err
}

// Subscribers returns one page of the users who subscribed to issue issueID
// explicitly (active accounts that may sign in), in subscription order, and
// their total: one count query and one page query.
func (s *Service) Subscribers(ctx context.Context, issueID int64, limit, offset int) ([]int64, int64, error) {
	const where = ` FROM issue_watch w JOIN users u ON u.id = w.user_id
		WHERE w.issue_id = ? AND w.is_watching = ? AND u.is_active = ? AND u.prohibit_login = ?`
	args := []any{issueID, true, true, false}
	total, err := s.db.Count(ctx, "SELECT COUNT(*)"+where, args...)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.Query(ctx, "SELECT w.user_id"+where+" ORDER BY w.id"+db.LimitOffset(limit, offset), args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, total, rows.Err()
}

// WatcherIDs returns, in one query, everyone subscribed to issue is for
// activity notifications: explicit subscribers, watchers of the repository
// (normal or auto mode) and participants (the poster, commenters and
// assignees), minus those who unsubscribed from the issue explicitly. The
// caller removes the doer and checks read access.
func (s *Service) WatcherIDs(ctx context.Context, is *Issue) ([]int64, error) {
	rows, err := s.db.Query(ctx, `SELECT x.uid FROM (
			SELECT w.user_id AS uid FROM issue_watch w WHERE w.issue_id = ? AND w.is_watching = ?
			UNION SELECT rw.user_id AS uid FROM watch rw WHERE rw.repo_id = ? AND rw.mode IN (?, ?)
			UNION SELECT c.poster_id AS uid FROM comment c WHERE c.issue_id = ? AND c.type IN (?, ?, ?)
			UNION SELECT a.assignee_id AS uid FROM issue_assignees a WHERE a.issue_id = ?
			UNION SELECT i.poster_id AS uid FROM issue i WHERE i.id = ?
		) x WHERE x.uid > 0 AND x.uid NOT IN (SELECT n.user_id FROM issue_watch n WHERE n.issue_id = ? AND n.is_watching = ?)`,
		is.ID, true, is.RepoID, RepoWatchNormal, RepoWatchAuto, is.ID, participantTypes[0], participantTypes[1], participantTypes[2],
		is.ID, is.ID, is.ID, false)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
