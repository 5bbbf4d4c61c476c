package types

import "time"

// PullReview is Gitea's PullReview: a review, or a request for one.
type PullReview struct {
	ID                int64     `json:"id"`
	Reviewer          *User     `json:"user"`
	ReviewerTeam      *Team     `json:"team"`
	State             string    `json:"state"`
	Body              string    `json:"body"`
	CommitID          string    `json:"commit_id"`
	Stale             bool      `json:"stale"`
	Official          bool      `json:"official"`
	Dismissed         bool      `json:"dismissed"`
	CodeCommentsCount int       `json:"comments_count"`
	Submitted         time.Time `json:"submitted_at"`
	Updated           time.Time `json:"updated_at"`
	HTMLURL           string    `json:"html_url"`
	HTMLPullURL       string    `json:"pull_request_url"`
}

// PullReviewComment is Gitea's PullReviewComment: a line comment of a review.
type PullReviewComment struct {
	ID           int64     `json:"id"`
	Body         string    `json:"body"`
	Poster       *User     `json:"user"`
	Resolver     *User     `json:"resolver"`
	ReviewID     int64     `json:"pull_request_review_id"`
	Created      time.Time `json:"created_at"`
	Updated      time.Time `json:"updated_at"`
	Path         string    `json:"path"`
	CommitID     string    `json:"commit_id"`
	OrigCommitID string    `json:"original_commit_id"`
	DiffHunk     string    `json:"diff_hunk"`
	LineNum      uint64    `json:"position"`
	OldLineNum   uint64    `json:"original_position"`
	HTMLURL      string    `json:"html_url"`
	HTMLPullURL  string    `json:"pull_request_url"`
}

// CreatePullReviewOptions is the body of POST /repos/{owner}/{repo}/pulls/{index}/reviews.
type CreatePullReviewOptions struct {
	Event    string                    `json:"event"`
	Body     string                    `json:"body" binding:"Text"`
	CommitID string                    `json:"commit_id"`
	Comments []CreatePullReviewComment `json:"comments"`
}

// CreatePullReviewComment is one line comment of a new review.
type CreatePullReviewComment struct {
	Path       string `json:"path"`
	Body       string `json:"body" binding:"Text"`
	OldLineNum int64  `json:"old_position"`
	NewLineNum int64  `json:"new_position"`
}

// SubmitPullReviewOptions is the body of POST /repos/{owner}/{repo}/pulls/{index}/reviews/{id}.
type SubmitPullReviewOptions struct {
	Event string `json:"event"`
	Body  string `json:"body" binding:"Text"`
}

// DismissPullReviewOptions is the body of POST .../reviews/{id}/dismissals.
type DismissPullReviewOptions struct {
	Message string `json:"message" binding:"Text"`
	Priors  bool   `json:"priors"`
}

// PullReviewRequestOptions is the body of POST and DELETE .../requested_reviewers.
type PullReviewRequestOptions struct {
	Reviewers     []string `json:"reviewers"`
	TeamReviewers []string `json:"team_reviewers"`
}
