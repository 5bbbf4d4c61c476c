package migrations

import "github.com/cairn-forge/cairn/internal/db"

// avatars0007 records uploaded avatars: the file name of an account's or
// organization's avatar, and of a repository's ("" for the default one).
func avatars0007() db.Migration {
	return db.Migration{Version: 7, Name: "avatars", Statements: []string{
		`ALTER TABLE users ADD COLUMN avatar %STR% NOT NULL DEFAULT ''`,
		`ALTER TABLE repository ADD COLUMN avatar %STR% NOT NULL DEFAULT ''`,
	}}
}
