// Package types holds the API's wire types, with Gitea 1.23's exact JSON keys.
// Domain packages never import it; conversion lives in package v1.
package types

import "time"

// User is Gitea's User.
type User struct {
	ID             int64  `json:"id"`
	UserName       string `json:"login"`
	LoginName      string `json:"login_name"`
	SourceID       int64  `json:"source_id"`
	FullName       string `json:"full_name"`
	Email          string `json:"email"`
	AvatarURL      string `json:"avatar_url"`
	HTMLURL        string `json:"html_url"`
	Language       string `json:"language"`
	IsAdmin        bool   `json:"is_admin"`
	LastLogin      Time   `json:"last_login"`
	Created        Time   `json:"created"`
	Restricted     bool   `json:"restricted"`
	IsActive       bool   `json:"active"`
	ProhibitLogin  bool   `json:"prohibit_login"`
	Location       string `json:"location"`
	Website        string `json:"website"`
	Description    string `json:"description"`
	Visibility     string `json:"visibility"`
	Followers      int    `json:"followers_count"`
	Following      int    `json:"following_count"`
	StarredRepos   int    `json:"starred_repos_count"`
	CompatUserName string `json:"username"`
}

// UserSearchResult is the envelope of GET /users/search.
type UserSearchResult struct {
	OK   bool    `json:"ok"`
	Data []*User `json:"data"`
}

// CreateUserOption is the body of POST /admin/users.
type CreateUserOption struct {
	SourceID           int64      `json:"source_id"`
	LoginName          string     `json:"login_name"`
	Username           string     `json:"username" binding:"MaxSize(40)"`
	FullName           string     `json:"full_name" binding:"MaxSize(100)"`
	Email              string     `json:"email" binding:"MaxSize(254)"`
	Password           string     `json:"password"`
	MustChangePassword *bool      `json:"must_change_password"`
	SendNotify         bool       `json:"send_notify"`
	Restricted         *bool      `json:"restricted"`
	Visibility         string     `json:"visibility"`
	Created            *time.Time `json:"created_at"`
}

// EditUserOption is the body of PATCH /admin/users/{username}.
type EditUserOption struct {
	SourceID                *int64  `json:"source_id"`
	LoginName               *string `json:"login_name"`
	Email                   *string `json:"email" binding:"MaxSize(254)"`
	FullName                *string `json:"full_name" binding:"MaxSize(100)"`
	Password                string  `json:"password"`
	MustChangePassword      *bool   `json:"must_change_password"`
	Website                 *string `json:"website"`
	Location                *string `json:"location" binding:"MaxSize(50)"`
	Description             *string `json:"description"`
	Active                  *bool   `json:"active"`
	Admin                   *bool   `json:"admin"`
	AllowGitHook            *bool   `json:"allow_git_hook"`
	AllowImportLocal        *bool   `json:"allow_import_local"`
	MaxRepoCreation         *int    `json:"max_repo_creation"`
	ProhibitLogin           *bool   `json:"prohibit_login"`
	AllowCreateOrganization *bool   `json:"allow_create_organization"`
	Restricted              *bool   `json:"restricted"`
	Visibility              string  `json:"visibility"`
}

// RenameUserOption is the body of POST /admin/users/{username}/rename.
type RenameUserOption struct {
	NewName string `json:"new_username" binding:"MaxSize(40)"`
}

// UserSettings is Gitea's UserSettings.
type UserSettings struct {
	FullName      string `json:"full_name"`
	Website       string `json:"website"`
	Description   string `json:"description"`
	Location      string `json:"location"`
	Language      string `json:"language"`
	Theme         string `json:"theme"`
	DiffViewStyle string `json:"diff_view_style"`
	HideEmail     bool   `json:"hide_email"`
	HideActivity  bool   `json:"hide_activity"`
}

// UserSettingsOptions is the body of PATCH /user/settings.
type UserSettingsOptions struct {
	FullName      *string `json:"full_name" binding:"MaxSize(100)"`
	Website       *string `json:"website"`
	Description   *string `json:"description"`
	Location      *string `json:"location" binding:"MaxSize(50)"`
	Language      *string `json:"language"`
	Theme         *string `json:"theme"`
	DiffViewStyle *string `json:"diff_view_style"`
	HideEmail     *bool   `json:"hide_email"`
	HideActivity  *bool   `json:"hide_activity"`
}

// Email is Gitea's Email.
type Email struct {
	Email    string `json:"email"`
	Verified bool   `json:"verified"`
	Primary  bool   `json:"primary"`
	UserID   int64  `json:"user_id"`
	UserName string `json:"username"`
}

// CreateEmailOption is the body of POST /user/emails.
type CreateEmailOption struct {
	Emails []string `json:"emails" binding:"MaxSize(254)"`
}

// DeleteEmailOption is the body of DELETE /user/emails.
type DeleteEmailOption struct {
	Emails []string `json:"emails" binding:"MaxSize(254)"`
}

// PublicKey is Gitea's PublicKey.
type PublicKey struct {
	ID          int64      `json:"id"`
	Key         string     `json:"key"`
	URL         string     `json:"url,omitempty"`
	Title       string     `json:"title,omitempty"`
	Fingerprint string     `json:"fingerprint,omitempty"`
	Created     *time.Time `json:"created_at,omitempty"`
	Owner       *User      `json:"user,omitempty"`
	ReadOnly    bool       `json:"read_only,omitempty"`
	KeyType     string     `json:"key_type,omitempty"`
}

// CreateKeyOption is the body of POST /user/keys.
type CreateKeyOption struct {
	Title    string `json:"title"`
	Key      string `json:"key" binding:"Text"`
	ReadOnly bool   `json:"read_only"`
}

// AccessToken is Gitea's AccessToken.
type AccessToken struct {
	ID             int64    `json:"id"`
	Name           string   `json:"name"`
	Token          string   `json:"sha1"`
	TokenLastEight string   `json:"token_last_eight"`
	Scopes         []string `json:"scopes"`
}

// CreateAccessTokenOption is the body of POST /users/{username}/tokens.
type CreateAccessTokenOption struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

// UpdateUserAvatarOption is Gitea's UpdateUserAvatarOption.
type UpdateUserAvatarOption struct {
	Image string `json:"image" binding:"Text"`
}

// UpdateRepoAvatarOption is Gitea's UpdateRepoAvatarOption.
type UpdateRepoAvatarOption struct {
	Image string `json:"image" binding:"Text"`
}
