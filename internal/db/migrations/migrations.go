// Package migrations lists Cairn's frozen, numbered schema changes. Each file
// adds one migration; a released migration is never edited.
package migrations

import "github.com/cairn-forge/cairn/internal/db"

// All returns every migration in order.
func All() []db.Migration {
	return []db.Migration{
		accounts0001(),
		repositories0002(),
		issues0003(),
		issueListIndexes0004(),
		issueSearch0005(),
		issueSearchTags0006(),
		avatars0007(),
		commitStatus0008(),
		searchVersion0009(),
		issueSearchWordsPostgres0010(),
		pulls0011(),
		releases0012(),
		protection0013(),
		gpgKeys0014(),
		queue0015(),
		webhooks0016(),
		webSessions0017(),
		actions0018(),
		oauth2Applications0019(),
		twoFactor0020(),
		oauth2Grants0021(),
		loginSources0022(),
		oauth2Nonce0023(),
		mail0024(),
		webauthn0025(),
	}
}
