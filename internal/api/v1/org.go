package v1

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// userOrgRoutes adds the signed-in user's organizations and teams to /user.
func (a *API) userOrgRoutes(r chi.Router) {
	r.With(a.scope(auth.CatUser, auth.CatOrganization)).Get("/orgs", a.listMyOrgs)
	r.Get("/teams", a.listMyTeams)
}

// usersOrgRoutes adds a user's organizations to /users.
func (a *API) usersOrgRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.scope(auth.CatUser, auth.CatOrganization))
		r.Get("/{username}/orgs", a.listUserOrgs)
		r.Get("/{username}/orgs/{org}/permissions", a.getOrgPermissions)
	})
}

// adminOrgRoutes adds organization administration to /admin.
func (a *API) adminOrgRoutes(r chi.Router) {
	r.Get("/orgs", a.adminListOrgs)
	r.Post("/users/{username}/orgs", a.adminCreateOrg)
}

// orgRoutes adds /orgs and /teams. Paths are registered flat (no sub-router
// on /orgs/{org}) so other resources can add their own routes below it.
func (a *API) orgRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.scope(auth.CatOrganization))
		r.Get("/orgs", a.listOrgs)
		r.Get("/orgs/{org}", a.getOrg)
		r.Get("/orgs/{org}/public_members", a.listPublicMembers)
		r.Get("/orgs/{org}/public_members/{username}", a.checkPublicMember)
		r.Group(func(r chi.Router) {
			r.Use(a.signedIn)
			r.Post("/orgs", a.createOrg)
			r.Patch("/orgs/{org}", a.editOrg)
			r.Delete("/orgs/{org}", a.deleteOrg)
			r.Post("/orgs/{org}/avatar", a.setOrgAvatar(true))
			r.Delete("/orgs/{org}/avatar", a.setOrgAvatar(false))
			r.Get("/orgs/{org}/members", a.listMembers)
			r.Get("/orgs/{org}/members/{username}", a.checkMember)
			r.Delete("/orgs/{org}/members/{username}", a.removeMember)
			r.Put("/orgs/{org}/public_members/{username}", a.publicizeMember)
			r.Delete("/orgs/{org}/public_members/{username}", a.concealMember)
			a.teamRoutes(r)
		})
	})
}

// loadOrg loads the organization named by the {org} path parameter. It answers
// 404 when there is none or the caller may not see it, and 403 when the
// caller's token is limited to public data and the organization is not public.
func (a *API) loadOrg(w http.ResponseWriter, r *http.Request) (*user.User, bool) {
	name := chi.URLParam(r, "org")
	o, err := a.Orgs.GetByName(r.Context(), name)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	if !a.orgVisible(w, r, o, name) {
		return nil, false
	}
	return o, true
}

// orgVisible answers (and returns false) unless the caller may see o, which
// the caller called name; see loadOrg.
func (a *API) orgVisible(w http.ResponseWriter, r *http.Request, o *user.User, name string) bool {
	ctx := r.Context()
	ok, err := a.Access.CanSeeOrg(ctx, viewer(r), o)
	if err != nil {
		a.fail(w, r, err)
		return false
	}
	if ok {
		return true
	}
	// A public-only token of someone who may see the organization is told why.
	if id := identity(r); id != nil && id.Token != nil && id.Token.Scope.PublicOnly {
		if full, err := a.Access.CanSeeOrg(ctx, id.User, o); err == nil && full {
			a.errorJSON(w, http.StatusForbidden, "token scope is limited to public orgs")
			return false
		}
	}
	a.fail(w, r, org.ErrNameNotExist(name))
	return false
}

// orgRole is the signed-in caller's role in o (site administrators are owners).
func (a *API) orgRole(w http.ResponseWriter, r *http.Request, o *user.User) (access.OrgRole, bool) {
	role, err := a.Access.RoleInOrg(r.Context(), doer(r), o)
	if err != nil {
		a.fail(w, r, err)
		return role, false
	}
	return role, true
}

// requireOrgOwner answers 403 unless the caller owns o or is a site administrator.
func (a *API) requireOrgOwner(w http.ResponseWriter, r *http.Request, o *user.User) bool {
	role, ok := a.orgRole(w, r, o)
	if !ok {
		return false
	}
	if !role.Owner {
		a.errorJSON(w, http.StatusForbidden, "Must be an organization owner")
		return false
	}
	return true
}

