// Package notify keeps users' notification threads about issues and pull
// requests. It listens to issue events (after they are committed): it records
// @mentions and cross references, and creates or updates one thread per user
// and issue for the people concerned: watchers of the repository, subscribers
// and participants of the issue, assignees and mentioned users. Nobody is
// notified of their own actions, nor about what they cannot read.
package notify

import (
	"context"
	"errors"
	"log/slog"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Service turns issue events into notification threads.
type Service struct {
	store  *Store
	issues *issue.Service
	users  *user.Store
	access *access.Checker
}

// NewService returns the notification service.
func NewService(d *db.DB, issues *issue.Service, users *user.Store, chk *access.Checker) *Service {
	return &Service{store: NewStore(d), issues: issues, users: users, access: chk}
}

// Store is the thread store the service writes to.
func (s *Service) Store() *Store { return s.store }

// OnIssueEvent is the issue.Listener: register it with issue.Service.AddListener.
// Failures are logged; they never undo or fail the change that was announced.
func (s *Service) OnIssueEvent(ctx context.Context, e issue.Event) {
	ctx = context.WithoutCancel(ctx)
	if err := s.handle(ctx, e); err != nil {
		var issueID int64
		if e.Issue != nil {
			issueID = e.Issue.ID
		}
		slog.Error("notifications", "event", string(e.Kind), "issue", issueID, "err", err)
	}
}

// handle follows Gitea's rules for what notifies whom: a new issue, a new
// comment and closing or reopening notify every watcher of the issue; the
// mentioned users of a new issue or comment are notified even if they do not
// watch; assigning notifies the assignee. Edits, labels, milestones and the
// like notify nobody, but edited texts update mentions and cross references.
func (s *Service) handle(ctx context.Context, e issue.Event) error {
	if e.Doer == nil || e.Repo == nil || e.Issue == nil {
		return nil
	}
	is := e.Issue
	switch e.Kind {
	case issue.EventOpened:
		mentioned, err := s.issues.RecordMentions(ctx, e.Doer, e.Repo, is, is.Content, s.Readers)
		err = errors.Join(err, s.issues.UpdateCrossReferences(ctx, e.Doer, e.Repo, is, nil, s.Perm))
		return errors.Join(err, s.notifyWatchers(ctx, e, 0, ids(mentioned)))
	case issue.EventCommentCreated:
		if e.Comment == nil {
			return nil
		}
		mentioned, err := s.issues.RecordMentions(ctx, e.Doer, e.Repo, is, e.Comment.Content, s.Readers)
		err = errors.Join(err, s.issues.UpdateCrossReferences(ctx, e.Doer, e.Repo, is, e.Comment, s.Perm))
		return errors.Join(err, s.notifyWatchers(ctx, e, e.Comment.ID, ids(mentioned)))
	case issue.EventClosed, issue.EventReopened:
		return s.notifyWatchers(ctx, e, 0, nil)
	case issue.EventAssigned:
		if e.AssigneeID == e.Doer.ID {
			return nil
		}
		return s.deliver(ctx, e, 0, []int64{e.AssigneeID})
	case issue.EventEdited:
		_, err := s.issues.RecordMentions(ctx, e.Doer, e.Repo, is, is.Content, s.Readers)
		return errors.Join(err, s.issues.UpdateCrossReferences(ctx, e.Doer, e.Repo, is, nil, s.Perm))
	case issue.EventCommentEdited:
		if e.Comment == nil {
			return nil
		}
		_, err := s.issues.RecordMentions(ctx, e.Doer, e.Repo, is, e.Comment.Content, s.Readers)
		return errors.Join(err, s.issues.UpdateCrossReferences(ctx, e.Doer, e.Repo, is, e.Comment, s.Perm))
	case issue.EventCommentDeleted:
		if e.Comment == nil {
			return nil
		}
		return s.issues.NeuterCrossReferences(ctx, is.ID, e.Comment.ID)
	}
	return nil
}

func ids(list []*user.User) []int64 {
	out := make([]int64, 0, len(list))
	for _, u := range list {
		out = append(out, u.ID)
	}
	return out
}

// notifyWatchers notifies everyone watching the issue of e, plus extra
// (mentioned users, who need not watch).
func (s *Service) notifyWatchers(ctx context.Context, e issue.Event, commentID int64, extra []int64) error {
	watchers, err := s.issues.WatcherIDs(ctx, e.Issue)
	if err != nil {
		return err
	}
	return s.deliver(ctx, e, commentID, append(watchers, extra...))
}

// deliver creates or updates the threads of uids about the issue of e,
// leaving out the doer and everyone who cannot read the issue. Recipients
// are loaded in one query; see Readers for the cost of the access check.
func (s *Service) deliver(ctx context.Context, e issue.Event, commentID int64, uids []int64) error {
	seen := map[int64]bool{e.Doer.ID: true}
	var want []int64
	for _, id := range uids {
		if id > 0 && !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return nil
	}
	found, err := s.users.GetByIDs(ctx, want)
	if err != nil {
		return err
	}
	list := make([]*user.User, 0, len(found))
	for _, id := range want {
		if u, ok := found[id]; ok {
			list = append(list, u)
		}
	}
	ok, err := s.Readers(ctx, e.Repo, e.Issue.IsPull, list)
	if err != nil {
		return err
	}
	var to []int64
	for _, u := range list {
		if ok[u.ID] {
			to = append(to, u.ID)
		}
	}
	src := SourceIssue
	if e.Issue.IsPull {
		src = SourcePull
	}
	return s.store.upsert(ctx, to, e.Repo.ID, e.Issue.ID, src, commentID, e.Doer.ID)
}

// Readers returns which of users may read the issues (isPull false) or pull
// requests (isPull true) of r. It implements issue.ReadersFunc.
//
// Cost: one query for the owner. Site administrators, the owner and — in a
// public repository whose owner is public or limited — every account that is
// not restricted can read without further queries (access.RepoPermission
// gives them at least read on every enabled unit). Only the others
// (restricted accounts, private repositories or private owners) get an
// access.Checker.RepoPermission each, a few queries per recipient; recipients
// there are the repository's own people (watchers, participants, mentioned
// users), so few.
func (s *Service) Readers(ctx context.Context, r *repo.Repository, isPull bool, users []*user.User) (map[int64]bool, error) {
	out := map[int64]bool{}
	unit := repo.UnitIssues
	if isPull {
		unit = repo.UnitPulls
	}
	if len(users) == 0 || !r.HasUnit(unit) {
		return out, nil
	}
	owner, err := s.users.GetByID(ctx, r.OwnerID)
	if err != nil {
		return nil, err
	}
	open := !r.IsPrivate && (owner.Visibility == user.VisibilityPublic || owner.Visibility == user.VisibilityLimited)
	for _, u := range users {
		switch {
		case u.IsOrganization() || u.IsGhost():
			continue
		case u.IsAdmin || u.ID == r.OwnerID || (open && !u.IsRestricted):
			out[u.ID] = true
			continue
		}
		p, err := s.access.RepoPermission(ctx, u, r, owner)
		if err != nil {
			return nil, err
		}
		if p.CanRead(unit) {
			out[u.ID] = true
		}
	}
	return out, nil
}

// Perm computes u's permission on r. It implements issue.PermFunc.
func (s *Service) Perm(ctx context.Context, u *user.User, r *repo.Repository) (access.RepoPerm, error) {
	owner, err := s.users.GetByID(ctx, r.OwnerID)
	if err != nil {
		return access.RepoPerm{}, err
	}
	return s.access.RepoPermission(ctx, u, r, owner)
}
