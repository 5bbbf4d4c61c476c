// Package pull owns pull requests: the row that joins an issue to a head and
// a base branch, mergeability (checked in the background after every push),
// the merge itself, and reviews. The issue half (title, body, state, labels,
// comments, timeline) lives in package issue.
package pull

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
)

// Status is the mergeability of a pull request; the values are Gitea's.
type Status int

// Mergeability states.
const (
	StatusConflict       Status = 0
	StatusChecking       Status = 1
	StatusMergeable      Status = 2
	StatusManuallyMerged Status = 3
	StatusError          Status = 4
	StatusEmpty          Status = 5
	StatusAncestor       Status = 6
)

// Flow says how the pull request was opened: from a branch (possibly of a
// fork), or by pushing to refs/for/<base>/<topic> (AGit).
type Flow int

// Flows.
const (
	FlowBranch Flow = 0
	FlowAGit   Flow = 1
)

// PullRequest is the pull request half of an issue.
type PullRequest struct {
	ID              int64
	IssueID         int64
	Index           int64
	Status          Status
	ConflictedFiles []string
	CommitsAhead    int
	CommitsBehind   int
	Additions       int
	Deletions       int
	ChangedFiles    int
	HeadRepoID      int64
	BaseRepoID      int64
	HeadBranch      string
	BaseBranch      string
	MergeBase       string
	// HeadCommitID is the head commit as of the last push seen (what
	// refs/pull/N/head points at).
	HeadCommitID string
	// CheckedHead and CheckedBase are the commits Status was computed for.
	CheckedHead         string
	CheckedBase         string
	AllowMaintainerEdit bool
	HasMerged           bool
	MergedCommitID      string
	MergerID            int64
	Merged              time.Time
	Flow                Flow

	// Issue is the issue half, loaded with the row.
	Issue *issue.Issue
}

// HeadRef is the reference in the base repository that always points at
// the head commit.
func (p *PullRequest) HeadRef() string { return HeadRef(p.Index) }

// HeadRef names refs/pull/<index>/head.
func HeadRef(index int64) string { return "refs/pull/" + strconv.FormatInt(index, 10) + "/head" }

// IsSameRepo reports whether head and base are one repository.
func (p *PullRequest) IsSameRepo() bool { return p.HeadRepoID == p.BaseRepoID }

// IsWorkInProgress reports whether the title starts with one of prefixes
// (case-insensitive), as Gitea's drafts.
func IsWorkInProgress(title string, prefixes []string) bool {
	t := strings.ToUpper(strings.TrimSpace(title))
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(t, strings.ToUpper(p)) {
			return true
		}
	}
	return false
}

// Mergeable reports what the API calls mergeable: checked, without
// conflicts or errors.
func (p *PullRequest) Mergeable() bool {
	switch p.Status {
	case StatusChecking, StatusConflict, StatusError:
		return false
	}
	return !p.HasMerged
}

// ErrNotExist is Gitea's message for a missing pull request.
func ErrNotExist(repoID, index int64) *errs.Error {
	return errs.NotFound("pull request does not exist [id: 0, issue_id: 0, head_repo_id: 0, base_repo_id: %d, head_branch: , base_branch: , index: %d]", repoID, index)
}

// columns is the select list scanPull reads, for alias "p".
const columns = `p.id, p.issue_id, p.idx, p.status, COALESCE(p.conflicted_files, ''), p.commits_ahead, p.commits_behind,
	p.additions, p.deletions, p.changed_files, p.head_repo_id, p.base_repo_id, p.head_branch, p.base_branch,
	p.merge_base, p.head_commit_id, p.checked_head, p.checked_base, p.allow_maintainer_edit, p.has_merged,
	p.merged_commit_id, p.merger_id, p.merged_unix, p.flow`

type scanner interface{ Scan(dest ...any) error }

// pullDest holds what a row selected with columns is scanned into.
type pullDest struct {
	p          PullRequest
	conflicted string
	merged     int64
}

