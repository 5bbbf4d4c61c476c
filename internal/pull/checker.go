package pull

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/user"
)

// checker computes mergeability in the background. The durable state is
// the row's status: a pull request in StatusChecking is re-queued at start,
// so a crash loses no check; the in-memory queue only orders the work and
// drops duplicates.
type checker struct {
	s       *Service
	mu      sync.Mutex
	pending map[int64]bool
	order   []int64
	wake    chan struct{}
	// idle is closed and replaced whenever the queue drains (tests, benchmarks).
	busy int
}

func newChecker(s *Service) *checker {
	return &checker{s: s, pending: map[int64]bool{}, wake: make(chan struct{}, 1)}
}

// queue adds pull requests to check, once each.
func (c *checker) queue(ids ...int64) {
	c.mu.Lock()
	for _, id := range ids {
		if !c.pending[id] {
			c.pending[id] = true
			c.order = append(c.order, id)
		}
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued id, or reports none.
func (c *checker) next() (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.order) == 0 {
		return 0, false
	}
	id := c.order[0]
	c.order = c.order[1:]
	delete(c.pending, id)
	c.busy++
	return id, true
}

// queued reports whether ids wait in the queue.
func (c *checker) queued() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.order) > 0
}

func (c *checker) done() {
	c.mu.Lock()
	c.busy--
	c.mu.Unlock()
}

// Pending reports how many checks are queued or running.
func (s *Service) Pending() int {
	c := s.checker
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.order) + c.busy
}

