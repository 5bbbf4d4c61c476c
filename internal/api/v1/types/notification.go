package types

import "time"

// NotificationSubject is Gitea's NotificationSubject: what a thread is about.
type NotificationSubject struct {
	Title                string `json:"title"`
	URL                  string `json:"url"`
	LatestCommentURL     string `json:"latest_comment_url"`
	HTMLURL              string `json:"html_url"`
	LatestCommentHTMLURL string `json:"latest_comment_html_url"`
	// Type is "Issue", "Pull", "Commit", "Repository" or "Release".
	Type string `json:"type"`
	// State is the issue's "open" or "closed" ("merged" for merged pull requests).
	State string `json:"state"`
}

// NotificationThread is Gitea's NotificationThread.
type NotificationThread struct {
	ID         int64                `json:"id"`
	Repository *Repository          `json:"repository"`
	Subject    *NotificationSubject `json:"subject"`
	Unread     bool                 `json:"unread"`
	Pinned     bool                 `json:"pinned"`
	UpdatedAt  time.Time            `json:"updated_at"`
	URL        string               `json:"url"`
}

// NotificationCount is Gitea's NotificationCount: the number of unread threads.
type NotificationCount struct {
	New int64 `json:"new"`
}

// TimelineComment is Gitea's TimelineComment: one comment or event of an
// issue's timeline.
type TimelineComment struct {
	ID       int64     `json:"id"`
	Type     string    `json:"type"`
	HTMLURL  string    `json:"html_url"`
	PRURL    string    `json:"pull_request_url"`
	IssueURL string    `json:"issue_url"`
	Poster   *User     `json:"user"`
	Body     string    `json:"body"`
	Created  time.Time `json:"created_at"`
	Updated  time.Time `json:"updated_at"`

	OldProjectID int64      `json:"old_project_id"`
	ProjectID    int64      `json:"project_id"`
	OldMilestone *Milestone `json:"old_milestone"`
	Milestone    *Milestone `json:"milestone"`
	// TrackedTime is Gitea's TrackedTime of time events (nil otherwise).
	TrackedTime any    `json:"tracked_time"`
	OldTitle    string `json:"old_title"`
	NewTitle    string `json:"new_title"`
	OldRef      string `json:"old_ref"`
	NewRef      string `json:"new_ref"`

	RefIssue     *Issue   `json:"ref_issue"`
	RefComment   *Comment `json:"ref_comment"`
	RefAction    string   `json:"ref_action"`
	RefCommitSHA string   `json:"ref_commit_sha"`

	ReviewID int64 `json:"review_id"`

	Label *Label `json:"label"`

	Assignee        *User `json:"assignee"`
	AssigneeTeam    *Team `json:"assignee_team"`
	RemovedAssignee bool  `json:"removed_assignee"`

	ResolveDoer *User `json:"resolve_doer"`

	DependentIssue *Issue `json:"dependent_issue"`
}
