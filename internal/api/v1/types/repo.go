package types

import "time"

// Permission is Gitea's Permission (the caller's access to a repository).
type Permission struct {
	Admin bool `json:"admin"`
	Push  bool `json:"push"`
	Pull  bool `json:"pull"`
}

// InternalTracker is Gitea's InternalTracker.
type InternalTracker struct {
	EnableTimeTracker                bool `json:"enable_time_tracker"`
	AllowOnlyContributorsToTrackTime bool `json:"allow_only_contributors_to_track_time"`
	EnableIssueDependencies          bool `json:"enable_issue_dependencies"`
}

// ExternalTracker is Gitea's ExternalTracker.
type ExternalTracker struct {
	ExternalTrackerURL    string `json:"external_tracker_url" binding:"MaxSize(2048)"`
	ExternalTrackerFormat string `json:"external_tracker_format" binding:"MaxSize(2048)"`
	ExternalTrackerStyle  string `json:"external_tracker_style"`
	ExternalTrackerRegexp string `json:"external_tracker_regexp_pattern" binding:"MaxSize(1024)"`
}

// ExternalWiki is Gitea's ExternalWiki.
type ExternalWiki struct {
	ExternalWikiURL string `json:"external_wiki_url" binding:"MaxSize(2048)"`
}

// RepoTransfer is Gitea's RepoTransfer.
type RepoTransfer struct {
	Doer      *User   `json:"doer"`
	Recipient *User   `json:"recipient"`
	Teams     []*Team `json:"teams"`
}

// Repository is Gitea's Repository.
type Repository struct {
	ID                            int64            `json:"id"`
	Owner                         *User            `json:"owner"`
	Name                          string           `json:"name"`
	FullName                      string           `json:"full_name"`
	Description                   string           `json:"description"`
	Empty                         bool             `json:"empty"`
	Private                       bool             `json:"private"`
	Fork                          bool             `json:"fork"`
	Template                      bool             `json:"template"`
	Parent                        *Repository      `json:"parent"`
	Mirror                        bool             `json:"mirror"`
	Size                          int              `json:"size"`
	Language                      string           `json:"language"`
	LanguagesURL                  string           `json:"languages_url"`
	HTMLURL                       string           `json:"html_url"`
	URL                           string           `json:"url"`
	Link                          string           `json:"link"`
	SSHURL                        string           `json:"ssh_url"`
	CloneURL                      string           `json:"clone_url"`
	OriginalURL                   string           `json:"original_url"`
	Website                       string           `json:"website"`
	Stars                         int              `json:"stars_count"`
	Forks                         int              `json:"forks_count"`
	Watchers                      int              `json:"watchers_count"`
	OpenIssues                    int              `json:"open_issues_count"`
	OpenPulls                     int              `json:"open_pr_counter"`
	Releases                      int              `json:"release_counter"`
	DefaultBranch                 string           `json:"default_branch"`
	Archived                      bool             `json:"archived"`
	Created                       time.Time        `json:"created_at"`
	Updated                       time.Time        `json:"updated_at"`
	ArchivedAt                    time.Time        `json:"archived_at"`
	Permissions                   *Permission      `json:"permissions,omitempty"`
	HasIssues                     bool             `json:"has_issues"`
	InternalTracker               *InternalTracker `json:"internal_tracker,omitempty"`
	ExternalTracker               *ExternalTracker `json:"external_tracker,omitempty"`
	HasWiki                       bool             `json:"has_wiki"`
	ExternalWiki                  *ExternalWiki    `json:"external_wiki,omitempty"`
	HasPullRequests               bool             `json:"has_pull_requests"`
	HasProjects                   bool             `json:"has_projects"`
	ProjectsMode                  string           `json:"projects_mode"`
	HasReleases                   bool             `json:"has_releases"`
	HasPackages                   bool             `json:"has_packages"`
	HasActions                    bool             `json:"has_actions"`
	IgnoreWhitespaceConflicts     bool             `json:"ignore_whitespace_conflicts"`
	AllowMerge                    bool             `json:"allow_merge_commits"`
	AllowRebase                   bool             `json:"allow_rebase"`
	AllowRebaseMerge              bool             `json:"allow_rebase_explicit"`
	AllowSquash                   bool             `json:"allow_squash_merge"`
	AllowFastForwardOnly          bool             `json:"allow_fast_forward_only_merge"`
	AllowRebaseUpdate             bool             `json:"allow_rebase_update"`
	DefaultDeleteBranchAfterMerge bool             `json:"default_delete_branch_after_merge"`
	DefaultMergeStyle             string           `json:"default_merge_style"`
	DefaultAllowMaintainerEdit    bool             `json:"default_allow_maintainer_edit"`
	AvatarURL                     string           `json:"avatar_url"`
	Internal                      bool             `json:"internal"`
	MirrorInterval                string           `json:"mirror_interval"`
	ObjectFormatName              string           `json:"object_format_name"`
	MirrorUpdated                 time.Time        `json:"mirror_updated,omitempty"`
	RepoTransfer                  *RepoTransfer    `json:"repo_transfer"`
	Topics                        []string         `json:"topics"`
	Licenses                      []string         `json:"licenses"`
}

