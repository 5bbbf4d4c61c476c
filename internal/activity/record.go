package activity

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// Listen registers the service's listeners and hooks with the services
// whose changes it records; call it once while wiring.
func (s *Service) Listen(users *user.Service, releases *release.Service) {
	s.repos.AddCreateHook(s.OnRepoCreated)
	s.repos.AddMoveHook(s.OnRepoMoved)
	s.repos.AddPushTxListener(s.OnPush)
	s.repos.AddDeleteHook(s.DeleteRepoData)
	s.issues.AddTxListener(s.OnIssueEvent)
	s.pulls.AddTxListener(s.OnPullEvent)
	releases.AddListener(s.OnReleaseEvent)
	users.AddDeleteHook(s.UserDeleteHook())
}

// inRepo starts an action of actor in r.
func inRepo(op OpType, actorID int64, r *repo.Repository) *Action {
	return &Action{OpType: op, ActUserID: actorID, RepoID: r.ID, OwnerID: r.OwnerID, IsPrivate: r.IsPrivate}
}

// issueContent is the content of an issue action: "index|text".
func issueContent(index int64, text string) string {
	return strconv.FormatInt(index, 10) + "|" + text
}

// commentExcerptLen is how much of a comment an action keeps, in characters.
const commentExcerptLen = 200

// excerpt shortens a comment to commentExcerptLen characters, ending with
// an ellipsis; a word cut near the end is dropped whole.
func excerpt(s string) string {
	runes := []rune(s)
	if len(runes) <= commentExcerptLen {
		return s
	}
	cut := string(runes[:commentExcerptLen-1])
	if i := strings.LastIndex(cut, " "); i >= 0 && len(cut)-i < 15 {
		cut = cut[:i]
	}
	return cut + "…"
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(line, "\r")
}

// OnRepoCreated records a new repository (a fork or one generated from a
// template included); mirrors and migrations are not announced, as in Gitea.
// It is a repo.CreateHook.
func (s *Service) OnRepoCreated(ctx context.Context, doer *user.User, r *repo.Repository) error {
	if r.IsMirror || r.OriginalURL != "" {
		return nil
	}
	actor := r.OwnerID
	if doer != nil {
		actor = doer.ID
	}
	return s.record(ctx, inRepo(OpCreateRepo, actor, r))
}

// OnRepoMoved records a renamed repository (content: the old name) or one
// given to a new owner (content: the old "owner/name"), as Gitea does. It
// is a repo.MoveHook.
func (s *Service) OnRepoMoved(ctx context.Context, doer *user.User, r *repo.Repository, oldOwner, oldName string) error {
	actor := r.OwnerID
	if doer != nil {
		actor = doer.ID
	}
	if oldOwner != r.OwnerName {
		a := inRepo(OpTransferRepo, actor, r)
		a.Content = oldOwner + "/" + oldName
		return s.record(ctx, a)
	}
	a := inRepo(OpRenameRepo, actor, r)
	a.Content = oldName
	return s.record(ctx, a)
}

