package pull

import (
	"context"
	"log/slog"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// AutoMerge is a merge scheduled to happen when the head's commit statuses succeed.
type AutoMerge struct {
	PullID       int64
	DoerID       int64
	Style        string
	Message      string
	DeleteBranch bool
	Created      time.Time
}

// ScheduleAutoMerge records that mc's merge should happen once every status
// of the head commit succeeds. It reports false, scheduling nothing, when
// they already do (the caller merges now); 409 when one is already scheduled.
func (s *Service) ScheduleAutoMerge(ctx context.Context, mc *MergeContext) (bool, error) {
	p := mc.Pull
	if state, err := s.headStatus(ctx, mc.Repo, p); err != nil {
		return false, err
	} else if state == "success" {
		return false, nil
	}
	msg := mc.Opts.Title
	if mc.Opts.Message != "" {
		msg += "\n\n" + mc.Opts.Message
	}
	_, err := s.db.Insert(ctx, `INSERT INTO pull_auto_merge (pull_id, doer_id, merge_style, message, delete_branch_after_merge, created_unix)
		VALUES (?, ?, ?, ?, ?, ?)`, p.ID, mc.Doer.ID, mc.Opts.Style, msg, mc.Opts.DeleteBranch, time.Now().Unix())
	if err != nil {
		if db.IsUniqueViolation(err) {
			return false, errs.Conflict("auto merge already scheduled for this pull request")
		}
		return false, err
	}
	return true, nil
}

// CancelAutoMerge removes a scheduled auto-merge (404 when none).
func (s *Service) CancelAutoMerge(ctx context.Context, p *PullRequest) error {
	res, err := s.db.Exec(ctx, "DELETE FROM pull_auto_merge WHERE pull_id = ?", p.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFound("no auto merge is scheduled for this pull request")
	}
	return nil
}

// GetAutoMerge returns the scheduled auto-merge of p, or nil.
func (s *Service) GetAutoMerge(ctx context.Context, pullID int64) (*AutoMerge, error) {
	rows, err := s.db.Query(ctx, `SELECT pull_id, doer_id, merge_style, COALESCE(message, ''), delete_branch_after_merge, created_unix
		FROM pull_auto_merge WHERE pull_id = ?`, pullID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	am := &AutoMerge{}
	var created int64
	if err := rows.Scan(&am.PullID, &am.DoerID, &am.Style, &am.Message, &am.DeleteBranch, &created); err != nil {
		return nil, err
	}
	am.Created = time.Unix(created, 0)
	return am, nil
}

// headStatus is the combined state of the statuses of p's head commit ("" without any).
func (s *Service) headStatus(ctx context.Context, base *repo.Repository, p *PullRequest) (string, error) {
	sha, err := s.git.ResolveCommit(ctx, s.repos.Path(base), p.HeadRef())
	if err != nil {
		return "", err
	}
	_, state, err := s.repos.LatestStatuses(ctx, base, sha)
	return state, err
}

// OnStatus is a repo.StatusListener: a successful status may complete the
// checks an auto-merge waits for. The merge runs in the background.
func (s *Service) OnStatus(ctx context.Context, r *repo.Repository, c *repo.CommitStatus) {
	ids, err := s.ids(ctx, `SELECT p.id FROM pull_request p JOIN pull_auto_merge a ON a.pull_id = p.id
		WHERE p.base_repo_id = ? AND p.head_commit_id = ? AND p.has_merged = ?`, r.ID, c.SHA, false)
	if err != nil {
		slog.Error("pull: auto-merges waiting for a status", "repo", r.ID, "err", err)
		return
	}
	if len(ids) > 0 {
		s.checker.queue(ids...)
	}
}

// tryAutoMerge carries out p's scheduled merge once it is mergeable and its
// head's statuses succeed; a merge refused by the rules keeps it scheduled.
func (s *Service) tryAutoMerge(ctx context.Context, p *PullRequest) {
	am, err := s.GetAutoMerge(ctx, p.ID)
	if err != nil || am == nil {
		return
	}
	base, err := s.repos.GetByID(ctx, p.BaseRepoID)
	if err != nil {
		return
	}
	if state, err := s.headStatus(ctx, base, p); err != nil || state != "success" {
		return
	}
	doer, err := s.users.GetByID(ctx, am.DoerID)
	if err != nil {
		return
	}
	perm, err := s.Permission(ctx, doer, base)
	if err != nil || !perm.CanWrite(repo.UnitCode) {
		slog.Info("pull: auto-merge dropped: its author can no longer merge", "pull_id", p.ID)
		_ = s.CancelAutoMerge(ctx, p)
		return
	}
	full, err := s.GetByID(ctx, p.ID)
	if err != nil {
		return
	}
	title, message := splitMessage(am.Message)
	mc := &MergeContext{Doer: doer, Repo: base, Pull: full, IsAdmin: perm.IsAdmin(),
		Opts: MergeOptions{Style: am.Style, Title: title, Message: message, DeleteBranch: am.DeleteBranch}}
	if err := s.Merge(ctx, mc); err != nil {
		slog.Info("pull: auto-merge not carried out", "pull_id", p.ID, "reason", err)
	}
}

func splitMessage(m string) (string, string) {
	for i := 0; i+1 < len(m); i++ {
		if m[i] == '\n' && m[i+1] == '\n' {
			return m[:i], m[i+2:]
		}
	}
	return m, ""
}

// doerOrGhost loads a user, or the ghost for a deleted account.
func (s *Service) doerOrGhost(ctx context.Context, id int64) *user.User {
	if u, err := s.users.GetByID(ctx, id); err == nil {
		return u
	}
	return user.Ghost()
}
