package migrations

import "github.com/cairn-forge/cairn/internal/db"

// oauth2Nonce0023 adds what OpenID Connect ID tokens carry from the
// authorization request: the client's nonce (kept on the one-time code
// only) and the time the user signed in (auth_time), kept on the code and
// on the tokens it leads to, so that refreshed ID tokens still name the
// original sign-in.
func oauth2Nonce0023() db.Migration {
	return db.Migration{Version: 23, Name: "oauth2 nonce and auth time", Statements: []string{
		`ALTER TABLE oauth2_authorization_code ADD COLUMN nonce %STR% NOT NULL DEFAULT ''`,
		`ALTER TABLE oauth2_authorization_code ADD COLUMN auth_time_unix %BIGINT% NOT NULL DEFAULT 0`,
		`ALTER TABLE oauth2_token ADD COLUMN auth_time_unix %BIGINT% NOT NULL DEFAULT 0`,
	}}
}
