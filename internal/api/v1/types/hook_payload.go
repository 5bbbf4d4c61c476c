package types

import "time"

// Hook is Gitea's Hook: a webhook as the API shows it. Config carries
// url and content_type, and a chat hook's own settings.
type Hook struct {
	ID                  int64             `json:"id"`
	Type                string            `json:"type"`
	BranchFilter        string            `json:"branch_filter"`
	Config              map[string]string `json:"config"`
	Events              []string          `json:"events"`
	AuthorizationHeader string            `json:"authorization_header"`
	Active              bool              `json:"active"`
	Updated             time.Time         `json:"updated_at"`
	Created             time.Time         `json:"created_at"`
	// DisabledReason is Cairn's extension: why the hook was turned off
	// after failing deliveries ([webhook] DISABLE_AFTER), until it is
	// turned on again.
	DisabledReason string `json:"disabled_reason,omitempty"`
}

// CreateHookOption is the body of POST .../hooks. Type and Config are
// required (config needs url and content_type); Active defaults to false.
type CreateHookOption struct {
	Type                string            `json:"type"`
	Config              map[string]string `json:"config"`
	Events              []string          `json:"events"`
	BranchFilter        string            `json:"branch_filter"`
	AuthorizationHeader string            `json:"authorization_header"`
	Active              bool              `json:"active"`
}

// EditHookOption is the body of PATCH .../hooks/{id}.
type EditHookOption struct {
	Config              map[string]string `json:"config"`
	Events              []string          `json:"events"`
	BranchFilter        string            `json:"branch_filter"`
	AuthorizationHeader string            `json:"authorization_header"`
	Active              *bool             `json:"active"`
}

// HookIssueAction is the action of an issue or pull request event.
type HookIssueAction string

// The actions of issue and pull request events.
const (
	HookIssueOpened               HookIssueAction = "opened"
	HookIssueClosed               HookIssueAction = "closed"
	HookIssueReOpened             HookIssueAction = "reopened"
	HookIssueEdited               HookIssueAction = "edited"
	HookIssueDeleted              HookIssueAction = "deleted"
	HookIssueAssigned             HookIssueAction = "assigned"
	HookIssueUnassigned           HookIssueAction = "unassigned"
	HookIssueLabelUpdated         HookIssueAction = "label_updated"
	HookIssueLabelCleared         HookIssueAction = "label_cleared"
	HookIssueSynchronized         HookIssueAction = "synchronized"
	HookIssueMilestoned           HookIssueAction = "milestoned"
	HookIssueDemilestoned         HookIssueAction = "demilestoned"
	HookIssueReviewed             HookIssueAction = "reviewed"
	HookIssueReviewRequested      HookIssueAction = "review_requested"
	HookIssueReviewRequestRemoved HookIssueAction = "review_request_removed"
)

// HookIssueCommentAction is the action of a comment event.
type HookIssueCommentAction string

// The actions of comment events.
const (
	HookIssueCommentCreated HookIssueCommentAction = "created"
	HookIssueCommentEdited  HookIssueCommentAction = "edited"
	HookIssueCommentDeleted HookIssueCommentAction = "deleted"
)

// HookReleaseAction is the action of a release event.
type HookReleaseAction string

// The actions of release events.
const (
	HookReleasePublished HookReleaseAction = "published"
	HookReleaseUpdated   HookReleaseAction = "updated"
	HookReleaseDeleted   HookReleaseAction = "deleted"
)

// HookRepoAction is the action of a repository event.
type HookRepoAction string

// The actions of repository events.
const (
	HookRepoCreated HookRepoAction = "created"
	HookRepoDeleted HookRepoAction = "deleted"
)

// CreatePayload is the payload of a create event (a branch or tag made).
type CreatePayload struct {
	Sha     string      `json:"sha"`
	Ref     string      `json:"ref"`
	RefType string      `json:"ref_type"`
	Repo    *Repository `json:"repository"`
	Sender  *User       `json:"sender"`
}

// DeletePayload is the payload of a delete event (a branch or tag removed).
type DeletePayload struct {
	Ref        string      `json:"ref"`
	RefType    string      `json:"ref_type"`
	PusherType string      `json:"pusher_type"`
	Repo       *Repository `json:"repository"`
	Sender     *User       `json:"sender"`
}

