package migrations

import "github.com/cairn-forge/cairn/internal/db"

// issueSearch0005 adds a full-text index over issue titles and bodies:
// SQLite's FTS5 (kept in step by triggers), a PostgreSQL GIN index on the
// text vector, and a MySQL FULLTEXT index.
func issueSearch0005() db.Migration {
	return db.Migration{Version: 5, Name: "issue search", Statements: []string{
		`sqlite:CREATE VIRTUAL TABLE issue_fts USING fts5(title, content, content='issue', content_rowid='id', tokenize='unicode61 remove_diacritics 2')`,
		`sqlite:CREATE TRIGGER issue_fts_insert AFTER INSERT ON issue BEGIN
			INSERT INTO issue_fts(rowid, title, content) VALUES (new.id, new.title, COALESCE(new.content, ''));
		END`,
		`sqlite:CREATE TRIGGER issue_fts_delete AFTER DELETE ON issue BEGIN
			INSERT INTO issue_fts(issue_fts, rowid, title, content) VALUES ('delete', old.id, old.title, COALESCE(old.content, ''));
		END`,
		`sqlite:CREATE TRIGGER issue_fts_update AFTER UPDATE OF title, content ON issue BEGIN
			INSERT INTO issue_fts(issue_fts, rowid, title, content) VALUES ('delete', old.id, old.title, COALESCE(old.content, ''));
			INSERT INTO issue_fts(rowid, title, content) VALUES (new.id, new.title, COALESCE(new.content, ''));
		END`,
		`sqlite:INSERT INTO issue_fts(issue_fts) VALUES ('rebuild')`,
		`postgres:CREATE INDEX ix_issue_fts ON issue USING GIN (to_tsvector('simple', title || ' ' || COALESCE(content, '')))`,
		// With the binary collation MySQL's full-text search would be case-sensitive.
		`mysql:ALTER TABLE issue MODIFY title VARCHAR(255) NOT NULL COLLATE utf8mb4_unicode_ci, MODIFY content LONGTEXT COLLATE utf8mb4_unicode_ci`,
		`mysql:CREATE FULLTEXT INDEX ix_issue_fts ON issue (title, content)`,
	}}
}
