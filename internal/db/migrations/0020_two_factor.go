package migrations

import "github.com/cairn-forge/cairn/internal/db"

// twoFactor0020 adds two-factor sign-in with a time-based one-time password
// (TOTP). secret is sealed with the instance secret; scratch_hash is the
// argon2id hash of the one-time scratch code; last_step is the TOTP time
// step of the last accepted code (a code is never accepted twice); a row
// with enabled false is an enrolment not yet confirmed with a first code.
// failures and failures_since count wrong codes for the throttle.
func twoFactor0020() db.Migration {
	return db.Migration{Version: 20, Name: "two-factor", Statements: []string{
		`CREATE TABLE two_factor (
			id %ID%,
			uid %BIGINT% NOT NULL,
			secret %TEXT% NOT NULL,
			scratch_hash %STR% NOT NULL,
			enabled %BOOL% NOT NULL,
			last_step %BIGINT% NOT NULL,
			failures %BIGINT% NOT NULL,
			failures_since %BIGINT% NOT NULL,
			created_unix %BIGINT% NOT NULL,
			updated_unix %BIGINT% NOT NULL
		) %OPTS%`,
		`CREATE UNIQUE INDEX uq_two_factor_uid ON two_factor (uid)`,
	}}
}
