package pull

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// EventKind names what happened to a pull request beyond its issue events.
type EventKind string

// Pull request events, announced after their change committed.
const (
	EventSynchronized    EventKind = "synchronized"
	EventMerged          EventKind = "merged"
	EventRetargeted      EventKind = "retargeted"
	EventReviewed        EventKind = "reviewed"
	EventReviewDismissed EventKind = "review_dismissed"
	EventReviewRequested EventKind = "review_requested"
	EventReviewUnrequest EventKind = "review_request_removed"
)

// Event is one change of a pull request.
type Event struct {
	Kind EventKind
	Doer *user.User
	Repo *repo.Repository
	Pull *PullRequest
	// ReviewID is set for review events; ReviewerID/TeamID for requests.
	ReviewID   int64
	ReviewerID int64
	TeamID     int64
}

// Listener receives pull request events after their transaction committed.
type Listener func(ctx context.Context, e Event)

// TxListener receives events inside the transaction of their change (to
// record an outbox row); an error undoes the change.
type TxListener func(ctx context.Context, e Event) error

// Options are the settings the service applies.
type Options struct {
	// WorkInProgressPrefixes mark drafts ([repository.pull-request]).
	WorkInProgressPrefixes []string
	// CoAuthorTrailers adds Co-authored-by trailers to squash messages.
	CoAuthorTrailers bool
}

// Service applies the pull request rules.
type Service struct {
	db        *db.DB
	repos     *repo.Service
	issues    *issue.Service
	users     *user.Store
	access    *access.Checker
	git       *git.Git
	opts      Options
	listeners []Listener
	txListen  []TxListener
	checker   *checker
	// merging holds one lock per pull request being merged.
	merging sync.Map
	checks  []MergeCheck
	// signing and signingRules decide whether merges are signed (nil:
	// never).
	signing      MergeSigning
	signingRules ReviewRulesFunc
}

// NewService returns the pull request service; Run starts its background
// mergeability checks.
func NewService(d *db.DB, repos *repo.Service, issues *issue.Service, users *user.Store, ac *access.Checker, opts Options) *Service {
	s := &Service{db: d, repos: repos, issues: issues, users: users, access: ac, git: repos.Git, opts: opts}
	s.checker = newChecker(s)
	return s
}

// AddListener registers an event listener; call it only while wiring.
func (s *Service) AddListener(l Listener) { s.listeners = append(s.listeners, l) }

func (s *Service) notify(ctx context.Context, e Event) error {
	return db.Announce(s.db, ctx, e, s.txListen, func(ctx context.Context) {
		for _, l := range s.listeners {
			l(ctx, e)
		}
		// A review may complete what a scheduled auto-merge waits for.
		if e.Pull != nil && (e.Kind == EventReviewed || e.Kind == EventReviewDismissed) {
			s.queueIfAutoMerge(ctx, e.Pull.ID)
		}
	})
}

// AddTxListener registers a listener that runs inside the change's
// transaction; call it only while wiring.
func (s *Service) AddTxListener(l TxListener) { s.txListen = append(s.txListen, l) }

// queueIfAutoMerge checks a pull request again when a merge is scheduled
// for it: the check ends by trying the merge.
func (s *Service) queueIfAutoMerge(ctx context.Context, pullID int64) {
	if am, err := s.GetAutoMerge(ctx, pullID); err == nil && am != nil {
		s.checker.queue(pullID)
	}
}

// Permission is doer's access to r.
func (s *Service) Permission(ctx context.Context, doer *user.User, r *repo.Repository) (access.RepoPerm, error) {
	owner, err := s.users.GetByID(ctx, r.OwnerID)
	if err != nil {
		return access.RepoPerm{}, err
	}
	return s.access.RepoPermission(ctx, doer, r, owner)
}

// IsWorkInProgress reports whether p is a draft by its title.
func (s *Service) IsWorkInProgress(p *PullRequest) bool {
	return p.Issue != nil && IsWorkInProgress(p.Issue.Title, s.opts.WorkInProgressPrefixes)
}

// WorkInProgressPrefixes returns the configured draft prefixes.
func (s *Service) WorkInProgressPrefixes() []string { return s.opts.WorkInProgressPrefixes }

