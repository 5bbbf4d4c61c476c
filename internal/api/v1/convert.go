package v1

import (
	"net/http"
	"net/url"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/user"
)

// viewer is the caller as far as visibility goes: nil when signed out or when
// the token is limited to public data.
func viewer(r *http.Request) *user.User {
	id := identity(r)
	if id == nil {
		return nil
	}
	if id.Token != nil && id.Token.Scope.PublicOnly {
		return nil
	}
	return id.User
}

func (a *API) avatarURL(u *user.User) string {
	if u.Avatar != "" {
		return a.rootURL + "avatars/custom/" + u.Avatar
	}
	return a.rootURL + "avatars/" + url.PathEscape(u.LowerName)
}

// toUser renders u as seen by v (nil: signed out). Private fields are filled
// only for the user themself and site administrators; the real e-mail is
// shown to signed-in callers unless the user hides it.
func (a *API) toUser(u *user.User, v *user.User) *types.User {
	if u == nil {
		return nil
	}
	authed := v != nil && (v.IsAdmin || v.ID == u.ID)
	out := &types.User{
		ID: u.ID, UserName: u.Name, CompatUserName: u.Name, FullName: u.FullName,
		AvatarURL: a.avatarURL(u), HTMLURL: a.rootURL + url.PathEscape(u.Name),
		Created: types.Time(u.Created), Restricted: u.IsRestricted, Location: u.Location, Website: u.Website,
		Description: u.Description, Visibility: u.Visibility.String(),
		Followers: u.NumFollowers, Following: u.NumFollowing, StarredRepos: u.NumStars,
		Email: u.LowerName + "@" + a.noReply,
	}
	if u.IsGhost() {
		out.HTMLURL = a.rootURL
		return out
	}
	if v != nil && (!u.KeepEmailPrivate || authed) {
		out.Email = u.Email
	}
	if authed {
		out.IsAdmin = u.IsAdmin
		out.LoginName = u.LoginName
		out.SourceID = u.LoginSource
		out.LastLogin = types.Time(u.LastLogin)
		out.Language = u.Language
		out.IsActive = u.IsActive
		out.ProhibitLogin = u.ProhibitLogin
	}
	return out
}

func (a *API) toUsers(list []*user.User, v *user.User) []*types.User {
	out := make([]*types.User, 0, len(list))
	for _, u := range list {
		out = append(out, a.toUser(u, v))
	}
	return out
}

// toOrg renders an organization; the e-mail is hidden from signed-out callers.
func (a *API) toOrg(o *user.User, v *user.User) *types.Organization {
	if o == nil {
		return nil
	}
	out := &types.Organization{
		ID: o.ID, Name: o.Name, UserName: o.Name, FullName: o.FullName, AvatarURL: a.avatarURL(o),
		Description: o.Description, Website: o.Website, Location: o.Location,
		Visibility: o.Visibility.String(), RepoAdminChangeTeamAccess: o.RepoAdminChangeTeamAccess,
	}
	if v != nil {
		out.Email = o.Email
	}
	return out
}

func (a *API) toOrgs(list []*user.User, v *user.User) []*types.Organization {
	out := make([]*types.Organization, 0, len(list))
	for _, o := range list {
		out = append(out, a.toOrg(o, v))
	}
	return out
}

func (a *API) toKey(k *user.PublicKey, owner *user.User, v *user.User) *types.PublicKey {
	created := k.Created
	out := &types.PublicKey{
		ID: k.ID, Key: k.Content, URL: a.rootURL + "api/v1/user/keys/" + itoa(k.ID), Title: k.Name,
		Fingerprint: k.Fingerprint, Created: &created,
	}
	if v != nil && (v.IsAdmin || v.ID == k.OwnerID) {
		out.Owner = a.toUser(owner, v)
		out.ReadOnly = k.ReadOnly
		out.KeyType = k.KeyType
	}
	return out
}
