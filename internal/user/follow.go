package user

import (
	"context"
	"errors"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
)

// Follow makes follower follow target. Following twice is not an error.
func (s *Service) Follow(ctx context.Context, follower, target *User) error {
	if follower.ID == target.ID {
		return errs.Invalid("you cannot follow yourself")
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.lockPair(ctx, follower.ID, target.ID); err != nil {
			return err
		}
		ok, err := s.IsFollowing(ctx, follower.ID, target.ID)
		if err != nil || ok {
			return err
		}
		if _, err := s.db.Insert(ctx, "INSERT INTO follow (user_id, follow_id, created_unix) VALUES (?, ?, ?)", follower.ID, target.ID, db.Now()); err != nil {
			if db.IsUniqueViolation(err) {
				// A concurrent request stored the same follow first: roll
				// back (PostgreSQL aborts the transaction) and report success.
				return errAlreadyFollowing
			}
			return err
		}
		if err := s.Store.AddToCounter(ctx, target.ID, "num_followers", 1); err != nil {
			return err
		}
		return s.Store.AddToCounter(ctx, follower.ID, "num_following", 1)
	})
	if errors.Is(err, errAlreadyFollowing) {
		return nil
	}
	return err
}

var errAlreadyFollowing = errors.New("already following")

// lockPair locks the rows of both users, lower id first, before a follow
// changes: concurrent follows and unfollows of the same user then queue
// instead of deadlocking on the follow indexes and the counters (MySQL).
// SQLite needs no lock: its write transactions already run one at a time.
func (s *Service) lockPair(ctx context.Context, a, b int64) error {
	if s.db.Dialect == db.SQLite {
		return nil
	}
	if a > b {
		a, b = b, a
	}
	for _, id := range []int64{a, b} {
		var got int64
		if err := s.db.QueryRow(ctx, "SELECT id FROM users WHERE id = ? FOR UPDATE", id).Scan(&got); err != nil {
			return err
		}
	}
	return nil
}

// Unfollow ends a follow; ending one that does not exist is not an error.
func (s *Service) Unfollow(ctx context.Context, follower, target *User) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.lockPair(ctx, follower.ID, target.ID); err != nil {
			return err
		}
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