// OnIssueEvent records issues and pull requests opened, closed and
// reopened and comments written, and marks the actions of deleted comments.
// It is an issue.TxListener.
func (s *Service) OnIssueEvent(ctx context.Context, e issue.Event) error {
	if e.Repo == nil || e.Issue == nil || e.Doer == nil {
		return nil
	}
	is, r := e.Issue, e.Repo
	pick := func(forIssue, forPull OpType) OpType {
		if is.IsPull {
			return forPull
		}
		return forIssue
	}
	var a *Action
	switch e.Kind {
	case issue.EventOpened:
		actor := is.PosterID
		if actor <= 0 {
			actor = e.Doer.ID
		}
		a = inRepo(pick(OpCreateIssue, OpCreatePullRequest), actor, r)
		a.Content = issueContent(is.Index, is.Title)
	case issue.EventClosed, issue.EventReopened:
		closed := e.Kind == issue.EventClosed
		if closed && is.IsPull {
			// A merge closes its pull request: the merge is the action.
			merged, err := s.db.Exists(ctx, "SELECT 1 FROM pull_request WHERE issue_id = ? AND has_merged = ?", is.ID, true)
			if err != nil || merged {
				return err
			}
		}
		op, typ := pick(OpReopenIssue, OpReopenPullRequest), issue.CommentReopen
		if closed {
			op, typ = pick(OpCloseIssue, OpClosePullRequest), issue.CommentClose
		}
		a = inRepo(op, e.Doer.ID, r)
		a.Content = issueContent(is.Index, "")
		entries, err := s.issues.ListComments(ctx, "WHERE c.issue_id = ? AND c.type = ? ORDER BY c.id DESC LIMIT 1", is.ID, typ)
		if err != nil {
			return err
		}
		if len(entries) == 1 {
			a.CommentID = entries[0].ID
		}
	case issue.EventCommentCreated:
		if e.Comment == nil {
			return nil
		}
		a = inRepo(pick(OpCommentIssue, OpCommentPull), e.Doer.ID, r)
		a.CommentID = e.Comment.ID
		a.Content = issueContent(is.Index, excerpt(e.Comment.Content))
	case issue.EventCommentDeleted:
		if e.Comment == nil {
			return nil
		}
		_, err := s.db.Exec(ctx, "UPDATE action SET is_deleted = ? WHERE comment_id = ?", true, e.Comment.ID)
		return err
	default:
		return nil
	}
	return s.record(ctx, a)
}

// OnPullEvent records merges, reviews (the verdict and each line comment)
// and dismissed reviews. It is a pull.TxListener.
func (s *Service) OnPullEvent(ctx context.Context, e pull.Event) error {
	if e.Repo == nil || e.Pull == nil || e.Doer == nil {
		return nil
	}
	p, r := e.Pull, e.Repo
	switch e.Kind {
	case pull.EventMerged:
		is := p.Issue
		if is == nil {
			var err error
			if is, err = s.issues.GetByID(ctx, p.IssueID); err != nil {
				return err
			}
		}
		a := inRepo(OpMergePullRequest, e.Doer.ID, r)
		a.Content = issueContent(p.Index, is.Title)
		return s.record(ctx, a)
	case pull.EventReviewed:
		return s.recordReview(ctx, r, p, e.ReviewID)
	case pull.EventReviewDismissed:
		return s.recordDismissal(ctx, e.Doer, r, p, e.ReviewID, e.ReviewerID)
	}
	return nil
}

// recordReview records a submitted review: one comment_pull per line
// comment, then the verdict (a plain comment review only when it has a
// body).
func (s *Service) recordReview(ctx context.Context, r *repo.Repository, p *pull.PullRequest, reviewID int64) error {
	rv, err := s.pulls.GetReview(ctx, reviewID)
	if err != nil {
		return err
	}
	comments, err := s.issues.ListComments(ctx, "WHERE c.review_id = ? AND c.type IN (?, ?) ORDER BY c.id",
		rv.ID, issue.CommentCode, issue.CommentReview)
	if err != nil {
		return err
	}
	var entry *issue.Comment
	for _, c := range comments {
		if c.Type == issue.CommentReview {
			entry = c
			continue
		}
		a := inRepo(OpCommentPull, rv.ReviewerID, r)
		a.CommentID = c.ID
		a.Content = issueContent(p.Index, firstLine(c.Content))
		if err := s.record(ctx, a); err != nil {
			return err
		}
	}
	var op OpType
	switch rv.Type {
	case pull.ReviewApprove:
		op = OpApprovePullRequest
	case pull.ReviewReject:
		op = OpRejectPullRequest
	case pull.ReviewComment:
		if strings.TrimSpace(rv.Content) == "" {
			return nil
		}
		op = OpCommentPull
	default:
		return nil
	}
	a := inRepo(op, rv.ReviewerID, r)
	a.Content = issueContent(p.Index, firstLine(rv.Content))
	if entry != nil {
		a.CommentID = entry.ID
	}
	return s.record(ctx, a)
}

