package user

import (
	"context"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// Follow makes follower follow target. Following twice is not an error.
func (s *Service) Follow(ctx context.Context, follower, target *User) error {
	if follower.ID == target.ID {
		return errs.Invalid("you cannot follow yourself")
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		ok, err := s.IsFollowing(ctx, follower.ID, target.ID)
		if err != nil || ok {
			return err
		}
		if _, err := s.db.Insert(ctx, "INSERT INTO follow (user_id, follow_id, created_unix) VALUES (?, ?, ?)", follower.ID, target.ID, db.Now()); err != nil {
			return err
		}
		if err := s.Store.AddToCounter(ctx, target.ID, "num_followers", 1); err != nil {
			return err
		}
		return s.Store.AddToCounter(ctx, follower.ID, "num_following", 1)
	})
}

// Unfollow ends a follow; ending one that does not exist is not an error.
func (s *Service) Unfollow(ctx context.Context, follower, target *User) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, "DELETE FROM follow WHERE user_id = ? AND follow_id = ?", follower.ID, target.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if err := s.Store.AddToCounter(ctx, target.ID, "num_followers", -1); err != nil {
			return err
		}
		return s.Store.AddToCounter(ctx, follower.ID, "num_following", -1)
	})
}

// IsFollowing reports whether follower follows target.
func (s *Service) IsFollowing(ctx context.Context, followerID, targetID int64) (bool, error) {
	return s.db.Exists(ctx, "SELECT 1 FROM follow WHERE user_id = ? AND follow_id = ?", followerID, targetID)
}
