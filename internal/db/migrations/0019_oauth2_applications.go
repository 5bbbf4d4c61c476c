package migrations

import "github.com/cairn-forge/cairn/internal/db"

// oauth2Applications0019 adds the OAuth2 applications (clients) accounts
// register. client_id is a random UUID, public; the client secret is kept
// only as the SHA-256 (hex) of its plaintext, which is shown once.
// redirect_uris is a JSON array of absolute URIs.
func oauth2Applications0019() db.Migration {
	return db.Migration{Version: 19, Name: "oauth2 applications", Statements: []string{
		`CREATE TABLE oauth2_application (
			id %ID%,
			uid %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			client_id %STR% NOT NULL,
			client_secret_hash %STR% NOT NULL,
			redirect_uris %TEXT% NOT NULL,
			confidential_client %BOOL% NOT NULL DEFAULT TRUE,
			skip_secondary_authorization %BOOL% NOT NULL DEFAULT FALSE,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_oauth2_application_client_id ON oauth2_application (client_id)`,
		`CREATE INDEX ix_oauth2_application_uid ON oauth2_application (uid, id)`,
	}}
}
