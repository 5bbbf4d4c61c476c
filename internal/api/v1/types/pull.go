package types

import "time"

// PRBranchInfo is Gitea's PRBranchInfo: one side of a pull request.
type PRBranchInfo struct {
	Name   string      `json:"label"`
	Ref    string      `json:"ref"`
	Sha    string      `json:"sha"`
	RepoID int64       `json:"repo_id"`
	Repo   *Repository `json:"repo"`
}

// PullRequest is Gitea's PullRequest.
type PullRequest struct {
	ID                      int64         `json:"id"`
	URL                     string        `json:"url"`
	Index                   int64         `json:"number"`
	Poster                  *User         `json:"user"`
	Title                   string        `json:"title"`
	Body                    string        `json:"body"`
	Labels                  []*Label      `json:"labels"`
	Milestone               *Milestone    `json:"milestone"`
	Assignee                *User         `json:"assignee"`
	Assignees               []*User       `json:"assignees"`
	RequestedReviewers      []*User       `json:"requested_reviewers"`
	RequestedReviewersTeams []*Team       `json:"requested_reviewers_teams"`
	State                   string        `json:"state"`
	Draft                   bool          `json:"draft"`
	IsLocked                bool          `json:"is_locked"`
	Comments                int           `json:"comments"`
	ReviewComments          int           `json:"review_comments"`
	Additions               int           `json:"additions"`
	Deletions               int           `json:"deletions"`
	ChangedFiles            int           `json:"changed_files"`
	HTMLURL                 string        `json:"html_url"`
	DiffURL                 string        `json:"diff_url"`
	PatchURL                string        `json:"patch_url"`
	Mergeable               bool          `json:"mergeable"`
	HasMerged               bool          `json:"merged"`
	Merged                  *time.Time    `json:"merged_at"`
	MergedCommitID          *string       `json:"merge_commit_sha"`
	MergedBy                *User         `json:"merged_by"`
	AllowMaintainerEdit     bool          `json:"allow_maintainer_edit"`
	Base                    *PRBranchInfo `json:"base"`
	Head                    *PRBranchInfo `json:"head"`
	MergeBase               string        `json:"merge_base"`
	Deadline                *time.Time    `json:"due_date"`
	Created                 *time.Time    `json:"created_at"`
	Updated                 *time.Time    `json:"updated_at"`
	Closed                  *time.Time    `json:"closed_at"`
	PinOrder                int           `json:"pin_order"`
}

// CreatePullRequestOption is the body of POST /repos/{owner}/{repo}/pulls.
type CreatePullRequestOption struct {
	Head          string     `json:"head"`
	Base          string     `json:"base"`
	Title         string     `json:"title"`
	Body          string     `json:"body" binding:"Text"`
	Assignee      string     `json:"assignee"`
	Assignees     []string   `json:"assignees"`
	Milestone     int64      `json:"milestone"`
	Labels        []int64    `json:"labels"`
	Deadline      *time.Time `json:"due_date"`
	Reviewers     []string   `json:"reviewers"`
	TeamReviewers []string   `json:"team_reviewers"`
}

// EditPullRequestOption is the body of PATCH /repos/{owner}/{repo}/pulls/{index}.
type EditPullRequestOption struct {
	Title               string     `json:"title"`
	Body                *string    `json:"body" binding:"Text"`
	Base                string     `json:"base"`
	Assignee            string     `json:"assignee"`
	Assignees           []string   `json:"assignees"`
	Milestone           int64      `json:"milestone"`
	Labels              []int64    `json:"labels"`
	State               *string    `json:"state"`
	Deadline            *time.Time `json:"due_date"`
	RemoveDeadline      *bool      `json:"unset_due_date"`
	AllowMaintainerEdit *bool      `json:"allow_maintainer_edit"`
}

// MergePullRequestOption is the body of POST /repos/{owner}/{repo}/pulls/{index}/merge.
type MergePullRequestOption struct {
	Do                     string `json:"Do"`
	MergeTitleField        string `json:"MergeTitleField"`
	MergeMessageField      string `json:"MergeMessageField" binding:"Text"`
	MergeCommitID          string `json:"MergeCommitID"`
	HeadCommitID           string `json:"head_commit_id"`
	ForceMerge             bool   `json:"force_merge"`
	MergeWhenChecksSucceed bool   `json:"merge_when_checks_succeed"`
	DeleteBranchAfterMerge *bool  `json:"delete_branch_after_merge"`
}

// ChangedFile is Gitea's ChangedFile: one file of a pull request's diff.
type ChangedFile struct {
	Filename         string `json:"filename"`
	PreviousFilename string `json:"previous_filename,omitempty"`
	Status           string `json:"status"`
	Additions        int    `json:"additions"`
	Deletions        int    `json:"deletions"`
	Changes          int    `json:"changes"`
	HTMLURL          string `json:"html_url"`
	ContentsURL      string `json:"contents_url"`
	RawURL           string `json:"raw_url"`
}
