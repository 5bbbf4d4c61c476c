package repo

import (
	"context"

	"github.com/cairn-forge/cairn/internal/db"
)

// SetStar stars (on) or unstars repository repoID for uid. The star counts of
// the repository and of the user change in the same transaction, and only
// when the star really appears or goes.
func (s *Service) SetStar(ctx context.Context, uid, repoID int64, on bool) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		starred, err := s.IsStarring(ctx, uid, repoID)
		if err != nil || starred == on {
			return err
		}
		delta := 1
		if on {
			if _, err := s.db.Insert(ctx, "INSERT INTO star (uid, repo_id, created_unix) VALUES (?, ?, ?)", uid, repoID, db.Now()); err != nil {
				if db.IsUniqueViolation(err) {
					return nil
				}
				return err
			}
		} else {
			res, err := s.db.Exec(ctx, "DELETE FROM star WHERE uid = ? AND repo_id = ?", uid, repoID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil
			}
			delta = -1
		}
		if err := s.Store.AddToCounter(ctx, repoID, "num_stars", delta); err != nil {
			return err
		}
		return s.users.Store.AddToCounter(ctx, uid, "num_stars", delta)
	})
}

// IsStarring reports whether uid starred repository repoID.
func (s *Service) IsStarring(ctx context.Context, uid, repoID int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM star WHERE uid = ? AND repo_id = ?", uid, repoID)
}
