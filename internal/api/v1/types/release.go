package types

import "time"

// Release is Gitea's Release.
type Release struct {
	ID           int64         `json:"id"`
	TagName      string        `json:"tag_name"`
	Target       string        `json:"target_commitish"`
	Title        string        `json:"name"`
	Note         string        `json:"body"`
	URL          string        `json:"url"`
	HTMLURL      string        `json:"html_url"`
	TarURL       string        `json:"tarball_url"`
	ZipURL       string        `json:"zipball_url"`
	UploadURL    string        `json:"upload_url"`
	IsDraft      bool          `json:"draft"`
	IsPrerelease bool          `json:"prerelease"`
	CreatedAt    time.Time     `json:"created_at"`
	PublishedAt  time.Time     `json:"published_at"`
	Publisher    *User         `json:"author"`
	Attachments  []*Attachment `json:"assets"`
}

// CreateReleaseOption is Gitea's CreateReleaseOption.
type CreateReleaseOption struct {
	TagName      string `json:"tag_name"`
	Target       string `json:"target_commitish"`
	Title        string `json:"name"`
	Note         string `json:"body"`
	IsDraft      bool   `json:"draft"`
	IsPrerelease bool   `json:"prerelease"`
}

// EditReleaseOption is Gitea's EditReleaseOption: every field is optional.
type EditReleaseOption struct {
	TagName      *string `json:"tag_name"`
	Target       *string `json:"target_commitish"`
	Title        *string `json:"name"`
	Note         *string `json:"body"`
	IsDraft      *bool   `json:"draft"`
	IsPrerelease *bool   `json:"prerelease"`
}
