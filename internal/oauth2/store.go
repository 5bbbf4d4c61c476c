package oauth2

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// store is the SQL of the oauth2_application table.
type store struct{ db *db.DB }

const appColumns = "id, uid, name, client_id, redirect_uris, confidential_client, skip_secondary_authorization, created_unix, updated_unix"

// scanApp reads one row of appColumns (and extra columns after them).
func scanApp(row interface{ Scan(...any) error }, extra ...any) (*Application, error) {
	a := &Application{}
	var uris string
	var created, updated int64
	if err := row.Scan(append([]any{&a.ID, &a.OwnerID, &a.Name, &a.ClientID, &uris, &a.ConfidentialClient,
		&a.SkipSecondaryAuthorization, &created, &updated}, extra...)...); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(uris), &a.RedirectURIs); err != nil {
		return nil, err
	}
	a.Created, a.Updated = time.Unix(created, 0), time.Unix(updated, 0)
	return a, nil
}

func (s store) insert(ctx context.Context, a *Application, secretHash string) error {
	uris, err := json.Marshal(a.RedirectURIs)
	if err != nil {
		return err
	}
	a.ID, err = s.db.Insert(ctx, `INSERT INTO oauth2_application (uid, name, client_id, client_secret_hash, redirect_uris,
		confidential_client, skip_secondary_authorization, created_unix, updated_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.OwnerID, a.Name, a.ClientID, secretHash, string(uris), a.ConfidentialClient, a.SkipSecondaryAuthorization,
		a.Created.Unix(), a.Updated.Unix())
	return err
}

// byID returns the application id, or nil when there is none.
func (s store) byID(ctx context.Context, id int64) (*Application, error) {
	a, err := scanApp(s.db.QueryRow(ctx, "SELECT "+appColumns+" FROM oauth2_application WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return a, err
}

// byClientID returns the application and its secret's hash, or nil when
// there is none.
func (s store) byClientID(ctx context.Context, clientID string) (*Application, string, error) {
	var hash string
	a, err := scanApp(s.db.QueryRow(ctx, "SELECT "+appColumns+", client_secret_hash FROM oauth2_application WHERE client_id = ?", clientID), &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	return a, hash, err
}

func (s store) list(ctx context.Context, uid int64, limit, offset int) ([]*Application, int64, error) {
	total, err := s.db.Count(ctx, "SELECT COUNT(*) FROM oauth2_application WHERE uid = ?", uid)
	if err != nil || total == 0 {
		return nil, total, err
	}
	rows, err := s.db.Query(ctx, "SELECT "+appColumns+" FROM oauth2_application WHERE uid = ? ORDER BY id DESC"+db.LimitOffset(limit, offset), uid)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []*Application
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	return out, total, rows.Err()
}

func (s store) update(ctx context.Context, a *Application) error {
	uris, err := json.Marshal(a.RedirectURIs)
	if err != nil {
		return err
	}
	_, err = s.db.Exec(ctx, `UPDATE oauth2_application SET name = ?, redirect_uris = ?, confidential_client = ?,
		skip_secondary_authorization = ?, updated_unix = ? WHERE id = ?`,
		a.Name, string(uris), a.ConfidentialClient, a.SkipSecondaryAuthorization, a.Updated.Unix(), a.ID)
	return err
}

func (s store) setSecret(ctx context.Context, id int64, hash string, now int64) error {
	_, err := s.db.Exec(ctx, "UPDATE oauth2_application SET client_secret_hash = ?, updated_unix = ? WHERE id = ?", hash, now, id)
	return err
}

// remove deletes application id of uid and reports whether there was one.
func (s store) remove(ctx context.Context, uid, id int64) (bool, error) {
	res, err := s.db.Exec(ctx, "DELETE FROM oauth2_application WHERE id = ? AND uid = ?", id, uid)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s store) removeAllOf(ctx context.Context, uid int64) error {
	_, err := s.db.Exec(ctx, "DELETE FROM oauth2_application WHERE uid = ?", uid)
	return err
}
