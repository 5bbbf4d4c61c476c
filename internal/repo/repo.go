// Package repo owns repositories: their records, units, collaborators, stars,
// watches, topics, deploy keys, transfers and mirrors, and their bare git
// directories under the data dir.
package repo

import (
	"encoding/json"
	"time"
)

// Unit keys, as Gitea names them.
const (
	UnitCode      = "repo.code"
	UnitIssues    = "repo.issues"
	UnitExtIssues = "repo.ext_issues"
	UnitPulls     = "repo.pulls"
	UnitReleases  = "repo.releases"
	UnitWiki      = "repo.wiki"
	UnitExtWiki   = "repo.ext_wiki"
	UnitProjects  = "repo.projects"
	UnitPackages  = "repo.packages"
	UnitActions   = "repo.actions"
)

// AllUnits lists every unit key in Gitea's order.
func AllUnits() []string {
	return []string{UnitCode, UnitIssues, UnitExtIssues, UnitPulls, UnitReleases, UnitWiki, UnitExtWiki, UnitProjects, UnitPackages, UnitActions}
}

// Settings are the per-repository options kept as one JSON document.
type Settings struct {
	AllowMergeCommits             bool   `json:"allow_merge_commits"`
	AllowRebase                   bool   `json:"allow_rebase"`
	AllowRebaseExplicit           bool   `json:"allow_rebase_explicit"`
	AllowSquashMerge              bool   `json:"allow_squash_merge"`
	AllowFastForwardOnly          bool   `json:"allow_fast_forward_only_merge"`
	AllowRebaseUpdate             bool   `json:"allow_rebase_update"`
	AllowManualMerge              bool   `json:"allow_manual_merge"`
	AutodetectManualMerge         bool   `json:"autodetect_manual_merge"`
	DefaultDeleteBranchAfterMerge bool   `json:"default_delete_branch_after_merge"`
	DefaultMergeStyle             string `json:"default_merge_style"`
	DefaultAllowMaintainerEdit    bool   `json:"default_allow_maintainer_edit"`
	IgnoreWhitespaceConflicts     bool   `json:"ignore_whitespace_conflicts"`
	EnableTimeTracker             bool   `json:"enable_time_tracker"`
	AllowOnlyContributorsToTrack  bool   `json:"allow_only_contributors_to_track_time"`
	EnableIssueDependencies       bool   `json:"enable_issue_dependencies"`
	ExternalTrackerURL            string `json:"external_tracker_url,omitempty"`
	ExternalTrackerFormat         string `json:"external_tracker_format,omitempty"`
	ExternalTrackerStyle          string `json:"external_tracker_style,omitempty"`
	ExternalTrackerRegexp         string `json:"external_tracker_regexp_pattern,omitempty"`
	ExternalWikiURL               string `json:"external_wiki_url,omitempty"`
	ProjectsMode                  string `json:"projects_mode,omitempty"`
}

// DefaultSettings are the options of a new repository.
func DefaultSettings(timeTracking, dependencies bool) Settings {
	return Settings{
		AllowMergeCommits: true, AllowRebase: true, AllowRebaseExplicit: true, AllowSquashMerge: true,
		AllowFastForwardOnly: true, AllowRebaseUpdate: true, DefaultMergeStyle: "merge",
		DefaultAllowMaintainerEdit: false, EnableTimeTracker: timeTracking, AllowOnlyContributorsToTrack: true,
		EnableIssueDependencies: dependencies, ProjectsMode: "all",
	}
}

// Repository is one hosted repository.
type Repository struct {
	ID                  int64
	OwnerID             int64
	OwnerName           string // filled by loads that join the owner
	Name                string
	LowerName           string
	Description         string
	Website             string
	OriginalURL         string
	DefaultBranch       string
	ObjectFormat        string
	IsPrivate           bool
	IsEmpty             bool
	IsArchived          bool
	IsMirror            bool
	IsFork              bool
	ForkID              int64
	IsTemplate          bool
	TemplateID          int64
	Size                int64
	Units               map[string]bool
	Settings            Settings
	NumWatches          int
	NumStars            int
	NumForks            int
	NumIssues           int
	NumClosedIssues     int
	NumPulls            int
	NumClosedPulls      int
	NumMilestones       int
	NumClosedMilestones int
	NumReleases         int
	Status              int
	Created             time.Time
	Updated             time.Time
	Archived            time.Time
	// Avatar is the file name of an uploaded avatar, "" for none.
	Avatar string
}

// Status values.
const (
	StatusReady     = 0
	StatusMigrating = 1
)

// FullName is "owner/name".
func (r *Repository) FullName() string { return r.OwnerName + "/" + r.Name }

// HasUnit reports whether unit is enabled on the repository.
func (r *Repository) HasUnit(unit string) bool { return r.Units[unit] }

func encodeUnits(units map[string]bool) string {
	var list []string
	for _, u := range AllUnits() {
		if units[u] {
			list = append(list, u)
		}
	}
	b, _ := json.Marshal(list)
	return string(b)
}

func decodeUnits(s string) map[string]bool {
	var list []string
	_ = json.Unmarshal([]byte(s), &list)
	out := make(map[string]bool, len(list))
	for _, u := range list {
		out[u] = true
	}
	return out
}

func encodeSettings(s Settings) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func decodeSettings(raw string) Settings {
	s := DefaultSettings(true, true)
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &s)
	}
	return s
}