func (d *pullDest) dest() []any {
	p := &d.p
	return []any{&p.ID, &p.IssueID, &p.Index, &p.Status, &d.conflicted, &p.CommitsAhead, &p.CommitsBehind,
		&p.Additions, &p.Deletions, &p.ChangedFiles, &p.HeadRepoID, &p.BaseRepoID, &p.HeadBranch, &p.BaseBranch,
		&p.MergeBase, &p.HeadCommitID, &p.CheckedHead, &p.CheckedBase, &p.AllowMaintainerEdit, &p.HasMerged,
		&p.MergedCommitID, &p.MergerID, &d.merged, &p.Flow}
}

func (d *pullDest) finish() *PullRequest {
	p := d.p
	if d.conflicted != "" {
		_ = json.Unmarshal([]byte(d.conflicted), &p.ConflictedFiles)
	}
	if d.merged > 0 {
		p.Merged = time.Unix(d.merged, 0)
	}
	return &p
}

func scanPull(row scanner) (*PullRequest, error) {
	var d pullDest
	if err := row.Scan(d.dest()...); err != nil {
		return nil, err
	}
	return d.finish(), nil
}

// withPull scans the pull request columns ahead of what its caller scans.
type withPull struct {
	row scanner
	d   *pullDest
}

func (w withPull) Scan(dest ...any) error { return w.row.Scan(append(w.d.dest(), dest...)...) }

// scanWithIssue reads a row selected with columns followed by issue.Columns.
func scanWithIssue(row scanner) (*PullRequest, error) {
	var d pullDest
	is, err := issue.ScanIssue(withPull{row: row, d: &d})
	if err != nil {
		return nil, err
	}
	p := d.finish()
	p.Issue = is
	return p, nil
}

// get loads one pull request with its issue.
func (s *Service) get(ctx context.Context, notFound error, where string, args ...any) (*PullRequest, error) {
	row := s.db.QueryRow(ctx, "SELECT "+columns+", "+issue.Columns+" FROM pull_request p JOIN issue i ON i.id = p.issue_id WHERE "+where, args...)
	p, err := scanWithIssue(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	return p, err
}

// GetByIndex loads pull request number index of repository repoID.
func (s *Service) GetByIndex(ctx context.Context, repoID, index int64) (*PullRequest, error) {
	return s.get(ctx, ErrNotExist(repoID, index), "p.base_repo_id = ? AND p.idx = ?", repoID, index)
}

// GetByID loads a pull request by its id.
func (s *Service) GetByID(ctx context.Context, id int64) (*PullRequest, error) {
	return s.get(ctx, errs.NotFound("pull request does not exist [id: %d]", id), "p.id = ?", id)
}

// GetByIssueID loads the pull request of an issue.
func (s *Service) GetByIssueID(ctx context.Context, issueID int64) (*PullRequest, error) {
	return s.get(ctx, errs.NotFound("pull request does not exist [issue_id: %d]", issueID), "p.issue_id = ?", issueID)
}

// list loads the pull requests matching where, with their issues.
func (s *Service) list(ctx context.Context, where string, args ...any) ([]*PullRequest, error) {
	rows, err := s.db.Query(ctx, "SELECT "+columns+", "+issue.Columns+" FROM pull_request p JOIN issue i ON i.id = p.issue_id WHERE "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*PullRequest
	for rows.Next() {
		p, err := scanWithIssue(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ByIssueIDs loads the pull request rows (without issues) of issue ids, keyed by issue id.
func (s *Service) ByIssueIDs(ctx context.Context, issueIDs []int64) (map[int64]*PullRequest, error) {
	out := map[int64]*PullRequest{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	rows, err := s.db.Query(ctx, "SELECT "+columns+" FROM pull_request p WHERE p.issue_id IN ("+placeholders(len(issueIDs))+")", int64Args(issueIDs)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanPull(rows)
		if err != nil {
			return nil, err
		}
		out[p.IssueID] = p
	}
	return out, rows.Err()
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
