package migrations

import "github.com/cairn-forge/cairn/internal/db"

// releases0012 adds releases. A row with is_tag set stands for a tag pushed
// without a release (Gitea's tag-only releases); a draft has no sha1 until it
// is published. Release assets are attachment rows with release_id set.
func releases0012() db.Migration {
	return db.Migration{Version: 12, Name: "releases", Statements: []string{
		`CREATE TABLE releases (
			id %ID%,
			repo_id %BIGINT% NOT NULL,
			publisher_id %BIGINT% NOT NULL DEFAULT 0,
			tag_name %STR% NOT NULL,
			lower_tag_name %STR% NOT NULL,
			target %STR% NOT NULL DEFAULT '',
			title %STR% NOT NULL DEFAULT '',
			sha1 %STR% NOT NULL DEFAULT '',
			num_commits %BIGINT% NOT NULL DEFAULT 0,
			note %TEXT%,
			is_draft %BOOL% NOT NULL DEFAULT FALSE,
			is_prerelease %BOOL% NOT NULL DEFAULT FALSE,
			is_tag %BOOL% NOT NULL DEFAULT FALSE,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_releases_tag ON releases (repo_id, tag_name)`,
		`CREATE INDEX ix_releases_list ON releases (repo_id, is_tag, is_draft, created_unix)`,
		`CREATE INDEX ix_attachment_release ON attachment (release_id)`,
	}}
}
