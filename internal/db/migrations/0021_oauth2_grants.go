package migrations

import "github.com/cairn-forge/cairn/internal/db"

// oauth2Grants0021 adds the OAuth2 provider's state: a grant is a user's
// consent to an application (one per user and application, with the scope
// last consented to); an authorization code is issued once per consent and
// exchanged once, bound to its redirect URI, scope and PKCE challenge;
// tokens (access and refresh) carry the scope of their code and belong to a
// grant and to the chain of the code that started them (chain_id, the
// code's id), so a reused code revokes what it issued. Codes and tokens are
// stored as SHA-256 hashes only.
func oauth2Grants0021() db.Migration {
	return db.Migration{Version: 21, Name: "oauth2 grants", Statements: []string{
		`CREATE TABLE oauth2_grant (
			id %ID%,
			uid %BIGINT% NOT NULL,
			application_id %BIGINT% NOT NULL,
			scope %TEXT% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_oauth2_grant_user_app ON oauth2_grant (uid, application_id)`,
		`CREATE INDEX ix_oauth2_grant_app ON oauth2_grant (application_id)`,
		`CREATE TABLE oauth2_authorization_code (
			id %ID%,
			grant_id %BIGINT% NOT NULL,
			code_hash %STR% NOT NULL,
			redirect_uri %TEXT% NOT NULL,
			scope %TEXT% NOT NULL,
			code_challenge %STR% NOT NULL,
			code_challenge_method %STR% NOT NULL,
			expires_unix %BIGINT% NOT NULL,
			used %BOOL% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_oauth2_authorization_code_hash ON oauth2_authorization_code (code_hash)`,
		`CREATE INDEX ix_oauth2_authorization_code_grant ON oauth2_authorization_code (grant_id)`,
		`CREATE TABLE oauth2_token (
			id %ID%,
			grant_id %BIGINT% NOT NULL,
			chain_id %BIGINT% NOT NULL,
			token_hash %STR% NOT NULL,
			kind %STR% NOT NULL,
			scope %TEXT% NOT NULL,
			expires_unix %BIGINT% NOT NULL,
			revoked %BOOL% NOT NULL,
			replaced %BOOL% NOT NULL,
			created_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_oauth2_token_hash ON oauth2_token (token_hash)`,
		`CREATE INDEX ix_oauth2_token_grant ON oauth2_token (grant_id, chain_id)`,
	}}
}
