package types

import "time"

// PayloadUser is Gitea's PayloadUser: a git identity, with the account name
// when the e-mail belongs to a visible account.
type PayloadUser struct {
	Name     string `json:"name"`
	Email    string `json:"email"`
	UserName string `json:"username"`
}

// PayloadCommitVerification is Gitea's PayloadCommitVerification.
type PayloadCommitVerification struct {
	Verified  bool         `json:"verified"`
	Reason    string       `json:"reason"`
	Signature string       `json:"signature"`
	Signer    *PayloadUser `json:"signer"`
	Payload   string       `json:"payload"`
}

// PayloadCommit is Gitea's PayloadCommit (the tip of a branch).
type PayloadCommit struct {
	ID           string                     `json:"id"`
	Message      string                     `json:"message"`
	URL          string                     `json:"url"`
	Author       *PayloadUser               `json:"author"`
	Committer    *PayloadUser               `json:"committer"`
	Verification *PayloadCommitVerification `json:"verification"`
	Timestamp    time.Time                  `json:"timestamp"`
	Added        []string                   `json:"added"`
	Removed      []string                   `json:"removed"`
	Modified     []string                   `json:"modified"`
}

// Branch is Gitea's Branch.
type Branch struct {
	Name                          string         `json:"name"`
	Commit                        *PayloadCommit `json:"commit"`
	Protected                     bool           `json:"protected"`
	RequiredApprovals             int64          `json:"required_approvals"`
	EnableStatusCheck             bool           `json:"enable_status_check"`
	StatusCheckContexts           []string       `json:"status_check_contexts"`
	UserCanPush                   bool           `json:"user_can_push"`
	UserCanMerge                  bool           `json:"user_can_merge"`
	EffectiveBranchProtectionName string         `json:"effective_branch_protection_name"`
}

// CreateBranchRepoOption is the body of POST /repos/{owner}/{repo}/branches.
type CreateBranchRepoOption struct {
	BranchName    string `json:"new_branch_name" binding:"MaxSize(100)"`
	OldBranchName string `json:"old_branch_name" binding:"MaxSize(100)"`
	OldRefName    string `json:"old_ref_name" binding:"MaxSize(100)"`
}

// UpdateBranchRepoOption is the body of PATCH /repos/{owner}/{repo}/branches/{branch} (rename).
type UpdateBranchRepoOption struct {
	Name string `json:"name" binding:"MaxSize(100)"`
}

// CommitMeta is Gitea's CommitMeta: a reference to a commit or tree.
type CommitMeta struct {
	URL     string    `json:"url"`
	SHA     string    `json:"sha"`
	Created time.Time `json:"created"`
}

// CommitUser is Gitea's CommitUser: an identity and an RFC 3339 date.
type CommitUser struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// RepoCommit is Gitea's RepoCommit: the git part of a Commit.
type RepoCommit struct {
	URL          string                     `json:"url"`
	Author       *CommitUser                `json:"author"`
	Committer    *CommitUser                `json:"committer"`
	Message      string                     `json:"message"`
	Tree         *CommitMeta                `json:"tree"`
	Verification *PayloadCommitVerification `json:"verification"`
}

// CommitStats is Gitea's CommitStats.
type CommitStats struct {
	Total     int `json:"total"`
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
}

// CommitAffectedFiles is Gitea's CommitAffectedFiles.
type CommitAffectedFiles struct {
	Filename string `json:"filename"`
	Status   string `json:"status"`
}

// Commit is Gitea's Commit.
type Commit struct {
	URL       string                 `json:"url"`
	SHA       string                 `json:"sha"`
	Created   time.Time              `json:"created"`
	HTMLURL   string                 `json:"html_url"`
	Commit    *RepoCommit            `json:"commit"`
	Author    *User                  `json:"author"`
	Committer *User                  `json:"committer"`
	Parents   []*CommitMeta          `json:"parents"`
	Files     []*CommitAffectedFiles `json:"files"`
	Stats     *CommitStats           `json:"stats"`
}

// Compare is Gitea's Compare (GET /compare/{basehead}).
type Compare struct {
	TotalCommits int       `json:"total_commits"`
	Commits      []*Commit `json:"commits"`
}

// Tag is Gitea's Tag.
type Tag struct {
	Name       string      `json:"name"`
	Message    string      `json:"message"`
	ID         string      `json:"id"`
	Commit     *CommitMeta `json:"commit"`
	ZipballURL string      `json:"zipball_url"`
	TarballURL string      `json:"tarball_url"`
}

// CreateTagOption is the body of POST /repos/{owner}/{repo}/tags.
type CreateTagOption struct {
	TagName string `json:"tag_name"`
	Message string `json:"message" binding:"Text"`
	Target  string `json:"target"`
}

// AnnotatedTagObject is Gitea's AnnotatedTagObject: what a tag object points to.
type AnnotatedTagObject struct {
	Type string `json:"type"`
	URL  string `json:"url"`
	SHA  string `json:"sha"`
}

// AnnotatedTag is Gitea's AnnotatedTag (GET /git/tags/{sha}).
type AnnotatedTag struct {
	Tag          string                     `json:"tag"`
	SHA          string                     `json:"sha"`
	URL          string                     `json:"url"`
	Message      string                     `json:"message"`
	Tagger       *CommitUser                `json:"tagger"`
	Object       *AnnotatedTagObject        `json:"object"`
	Verification *PayloadCommitVerification `json:"verification"`
}

// GitObject is Gitea's GitObject: the object a reference points to.
type GitObject struct {
	Type string `json:"type"`
	SHA  string `json:"sha"`
	URL  string `json:"url"`
}

// Reference is Gitea's Reference (GET /git/refs).
type Reference struct {
	Ref    string     `json:"ref"`
	URL    string     `json:"url"`
	Object *GitObject `json:"object"`
}

// GitEntry is Gitea's GitEntry: one entry of a tree.
type GitEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	Size int64  `json:"size"`
	SHA  string `json:"sha"`
	URL  string `json:"url"`
}

// GitTreeResponse is Gitea's GitTreeResponse (GET /git/trees/{sha}).
type GitTreeResponse struct {
	SHA        string     `json:"sha"`
	URL        string     `json:"url"`
	Entries    []GitEntry `json:"tree"`
	Truncated  bool       `json:"truncated"`
	Page       int        `json:"page"`
	TotalCount int        `json:"total_count"`
}

// GitBlobResponse is Gitea's GitBlobResponse (GET /git/blobs/{sha}).
type GitBlobResponse struct {
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
	URL      string `json:"url"`
	SHA      string `json:"sha"`
	Size     int64  `json:"size"`
}

// Note is Gitea's Note: a commit's git note and the commit of the notes
// history that last changed it.
type Note struct {
	Message string  `json:"message"`
	Commit  *Commit `json:"commit"`
}
