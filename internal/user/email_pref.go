package user

import (
	"context"

	"github.com/cairn-forge/cairn/internal/errs"
)

// E-mail notification preferences (users.email_notifications_preference),
// Gitea's values: every notification, only when mentioned, none, or every
// one including those of one's own actions.
const (
	EmailNotificationsEnabled    = "enabled"
	EmailNotificationsOnMention  = "onmention"
	EmailNotificationsDisabled   = "disabled"
	EmailNotificationsAndYourOwn = "andyourown"
)

// EmailNotifications returns the e-mail notification preference of an account.
func (s *Service) EmailNotifications(ctx context.Context, uid int64) (string, error) {
	var pref string
	err := s.db.QueryRow(ctx, "SELECT email_notifications_preference FROM users WHERE id = ?", uid).Scan(&pref)
	return pref, err
}

// SetEmailNotifications sets the e-mail notification preference of an account.
func (s *Service) SetEmailNotifications(ctx context.Context, uid int64, pref string) error {
	switch pref {
	case EmailNotificationsEnabled, EmailNotificationsOnMention, EmailNotificationsDisabled, EmailNotificationsAndYourOwn:
	default:
		return errs.InvalidField("preference", "unknown e-mail notification preference %q", pref)
	}
	_, err := s.db.Exec(ctx, "UPDATE users SET email_notifications_preference = ? WHERE id = ?", pref, uid)
	return err
}