// CreateRepoOption is the body of POST /user/repos and friends.
type CreateRepoOption struct {
	Name             string `json:"name" binding:"MaxSize(100)"`
	Description      string `json:"description" binding:"MaxSize(2048)"`
	Private          bool   `json:"private"`
	IssueLabels      string `json:"issue_labels"`
	AutoInit         bool   `json:"auto_init"`
	Template         bool   `json:"template"`
	Gitignores       string `json:"gitignores" binding:"MaxSize(2048)"`
	License          string `json:"license"`
	Readme           string `json:"readme"`
	DefaultBranch    string `json:"default_branch" binding:"MaxSize(100)"`
	TrustModel       string `json:"trust_model"`
	ObjectFormatName string `json:"object_format_name"`
}

// EditRepoOption is the body of PATCH /repos/{owner}/{repo}.
type EditRepoOption struct {
	Name                          *string          `json:"name" binding:"MaxSize(100)"`
	Description                   *string          `json:"description" binding:"MaxSize(2048)"`
	Website                       *string          `json:"website"`
	Private                       *bool            `json:"private"`
	Template                      *bool            `json:"template"`
	HasIssues                     *bool            `json:"has_issues"`
	InternalTracker               *InternalTracker `json:"internal_tracker"`
	ExternalTracker               *ExternalTracker `json:"external_tracker"`
	HasWiki                       *bool            `json:"has_wiki"`
	ExternalWiki                  *ExternalWiki    `json:"external_wiki"`
	DefaultBranch                 *string          `json:"default_branch" binding:"MaxSize(100)"`
	HasPullRequests               *bool            `json:"has_pull_requests"`
	HasProjects                   *bool            `json:"has_projects"`
	ProjectsMode                  *string          `json:"projects_mode"`
	HasReleases                   *bool            `json:"has_releases"`
	HasPackages                   *bool            `json:"has_packages"`
	HasActions                    *bool            `json:"has_actions"`
	IgnoreWhitespaceConflicts     *bool            `json:"ignore_whitespace_conflicts"`
	AllowMerge                    *bool            `json:"allow_merge_commits"`
	AllowRebase                   *bool            `json:"allow_rebase"`
	AllowRebaseMerge              *bool            `json:"allow_rebase_explicit"`
	AllowSquash                   *bool            `json:"allow_squash_merge"`
	AllowFastForwardOnly          *bool            `json:"allow_fast_forward_only_merge"`
	AllowManualMerge              *bool            `json:"allow_manual_merge"`
	AutodetectManualMerge         *bool            `json:"autodetect_manual_merge"`
	AllowRebaseUpdate             *bool            `json:"allow_rebase_update"`
	DefaultDeleteBranchAfterMerge *bool            `json:"default_delete_branch_after_merge"`
	DefaultMergeStyle             *string          `json:"default_merge_style"`
	DefaultAllowMaintainerEdit    *bool            `json:"default_allow_maintainer_edit"`
	Archived                      *bool            `json:"archived"`
	MirrorInterval                *string          `json:"mirror_interval"`
	EnablePrune                   *bool            `json:"enable_prune"`
}

// SearchResults is the envelope of GET /repos/search.
type SearchResults struct {
	OK   bool          `json:"ok"`
	Data []*Repository `json:"data"`
}
