package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// profileSideLimit is how many organizations, members or teams a profile's
// side column lists.
const profileSideLimit = 30

// profileTab is one tab of a user's profile.
type profileTab struct {
	Key, Label string
	Count      int
	Active     bool
}

// userProfilePage is the data of a user's profile.
type userProfilePage struct {
	User *user.User
	// IsSelf: the visitor is this user; CanFollow: the visitor may follow
	// or unfollow them (Following tells which).
	IsSelf, CanFollow, Following bool
	// ShowEmail shows the address (signed-in visitors, unless it is kept private).
	ShowEmail bool
	Tab       string
	Tabs      []profileTab
	Keyword   string
	Repos     []*repo.Repository
	People    []*user.User
	Orgs      []*user.User
	Pager     pager
}

// orgProfilePage is the data of an organization's home page.
type orgProfilePage struct {
	Org     *user.User
	Role    access.OrgRole
	Keyword string
	Repos   []*repo.Repository
	Pager   pager
	// Members are those the visitor may see (all of them for members);
	// Teams are listed for members only.
	Members     []*user.User
	MemberCount int64
	Teams       []*org.Team
	TeamCount   int64
}

// visibleAccount loads the account named in the route: a missing name and
// one the visitor may not see are both not found.
func (h *Handler) visibleAccount(r *http.Request) (*user.User, error) {
	name := chi.URLParam(r, "username")
	u, err := h.Users.Store.GetByName(r.Context(), name)
	if err != nil {
		return nil, err
	}
	ok, err := h.Access.CanSeeOwner(r.Context(), doer(r), u)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errs.NotFound("user %s does not exist", name)
	}
	return u, nil
}

// profile serves /{username}: a user's profile or an organization's home.
func (h *Handler) profile(w http.ResponseWriter, r *http.Request) error {
	u, err := h.visibleAccount(r)
	if err != nil {
		return err
	}
	if u.IsOrganization() {
		return h.orgProfile(w, r, u)
	}
	return h.userProfile(w, r, u)
}

// userProfile shows u's details, organizations and one tab: their
// repositories (default), starred repositories, followers or following,
// each filtered to what the visitor may see.
func (h *Handler) userProfile(w http.ResponseWriter, r *http.Request, u *user.User) error {
	ctx := r.Context()
	d := doer(r)
	q := r.URL.Query()
	data := userProfilePage{User: u, IsSelf: d != nil && d.ID == u.ID, Keyword: strings.TrimSpace(q.Get("q")),
		ShowEmail: d != nil && (!u.KeepEmailPrivate || d.IsAdmin || d.ID == u.ID)}
	data.CanFollow = d != nil && !data.IsSelf
	tabs := []profileTab{{Key: "repositories", Label: "Repositories", Count: u.NumRepos}}
	if !h.Config.Repository.DisableStars {
		tabs = append(tabs, profileTab{Key: "stars", Label: "Stars", Count: u.NumStars})
	}
	tabs = append(tabs, profileTab{Key: "followers", Label: "Followers", Count: u.NumFollowers},
		profileTab{Key: "following", Label: "Following", Count: u.NumFollowing})
	data.Tab = tabs[0].Key
	for i := range tabs {
		if tabs[i].Key == q.Get("tab") {
			data.Tab = tabs[i].Key
		}
	}
	for i := range tabs {
		tabs[i].Active = tabs[i].Key == data.Tab
	}
	data.Tabs = tabs

	page := pageNumber(r)
	offset := (page - 1) * listPageSize
	var total int64
	var err error
	switch data.Tab {
	case "repositories", "stars":
		o := repo.SearchOptions{Keyword: data.Keyword, IncludeDesc: true, OwnerID: u.ID, Exclusive: true}
		order := "r.updated_unix DESC, r.id DESC"
		if data.Tab == "stars" {
			o = repo.SearchOptions{Keyword: data.Keyword, IncludeDesc: true, StarredBy: u.ID}
			order = "o.lower_name, r.lower_name"
		}
		where, args, cerr := o.Cond()
		if cerr != nil {
			return cerr
		}
		vis, visArgs := access.RepoCond(d)
		data.Repos, total, err = h.Repos.ListVisible(ctx, where, args, vis, visArgs, order, listPageSize, offset)
	default:
		sub := "u.id IN (SELECT f.user_id FROM follow f WHERE f.follow_id = ?)"
		if data.Tab == "following" {
			sub = "u.id IN (SELECT f.follow_id FROM follow f WHERE f.user_id = ?)"
		}
		cond, args := access.UserCond(d)
		data.People, total, err = h.Users.Store.ListPage(ctx, sub+" AND "+cond, append([]any{u.ID}, args...),
			"u.lower_name, u.id", listPageSize, offset)
	}
	if err != nil {
		return err
	}
	data.Pager = newPager(r, page, total)

	// Organizations: private memberships only for the user and site administrators.
	ocond, oargs := access.OrgCond(d)
	all := d != nil && (d.IsAdmin || d.ID == u.ID)
	if data.Orgs, _, err = h.Orgs.ListUserOrgs(ctx, u.ID, all, ocond, oargs, profileSideLimit, 0); err != nil {
		return err
	}
	if data.CanFollow {
		if data.Following, err = h.Users.IsFollowing(ctx, d.ID, u.ID); err != nil {
			return err
		}
	}
	title := u.Name
	if u.FullName != "" {
		title = u.FullName + " (" + u.Name + ")"
	}
	return h.render(w, r, http.StatusOK, "profile_user", title, data)
}