// recordDismissal records a dismissed review: "index|reviewer|message".
func (s *Service) recordDismissal(ctx context.Context, doer *user.User, r *repo.Repository, p *pull.PullRequest, reviewID, reviewerID int64) error {
	reviewer := user.Ghost().Name
	if u, err := s.users.GetByID(ctx, reviewerID); err == nil {
		reviewer = u.Name
	} else if !errs.IsNotFound(err) {
		return err
	}
	a := inRepo(OpPullReviewDismissed, doer.ID, r)
	entries, err := s.issues.ListComments(ctx, "WHERE c.review_id = ? AND c.type = ? ORDER BY c.id DESC LIMIT 1", reviewID, issue.CommentDismissReview)
	if err != nil {
		return err
	}
	message := ""
	if len(entries) == 1 {
		a.CommentID, message = entries[0].ID, entries[0].Content
	}
	a.Content = issueContent(p.Index, reviewer+"|"+message)
	return s.record(ctx, a)
}

// OnReleaseEvent records a published release (drafts and tags are not
// announced). It is a release.Listener.
func (s *Service) OnReleaseEvent(ctx context.Context, e release.Event) error {
	rel := e.Release
	if rel == nil || e.Kind != release.EventPublished || rel.IsDraft || rel.IsTag {
		return nil
	}
	r, err := s.repos.GetByID(ctx, rel.RepoID)
	if err != nil {
		return err
	}
	actor := rel.PublisherID
	if actor <= 0 {
		actor = e.DoerID
	}
	a := inRepo(OpPublishRelease, actor, r)
	a.Content = rel.Title
	a.RefName = git.TagPrefix + rel.TagName
	return s.record(ctx, a)
}