// Run checks queued pull requests with workers goroutines until ctx ends,
// after queueing those left in StatusChecking by an earlier run.
func (s *Service) Run(ctx context.Context, workers int) {
	if workers < 1 {
		workers = 1
	}
	ids, err := s.ids(ctx, "SELECT id FROM pull_request WHERE status = ? AND has_merged = ? ORDER BY id", StatusChecking, false)
	if err != nil {
		slog.Error("pull: list pull requests waiting for a check", "err", err)
	}
	s.checker.queue(ids...)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id, ok := s.checker.next()
				if !ok {
					select {
					case <-ctx.Done():
						return
					case <-s.checker.wake:
						// Let the other workers see there is work too, only
						// while there is: passing the wake-up on
						// unconditionally kept idle workers spinning.
						if s.checker.queued() {
							select {
							case s.checker.wake <- struct{}{}:
							default:
							}
						}
						continue
					}
				}
				if err := s.check(ctx, id, true); err != nil && ctx.Err() == nil {
					slog.Error("pull: mergeability check", "pull_id", id, "err", err)
				}
				s.checker.done()
				if ctx.Err() != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// CheckNow runs the check of p on the caller's goroutine (merges use it
// when the status is stale); it never starts a scheduled auto-merge, since
// its caller may be that merge.
func (s *Service) CheckNow(ctx context.Context, p *PullRequest) (*PullRequest, error) {
	if err := s.check(ctx, p.ID, false); err != nil {
		return nil, err
	}
	return s.GetByID(ctx, p.ID)
}

// check brings one pull request up to date: refs/pull/N/head, the timeline
// entry and stale reviews of a new head, then mergeability and diff size.
// A result computed for tips that moved meanwhile is not stored; the pull
// request is queued again instead.
func (s *Service) check(ctx context.Context, id int64, autoMerge bool) error {
	p, err := s.GetByID(ctx, id)
	if errs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.HasMerged {
		return nil
	}
	base, err := s.repos.GetByID(ctx, p.BaseRepoID)
	if errs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.syncHeadRef(ctx, p, base); err != nil {
		return err
	}
	path := s.repos.Path(base)
	headSHA, baseSHA, err := s.tips(ctx, path, p)
	if err != nil {
		return err
	}
	if headSHA == "" || baseSHA == "" {
		return s.setStatus(ctx, p, StatusError) // the head ref or the base branch is gone
	}
	if headSHA != p.HeadCommitID {
		if err := s.recordHeadChange(ctx, p, path, headSHA); err != nil {
			return err
		}
	}
	mc, err := s.git.CheckMerge(ctx, path, baseSHA, headSHA)
	if err != nil && !errors.Is(err, git.ErrMergeConflict) {
		return err
	}
	status := StatusMergeable
	switch {
	case err != nil: // unrelated histories
		status = StatusError
	case mc.Status == git.MergeStatusConflict:
		status = StatusConflict
	case mc.Status == git.MergeStatusEmpty:
		status = StatusEmpty
	case mc.Status == git.MergeStatusAncestor:
		status = StatusAncestor
	}
	var stats git.DiffStats
	if mc.MergeBase != "" {
		if stats, err = s.git.DiffStats(ctx, path, mc.MergeBase, headSHA); err != nil {
			return err
		}
	}
	// Store only what still describes the tips.
	nowHead, nowBase, err := s.tips(ctx, path, p)
	if err != nil {
		return err
	}
	if nowHead != headSHA || nowBase != baseSHA {
		s.checker.queue(p.ID)
		return nil
	}
	_, err = s.db.Exec(ctx, `UPDATE pull_request SET status = ?, conflicted_files = ?, merge_base = ?, commits_ahead = ?,
		commits_behind = ?, additions = ?, deletions = ?, changed_files = ?, checked_head = ?, checked_base = ?
		WHERE id = ? AND has_merged = ? AND base_branch = ?`,
		status, conflictedJSON(mc.ConflictedFiles), mc.MergeBase, mc.CommitsAhead, mc.CommitsBehind,
		stats.Additions, stats.Deletions, len(stats.Files), headSHA, baseSHA, p.ID, false, p.BaseBranch)
	if err != nil {
		return err
	}
	p.Status, p.CheckedHead, p.CheckedBase = status, headSHA, baseSHA
	if autoMerge {
		s.afterCheck(ctx, p)
	}
	return nil
}

// tips reads the head and base commits of p from the base repository's
// refs ("" for a missing one) without starting git.
func (s *Service) tips(ctx context.Context, path string, p *PullRequest) (head, base string, err error) {
	baseRef := git.BranchPrefix + p.BaseBranch
	t, err := s.git.RefTips(ctx, path, []string{p.HeadRef(), baseRef})
	return t[p.HeadRef()], t[baseRef], err
}

func (s *Service) setStatus(ctx context.Context, p *PullRequest, st Status) error {
	_, err := s.db.Exec(ctx, "UPDATE pull_request SET status = ? WHERE id = ?", st, p.ID)
	return err
}

// pushComment is the content of a pull_push timeline entry, as Gitea stores it.
type pushComment struct {
	IsForcePush bool     `json:"is_force_push"`
	CommitIDs   []string `json:"commit_ids"`
}

// recordHeadChange notes a new head commit: the pull_push timeline entry
// (the new commits, or the two tips of a force push), reviews made on older
// commits become stale, and the synchronized event.
func (s *Service) recordHeadChange(ctx context.Context, p *PullRequest, path, headSHA string) error {
	old := p.HeadCommitID
	var content pushComment
	if old != "" {
		force := true
		if ok, err := s.git.IsAncestor(ctx, path, old, headSHA); err == nil && ok {
			force = false
		}
		content.IsForcePush = force
		if force {
			content.CommitIDs = []string{old, headSHA}
		} else if revs, err := s.git.RevList(ctx, path, git.RevListOptions{Revs: []string{headSHA}, Not: []string{old}, Limit: 250}); err == nil {
			for i := len(revs) - 1; i >= 0; i-- {
				content.CommitIDs = append(content.CommitIDs, revs[i])
			}
		}
	}
	body, _ := json.Marshal(content)
	poster := p.Issue.PosterID
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		res, err := s.db.Exec(ctx, "UPDATE pull_request SET head_commit_id = ? WHERE id = ? AND head_commit_id = ?", headSHA, p.ID, old)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // another check recorded it
		}
		if old != "" {
			if err := s.issues.AddEvent(ctx, &issue.Comment{Type: issue.CommentPullPush, PosterID: poster, IssueID: p.IssueID,
				Content: string(body), Created: time.Now()}); err != nil {
				return err
			}
		}
		if _, err := s.db.Exec(ctx, `UPDATE review SET stale = ? WHERE issue_id = ? AND commit_id <> ? AND type IN (?, ?, ?)`,
			true, p.IssueID, headSHA, ReviewApprove, ReviewReject, ReviewComment); err != nil {
			return err
		}
		if err := s.issues.Touch(ctx, p.IssueID, time.Now()); err != nil {
			return err
		}
		p.HeadCommitID = headSHA
		if old == "" {
			return nil
		}
		base, err := s.repos.GetByID(ctx, p.BaseRepoID)
		if err != nil {
			return err
		}
		doer, derr := s.users.GetByID(ctx, poster)
		if derr != nil {
			doer = user.Ghost()
		}
		return s.notify(ctx, Event{Kind: EventSynchronized, Doer: doer, Repo: base, Pull: p})
	})
	return err
}

// afterCheck runs what waits for a fresh check: a scheduled auto-merge.
func (s *Service) afterCheck(ctx context.Context, p *PullRequest) {
	if p.Status != StatusMergeable {
		return
	}
	s.tryAutoMerge(ctx, p)
}