// CreateOptions describes a new pull request; the issue fields must already
// be checked by the caller, as for issue.Create.
type CreateOptions struct {
	Issue      issue.CreateOptions
	HeadRepo   *repo.Repository
	HeadBranch string
	BaseBranch string
}

// Create opens a pull request in base from HeadBranch of HeadRepo (base
// itself, a fork of it, or its parent's fork network).
func (s *Service) Create(ctx context.Context, doer *user.User, base *repo.Repository, o CreateOptions) (*PullRequest, error) {
	if !git.ValidBranchName(o.BaseBranch) {
		return nil, errs.InvalidField("base", "invalid base branch %q", o.BaseBranch)
	}
	if !git.ValidBranchName(o.HeadBranch) {
		return nil, errs.InvalidField("head", "invalid head branch %q", o.HeadBranch)
	}
	if o.HeadRepo.ID == base.ID && o.HeadBranch == o.BaseBranch {
		return nil, errs.Invalid("Invalid PullRequest: There are no changes between the head and the base")
	}
	basePath := s.repos.Path(base)
	if _, err := s.git.ResolveCommit(ctx, basePath, git.BranchPrefix+o.BaseBranch); err != nil {
		if errors.Is(err, git.ErrNotFound) {
			return nil, errs.InvalidField("base", "base branch does not exist [name: %s]", o.BaseBranch)
		}
		return nil, err
	}
	headSHA, err := s.git.ResolveCommit(ctx, s.repos.Path(o.HeadRepo), git.BranchPrefix+o.HeadBranch)
	if err != nil {
		if errors.Is(err, git.ErrNotFound) {
			return nil, errs.InvalidField("head", "head branch does not exist [name: %s]", o.HeadBranch)
		}
		return nil, err
	}
	if existing, err := s.findOpen(ctx, o.HeadRepo.ID, o.HeadBranch, base.ID, o.BaseBranch, FlowBranch); err != nil {
		return nil, err
	} else if existing != nil {
		return nil, errs.Conflict("pull request already exists for these targets [id: %d, issue_id: %d, head_repo_id: %d, base_repo_id: %d, head_branch: %s, base_branch: %s]",
			existing.ID, existing.IssueID, existing.HeadRepoID, existing.BaseRepoID, existing.HeadBranch, existing.BaseBranch)
	}
	return s.create(ctx, doer, base, o, headSHA, FlowBranch)
}

