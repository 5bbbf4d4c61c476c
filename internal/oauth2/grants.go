package oauth2

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/cairn-forge/cairn/internal/db"

	"github.com/cairn-forge/cairn/internal/errs"
)

// AuthorizedApp is one of a user's grants: an application the user
// authorized, with the scope consented to.
type AuthorizedApp struct {
	GrantID  int64
	AppID    int64
	AppName  string
	ClientID string
	Scope    string
	Builtin  bool
	Created  time.Time
	Updated  time.Time
}

// maxGrantsListed bounds the grants the settings page lists.
const maxGrantsListed = 500

// ListGrants returns the applications uid authorized, most recently
// authorized first (one query).
func (p *Provider) ListGrants(ctx context.Context, uid int64) ([]AuthorizedApp, error) {
	rows, err := p.db.Query(ctx, `SELECT g.id, a.id, a.name, a.client_id, g.scope, a.uid, g.created_unix, g.updated_unix
		FROM oauth2_grant g JOIN oauth2_application a ON a.id = g.application_id WHERE g.uid = ?
		ORDER BY g.updated_unix DESC, g.id DESC`+db.LimitOffset(maxGrantsListed, 0), uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuthorizedApp
	for rows.Next() {
		var g AuthorizedApp
		var owner, created, updated int64
		if err := rows.Scan(&g.GrantID, &g.AppID, &g.AppName, &g.ClientID, &g.Scope, &owner, &created, &updated); err != nil {
			return nil, err
		}
		g.Builtin = owner == 0
		g.Created, g.Updated = time.Unix(created, 0), time.Unix(updated, 0)
		out = append(out, g)
	}
	return out, rows.Err()
}

// RevokeGrant removes uid's grant id to application app with every code
// and token of it: the application's tokens stop working and it must ask
// for consent again. Another user's grant is not found.
func (p *Provider) RevokeGrant(ctx context.Context, uid, app, id int64) error {
	return p.db.WithTx(ctx, func(ctx context.Context) error {
		var owner, appID int64
		err := p.db.QueryRow(ctx, "SELECT uid, application_id FROM oauth2_grant WHERE id = ?", id).Scan(&owner, &appID)
		if errors.Is(err, sql.ErrNoRows) || err == nil && (owner != uid || appID != app) {
			return errs.NotFound("OAuth2 grant not found [ID: %d]", id)
		}
		if err != nil {
			return err
		}
		return p.store.removeGrant(ctx, id)
	})
}
