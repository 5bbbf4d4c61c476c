package issue

import (
	"context"
	"time"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// ChangeTitle renames an issue, recording the event.
func (s *Service) ChangeTitle(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, title string) error {
	title, err := validateTitle(title)
	if err != nil || title == is.Title {
		return err
	}
	now := time.Now()
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE issue SET title = ?, updated_unix = ? WHERE id = ?", title, now.Unix(), is.ID); err != nil {
			return err
		}
		old := is.Title
		if err := s.insertComment(ctx, &Comment{Type: CommentChangeTitle, PosterID: doer.ID, IssueID: is.ID, OldTitle: old, NewTitle: title, Created: now}); err != nil {
			return err
		}
		is.Title, is.Updated = title, now
		return s.Notify(ctx, Event{Kind: EventEdited, Doer: doer, Repo: r, Issue: is, Changed: "title", From: old})
	})
	return err
}

// ChangeContent replaces the body of an issue.
func (s *Service) ChangeContent(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, content string) error {
	if content == is.Content {
		return nil
	}
	now := time.Now()
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE issue SET content = ?, updated_unix = ? WHERE id = ?", content, now.Unix(), is.ID); err != nil {
			return err
		}
		old := is.Content
		is.Content, is.Updated = content, now
		return s.Notify(ctx, Event{Kind: EventEdited, Doer: doer, Repo: r, Issue: is, Changed: "body", From: old})
	})
}

// ChangeRef sets the branch or tag an issue refers to.
func (s *Service) ChangeRef(ctx context.Context, doer *user.User, is *Issue, ref string) error {
	if ref == is.Ref {
		return nil
	}
	if len(ref) > 255 {
		return errs.InvalidField("ref", "[Ref]: MaxSize (at most 255 characters)")
	}
	now := time.Now()
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE issue SET ref = ?, updated_unix = ? WHERE id = ?", ref, now.Unix(), is.ID); err != nil {
			return err
		}
		return s.insertComment(ctx, &Comment{Type: CommentChangeIssueRef, PosterID: doer.ID, IssueID: is.ID, OldRef: is.Ref, NewRef: ref, Created: now})
	})
	if err == nil {
		is.Ref, is.Updated = ref, now
	}
	return err
}

// SetDeadline sets (or, with a zero time, removes) the due date.
func (s *Service) SetDeadline(ctx context.Context, doer *user.User, is *Issue, deadline time.Time) error {
	if deadline.Equal(is.Deadline) {
		return nil
	}
	typ := CommentModifiedDeadline
	switch {
	case is.Deadline.IsZero():
		typ = CommentAddedDeadline
	case deadline.IsZero():
		typ = CommentRemovedDeadline
	}
	var unix int64
	if !deadline.IsZero() {
		unix = deadline.Unix()
	}
	now := time.Now()
	content := ""
	if !deadline.IsZero() {
		content = deadline.Format("2006-01-02")
	}
	if !is.Deadline.IsZero() {
		content += "|" + is.Deadline.Format("2006-01-02")
	}
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE issue SET deadline_unix = ?, updated_unix = ? WHERE id = ?", unix, now.Unix(), is.ID); err != nil {
			return err
		}
		return s.insertComment(ctx, &Comment{Type: typ, PosterID: doer.ID, IssueID: is.ID, Content: content, Created: now})
	})
	if err == nil {
		is.Deadline, is.Updated = deadline, now
	}
	return err
}

// CheckMilestone refuses a milestone that does not belong to repository repoID (0 is "none").
func (s *Service) CheckMilestone(ctx context.Context, repoID, milestoneID int64) error {
	if milestoneID == 0 {
		return nil
	}
	ok, err := s.db.Exists(ctx, "SELECT 1 FROM milestone WHERE id = ? AND repo_id = ?", milestoneID, repoID)
	if err != nil {
		return err
	}
	if !ok {
		return errs.InvalidField("milestone", "milestone %d does not exist in this repository", milestoneID)
	}
	return nil
}

