package issue

import (
	"context"

	"github.com/cairn-forge/cairn/internal/user"
)

// UserDeleteHook removes what only concerns a deleted user — notification
// threads, subscriptions, read marks, stopwatches — and keeps what others
// see (issues, comments, reactions and tracked time show the ghost user).
func (s *Service) UserDeleteHook() user.DeleteHook { return userDeleteHook{s} }

type userDeleteHook struct{ s *Service }

func (h userDeleteHook) CheckDelete(ctx context.Context, u *user.User) error { return nil }

func (h userDeleteHook) Purge(ctx context.Context, u *user.User) error {
	return h.s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, q := range []string{
			"DELETE FROM notification WHERE user_id = ?",
			"DELETE FROM issue_watch WHERE user_id = ?",
			"DELETE FROM issue_user WHERE uid = ?",
			"DELETE FROM stopwatch WHERE user_id = ?",
			"DELETE FROM issue_assignees WHERE assignee_id = ?",
		} {
			if _, err := h.s.db.Exec(ctx, q, u.ID); err != nil {
				return err
			}
		}
		return nil
	})
}
