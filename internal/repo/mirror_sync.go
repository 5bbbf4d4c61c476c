package repo

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
)

// mirrorLease is how long a claimed sync keeps other syncs of the same
// mirror away. While a sync runs, mirror.next_update_unix holds the negated
// end of its lease; a crashed sync is picked up again after it.
const mirrorLease = migrateTimeout + 10*time.Minute

// SyncMirror fetches mirror r now (POST /mirror-sync). When a sync of r is
// already running it returns at once. A failed fetch is recorded and
// returned.
func (s *Service) SyncMirror(ctx context.Context, r *Repository) error {
	if !r.IsMirror {
		return errs.BadRequest("Repository is not a mirror")
	}
	var next int64
	err := s.db.QueryRow(ctx, "SELECT next_update_unix FROM mirror WHERE repo_id = ?", r.ID).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return errs.BadRequest("Repository is not a mirror")
	}
	if err != nil {
		return err
	}
	now := time.Now().Unix()
	if next < 0 && -next > now {
		return nil
	}
	claimed, err := s.claimMirror(ctx, r.ID, next)
	if err != nil || !claimed {
		return err
	}
	return s.syncMirror(context.WithoutCancel(ctx), r.ID)
}

// claimMirror takes the sync lease of a mirror whose next_update_unix is
// still seen; false when another sync took it first.
func (s *Service) claimMirror(ctx context.Context, repoID, seen int64) (bool, error) {
	res, err := s.db.Exec(ctx, "UPDATE mirror SET next_update_unix = ? WHERE repo_id = ? AND next_update_unix = ?",
		-time.Now().Add(mirrorLease).Unix(), repoID, seen)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SyncDueMirrors syncs the mirrors whose interval has passed (and those whose
// sync lease ran out), at most concurrency at a time, and returns how many it
// synced.
func (s *Service) SyncDueMirrors(ctx context.Context, concurrency int) (int, error) {
	if concurrency < 1 {
		concurrency = 1
	}
	now := time.Now().Unix()
	rows, err := s.db.Query(ctx, `SELECT m.repo_id, m.next_update_unix FROM mirror m JOIN repository r ON r.id = m.repo_id
		WHERE r.is_mirror = ? AND r.is_archived = ? AND r.status = ? AND m.interval_seconds > 0
		AND ((m.next_update_unix > 0 AND m.next_update_unix <= ?) OR (m.next_update_unix < 0 AND m.next_update_unix >= ?))
		ORDER BY m.next_update_unix LIMIT 100`, true, false, StatusReady, now, -now)
	if err != nil {
		return 0, err
	}
	type due struct{ id, next int64 }
	var list []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.next); err != nil {
			rows.Close()
			return 0, err
		}
		list = append(list, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	sem := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	synced := 0
	for _, d := range list {
		if ctx.Err() != nil {
			break
		}
		claimed, err := s.claimMirror(ctx, d.id, d.next)
		if err != nil {
			return synced, err
		}
		if !claimed {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(id int64) {
			defer func() { <-sem; wg.Done() }()
			if err := s.syncMirror(ctx, id); err != nil {
				slog.Warn("mirror sync failed", "repo", id, "err", err)
				return
			}
			mu.Lock()
			synced++
			mu.Unlock()
		}(d.id)
	}
	wg.Wait()
	return synced, nil
}

// RunMirrorWorker syncs due mirrors every interval until ctx ends, at most
// concurrency at a time.
func (s *Service) RunMirrorWorker(ctx context.Context, every time.Duration, concurrency int) {
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := s.SyncDueMirrors(ctx, concurrency); err != nil && ctx.Err() == nil {
			slog.Error("mirror sync worker", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// syncMirror fetches all refs of a claimed mirror from its remote, checked
// again against the address policy, and records the outcome: on success the
// update time (mirror_updated), in any case the error and the next due time.
func (s *Service) syncMirror(ctx context.Context, repoID int64) error {
	ctx, cancel := context.WithTimeout(ctx, migrateTimeout)
	defer cancel()
	var remoteURL string
	var interval int64
	var prune bool
	err := s.db.QueryRow(ctx, "SELECT remote_url, interval_seconds, enable_prune FROM mirror WHERE repo_id = ?", repoID).
		Scan(&remoteURL, &interval, &prune)
	if err != nil {
		return err
	}
	syncErr := s.fetchMirror(ctx, repoID, remoteURL, prune)
	now := time.Now()
	next := int64(0)
	if interval > 0 {
		next = now.Add(time.Duration(interval) * time.Second).Unix()
	}
	rec := context.WithoutCancel(ctx)
	if syncErr != nil {
		_, err = s.db.Exec(rec, "UPDATE mirror SET next_update_unix = ?, last_error = ? WHERE repo_id = ?", next, syncErr.Error(), repoID)
		return errors.Join(syncErr, err)
	}
	_, err = s.db.Exec(rec, "UPDATE mirror SET updated_unix = ?, next_update_unix = ?, last_error = ? WHERE repo_id = ?", now.Unix(), next, "", repoID)
	return err
}

func (s *Service) fetchMirror(ctx context.Context, repoID int64, remoteURL string, prune bool) error {
	r, err := s.GetByID(ctx, repoID)
	if err != nil {
		return err
	}
	path := s.Path(r)
	rm := &remote{}
	if strings.HasPrefix(remoteURL, "/") {
		rm.local = remoteURL
	} else {
		u, err := url.Parse(remoteURL)
		if err != nil {
			return errInvalidURL(remoteURL)
		}
		rm.url = u
		cred, err := readCredentials(path)
		if err != nil {
			return err
		}
		rm.username, rm.password = cred.Username, cred.Password
	}
	src, env, _, err := s.gitRemote(ctx, rm)
	if err != nil {
		return err
	}
	cmd := s.Git.Command("fetch", "--quiet", "--force", "--no-write-fetch-head")
	if prune {
		cmd.Args("--prune")
	}
	if err := cmd.Env(env...).EndOfOptions().Values(src, "+refs/*:refs/*").Repo(path).Run(ctx); err != nil {
		return migrationError(err, rm)
	}
	return s.finishCopy(ctx, r, r.DefaultBranch)
}
