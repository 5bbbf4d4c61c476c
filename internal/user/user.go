// Package user owns accounts: users and the shared owner record of
// organizations, their e-mail addresses, SSH keys, follows and the rules for
// names, e-mails and passwords.
package user

import (
	"strings"
	"time"
)

// Type tells individual users from organizations; both share one table so that
// names are unique across them and repositories have one kind of owner.
type Type int

// The owner types.
const (
	TypeIndividual   Type = 0
	TypeOrganization Type = 1
)

// Visibility of a user or organization.
type Visibility int

// The visibility levels.
const (
	VisibilityPublic  Visibility = 0
	VisibilityLimited Visibility = 1
	VisibilityPrivate Visibility = 2
)

func (v Visibility) String() string {
	switch v {
	case VisibilityLimited:
		return "limited"
	case VisibilityPrivate:
		return "private"
	default:
		return "public"
	}
}

// ParseVisibility reads "public", "limited" or "private".
func ParseVisibility(s string) (Visibility, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "public":
		return VisibilityPublic, true
	case "limited":
		return VisibilityLimited, true
	case "private":
		return VisibilityPrivate, true
	}
	return 0, false
}

// GhostID is the id Gitea shows for the author of content whose account was deleted.
const GhostID int64 = -1

// User is an account or an organization.
type User struct {
	ID                        int64
	Type                      Type
	Name                      string
	LowerName                 string
	FullName                  string
	Email                     string
	KeepEmailPrivate          bool
	PasswdHash                string
	MustChangePassword        bool
	LoginType                 int
	LoginSource               int64
	LoginName                 string
	IsAdmin                   bool
	IsRestricted              bool
	IsActive                  bool
	ProhibitLogin             bool
	Visibility                Visibility
	Location                  string
	Website                   string
	Description               string
	Language                  string
	Theme                     string
	DiffViewStyle             string
	HideActivity              bool
	AllowGitHook              bool
	AllowImportLocal          bool
	AllowCreateOrganization   bool
	MaxRepoCreation           int
	RepoAdminChangeTeamAccess bool
	NumFollowers              int
	NumFollowing              int
	NumStars                  int
	NumRepos                  int
	Created                   time.Time
	Updated                   time.Time
	LastLogin                 time.Time
	// Avatar is the file name of an uploaded avatar, "" for the default one.
	Avatar string
}

// IsOrganization reports whether u is an organization.
func (u *User) IsOrganization() bool { return u.Type == TypeOrganization }

// IsGhost reports whether u stands in for a deleted account.
func (u *User) IsGhost() bool { return u.ID == GhostID }

// CanSignIn reports whether the account may authenticate at all.
func (u *User) CanSignIn() bool {
	return u.Type == TypeIndividual && u.IsActive && !u.ProhibitLogin
}

// Ghost returns the placeholder user for content whose author was deleted.
func Ghost() *User {
	return &User{ID: GhostID, Name: "Ghost", LowerName: "ghost", FullName: "", IsActive: true}
}
