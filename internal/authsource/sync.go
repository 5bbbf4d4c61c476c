package authsource

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// SyncResult counts what a synchronisation of one source did.
type SyncResult struct {
	Listed, Created, Updated, Deactivated, Skipped int
	// DeactivationSkipped is set when the listing failed or was empty, so
	// no account was deactivated.
	DeactivationSkipped bool
}

// syncBatch is how many listed users are looked up with one query.
const syncBatch = 500

// SyncAll synchronises every active source with synchronisation enabled;
// a failing source is logged and the others still run.
func (s *Service) SyncAll(ctx context.Context, updateExisting bool) error {
	srcs, err := s.list(ctx, "WHERE is_active = ? AND is_sync_enabled = ?", true, true)
	if err != nil {
		return err
	}
	var first error
	for _, src := range srcs {
		start := time.Now()
		res, err := s.Sync(ctx, src, updateExisting)
		if err != nil {
			s.log.Error("synchronising the users of a sign-in source failed: no account was deactivated", "source", src.Name, "source_id", src.ID, "err", err)
			if first == nil {
				first = err
			}
			continue
		}
		s.log.Info("synchronised the users of a sign-in source", "source", src.Name, "source_id", src.ID, "listed", res.Listed,
			"created", res.Created, "updated", res.Updated, "deactivated", res.Deactivated, "skipped", res.Skipped, "took", time.Since(start))
	}
	return first
}

// Sync creates the missing accounts of src's users, updates the existing
// ones (names, e-mail, keys, admin and restricted flags) when
// updateExisting is set, and deactivates the accounts of the source whose
// users are gone. It never deactivates after a failed listing, nor after an
// empty one unless the source allows it (Gitea #4402).
func (s *Service) Sync(ctx context.Context, src *Source, updateExisting bool) (SyncResult, error) {
	var res SyncResult
	l, ok := src.Config.(Lister)
	if !ok || !l.CanList() {
		return res, errs.Invalid("a %s source cannot synchronise its users", src.Type)
	}
	seen := map[int64]struct{}{}
	batch := make([]*ExternalUser, 0, syncBatch)
	flush := func() error {
		err := s.syncBatch(ctx, src, batch, updateExisting, seen, &res)
		batch = batch[:0]
		return err
	}
	err := l.ListUsers(ctx, func(eu *ExternalUser) error {
		res.Listed++
		batch = append(batch, eu)
		if len(batch) == syncBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		res.DeactivationSkipped = true
		return res, fmt.Errorf("list the users of %s: %w", src.Name, err)
	}
	if res.Listed == 0 && !l.MayDeactivateAll() {
		res.DeactivationSkipped = true
		s.log.Warn("the sign-in source listed no user at all: not deactivating its accounts (allow-deactivate-all is off)", "source", src.Name, "source_id", src.ID)
		return res, nil
	}
	n, err := s.deactivateUnseen(ctx, src.ID, seen)
	res.Deactivated = n
	return res, err
}

// syncBatch applies one batch of listed users: their accounts are loaded
// with one query, then created or updated one by one.
func (s *Service) syncBatch(ctx context.Context, src *Source, batch []*ExternalUser, updateExisting bool, seen map[int64]struct{}, res *SyncResult) error {
	if len(batch) == 0 {
		return nil
	}
	names := make([]any, 0, len(batch)+1)
	names = append(names, src.ID)
	for _, eu := range batch {
		names = append(names, strings.ToLower(eu.Name))
	}
	existing, err := s.users.Store.List(ctx, "WHERE u.type = 0 AND u.login_source = ? AND u.lower_name IN "+db.In(len(batch)), names...)
	if err != nil {
		return err
	}
	byName := make(map[string]*user.User, len(existing))
	for _, u := range existing {
		byName[u.LowerName] = u
	}
	for _, eu := range batch {
		ea := s.account(src, eu.Name, eu)
		u := byName[strings.ToLower(eu.Name)]
		if u == nil {
			if err := user.ValidateName(eu.Name); err != nil {
				res.Skipped++
				s.log.Warn("synchronisation: not an account name, skipped", "source", src.Name, "name", eu.Name)
				continue
			}
			u, err = s.users.RegisterExternal(ctx, ea)
			if err != nil {
				if errs.Is(err, errs.KindInternal) {
					return err
				}
				res.Skipped++
				s.log.Warn("synchronisation: cannot create the account, skipped", "source", src.Name, "name", eu.Name, "err", err)
				continue
			}
			res.Created++
			seen[u.ID] = struct{}{}
			continue
		}
		seen[u.ID] = struct{}{}
		if !updateExisting {
			continue
		}
		if !needsUpdate(u, ea) {
			continue
		}
		changed, err := s.users.ApplyExternal(ctx, u, ea, true)
		if err != nil {
			if errs.Is(err, errs.KindInternal) {
				return err
			}
			res.Skipped++
			s.log.Warn("synchronisation: cannot update the account, skipped", "source", src.Name, "name", eu.Name, "err", err)
			continue
		}
		if changed {
			res.Updated++
		}
	}
	return nil
}

// needsUpdate tells whether u differs from what the source says (keys and
// avatars are compared by ApplyExternal itself, so a source that maps them
// always asks).
func needsUpdate(u *user.User, ea *user.ExternalAccount) bool {
	return !u.IsActive || (ea.FullName != u.FullName) ||
		(ea.Email != "" && !strings.EqualFold(ea.Email, u.Email)) ||
		(ea.IsAdmin != nil && *ea.IsAdmin != u.IsAdmin) ||
		(ea.IsRestricted != nil && *ea.IsRestricted != u.IsRestricted) ||
		ea.SSHKeys != nil || len(ea.Avatar) > 0
}

// deactivateUnseen deactivates the active accounts of source sourceID that
// the listing did not return, reading their ids a page at a time.
func (s *Service) deactivateUnseen(ctx context.Context, sourceID int64, seen map[int64]struct{}) (int, error) {
	n := 0
	var after int64
	for {
		rows, err := s.db.Query(ctx, "SELECT id FROM users WHERE login_source = ? AND is_active = ? AND id > ? ORDER BY id LIMIT 1000", sourceID, true, after)
		if err != nil {
			return n, err
		}
		var gone []int64
		count := 0
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return n, err
			}
			count++
			after = id
			if _, ok := seen[id]; !ok {
				gone = append(gone, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, err
		}
		if len(gone) > 0 {
			args := append([]any{false, db.Now()}, db.Int64Args(gone)...)
			if _, err := s.db.Exec(ctx, "UPDATE users SET is_active = ?, updated_unix = ? WHERE id IN "+db.In(len(gone)), args...); err != nil {
				return n, err
			}
			n += len(gone)
		}
		if count < 1000 {
			return n, nil
		}
	}
}
