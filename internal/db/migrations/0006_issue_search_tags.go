package migrations

import (
	"fmt"

	"github.com/cairn-forge/cairn/internal/db"
)

// issueSearchTags0006 adds a third column, tags, to SQLite's full-text index:
// a token naming the issue's kind and repository ("i12" for an issue of
// repository 12, "p12" for a pull request) and one adding its state ("i12o"
// open, "i12c" closed; the first serves searches in every state). A search
// restricted to the repositories a caller may read and to a state is then
// answered by the index alone, count included, instead of checking every
// match against the issue table. The index reads its
// content from a view that derives the tags from the issue row. It keeps
// columns but no positions (detail=column): searches match single words and
// prefixes, never phrases, and counting goes faster on the smaller index.
// Prefixes of three to five characters are indexed too, so a search for a
// short, common word does not first merge every word it begins.
func issueSearchTags0006() db.Migration {
	const tags = `(CASE WHEN %[1]s.is_pull THEN 'p' ELSE 'i' END) || %[1]s.repo_id || ' ' ||
		(CASE WHEN %[1]s.is_pull THEN 'p' ELSE 'i' END) || %[1]s.repo_id || (CASE WHEN %[1]s.is_closed THEN 'c' ELSE 'o' END)`
	row := func(alias string) string {
		return alias + ".id, " + alias + ".title, COALESCE(" + alias + ".content, ''), " + fmt.Sprintf(tags, alias)
	}
	return db.Migration{Version: 6, Name: "issue search tags", Statements: []string{
		`sqlite:DROP TRIGGER issue_fts_insert`,
		`sqlite:DROP TRIGGER issue_fts_delete`,
		`sqlite:DROP TRIGGER issue_fts_update`,
		`sqlite:DROP TABLE issue_fts`,
		`sqlite:CREATE VIEW issue_fts_source(id, title, content, tags) AS SELECT ` + row("issue") + ` FROM issue`,
		`sqlite:CREATE VIRTUAL TABLE issue_fts USING fts5(title, content, tags, content='issue_fts_source', content_rowid='id', detail=column, prefix='3 4 5', tokenize='unicode61 remove_diacritics 2')`,
		`sqlite:CREATE TRIGGER issue_fts_insert AFTER INSERT ON issue BEGIN
			INSERT INTO issue_fts(rowid, title, content, tags) VALUES (` + row("new") + `);
		END`,
		`sqlite:CREATE TRIGGER issue_fts_delete AFTER DELETE ON issue BEGIN
			INSERT INTO issue_fts(issue_fts, rowid, title, content, tags) VALUES ('delete', ` + row("old") + `);
		END`,
		`sqlite:CREATE TRIGGER issue_fts_update AFTER UPDATE OF title, content, repo_id, is_pull, is_closed ON issue BEGIN
			INSERT INTO issue_fts(issue_fts, rowid, title, content, tags) VALUES ('delete', ` + row("old") + `);
			INSERT INTO issue_fts(rowid, title, content, tags) VALUES (` + row("new") + `);
		END`,
		`sqlite:INSERT INTO issue_fts(issue_fts) VALUES ('rebuild')`,
	}}
}