// requireOrgMember answers 403 unless the caller belongs to o or is a site administrator.
func (a *API) requireOrgMember(w http.ResponseWriter, r *http.Request, o *user.User) bool {
	if isAdmin(r) {
		return true
	}
	role, ok := a.orgRole(w, r, o)
	if !ok {
		return false
	}
	if !role.Member {
		a.errorJSON(w, http.StatusForbidden, "Must be an organization member")
		return false
	}
	return true
}

// orgOptions checks the fields shared by CreateOrgOption and EditOrgOption
// against Gitea's bindings.
func orgOptions(fullName, email, description, website, location string) error {
	return firstErr(
		maxLen("full_name", fullName, 100),
		maxLen("email", email, 255),
		maxLen("description", description, 255),
		maxLen("website", website, 255),
		validWebsite(website),
		maxLen("location", location, 50),
	)
}

// createOrgFrom validates a CreateOrgOption and turns it into service options.
func createOrgFrom(o types.CreateOrgOption) (org.CreateOptions, error) {
	if strings.TrimSpace(o.UserName) == "" {
		return org.CreateOptions{}, errs.InvalidField("username", "[UserName]: Required")
	}
	if len([]rune(o.UserName)) > user.MaxNameLength {
		return org.CreateOptions{}, errs.InvalidField("username", "[UserName]: MaxSize (at most %d characters)", user.MaxNameLength)
	}
	opts := org.CreateOptions{
		Name: o.UserName, FullName: strings.TrimSpace(o.FullName), Email: strings.TrimSpace(o.Email),
		Description: strings.TrimSpace(o.Description), Website: strings.TrimSpace(o.Website),
		Location: strings.TrimSpace(o.Location), RepoAdminChangeTeamAccess: o.RepoAdminChangeTeamAccess,
	}
	var err error
	opts.Visibility, err = parseVisibility(o.Visibility, user.VisibilityPublic)
	if err == nil {
		err = orgOptions(opts.FullName, opts.Email, opts.Description, opts.Website, opts.Location)
	}
	return opts, err
}

// createOrgFor decodes a CreateOrgOption and creates the organization owned by owner.
func (a *API) createOrgFor(w http.ResponseWriter, r *http.Request, owner *user.User) {
	var o types.CreateOrgOption
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	opts, err := createOrgFrom(o)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	created, err := a.Orgs.Create(r.Context(), owner, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, a.toOrg(created, doer(r)))
}

// createOrg serves POST /orgs. Site administrators may always create
// organizations; others need the allow_create_organization flag and must not
// be restricted.
func (a *API) createOrg(w http.ResponseWriter, r *http.Request) {
	d := doer(r)
	if !d.IsAdmin && (!d.AllowCreateOrganization || d.IsRestricted) {
		a.errorJSON(w, http.StatusForbidden, "user is not allowed to create organizations")
		return
	}
	a.createOrgFor(w, r, d)
}

// adminCreateOrg serves POST /admin/users/{username}/orgs.
func (a *API) adminCreateOrg(w http.ResponseWriter, r *http.Request) {
	if owner, ok := a.adminTarget(w, r); ok {
		a.createOrgFor(w, r, owner)
	}
}

// writeOrgs writes one page of organizations.
func (a *API) writeOrgs(w http.ResponseWriter, r *http.Request, pg page, list []*user.User, total int64) {
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, a.toOrgs(list, doer(r)))
}

