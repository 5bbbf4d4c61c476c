package types

import "time"

// APIError is Gitea's error body.
type APIError struct {
	Message string   `json:"message"`
	URL     string   `json:"url"`
	Errors  []string `json:"errors,omitempty"`
}

// Cron is one cron task of GET /admin/cron.
type Cron struct {
	Name      string    `json:"name"`
	Schedule  string    `json:"schedule"`
	Next      time.Time `json:"next"`
	Prev      time.Time `json:"prev"`
	ExecTimes int64     `json:"exec_times"`
}

// ServerVersion is the body of GET /version.
type ServerVersion struct {
	Version string `json:"version"`
}

// GeneralAPISettings is the body of GET /settings/api.
type GeneralAPISettings struct {
	MaxResponseItems       int   `json:"max_response_items"`
	DefaultPagingNum       int   `json:"default_paging_num"`
	DefaultGitTreesPerPage int   `json:"default_git_trees_per_page"`
	DefaultMaxBlobSize     int64 `json:"default_max_blob_size"`
}

// GeneralUISettings is the body of GET /settings/ui.
type GeneralUISettings struct {
	DefaultTheme     string   `json:"default_theme"`
	AllowedReactions []string `json:"allowed_reactions"`
	CustomEmojis     []string `json:"custom_emojis"`
}

// GeneralRepoSettings is the body of GET /settings/repository.
type GeneralRepoSettings struct {
	MirrorsDisabled      bool `json:"mirrors_disabled"`
	HTTPGitDisabled      bool `json:"http_git_disabled"`
	MigrationsDisabled   bool `json:"migrations_disabled"`
	StarsDisabled        bool `json:"stars_disabled"`
	TimeTrackingDisabled bool `json:"time_tracking_disabled"`
	LFSDisabled          bool `json:"lfs_disabled"`
}

// GeneralAttachmentSettings is the body of GET /settings/attachment.
type GeneralAttachmentSettings struct {
	Enabled      bool   `json:"enabled"`
	AllowedTypes string `json:"allowed_types"`
	MaxSize      int64  `json:"max_size"`
	MaxFiles     int    `json:"max_files"`
}

// MarkdownOption is Gitea's MarkdownOption (its keys are capitalized).
type MarkdownOption struct {
	Text    string `json:"Text" binding:"Text"`
	Mode    string `json:"Mode"`
	Context string `json:"Context" binding:"MaxSize(2048)"`
	Wiki    bool   `json:"Wiki"`
}

// MarkupOption is Gitea's MarkupOption.
type MarkupOption struct {
	Text     string `json:"Text" binding:"Text"`
	Mode     string `json:"Mode"`
	Context  string `json:"Context" binding:"MaxSize(2048)"`
	FilePath string `json:"FilePath" binding:"MaxSize(4096)"`
	Wiki     bool   `json:"Wiki"`
}
