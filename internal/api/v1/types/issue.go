package types

import "time"

// Label is Gitea's Label.
type Label struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Exclusive   bool   `json:"exclusive"`
	IsArchived  bool   `json:"is_archived"`
	Color       string `json:"color"`
	Description string `json:"description"`
	URL         string `json:"url"`
}

// Milestone is Gitea's Milestone.
type Milestone struct {
	ID           int64      `json:"id"`
	Title        string     `json:"title"`
	Description  string     `json:"description"`
	State        string     `json:"state"`
	OpenIssues   int        `json:"open_issues"`
	ClosedIssues int        `json:"closed_issues"`
	Created      time.Time  `json:"created_at"`
	Updated      *time.Time `json:"updated_at"`
	Closed       *time.Time `json:"closed_at"`
	Deadline     *time.Time `json:"due_on"`
}

// PullRequestMeta is Gitea's PullRequestMeta.
type PullRequestMeta struct {
	HasMerged bool       `json:"merged"`
	Merged    *time.Time `json:"merged_at"`
	IsDraft   bool       `json:"draft"`
	HTMLURL   string     `json:"html_url"`
}

// RepositoryMeta is Gitea's RepositoryMeta.
type RepositoryMeta struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Owner    string `json:"owner"`
	FullName string `json:"full_name"`
}

// Attachment is Gitea's Attachment.
type Attachment struct {
	ID            int64     `json:"id"`
	Name          string    `json:"name"`
	Size          int64     `json:"size"`
	DownloadCount int64     `json:"download_count"`
	Created       time.Time `json:"created_at"`
	UUID          string    `json:"uuid"`
	DownloadURL   string    `json:"browser_download_url"`
}

// Issue is Gitea's Issue.
type Issue struct {
	ID               int64            `json:"id"`
	URL              string           `json:"url"`
	HTMLURL          string           `json:"html_url"`
	Index            int64            `json:"number"`
	Poster           *User            `json:"user"`
	OriginalAuthor   string           `json:"original_author"`
	OriginalAuthorID int64            `json:"original_author_id"`
	Title            string           `json:"title"`
	Body             string           `json:"body"`
	Ref              string           `json:"ref"`
	Attachments      []*Attachment    `json:"assets"`
	Labels           []*Label         `json:"labels"`
	Milestone        *Milestone       `json:"milestone"`
	Assignee         *User            `json:"assignee"`
	Assignees        []*User          `json:"assignees"`
	State            string           `json:"state"`
	IsLocked         bool             `json:"is_locked"`
	Comments         int              `json:"comments"`
	Created          Time             `json:"created_at"`
	Updated          Time             `json:"updated_at"`
	Closed           *time.Time       `json:"closed_at"`
	Deadline         *time.Time       `json:"due_date"`
	PullRequest      *PullRequestMeta `json:"pull_request"`
	Repo             *RepositoryMeta  `json:"repository"`
	PinOrder         int              `json:"pin_order"`
}

// CreateIssueOption is the body of POST /repos/{owner}/{repo}/issues.
type CreateIssueOption struct {
	Title     string     `json:"title"`
	Body      string     `json:"body" binding:"Text"`
	Ref       string     `json:"ref"`
	Assignee  string     `json:"assignee"`
	Assignees []string   `json:"assignees"`
	Deadline  *time.Time `json:"due_date"`
	Milestone int64      `json:"milestone"`
	Labels    []int64    `json:"labels"`
	Closed    bool       `json:"closed"`
}

// EditIssueOption is the body of PATCH /repos/{owner}/{repo}/issues/{index}.
type EditIssueOption struct {
	Title          *string    `json:"title"`
	Body           *string    `json:"body" binding:"Text"`
	Ref            *string    `json:"ref"`
	Assignee       *string    `json:"assignee"`
	Assignees      []string   `json:"assignees"`
	Milestone      *int64     `json:"milestone"`
	State          *string    `json:"state"`
	Deadline       *time.Time `json:"due_date"`
	RemoveDeadline *bool      `json:"unset_due_date"`
}

// Comment is Gitea's Comment.
type Comment struct {
	ID               int64         `json:"id"`
	HTMLURL          string        `json:"html_url"`
	PRURL            string        `json:"pull_request_url"`
	IssueURL         string        `json:"issue_url"`
	Poster           *User         `json:"user"`
	OriginalAuthor   string        `json:"original_author"`
	OriginalAuthorID int64         `json:"original_author_id"`
	Body             string        `json:"body"`
	Attachments      []*Attachment `json:"assets"`
	Created          Time          `json:"created_at"`
	Updated          Time          `json:"updated_at"`
}

// CreateIssueCommentOption is the body of POST .../issues/{index}/comments.
type CreateIssueCommentOption struct {
	Body string `json:"body" binding:"Text"`
}

// EditIssueCommentOption is the body of PATCH .../issues/comments/{id}.
type EditIssueCommentOption struct {
	Body string `json:"body" binding:"Text"`
}

// IssueTemplate is Gitea's IssueTemplate.
type IssueTemplate struct {
	Name      string            `json:"name"`
	Title     string            `json:"title"`
	About     string            `json:"about"`
	Labels    []string          `json:"labels"`
	Assignees []string          `json:"assignees"`
	Ref       string            `json:"ref"`
	Content   string            `json:"content"`
	Fields    []*IssueFormField `json:"body"`
	FileName  string            `json:"file_name"`
}

// IssueFormField is Gitea's IssueFormField.
type IssueFormField struct {
	Type        string         `json:"type"`
	ID          string         `json:"id"`
	Attributes  map[string]any `json:"attributes"`
	Validations map[string]any `json:"validations"`
	Visible     []string       `json:"visible,omitempty"`
}

// IssueConfig is Gitea's IssueConfig.
type IssueConfig struct {
	BlankIssuesEnabled bool                      `json:"blank_issues_enabled"`
	ContactLinks       []*IssueConfigContactLink `json:"contact_links"`
}

// IssueConfigContactLink is Gitea's IssueConfigContactLink.
type IssueConfigContactLink struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	About string `json:"about"`
}

// IssueConfigValidation is Gitea's IssueConfigValidation.
type IssueConfigValidation struct {
	Valid   bool   `json:"valid"`
	Message string `json:"message"`
}

// NewIssuePinsAllowed is Gitea's NewIssuePinsAllowed.
type NewIssuePinsAllowed struct {
	Issues       bool `json:"issues"`
	PullRequests bool `json:"pull_requests"`
}

// IssueDeadline is Gitea's IssueDeadline.
type IssueDeadline struct {
	Deadline *time.Time `json:"due_date"`
}

// EditDeadlineOption is the body of POST .../issues/{index}/deadline.
type EditDeadlineOption struct {
	Deadline *time.Time `json:"due_date"`
}
