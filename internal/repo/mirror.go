package repo

import (
	"context"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
)

// Mirror is the pull-mirror state of a repository.
type Mirror struct {
	RepoID      int64
	RemoteURL   string // without credentials
	Interval    time.Duration
	EnablePrune bool
	Updated     time.Time
	NextUpdate  time.Time
	LastError   string
}

// MirrorsOf loads the mirror state of many repositories in one query.
func (s *Service) MirrorsOf(ctx context.Context, ids []int64) (map[int64]Mirror, error) {
	out := map[int64]Mirror{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT repo_id, remote_url, interval_seconds, enable_prune, updated_unix, next_update_unix, COALESCE(last_error, '') FROM mirror WHERE repo_id IN "+
		db.In(len(ids)), db.Int64Args(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var m Mirror
		var interval, updated, next int64
		if err := rows.Scan(&m.RepoID, &m.RemoteURL, &interval, &m.EnablePrune, &updated, &next, &m.LastError); err != nil {
			return nil, err
		}
		m.Interval = time.Duration(interval) * time.Second
		if updated > 0 {
			m.Updated = time.Unix(updated, 0)
		}
		m.NextUpdate = time.Unix(next, 0)
		out[m.RepoID] = m
	}
	return out, rows.Err()
}
