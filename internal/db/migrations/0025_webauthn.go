package migrations

import "github.com/cairn-forge/cairn/internal/db"

// webauthn0025 adds WebAuthn security keys as a second factor.
//
// webauthn_credential holds an account's registered keys with Gitea's
// columns where they mean the same: credential_id and public_key are
// base64url text (the identifier may be longer than an indexable column, so
// credential_hash, its SHA-256 in hex, is the unique lookup key), aaguid the
// authenticator model, sign_count the last signature counter seen and
// clone_warning whether a counter that did not grow was ever presented;
// flags are the authenticator data flags of the registration (the backup
// eligibility that every later assertion must repeat).
//
// webauthn_ceremony holds a registration or sign-in in progress: the
// library's session data (challenge included) for one browser, known by the
// SHA-256 of a random cookie value, deleted when it is used or expires.
func webauthn0025() db.Migration {
	return db.Migration{Version: 25, Name: "webauthn", Statements: []string{
		`CREATE TABLE webauthn_credential (
			id %ID%,
			user_id %BIGINT% NOT NULL,
			name %STR% NOT NULL,
			lower_name %STR% NOT NULL,
			credential_id %TEXT% NOT NULL,
			credential_hash %STR% NOT NULL,
			public_key %TEXT% NOT NULL,
			attestation_type %STR% NOT NULL,
			attestation_format %STR% NOT NULL,
			transports %STR% NOT NULL,
			aaguid %STR% NOT NULL,
			sign_count %BIGINT% NOT NULL,
			clone_warning %BOOL% NOT NULL,
			flags %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_webauthn_credential_name ON webauthn_credential (user_id, lower_name)`,
		`CREATE UNIQUE INDEX uq_webauthn_credential_hash ON webauthn_credential (credential_hash)`,
		`CREATE TABLE webauthn_ceremony (
			id %ID%,
			key_hash %STR% NOT NULL,
			uid %BIGINT% NOT NULL,
			purpose %STR% NOT NULL,
			name %STR% NOT NULL,
			data %TEXT% NOT NULL,
			expires_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_webauthn_ceremony_key ON webauthn_ceremony (key_hash)`,
		`CREATE INDEX ix_webauthn_ceremony_expires ON webauthn_ceremony (expires_unix)`,
	}}
}
