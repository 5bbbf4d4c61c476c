package repo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// Transfer is a pending change of owner that the recipient has to accept.
type Transfer struct {
	ID          int64
	RepoID      int64
	DoerID      int64
	RecipientID int64
	// TeamIDs are teams of an organization recipient that get the repository.
	TeamIDs []int64
	Created time.Time
}

// PendingTransfer returns the transfer of repository repoID waiting for its
// recipient (NotFound when there is none).
func (s *Service) PendingTransfer(ctx context.Context, repoID int64) (*Transfer, error) {
	t := &Transfer{}
	var teams string
	var created int64
	err := s.db.QueryRow(ctx, "SELECT id, repo_id, doer_id, recipient_id, COALESCE(team_ids, ''), created_unix FROM repo_transfer WHERE repo_id = ?", repoID).
		Scan(&t.ID, &t.RepoID, &t.DoerID, &t.RecipientID, &teams, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFound("no pending repository transfer [repo_id: %d]", repoID)
	}
	if err != nil {
		return nil, err
	}
	if teams != "" {
		_ = json.Unmarshal([]byte(teams), &t.TeamIDs)
	}
	t.Created = time.Unix(created, 0)
	return t, nil
}

// checkTransferable refuses a transfer of r to owner when r is not ready,
// already on its way somewhere, or when owner has a repository of that name.
func (s *Service) checkTransferable(ctx context.Context, r *Repository, to *user.User) error {
	if r.Status != StatusReady {
		return errs.Conflict("repository is not ready for transfer [repo: %s]", r.FullName())
	}
	pending, err := s.db.Exists(ctx, "SELECT 1 FROM repo_transfer WHERE repo_id = ?", r.ID)
	if err != nil {
		return err
	}
	if pending {
		return errs.Conflict("repository is already being transferred [repo: %s]", r.FullName())
	}
	return s.checkNameFreeFor(ctx, r, to)
}

func (s *Service) checkNameFreeFor(ctx context.Context, r *Repository, to *user.User) error {
	taken, err := s.db.Exists(ctx, "SELECT 1 FROM repository WHERE owner_id = ? AND lower_name = ?", to.ID, strings.ToLower(r.Name))
	if err != nil {
		return err
	}
	if taken {
		return errs.Invalid("repository already exists [uname: %s, name: %s]", to.Name, r.Name)
	}
	return nil
}

// StartTransfer moves r to the new owner at once when immediate (the caller
// decided the doer may: a site admin, the recipient themself, or someone who
// can create repositories in the recipient organization), and otherwise
// records a pending transfer for the recipient to accept. It reports whether
// the transfer is pending.
func (s *Service) StartTransfer(ctx context.Context, doer *user.User, r *Repository, to *user.User, teamIDs []int64, immediate bool) (bool, error) {
	if err := s.checkTransferable(ctx, r, to); err != nil {
		return false, err
	}
	if immediate {
		return false, s.TransferOwnership(ctx, doer, r, to, teamIDs)
	}
	teams := ""
	if len(teamIDs) > 0 {
		b, _ := json.Marshal(teamIDs)
		teams = string(b)
	}
	_, err := s.db.Insert(ctx, "INSERT INTO repo_transfer (repo_id, doer_id, recipient_id, team_ids, created_unix) VALUES (?, ?, ?, ?, ?)",
		r.ID, doer.ID, to.ID, teams, db.Now())
	if db.IsUniqueViolation(err) {
		return false, errs.Conflict("repository is already being transferred [repo: %s]", r.FullName())
	}
	return err == nil, err
}

// TransferOwnership gives r to a new owner: owner and repository counts
// move, the new owner stops being a collaborator, the teams of a previous
// organization owner lose the repository and the given teams of a new
// organization owner get it, any pending transfer is settled, and the move
// hooks are told (doer: who gave or accepted it). The bare directory does
// not move (it is named by id).
func (s *Service) TransferOwnership(ctx context.Context, doer *user.User, r *Repository, to *user.User, teamIDs []int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		cur, err := s.Store.GetByID(ctx, r.ID)
		if err != nil {
			return err
		}
		if err := s.checkNameFreeFor(ctx, cur, to); err != nil {
			return err
		}
		_, err = s.db.Exec(ctx, "UPDATE repository SET owner_id = ?, updated_unix = ? WHERE id = ? AND owner_id = ?",
			to.ID, time.Now().Unix(), cur.ID, cur.OwnerID)
		if db.IsUniqueViolation(err) {
			return errs.Invalid("repository already exists [uname: %s, name: %s]", to.Name, cur.Name)
		}
		if err != nil {
			return err
		}
		if err := s.users.Store.AddToCounter(ctx, cur.OwnerID, "num_repos", -1); err != nil {
			return err
		}
		if err := s.users.Store.AddToCounter(ctx, to.ID, "num_repos", 1); err != nil {
			return err
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"DELETE FROM collaboration WHERE repo_id = ? AND user_id = ?", []any{cur.ID, to.ID}},
			{"DELETE FROM team_repo WHERE repo_id = ?", []any{cur.ID}},
			{"DELETE FROM repo_transfer WHERE repo_id = ?", []any{cur.ID}},
		} {
			if _, err := s.db.Exec(ctx, q.sql, q.args...); err != nil {
				return err
			}
		}
		moved := *cur
		moved.OwnerID, moved.OwnerName = to.ID, to.Name
		if err := s.runMoveHooks(ctx, doer, &moved, cur.OwnerName, cur.Name); err != nil {
			return err
		}
		if !to.IsOrganization() {
			return nil
		}
		seen := map[int64]bool{}
		for _, tid := range teamIDs {
			if seen[tid] {
				continue
			}
			seen[tid] = true
			ok, err := s.db.Exists(ctx, "SELECT 1 FROM team WHERE id = ? AND org_id = ?", tid, to.ID)
			if err != nil {
				return err
			}
			if !ok {
				return errs.Forbidden("team %d does not belong to organization %s", tid, to.Name)
			}
			if _, err := s.db.Insert(ctx, "INSERT INTO team_repo (org_id, team_id, repo_id) VALUES (?, ?, ?)", to.ID, tid, cur.ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// CancelTransfer drops the pending transfer of repository repoID.
func (s *Service) CancelTransfer(ctx context.Context, repoID int64) error {
	res, err := s.db.Exec(ctx, "DELETE FROM repo_transfer WHERE repo_id = ?", repoID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFound("no pending repository transfer [repo_id: %d]", repoID)
	}
	return nil
}
