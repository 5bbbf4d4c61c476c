package migrations

import "github.com/cairn-forge/cairn/internal/db"

// mail0024 adds each account's e-mail notification preference, with
// Gitea's column name and values: enabled (every notification), onmention
// (only when mentioned), disabled.
func mail0024() db.Migration {
	return db.Migration{Version: 24, Name: "mail", Statements: []string{
		`ALTER TABLE users ADD COLUMN email_notifications_preference %STR% NOT NULL DEFAULT 'enabled'`,
	}}
}