// create stores the issue and the pull request row in one transaction, then
// points refs/pull/N/head at the head commit and queues the first check.
func (s *Service) create(ctx context.Context, doer *user.User, base *repo.Repository, o CreateOptions, headSHA string, flow Flow) (*PullRequest, error) {
	p := &PullRequest{HeadRepoID: o.HeadRepo.ID, BaseRepoID: base.ID, HeadBranch: o.HeadBranch, BaseBranch: o.BaseBranch,
		HeadCommitID: headSHA, Status: StatusChecking, Flow: flow}
	io := o.Issue
	io.IsPull = true
	io.InTx = func(ctx context.Context, is *issue.Issue) error {
		p.IssueID, p.Index = is.ID, is.Index
		var err error
		p.ID, err = s.db.Insert(ctx, `INSERT INTO pull_request (issue_id, idx, status, head_repo_id, base_repo_id, head_branch,
			base_branch, head_commit_id, flow) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.IssueID, p.Index, p.Status, p.HeadRepoID, p.BaseRepoID, p.HeadBranch, p.BaseBranch, p.HeadCommitID, p.Flow)
		return err
	}
	is, err := s.issues.Create(ctx, doer, base, io)
	if err != nil {
		return nil, err
	}
	p.Issue = is
	// The ref comes after the commit (no file work inside a transaction);
	// the check re-creates it if the process stopped in between.
	if err := s.syncHeadRef(ctx, p, base); err != nil {
		slog.Error("pull: write head ref", "repo", base.ID, "pull", p.Index, "err", err)
	}
	s.checker.queue(p.ID)
	return p, nil
}

// syncHeadRef points refs/pull/N/head of the base repository at the head
// branch's commit (fetched from the head repository when it is another
// one). A head branch or repository that is gone leaves the ref as it is.
func (s *Service) syncHeadRef(ctx context.Context, p *PullRequest, base *repo.Repository) error {
	if p.Flow == FlowAGit {
		return nil // the push itself wrote the ref
	}
	basePath := s.repos.Path(base)
	if p.IsSameRepo() {
		tips, err := s.git.RefTips(ctx, basePath, []string{git.BranchPrefix + p.HeadBranch, p.HeadRef()})
		if err != nil {
			return err
		}
		sha := tips[git.BranchPrefix+p.HeadBranch]
		if sha == "" || tips[p.HeadRef()] == sha {
			return nil // the branch is gone, or the ref is up to date
		}
		return s.git.ForceRef(ctx, basePath, p.HeadRef(), sha)
	}
	head, err := s.repos.GetByID(ctx, p.HeadRepoID)
	if errs.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	headPath := s.repos.Path(head)
	headTips, err := s.git.RefTips(ctx, headPath, []string{git.BranchPrefix + p.HeadBranch})
	if err != nil {
		return err
	}
	sha := headTips[git.BranchPrefix+p.HeadBranch]
	if sha == "" {
		return nil
	}
	if cur, err := s.git.RefTips(ctx, basePath, []string{p.HeadRef()}); err == nil && cur[p.HeadRef()] == sha {
		return nil
	}
	return s.git.FetchRef(ctx, basePath, headPath, git.BranchPrefix+p.HeadBranch, p.HeadRef())
}

// findOpen returns the open pull request from head to base, or nil.
func (s *Service) findOpen(ctx context.Context, headRepoID int64, headBranch string, baseRepoID int64, baseBranch string, flow Flow) (*PullRequest, error) {
	list, err := s.list(ctx, `p.head_repo_id = ? AND p.head_branch = ? AND p.base_repo_id = ? AND p.base_branch = ?
		AND p.flow = ? AND p.has_merged = ? AND i.is_closed = ?`, headRepoID, headBranch, baseRepoID, baseBranch, flow, false, false)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}

// GetByBaseHead returns the newest pull request from headBranch of headRepo
// into baseBranch of base, open or not.
func (s *Service) GetByBaseHead(ctx context.Context, base *repo.Repository, baseBranch string, headRepoID int64, headBranch string) (*PullRequest, error) {
	list, err := s.list(ctx, `p.base_repo_id = ? AND p.base_branch = ? AND p.head_repo_id = ? AND p.head_branch = ?
		ORDER BY i.is_closed, p.id DESC`, base.ID, baseBranch, headRepoID, headBranch)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errs.NotFound("pull request does not exist [base_repo_id: %d, base_branch: %s, head_repo_id: %d, head_branch: %s]",
			base.ID, baseBranch, headRepoID, headBranch)
	}
	return list[0], nil
}

// ByMergedCommit returns the pull request whose merge made commit sha in repository repoID.
func (s *Service) ByMergedCommit(ctx context.Context, repoID int64, sha string) (*PullRequest, error) {
	list, err := s.list(ctx, "p.base_repo_id = ? AND p.merged_commit_id = ? AND p.has_merged = ?", repoID, sha, true)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errs.NotFound("pull request does not exist [merged_commit_id: %s]", sha)
	}
	return list[0], nil
}

// SetAllowMaintainerEdit records whether base writers may push to the head branch.
func (s *Service) SetAllowMaintainerEdit(ctx context.Context, p *PullRequest, allow bool) error {
	if _, err := s.db.Exec(ctx, "UPDATE pull_request SET allow_maintainer_edit = ? WHERE id = ?", allow, p.ID); err != nil {
		return err
	}
	p.AllowMaintainerEdit = allow
	return nil
}

// ChangeBase retargets an open pull request to another branch of its base
// repository: a timeline entry, a new check.
func (s *Service) ChangeBase(ctx context.Context, doer *user.User, base *repo.Repository, p *PullRequest, branch string) error {
	if branch == p.BaseBranch {
		return nil
	}
	if p.HasMerged {
		return errs.Conflict("pull request has been merged")
	}
	if p.Issue.IsClosed {
		return errs.Conflict("pull request is closed")
	}
	if !git.ValidBranchName(branch) {
		return errs.InvalidField("base", "invalid base branch %q", branch)
	}
	if _, err := s.git.ResolveCommit(ctx, s.repos.Path(base), git.BranchPrefix+branch); err != nil {
		if errors.Is(err, git.ErrNotFound) {
			return errs.NotFound("branch does not exist [name: %s]", branch)
		}
		return err
	}
	if p.IsSameRepo() && branch == p.HeadBranch {
		return errs.Invalid("pull request head and base cannot be the same branch")
	}
	if existing, err := s.findOpen(ctx, p.HeadRepoID, p.HeadBranch, p.BaseRepoID, branch, p.Flow); err != nil {
		return err
	} else if existing != nil {
		return errs.Conflict("pull request already exists for these targets [id: %d, issue_id: %d, head_repo_id: %d, base_repo_id: %d, head_branch: %s, base_branch: %s]",
			existing.ID, existing.IssueID, existing.HeadRepoID, existing.BaseRepoID, existing.HeadBranch, branch)
	}
	old := p.BaseBranch
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.Exec(ctx, "UPDATE pull_request SET base_branch = ?, status = ? WHERE id = ?", branch, StatusChecking, p.ID); err != nil {
			return err
		}
		if err := s.issues.AddEvent(ctx, &issue.Comment{Type: issue.CommentChangeTarget, PosterID: doer.ID, IssueID: p.IssueID,
			OldRef: old, NewRef: branch}); err != nil {
			return err
		}
		p.BaseBranch, p.Status = branch, StatusChecking
		return s.notify(ctx, Event{Kind: EventRetargeted, Doer: doer, Repo: base, Pull: p})
	})
	if err != nil {
		p.BaseBranch = old
		return err
	}
	s.checker.queue(p.ID)
	return nil
}

// RefuseReservedRefs is a repo.PushRule: refs/pull/ belongs to Cairn, and
// refs/for/ is handled by the AGit flow, never stored.
func RefuseReservedRefs(_ context.Context, _ *repo.Repository, req hooks.Request) (string, error) {
	for _, u := range req.Updates {
		if strings.HasPrefix(u.Ref, "refs/pull/") {
			return fmt.Sprintf("Cairn: %s is kept by Cairn for pull requests and cannot be pushed to.", u.Ref), nil
		}
	}
	return "", nil
}

// OnPush is a repo.PushListener: every open pull request whose head or base
// branch the push moved is marked checking and queued. Only one query runs
// on the push's own path; refs, timeline entries and checks follow in the
// background.
func (s *Service) OnPush(ctx context.Context, r *repo.Repository, req hooks.Request) {
	var branches []any
	for _, u := range req.Updates {
		if name, ok := strings.CutPrefix(u.Ref, git.BranchPrefix); ok {
			branches = append(branches, name)
		}
	}
	if len(branches) == 0 {
		return
	}
	in := placeholders(len(branches))
	cond := `p.has_merged = ? AND p.issue_id IN (SELECT id FROM issue WHERE is_closed = ?)
		AND ((p.head_repo_id = ? AND p.flow = ? AND p.head_branch IN (` + in + `)) OR (p.base_repo_id = ? AND p.base_branch IN (` + in + `)))`
	args := append([]any{false, false, r.ID, FlowBranch}, branches...)
	args = append(append(args, r.ID), branches...)
	ids, err := s.ids(ctx, "SELECT p.id FROM pull_request p WHERE "+cond, args...)
	if err != nil {
		slog.Error("pull: find pull requests of a push", "repo", r.ID, "err", err)
		return
	}
	if len(ids) == 0 {
		return
	}
	if _, err := s.db.Exec(ctx, "UPDATE pull_request SET status = ? WHERE id IN ("+placeholders(len(ids))+")",
		append([]any{StatusChecking}, int64Args(ids)...)...); err != nil {
		slog.Error("pull: mark pull requests for checking", "repo", r.ID, "err", err)
	}
	s.checker.queue(ids...)
}

func (s *Service) ids(ctx context.Context, q string, args ...any) ([]int64, error) {
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// conflictedJSON stores a list of file names.
func conflictedJSON(files []string) string {
	if len(files) == 0 {
		return ""
	}
	b, _ := json.Marshal(files)
	return string(b)
}

func nowUnix() int64 { return time.Now().Unix() }
