package activity

import (
	"context"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Service records actions and reads feeds.
type Service struct {
	db     *db.DB
	repos  *repo.Service
	issues *issue.Service
	pulls  *pull.Service
	users  *user.Store
	access *access.Checker
	now    func() time.Time
}

// NewService returns the activity service. Its listeners are registered
// while wiring (see Listen).
func NewService(d *db.DB, repos *repo.Service, issues *issue.Service, pulls *pull.Service, users *user.Store, checker *access.Checker) *Service {
	return &Service{db: d, repos: repos, issues: issues, pulls: pulls, users: users, access: checker, now: time.Now}
}

// record stores a, in the transaction ctx carries.
func (s *Service) record(ctx context.Context, a *Action) error {
	if a.Created.IsZero() {
		a.Created = s.now()
	}
	id, err := s.db.Insert(ctx, `INSERT INTO action (op_type, act_user_id, repo_id, owner_id, comment_id, ref_name, is_private,
		is_deleted, content, created_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		int(a.OpType), a.ActUserID, a.RepoID, a.OwnerID, a.CommentID, a.RefName, a.IsPrivate, a.IsDeleted, a.Content, a.Created.Unix())
	if err != nil {
		return err
	}
	a.ID = id
	return nil
}

// DeleteRepoData removes the actions of a repository being deleted; it is
// a repo.DeleteHook (it runs in the deletion's transaction).
func (s *Service) DeleteRepoData(ctx context.Context, r *repo.Repository) error {
	_, err := s.db.Exec(ctx, "DELETE FROM action WHERE repo_id = ?", r.ID)
	return err
}

// UserDeleteHook removes the actions of a deleted user (those in the
// user's own repositories go with the repositories).
func (s *Service) UserDeleteHook() user.DeleteHook { return userDeleteHook{s} }

type userDeleteHook struct{ s *Service }

func (h userDeleteHook) CheckDelete(context.Context, *user.User) error { return nil }

func (h userDeleteHook) Purge(ctx context.Context, u *user.User) error {
	return h.s.db.WithTx(ctx, func(ctx context.Context) error {
		_, err := h.s.db.Exec(ctx, "DELETE FROM action WHERE act_user_id = ?", u.ID)
		return err
	})
}
