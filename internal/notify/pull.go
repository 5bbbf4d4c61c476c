package notify

import (
	"context"
	"log/slog"

	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
)

// OnPullEvent is the pull.Listener: register it with pull.Service.AddListener.
// New commits and submitted reviews notify the pull request's watchers;
// a review request notifies the requested user. Merging is announced as the
// issue's closing (OnIssueEvent). Failures are logged only.
func (s *Service) OnPullEvent(ctx context.Context, e pull.Event) {
	if e.Doer == nil || e.Repo == nil || e.Pull == nil || e.Pull.Issue == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	ie := issue.Event{Doer: e.Doer, Repo: e.Repo, Issue: e.Pull.Issue}
	var err error
	switch e.Kind {
	case pull.EventSynchronized, pull.EventReviewed, pull.EventReviewDismissed:
		err = s.notifyWatchers(ctx, ie, 0, nil)
	case pull.EventReviewRequested:
		if e.ReviewerID > 0 && e.ReviewerID != e.Doer.ID {
			err = s.deliver(ctx, ie, 0, []int64{e.ReviewerID})
		}
	}
	if err != nil {
		slog.Error("notifications", "event", string(e.Kind), "issue", e.Pull.IssueID, "err", err)
	}
}