// listOrgs serves GET /orgs: the organizations the caller may see.
func (a *API) listOrgs(w http.ResponseWriter, r *http.Request) {
	pg := a.paging(r)
	cond, args := access.OrgCond(viewer(r))
	list, total, err := a.Orgs.SearchOrgs(r.Context(), cond, args, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeOrgs(w, r, pg, list, total)
}

// adminListOrgs serves GET /admin/orgs: every organization.
func (a *API) adminListOrgs(w http.ResponseWriter, r *http.Request) {
	pg := a.paging(r)
	list, total, err := a.Orgs.SearchOrgs(r.Context(), "", nil, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeOrgs(w, r, pg, list, total)
}

// listOrgsOf writes the organizations u belongs to, as the caller may see
// them: private memberships only for u himself and site administrators.
func (a *API) listOrgsOf(w http.ResponseWriter, r *http.Request, u *user.User) {
	pg := a.paging(r)
	d := doer(r)
	all := d != nil && (d.IsAdmin || d.ID == u.ID)
	cond, args := access.OrgCond(viewer(r))
	list, total, err := a.Orgs.ListUserOrgs(r.Context(), u.ID, all, cond, args, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeOrgs(w, r, pg, list, total)
}

// listMyOrgs serves GET /user/orgs.
func (a *API) listMyOrgs(w http.ResponseWriter, r *http.Request) {
	a.listOrgsOf(w, r, doer(r))
}

// listUserOrgs serves GET /users/{username}/orgs.
func (a *API) listUserOrgs(w http.ResponseWriter, r *http.Request) {
	if u, ok := a.loadVisibleUser(w, r); ok {
		a.listOrgsOf(w, r, u)
	}
}

// getOrgPermissions serves GET /users/{username}/orgs/{org}/permissions: what
// the user (not the caller) may do in the organization, from the user's teams.
func (a *API) getOrgPermissions(w http.ResponseWriter, r *http.Request) {
	u, ok := a.loadVisibleUser(w, r)
	if !ok {
		return
	}
	o, ok := a.loadOrg(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	// The organization must also be visible to the user asked about.
	seen, err := a.Access.CanSeeOrg(ctx, u, o)
	if err == nil && !seen {
		err = org.ErrNameNotExist(chi.URLParam(r, "org"))
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// Permissions come from team membership: being a site administrator
	// does not make the user an owner here.
	member := *u
	member.IsAdmin = false
	role, err := a.Access.RoleInOrg(ctx, &member, o)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, types.OrganizationPermissions{
		IsOwner: role.Owner, IsAdmin: role.Admin, CanWrite: role.Write, CanRead: role.Member,
		CanCreateRepository: role.CanCreateRepo,
	})
}

// getOrg serves GET /orgs/{org}.
func (a *API) getOrg(w http.ResponseWriter, r *http.Request) {
	if o, ok := a.loadOrg(w, r); ok {
		writeJSON(w, http.StatusOK, a.toOrg(o, doer(r)))
	}
}

// editOrg serves PATCH /orgs/{org}.
func (a *API) editOrg(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok || !a.requireOrgOwner(w, r, o) {
		return
	}
	var in types.EditOrgOption
	if err := decode(r, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	trimmed := func(p *string) *string {
		if p == nil {
			return nil
		}
		s := strings.TrimSpace(*p)
		return &s
	}
	opts := org.EditOptions{
		FullName: trimmed(in.FullName), Email: trimmed(in.Email), Description: trimmed(in.Description),
		Website: trimmed(in.Website), Location: trimmed(in.Location), RepoAdminChangeTeamAccess: in.RepoAdminChangeTeamAccess,
	}
	err := orgOptions(str(opts.FullName), str(opts.Email), str(opts.Description), str(opts.Website), str(opts.Location))
	if err == nil && in.Visibility != nil && *in.Visibility != "" {
		var v user.Visibility
		v, err = parseVisibility(*in.Visibility, o.Visibility)
		opts.Visibility = &v
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	updated, err := a.Orgs.Edit(r.Context(), o, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toOrg(updated, doer(r)))
}

// deleteOrg serves DELETE /orgs/{org}.
func (a *API) deleteOrg(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok || !a.requireOrgOwner(w, r, o) {
		return
	}
	if err := a.Orgs.Delete(r.Context(), o); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// listOrgMembers writes o's members: all of them, or only the public members
// the caller may see.
func (a *API) listOrgMembers(w http.ResponseWriter, r *http.Request, o *user.User, all bool) {
	where := "u.id IN (SELECT om.uid FROM org_user om WHERE om.org_id = ?)"
	args := []any{o.ID}
	if !all {
		cond, cargs := access.UserCond(viewer(r))
		where = "u.id IN (SELECT om.uid FROM org_user om WHERE om.org_id = ? AND om.is_public = ?) AND " + cond
		args = append([]any{o.ID, true}, cargs...)
	}
	a.listUsersWhere(w, r, a.paging(r), where, args, "u.lower_name, u.id", nil)
}

// listMembers serves GET /orgs/{org}/members: members (and site
// administrators) see every member, others the public ones.
func (a *API) listMembers(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok {
		return
	}
	role, ok := a.orgRole(w, r, o)
	if !ok {
		return
	}
	a.listOrgMembers(w, r, o, role.Member || isAdmin(r))
}

// listPublicMembers serves GET /orgs/{org}/public_members.
func (a *API) listPublicMembers(w http.ResponseWriter, r *http.Request) {
	if o, ok := a.loadOrg(w, r); ok {
		a.listOrgMembers(w, r, o, false)
	}
}

// checkMember serves GET /orgs/{org}/members/{username}. Members and site
// administrators learn the answer (204 or 404); a non-member asking about
// someone else is sent to the public membership check, about himself gets 404.
func (a *API) checkMember(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok {
		return
	}
	role, ok := a.orgRole(w, r, o)
	if !ok {
		return
	}
	d := doer(r)
	var known []relation
	if role.Member {
		known = append(known, a.orgMemberRelation(o.ID))
	}
	target, ok := a.visibleUserNamed(w, r, chi.URLParam(r, "username"), known...)
	if !ok {
		return
	}
	if !role.Member && !d.IsAdmin {
		if target.ID == d.ID {
			a.fail(w, r, errs.NotFound("user %s is not a member of %s", target.Name, o.Name))
			return
		}
		prefix := "/"
		if u, err := url.Parse(a.rootURL); err == nil && u.Path != "" {
			prefix = u.Path
		}
		http.Redirect(w, r, prefix+"api/v1/orgs/"+url.PathEscape(o.Name)+"/public_members/"+url.PathEscape(target.Name), http.StatusSeeOther)
		return
	}
	a.answerMembership(w, r, o, target, false)
}

// answerMembership writes 204 when u is a (public) member of o, else 404.
func (a *API) answerMembership(w http.ResponseWriter, r *http.Request, o, u *user.User, public bool) {
	check := a.Orgs.IsMember
	if public {
		check = a.Orgs.IsPublicMember
	}
	in, err := check(r.Context(), o.ID, u.ID)
	if err == nil && !in {
		err = errs.NotFound("user %s is not a member of %s", u.Name, o.Name)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// checkPublicMember serves GET /orgs/{org}/public_members/{username}.
func (a *API) checkPublicMember(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok {
		return
	}
	if target, ok := a.loadVisibleUser(w, r); ok {
		a.answerMembership(w, r, o, target, true)
	}
}

// removeMember serves DELETE /orgs/{org}/members/{username} (owners).
func (a *API) removeMember(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok || !a.requireOrgOwner(w, r, o) {
		return
	}
	target, ok := a.visibleUserNamed(w, r, chi.URLParam(r, "username"), a.orgMemberRelation(o.ID))
	if !ok {
		return
	}
	if err := a.Orgs.RemoveMember(r.Context(), o, target.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// setPublicMembership serves PUT and DELETE /orgs/{org}/public_members/{username}:
// a member shows or hides his own membership.
func (a *API) setPublicMembership(w http.ResponseWriter, r *http.Request, public bool) {
	o, ok := a.loadOrg(w, r)
	if !ok || !a.requireOrgMember(w, r, o) {
		return
	}
	target, ok := a.visibleUserNamed(w, r, chi.URLParam(r, "username"), a.orgMemberRelation(o.ID))
	if !ok {
		return
	}
	if target.ID != doer(r).ID {
		msg := "Cannot publicize another member"
		if !public {
			msg = "Cannot conceal another member"
		}
		a.errorJSON(w, http.StatusForbidden, msg)
		return
	}
	if err := a.Orgs.SetPublicMembership(r.Context(), o, target.ID, public); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

func (a *API) publicizeMember(w http.ResponseWriter, r *http.Request) {
	a.setPublicMembership(w, r, true)
}

func (a *API) concealMember(w http.ResponseWriter, r *http.Request) {
	a.setPublicMembership(w, r, false)
}
