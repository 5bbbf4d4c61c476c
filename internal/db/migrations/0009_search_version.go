package migrations

import "github.com/cairn-forge/cairn/internal/db"

// searchVersion0009 gives every repository on PostgreSQL a search_version,
// raised (by statement-level triggers) whenever an issue of the repository
// is created or deleted, or changes title, body, state, kind or repository.
// The totals of keyword searches are remembered with the sum of the versions
// of the repositories searched, and counted again once it moves: on
// PostgreSQL, counting a word found in tens of thousands of issues has to
// visit nearly every page of the issue table.
func searchVersion0009() db.Migration {
	const bump = `UPDATE repository SET search_version = search_version + 1 WHERE id IN `
	return db.Migration{Version: 9, Name: "repository search version (PostgreSQL)", Statements: []string{
		`postgres:ALTER TABLE repository ADD COLUMN search_version BIGINT NOT NULL DEFAULT 0`,
		`postgres:CREATE FUNCTION cairn_issue_rows_added() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			` + bump + `(SELECT DISTINCT repo_id FROM new_rows);
			RETURN NULL;
		END $$`,
		`postgres:CREATE FUNCTION cairn_issue_rows_removed() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			` + bump + `(SELECT DISTINCT repo_id FROM old_rows);
			RETURN NULL;
		END $$`,
		`postgres:CREATE FUNCTION cairn_issue_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			` + bump + `(SELECT r.repo_id FROM old_rows o JOIN new_rows n ON n.id = o.id,
				LATERAL (VALUES (o.repo_id), (n.repo_id)) AS r(repo_id)
				WHERE (o.title, o.content, o.is_closed, o.is_pull, o.repo_id) IS DISTINCT FROM
					(n.title, n.content, n.is_closed, n.is_pull, n.repo_id));
			RETURN NULL;
		END $$`,
		`postgres:CREATE TRIGGER issue_search_insert AFTER INSERT ON issue REFERENCING NEW TABLE AS new_rows
			FOR EACH STATEMENT EXECUTE FUNCTION cairn_issue_rows_added()`,
		`postgres:CREATE TRIGGER issue_search_delete AFTER DELETE ON issue REFERENCING OLD TABLE AS old_rows
			FOR EACH STATEMENT EXECUTE FUNCTION cairn_issue_rows_removed()`,
		`postgres:CREATE TRIGGER issue_search_update AFTER UPDATE ON issue REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
			FOR EACH STATEMENT EXECUTE FUNCTION cairn_issue_rows_changed()`,
	}}
}
