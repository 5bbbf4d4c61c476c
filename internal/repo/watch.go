package repo

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// watchNormal is the watch mode of an explicit watch (Gitea's "normal").
const watchNormal = 1

// SetWatch makes uid watch (on) or stop watching repository repoID; the
// repository's watch count changes in the same transaction.
func (s *Service) SetWatch(ctx context.Context, uid, repoID int64, on bool) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error { return s.setWatch(ctx, uid, repoID, on) })
}

func (s *Service) setWatch(ctx context.Context, uid, repoID int64, on bool) error {
	if on {
		exists, err := s.db.Exists(ctx, "SELECT 1 FROM watch WHERE user_id = ? AND repo_id = ?", uid, repoID)
		if err != nil || exists {
			return err
		}
		if _, err := s.db.Insert(ctx, "INSERT INTO watch (user_id, repo_id, mode, created_unix) VALUES (?, ?, ?, ?)",
			uid, repoID, watchNormal, db.Now()); err != nil {
			if db.IsUniqueViolation(err) {
				return nil
			}
			return err
		}
		return s.Store.AddToCounter(ctx, repoID, "num_watches", 1)
	}
	res, err := s.db.Exec(ctx, "DELETE FROM watch WHERE user_id = ? AND repo_id = ?", uid, repoID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	return s.Store.AddToCounter(ctx, repoID, "num_watches", -1)
}

// WatchedSince reports whether uid watches repository repoID, and since when.
func (s *Service) WatchedSince(ctx context.Context, uid, repoID int64) (bool, time.Time, error) {
	var created int64
	err := s.db.QueryRow(ctx, "SELECT created_unix FROM watch WHERE user_id = ? AND repo_id = ?", uid, repoID).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return false, time.Time{}, nil
	}
	if err != nil {
		return false, time.Time{}, err
	}
	return true, time.Unix(created, 0), nil
}