// SetMilestone moves an issue to a milestone (0 removes it).
func (s *Service) SetMilestone(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, milestoneID int64) error {
	if milestoneID == is.MilestoneID {
		return nil
	}
	if err := s.CheckMilestone(ctx, r.ID, milestoneID); err != nil {
		return err
	}
	old := is.MilestoneID
	now := time.Now()
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE issue SET milestone_id = ?, updated_unix = ? WHERE id = ?", milestoneID, now.Unix(), is.ID); err != nil {
			return err
		}
		if err := s.RecountMilestoneByID(ctx, old); err != nil {
			return err
		}
		if err := s.RecountMilestoneByID(ctx, milestoneID); err != nil {
			return err
		}
		if err := s.insertComment(ctx, &Comment{Type: CommentMilestone, PosterID: doer.ID, IssueID: is.ID, OldMilestoneID: old, MilestoneID: milestoneID, Created: now}); err != nil {
			return err
		}
		is.MilestoneID, is.Updated = milestoneID, now
		kind := EventMilestoned
		if milestoneID == 0 {
			kind = EventDemilestoned
		}
		return s.Notify(ctx, Event{Kind: kind, Doer: doer, Repo: r, Issue: is})
	})
	if err != nil {
		is.MilestoneID = old
	}
	return err
}

// AssigneeIDs returns the assignees of an issue.
func (s *Service) AssigneeIDs(ctx context.Context, issueID int64) ([]int64, error) {
	m, err := s.AssigneesOf(ctx, []int64{issueID})
	return m[issueID], err
}

// AssigneesOf returns the assignee ids of many issues in one query.
func (s *Service) AssigneesOf(ctx context.Context, issueIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT issue_id, assignee_id FROM issue_assignees WHERE issue_id IN "+db.In(len(issueIDs))+" ORDER BY id", db.Int64Args(issueIDs)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var iid, uid int64
		if err := rows.Scan(&iid, &uid); err != nil {
			return nil, err
		}
		out[iid] = append(out[iid], uid)
	}
	return out, rows.Err()
}

// SetAssignees replaces the assignees of an issue, recording one event per
// change. The caller checks that every assignee may be assigned.
func (s *Service) SetAssignees(ctx context.Context, doer *user.User, r *repo.Repository, is *Issue, ids []int64) error {
	cur, err := s.AssigneeIDs(ctx, is.ID)
	if err != nil {
		return err
	}
	want := map[int64]bool{}
	for _, id := range uniq(ids) {
		want[id] = true
	}
	have := map[int64]bool{}
	for _, id := range cur {
		have[id] = true
	}
	var added, removed []int64
	for id := range want {
		if !have[id] {
			added = append(added, id)
		}
	}
	for id := range have {
		if !want[id] {
			removed = append(removed, id)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return nil
	}
	now := time.Now()
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		for _, id := range added {
			if _, err := s.db.Insert(ctx, "INSERT INTO issue_assignees (issue_id, assignee_id) VALUES (?, ?)", is.ID, id); err != nil {
				return err
			}
			if err := s.insertComment(ctx, &Comment{Type: CommentAssignees, PosterID: doer.ID, IssueID: is.ID, AssigneeID: id, Created: now}); err != nil {
				return err
			}
		}
		for _, id := range removed {
			if _, err := s.db.Exec(ctx, "DELETE FROM issue_assignees WHERE issue_id = ? AND assignee_id = ?", is.ID, id); err != nil {
				return err
			}
			if err := s.insertComment(ctx, &Comment{Type: CommentAssignees, PosterID: doer.ID, IssueID: is.ID, AssigneeID: id, RemovedAssignee: true, Created: now}); err != nil {
				return err
			}
		}
		if err := s.touch(ctx, is.ID, now); err != nil {
			return err
		}
		is.Updated = now
		for _, id := range added {
			if err := s.Notify(ctx, Event{Kind: EventAssigned, Doer: doer, Repo: r, Issue: is, AssigneeID: id}); err != nil {
				return err
			}
		}
		for _, id := range removed {
			if err := s.Notify(ctx, Event{Kind: EventUnassigned, Doer: doer, Repo: r, Issue: is, AssigneeID: id}); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetLocked locks or unlocks the conversation of an issue.
func (s *Service) SetLocked(ctx context.Context, doer *user.User, is *Issue, locked bool, reason string) error {
	if is.IsLocked == locked {
		return nil
	}
	typ := CommentLock
	if !locked {
		typ = CommentUnlock
	}
	now := time.Now()
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE issue SET is_locked = ?, updated_unix = ? WHERE id = ?", locked, now.Unix(), is.ID); err != nil {
			return err
		}
		return s.insertComment(ctx, &Comment{Type: typ, PosterID: doer.ID, IssueID: is.ID, Content: reason, Created: now})
	})
	if err == nil {
		is.IsLocked, is.Updated = locked, now
	}
	return err
}

