package types

import "time"

// FileLinksResponse is Gitea's FileLinksResponse: the links of a contents entry.
type FileLinksResponse struct {
	Self    *string `json:"self"`
	GitURL  *string `json:"git"`
	HTMLURL *string `json:"html"`
}

// ContentsResponse is Gitea's ContentsResponse: one entry of a tree (file,
// dir, symlink or submodule). Encoding and Content are set only for a file
// read on its own and no larger than [api] DEFAULT_MAX_BLOB_SIZE, Target
// only for a symlink, SubmoduleGitURL only for a submodule.
type ContentsResponse struct {
	Name            string             `json:"name"`
	Path            string             `json:"path"`
	SHA             string             `json:"sha"`
	LastCommitSHA   string             `json:"last_commit_sha"`
	Type            string             `json:"type"`
	Size            int64              `json:"size"`
	Encoding        *string            `json:"encoding"`
	Content         *string            `json:"content"`
	Target          *string            `json:"target"`
	URL             *string            `json:"url"`
	HTMLURL         *string            `json:"html_url"`
	GitURL          *string            `json:"git_url"`
	DownloadURL     *string            `json:"download_url"`
	SubmoduleGitURL *string            `json:"submodule_git_url"`
	Links           *FileLinksResponse `json:"_links"`
}

// FileCommitResponse is Gitea's FileCommitResponse: the commit a file change
// made (Gitea embeds CommitMeta; its keys are spelled out here).
type FileCommitResponse struct {
	URL       string        `json:"url"`
	SHA       string        `json:"sha"`
	Created   time.Time     `json:"created"`
	HTMLURL   string        `json:"html_url"`
	Author    *CommitUser   `json:"author"`
	Committer *CommitUser   `json:"committer"`
	Parents   []*CommitMeta `json:"parents"`
	Message   string        `json:"message"`
	Tree      *CommitMeta   `json:"tree"`
}

// FileResponse is Gitea's FileResponse: the answer to a file create or update.
type FileResponse struct {
	Content      *ContentsResponse          `json:"content"`
	Commit       *FileCommitResponse        `json:"commit"`
	Verification *PayloadCommitVerification `json:"verification"`
}

// FilesResponse is Gitea's FilesResponse: the answer to a change of several
// files; Files has one entry per operation, null for a deleted file.
type FilesResponse struct {
	Files        []*ContentsResponse        `json:"files"`
	Commit       *FileCommitResponse        `json:"commit"`
	Verification *PayloadCommitVerification `json:"verification"`
}

// FileDeleteResponse is Gitea's FileDeleteResponse; Content is always null.
type FileDeleteResponse struct {
	Content      any                        `json:"content"`
	Commit       *FileCommitResponse        `json:"commit"`
	Verification *PayloadCommitVerification `json:"verification"`
}

// Identity is Gitea's Identity: a git author or committer.
type Identity struct {
	Name  string `json:"name" binding:"MaxSize(100)"`
	Email string `json:"email" binding:"MaxSize(254)"`
}

// CommitDateOptions is Gitea's CommitDateOptions; zero times mean now.
type CommitDateOptions struct {
	Author    time.Time `json:"author"`
	Committer time.Time `json:"committer"`
}

// CreateFileOptions is the body of POST /repos/{owner}/{repo}/contents/{filepath}.
type CreateFileOptions struct {
	Author    Identity          `json:"author"`
	Branch    string            `json:"branch" binding:"MaxSize(100)"`
	Committer Identity          `json:"committer"`
	Content   string            `json:"content" binding:"Text"`
	Dates     CommitDateOptions `json:"dates"`
	Message   string            `json:"message" binding:"Text"`
	NewBranch string            `json:"new_branch" binding:"MaxSize(100)"`
	Signoff   bool              `json:"signoff"`
}

// UpdateFileOptions is the body of PUT /repos/{owner}/{repo}/contents/{filepath}.
type UpdateFileOptions struct {
	Author    Identity          `json:"author"`
	Branch    string            `json:"branch" binding:"MaxSize(100)"`
	Committer Identity          `json:"committer"`
	Content   string            `json:"content" binding:"Text"`
	Dates     CommitDateOptions `json:"dates"`
	FromPath  string            `json:"from_path" binding:"MaxSize(4096)"`
	Message   string            `json:"message" binding:"Text"`
	NewBranch string            `json:"new_branch" binding:"MaxSize(100)"`
	SHA       string            `json:"sha"`
	Signoff   bool              `json:"signoff"`
}

// DeleteFileOptions is the body of DELETE /repos/{owner}/{repo}/contents/{filepath}.
type DeleteFileOptions struct {
	Author    Identity          `json:"author"`
	Branch    string            `json:"branch" binding:"MaxSize(100)"`
	Committer Identity          `json:"committer"`
	Dates     CommitDateOptions `json:"dates"`
	Message   string            `json:"message" binding:"Text"`
	NewBranch string            `json:"new_branch" binding:"MaxSize(100)"`
	SHA       string            `json:"sha"`
	Signoff   bool              `json:"signoff"`
}

// ChangeFileOperation is one file of a ChangeFilesOptions.
type ChangeFileOperation struct {
	Operation string `json:"operation"`
	Path      string `json:"path" binding:"MaxSize(4096)"`
	Content   string `json:"content" binding:"Text"`
	SHA       string `json:"sha"`
	FromPath  string `json:"from_path" binding:"MaxSize(4096)"`
}

// ChangeFilesOptions is the body of POST /repos/{owner}/{repo}/contents.
type ChangeFilesOptions struct {
	Author    Identity               `json:"author"`
	Branch    string                 `json:"branch" binding:"MaxSize(100)"`
	Committer Identity               `json:"committer"`
	Dates     CommitDateOptions      `json:"dates"`
	Files     []*ChangeFileOperation `json:"files"`
	Message   string                 `json:"message" binding:"Text"`
	NewBranch string                 `json:"new_branch" binding:"MaxSize(100)"`
	Signoff   bool                   `json:"signoff"`
}