// orgProfile shows an organization's repositories the visitor may see, the
// members the visitor may see and, for members, its teams.
func (h *Handler) orgProfile(w http.ResponseWriter, r *http.Request, o *user.User) error {
	ctx := r.Context()
	d := doer(r)
	role, err := h.Access.RoleInOrg(ctx, d, o)
	if err != nil {
		return err
	}
	data := orgProfilePage{Org: o, Role: role, Keyword: strings.TrimSpace(r.URL.Query().Get("q"))}
	where, args, err := repo.SearchOptions{Keyword: data.Keyword, IncludeDesc: true, OwnerID: o.ID, Exclusive: true}.Cond()
	if err != nil {
		return err
	}
	vis, visArgs := access.RepoCond(d)
	page := pageNumber(r)
	var total int64
	if data.Repos, total, err = h.Repos.ListVisible(ctx, where, args, vis, visArgs, "r.updated_unix DESC, r.id DESC",
		listPageSize, (page-1)*listPageSize); err != nil {
		return err
	}
	data.Pager = newPager(r, page, total)

	// Members see every member; others the public members they may see (as
	// the API's GET /orgs/{org}/members).
	insider := role.Member || (d != nil && d.IsAdmin)
	mwhere, margs := "u.id IN (SELECT om.uid FROM org_user om WHERE om.org_id = ?)", []any{o.ID}
	if !insider {
		cond, cargs := access.UserCond(d)
		mwhere = "u.id IN (SELECT om.uid FROM org_user om WHERE om.org_id = ? AND om.is_public = ?) AND " + cond
		margs = append([]any{o.ID, true}, cargs...)
	}
	if data.Members, data.MemberCount, err = h.Users.Store.ListPage(ctx, mwhere, margs, "u.lower_name, u.id", profileSideLimit, 0); err != nil {
		return err
	}
	if insider {
		if data.Teams, data.TeamCount, err = h.Orgs.ListOrgTeams(ctx, o, profileSideLimit, 0); err != nil {
			return err
		}
	}
	title := o.Name
	if o.FullName != "" {
		title = o.FullName + " (" + o.Name + ")"
	}
	return h.render(w, r, http.StatusOK, "profile_org", title, data)
}

// followAction serves POST /{username} with action=follow or unfollow.
func (h *Handler) followAction(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	u, err := h.visibleAccount(r)
	if err != nil {
		return err
	}
	if u.IsOrganization() {
		return errs.NotFound("no such page")
	}
	switch r.PostFormValue("action") {
	case "follow":
		err = h.Users.Follow(r.Context(), doer(r), u)
	case "unfollow":
		err = h.Users.Unfollow(r.Context(), doer(r), u)
	default:
		return errs.Invalid("unknown action %q", r.PostFormValue("action"))
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/"+url.PathEscape(u.Name), http.StatusSeeOther)
	return nil
}
