package migrations

import "github.com/cairn-forge/cairn/internal/db"

// webSessions0017 adds the web interface's sessions. A session is known by
// the SHA-256 of its cookie value, so the table holds nothing a visitor
// could present; expires_unix is refreshed while the session is used.
func webSessions0017() db.Migration {
	return db.Migration{Version: 17, Name: "web sessions", Statements: []string{
		`CREATE TABLE web_session (
			id %ID%,
			key_hash %STR% NOT NULL,
			uid %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			seen_unix %BIGINT% NOT NULL,
			expires_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_web_session_key ON web_session (key_hash)`,
		`CREATE INDEX ix_web_session_uid ON web_session (uid)`,
		`CREATE INDEX ix_web_session_expires ON web_session (expires_unix)`,
	}}
}
