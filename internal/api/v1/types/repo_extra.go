package types

import "time"

// RepoCollaboratorPermission is Gitea's RepoCollaboratorPermission: a user's
// access level to a repository.
type RepoCollaboratorPermission struct {
	Permission string `json:"permission"`
	RoleName   string `json:"role_name"`
	User       *User  `json:"user"`
}

// AddCollaboratorOption is Gitea's AddCollaboratorOption.
type AddCollaboratorOption struct {
	// Permission is "read", "write" or "admin" (default write).
	Permission *string `json:"permission"`
}

// CreateForkOption is Gitea's CreateForkOption.
type CreateForkOption struct {
	Name         *string `json:"name" binding:"MaxSize(100)"`
	Organization *string `json:"organization"`
}

// TransferRepoOption is Gitea's TransferRepoOption.
type TransferRepoOption struct {
	NewOwner string   `json:"new_owner"`
	TeamIDs  *[]int64 `json:"team_ids"`
}

// GenerateRepoOption is Gitea's GenerateRepoOption.
type GenerateRepoOption struct {
	Owner           string `json:"owner"`
	Name            string `json:"name" binding:"MaxSize(100)"`
	DefaultBranch   string `json:"default_branch" binding:"MaxSize(100)"`
	Description     string `json:"description" binding:"MaxSize(2048)"`
	Private         bool   `json:"private"`
	GitContent      bool   `json:"git_content"`
	Topics          bool   `json:"topics"`
	GitHooks        bool   `json:"git_hooks"`
	Webhooks        bool   `json:"webhooks"`
	Avatar          bool   `json:"avatar"`
	Labels          bool   `json:"labels"`
	ProtectedBranch bool   `json:"protected_branch"`
}

// MigrateRepoOptions is Gitea's MigrateRepoOptions.
type MigrateRepoOptions struct {
	CloneAddr          string `json:"clone_addr" binding:"MaxSize(2048)"`
	RepoOwnerID        int64  `json:"uid"`
	RepoOwner          string `json:"repo_owner"`
	RepoName           string `json:"repo_name" binding:"MaxSize(100)"`
	Service            string `json:"service"`
	AuthUsername       string `json:"auth_username"`
	AuthPassword       string `json:"auth_password" binding:"MaxSize(4096)"`
	AuthToken          string `json:"auth_token" binding:"MaxSize(4096)"`
	Mirror             bool   `json:"mirror"`
	LFS                bool   `json:"lfs"`
	LFSEndpoint        string `json:"lfs_endpoint" binding:"MaxSize(2048)"`
	Private            bool   `json:"private"`
	Description        string `json:"description" binding:"MaxSize(2048)"`
	Wiki               bool   `json:"wiki"`
	Milestones         bool   `json:"milestones"`
	Labels             bool   `json:"labels"`
	Issues             bool   `json:"issues"`
	PullRequests       bool   `json:"pull_requests"`
	Releases           bool   `json:"releases"`
	MirrorInterval     string `json:"mirror_interval"`
	AWSAccessKeyID     string `json:"aws_access_key_id" binding:"MaxSize(1024)"`
	AWSSecretAccessKey string `json:"aws_secret_access_key" binding:"MaxSize(1024)"`
}

// WatchInfo is Gitea's WatchInfo: the caller's subscription to a repository.
type WatchInfo struct {
	Subscribed    bool      `json:"subscribed"`
	Ignored       bool      `json:"ignored"`
	Reason        any       `json:"reason"`
	CreatedAt     time.Time `json:"created_at"`
	URL           string    `json:"url"`
	RepositoryURL string    `json:"repository_url"`
}

// TopicName is Gitea's TopicName: the topics of a repository.
type TopicName struct {
	Topics []string `json:"topics"`
}

// RepoTopicOptions is Gitea's RepoTopicOptions.
type RepoTopicOptions struct {
	Topics []string `json:"topics"`
}

// TopicResponse is Gitea's TopicResponse: a topic found by /topics/search.
type TopicResponse struct {
	ID        int64     `json:"id"`
	Name      string    `json:"topic_name"`
	RepoCount int       `json:"repo_count"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
}

// TopicListResponse is the body of GET /topics/search (Gitea wraps the
// list in an object; its API description has no type for it).
type TopicListResponse struct {
	Topics []*TopicResponse `json:"topics"`
}

// InvalidTopicsError is Gitea's 422 answer to bad topics. InvalidTopics is
// the list of refused topics for PUT /topics, the refused topic (a string)
// for PUT and DELETE /topics/{topic}, and null when there are too many.
type InvalidTopicsError struct {
	Message       string `json:"message"`
	InvalidTopics any    `json:"invalidTopics"`
}

// MergeUpstreamRequest is Gitea's MergeUpstreamRequest.
type MergeUpstreamRequest struct {
	Branch string `json:"branch"`
}

// MergeUpstreamResponse is Gitea's MergeUpstreamResponse.
type MergeUpstreamResponse struct {
	MergeStyle string `json:"merge_type"`
}

// CommitStatus is Gitea's CommitStatus.
type CommitStatus struct {
	ID          int64     `json:"id"`
	State       string    `json:"status"`
	TargetURL   string    `json:"target_url"`
	Description string    `json:"description"`
	URL         string    `json:"url"`
	Context     string    `json:"context"`
	Creator     *User     `json:"creator"`
	Created     time.Time `json:"created_at"`
	Updated     time.Time `json:"updated_at"`
}

// CombinedStatus is Gitea's CombinedStatus.
type CombinedStatus struct {
	State      string          `json:"state"`
	SHA        string          `json:"sha"`
	TotalCount int64           `json:"total_count"`
	Statuses   []*CommitStatus `json:"statuses"`
	Repository *Repository     `json:"repository"`
	CommitURL  string          `json:"commit_url"`
	URL        string          `json:"url"`
}

// CreateStatusOption is Gitea's CreateStatusOption.
type CreateStatusOption struct {
	State       string `json:"state"`
	TargetURL   string `json:"target_url" binding:"MaxSize(2048)"`
	Description string `json:"description" binding:"MaxSize(1024)"`
	Context     string `json:"context"`
}
