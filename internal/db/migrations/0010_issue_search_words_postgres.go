package migrations

import "github.com/cairn-forge/cairn/internal/db"

// issueSearchWordsPostgres0010 rebuilds PostgreSQL's full-text index so that
// it holds the words a search looks for. PostgreSQL's parser keeps e-mail
// addresses, paths, URLs and dotted names ("config.yaml", "1.5") as single
// tokens, so "yaml" or "example" found nothing there while SQLite found
// them. The indexed text now has every run of ASCII punctuation turned into
// a space first, as the search splits its words. The expression is the one
// internal/issue queries with.
func issueSearchWordsPostgres0010() db.Migration {
	return db.Migration{Version: 10, Name: "issue search words (PostgreSQL)", Statements: []string{
		`postgres:DROP INDEX ix_issue_fts`,
		"postgres:CREATE INDEX ix_issue_fts ON issue USING GIN " +
			"(to_tsvector('simple', regexp_replace(title || ' ' || COALESCE(content, ''), '[!-/:-@[-`{-~]+', ' ', 'g')))",
	}}
}