// OnPush records the branches and tags a push (or a merge, or an edit
// through the API) created, moved or deleted. A new branch gets Gitea's
// two actions: the creation (no content) and the commits it brings. It is
// a repo.PushTxListener: the summaries are read from git before the
// transaction, the actions written in it. Pushes with a deploy key are the
// owner's.
func (s *Service) OnPush(ctx context.Context, r *repo.Repository, req hooks.Request) (func(ctx context.Context) error, error) {
	pusher := req.PusherID
	if pusher <= 0 {
		pusher = r.OwnerID
	}
	var actions []*Action
	for _, u := range req.Updates {
		branch, isBranch := strings.CutPrefix(u.Ref, git.BranchPrefix)
		_, isTag := strings.CutPrefix(u.Ref, git.TagPrefix)
		if !isBranch && !isTag {
			continue
		}
		created, deleted := isZeroSHA(u.OldSHA), isZeroSHA(u.NewSHA)
		var ref []*Action
		switch {
		case isTag && deleted:
			a := inRepo(OpDeleteTag, pusher, r)
			a.Content = summaryJSON(&PushCommits{Commits: []*PushCommit{}})
			ref = append(ref, a)
		case isTag:
			summary, err := s.tagSummary(ctx, r, u)
			if err != nil {
				return nil, err
			}
			a := inRepo(OpPushTag, pusher, r)
			a.Content = summaryJSON(summary)
			ref = append(ref, a)
		case deleted:
			ref = append(ref, inRepo(OpDeleteBranch, pusher, r))
		default:
			if created {
				ref = append(ref, inRepo(OpCommitRepo, pusher, r))
			}
			summary, err := s.branchSummary(ctx, r, branch, u)
			if err != nil {
				return nil, err
			}
			a := inRepo(OpCommitRepo, pusher, r)
			a.Content = summaryJSON(summary)
			ref = append(ref, a)
		}
		for _, a := range ref {
			a.RefName = u.Ref
		}
		actions = append(actions, ref...)
	}
	if len(actions) == 0 {
		return nil, nil
	}
	return func(ctx context.Context) error {
		for _, a := range actions {
			if err := s.record(ctx, a); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func isZeroSHA(sha string) bool { return strings.Trim(sha, "0") == "" }

// summaryJSON is the stored form of a push summary.
func summaryJSON(p *PushCommits) string {
	// Strings, ints and times of years 0-9999 (toPushCommit) always encode.
	b, _ := json.Marshal(p)
	return string(b)
}

// compareURL is Gitea's comparison path of a push: "owner/repo/compare/old...new".
func (s *Service) compareURL(ctx context.Context, r *repo.Repository, oldSHA, newSHA string) (string, error) {
	owner := r.OwnerName
	if owner == "" {
		u, err := s.users.GetByID(ctx, r.OwnerID)
		if err != nil {
			return "", err
		}
		owner = u.Name
	}
	return url.PathEscape(owner) + "/" + url.PathEscape(r.Name) + "/compare/" + oldSHA + "..." + newSHA, nil
}

func toPushCommit(c git.CommitObject) *PushCommit {
	when := c.Author.When
	if y := when.Year(); y < 0 || y > 9999 {
		when = time.Time{} // a date JSON cannot hold (git takes any)
	}
	return &PushCommit{Sha1: c.SHA, Message: c.Message, AuthorEmail: c.Author.Email, AuthorName: c.Author.Name,
		CommitterEmail: c.Committer.Email, CommitterName: c.Committer.Name, Timestamp: when}
}

// tagSummary is the content of a pushed tag: no commits, the commit it
// points at, the comparison from nothing.
func (s *Service) tagSummary(ctx context.Context, r *repo.Repository, u hooks.RefUpdate) (*PushCommits, error) {
	out := &PushCommits{Commits: []*PushCommit{}}
	var err error
	if out.CompareURL, err = s.compareURL(ctx, r, strings.Repeat("0", len(u.NewSHA)), u.NewSHA); err != nil {
		return nil, err
	}
	objs, err := s.repos.Git.ReadCommits(ctx, s.repos.Path(r), []string{u.NewSHA})
	if err != nil {
		// A tag of something other than a commit: nothing to show.
		slog.Info("activity: pushed tag names no commit", "repo", r.ID, "ref", u.Ref, "err", err)
		return out, nil
	}
	out.HeadCommit = toPushCommit(objs[0])
	return out, nil
}

// branchSummary is the content of pushed commits: the newest FeedCommits
// of them, the new head and the number pushed. A new branch brings what
// the default branch does not have (its whole history when it is the
// default branch), counted up to newRefCommits.
func (s *Service) branchSummary(ctx context.Context, r *repo.Repository, branch string, u hooks.RefUpdate) (*PushCommits, error) {
	out := &PushCommits{Commits: []*PushCommit{}}
	var err error
	if out.CompareURL, err = s.compareURL(ctx, r, u.OldSHA, u.NewSHA); err != nil {
		return nil, err
	}
	path := s.repos.Path(r)
	opts := git.RevListOptions{Revs: []string{u.NewSHA}}
	created := isZeroSHA(u.OldSHA)
	if created {
		opts.Limit = newRefCommits
		if branch != r.DefaultBranch && r.DefaultBranch != "" {
			if _, err := s.repos.Git.ResolveCommit(ctx, path, git.BranchPrefix+r.DefaultBranch); err == nil {
				opts.Not = []string{git.BranchPrefix + r.DefaultBranch}
			}
		}
	} else {
		opts.Limit = FeedCommits
		opts.Not = []string{u.OldSHA}
	}
	shas, err := s.repos.Git.RevList(ctx, path, opts)
	if err != nil {
		slog.Warn("activity: list pushed commits", "repo", r.ID, "ref", u.Ref, "err", err)
		return out, nil
	}
	out.Len = len(shas)
	if !created && len(shas) == FeedCommits {
		if out.Len, err = s.repos.Git.CountCommits(ctx, path, opts); err != nil {
			slog.Warn("activity: count pushed commits", "repo", r.ID, "ref", u.Ref, "err", err)
			out.Len = len(shas)
		}
	}
	shas = shas[:min(len(shas), FeedCommits)]
	objs, err := s.repos.Git.ReadCommits(ctx, path, append([]string{u.NewSHA}, shas...))
	if err != nil {
		slog.Warn("activity: read pushed commits", "repo", r.ID, "ref", u.Ref, "err", err)
		return out, nil
	}
	out.HeadCommit = toPushCommit(objs[0])
	for _, c := range objs[1:] {
		out.Commits = append(out.Commits, toPushCommit(c))
	}
	return out, nil
}