// ForkPayload is the payload of a fork event: Forkee is the original,
// Repo the new fork.
type ForkPayload struct {
	Forkee *Repository `json:"forkee"`
	Repo   *Repository `json:"repository"`
	Sender *User       `json:"sender"`
}

// PushPayload is the payload of a push event.
type PushPayload struct {
	Ref          string           `json:"ref"`
	Before       string           `json:"before"`
	After        string           `json:"after"`
	CompareURL   string           `json:"compare_url"`
	Commits      []*PayloadCommit `json:"commits"`
	TotalCommits int              `json:"total_commits"`
	HeadCommit   *PayloadCommit   `json:"head_commit"`
	Repo         *Repository      `json:"repository"`
	Pusher       *User            `json:"pusher"`
	Sender       *User            `json:"sender"`
}

// ChangesFromPayload is the former value of a changed field.
type ChangesFromPayload struct {
	From string `json:"from"`
}

// ChangesPayload records what an edit changed.
type ChangesPayload struct {
	Title *ChangesFromPayload `json:"title,omitempty"`
	Body  *ChangesFromPayload `json:"body,omitempty"`
	Ref   *ChangesFromPayload `json:"ref,omitempty"`
}

// IssuePayload is the payload of the issue events.
type IssuePayload struct {
	Action     HookIssueAction `json:"action"`
	Index      int64           `json:"number"`
	Changes    *ChangesPayload `json:"changes,omitempty"`
	Issue      *Issue          `json:"issue"`
	Repository *Repository     `json:"repository"`
	Sender     *User           `json:"sender"`
	CommitID   string          `json:"commit_id"`
}

// IssueCommentPayload is the payload of issue_comment and
// pull_request_comment events.
type IssueCommentPayload struct {
	Action     HookIssueCommentAction `json:"action"`
	Issue      *Issue                 `json:"issue"`
	Comment    *Comment               `json:"comment"`
	Changes    *ChangesPayload        `json:"changes,omitempty"`
	Repository *Repository            `json:"repository"`
	Sender     *User                  `json:"sender"`
	IsPull     bool                   `json:"is_pull"`
}

// ReviewPayload is the review of a pull_request_review_* event.
type ReviewPayload struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// PullRequestPayload is the payload of the pull request events.
type PullRequestPayload struct {
	Action            HookIssueAction `json:"action"`
	Index             int64           `json:"number"`
	Changes           *ChangesPayload `json:"changes,omitempty"`
	PullRequest       *PullRequest    `json:"pull_request"`
	RequestedReviewer *User           `json:"requested_reviewer"`
	Repository        *Repository     `json:"repository"`
	Sender            *User           `json:"sender"`
	CommitID          string          `json:"commit_id"`
	Review            *ReviewPayload  `json:"review"`
}

// ReleasePayload is the payload of a release event.
type ReleasePayload struct {
	Action     HookReleaseAction `json:"action"`
	Release    *Release          `json:"release"`
	Repository *Repository       `json:"repository"`
	Sender     *User             `json:"sender"`
}

// RepositoryPayload is the payload of a repository event; Organization
// is set when an organization owns the repository.
type RepositoryPayload struct {
	Action       HookRepoAction `json:"action"`
	Repository   *Repository    `json:"repository"`
	Organization *User          `json:"organization"`
	Sender       *User          `json:"sender"`
}

// CommitStatusPayload is the payload of a status event (Gitea 1.23 has
// no branches list).
type CommitStatusPayload struct {
	Commit      *PayloadCommit `json:"commit"`
	Context     string         `json:"context"`
	CreatedAt   time.Time      `json:"created_at"`
	Description string         `json:"description"`
	ID          int64          `json:"id"`
	Repo        *Repository    `json:"repository"`
	Sender      *User          `json:"sender"`
	SHA         string         `json:"sha"`
	State       string         `json:"state"`
	TargetURL   string         `json:"target_url"`
	UpdatedAt   time.Time      `json:"updated_at"`
}
