package migrations

import "github.com/cairn-forge/cairn/internal/db"

// gpgKeys0014 adds users' GPG keys: one row per primary key (content holds
// the armored public key) and one per subkey (primary_key_id names its
// primary key); emails lists the key's identity addresses, one per line.
func gpgKeys0014() db.Migration {
	return db.Migration{Version: 14, Name: "gpg keys", Statements: []string{
		`CREATE TABLE gpg_key (
			id %ID%,
			owner_id %BIGINT% NOT NULL,
			key_id %STR% NOT NULL,
			primary_key_id %STR% NOT NULL,
			content %TEXT% NOT NULL,
			emails %TEXT% NOT NULL,
			verified %BOOL% NOT NULL,
			can_sign %BOOL% NOT NULL,
			can_encrypt_comms %BOOL% NOT NULL,
			can_encrypt_storage %BOOL% NOT NULL,
			can_certify %BOOL% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			expired_unix %BIGINT% NOT NULL,
			added_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE INDEX ix_gpg_key_owner ON gpg_key (owner_id, primary_key_id, id)`,
		`CREATE INDEX ix_gpg_key_key_id ON gpg_key (key_id)`,
	}}
}