// ErrMaxPinReached refuses a pin beyond [repository.issue] MAX_PINNED.
var ErrMaxPinReached = errs.BadRequest("the max number of pinned issues has been reached")

// PinAllowed reports whether one more issue (isPull false) or pull request
// of repository repoID may be pinned when maxPinned may be.
func (s *Service) PinAllowed(ctx context.Context, repoID int64, isPull bool, maxPinned int) (bool, error) {
	n, err := s.db.Count(ctx, "SELECT COUNT(*) FROM issue WHERE repo_id = ? AND is_pull = ? AND pin_order > 0", repoID, isPull)
	return n < int64(maxPinned), err
}

// SetPinned pins an issue at the end of the repository's pinned list (at
// most maxPinned of them, else ErrMaxPinReached), or unpins it.
func (s *Service) SetPinned(ctx context.Context, doer *user.User, is *Issue, pinned bool, maxPinned int) error {
	if (is.PinOrder > 0) == pinned {
		return nil
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		order := 0
		if pinned {
			var max, count int
			if err := s.db.QueryRow(ctx, "SELECT COALESCE(MAX(pin_order), 0), COUNT(*) FROM issue WHERE repo_id = ? AND is_pull = ? AND pin_order > 0",
				is.RepoID, is.IsPull).Scan(&max, &count); err != nil {
				return err
			}
			if count >= maxPinned {
				return ErrMaxPinReached
			}
			order = max + 1
		} else if _, err := s.db.Exec(ctx, "UPDATE issue SET pin_order = pin_order - 1 WHERE repo_id = ? AND is_pull = ? AND pin_order > ?", is.RepoID, is.IsPull, is.PinOrder); err != nil {
			return err
		}
		if _, err := s.db.Exec(ctx, "UPDATE issue SET pin_order = ? WHERE id = ?", order, is.ID); err != nil {
			return err
		}
		typ := CommentPin
		if !pinned {
			typ = CommentUnpin
		}
		is.PinOrder = order
		return s.insertComment(ctx, &Comment{Type: typ, PosterID: doer.ID, IssueID: is.ID})
	})
}

// MovePin moves a pinned issue to position pos (1-based) among the pinned ones.
func (s *Service) MovePin(ctx context.Context, is *Issue, pos int) error {
	if is.PinOrder == 0 {
		return errs.Invalid("issue is not pinned")
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		var max int
		if err := s.db.QueryRow(ctx, "SELECT COALESCE(MAX(pin_order), 0) FROM issue WHERE repo_id = ? AND is_pull = ?", is.RepoID, is.IsPull).Scan(&max); err != nil {
			return err
		}
		if pos < 1 {
			pos = 1
		}
		if pos > max {
			pos = max
		}
		if pos < is.PinOrder {
			if _, err := s.db.Exec(ctx, "UPDATE issue SET pin_order = pin_order + 1 WHERE repo_id = ? AND is_pull = ? AND pin_order >= ? AND pin_order < ?", is.RepoID, is.IsPull, pos, is.PinOrder); err != nil {
				return err
			}
		} else if pos > is.PinOrder {
			if _, err := s.db.Exec(ctx, "UPDATE issue SET pin_order = pin_order - 1 WHERE repo_id = ? AND is_pull = ? AND pin_order > ? AND pin_order <= ?", is.RepoID, is.IsPull, is.PinOrder, pos); err != nil {
				return err
			}
		}
		_, err := s.db.Exec(ctx, "UPDATE issue SET pin_order = ? WHERE id = ?", pos, is.ID)
		is.PinOrder = pos
		return err
	})
}

// Touch sets the update time of an issue (a pull request's new commits).
func (s *Service) Touch(ctx context.Context, issueID int64, t time.Time) error {
	return s.touch(ctx, issueID, t)
}
