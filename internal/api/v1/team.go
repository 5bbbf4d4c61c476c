package v1

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// teamRoutes adds an organization's teams (/orgs/{org}/teams) and single
// teams (/teams/{id}) with their members and repositories; every one of them
// needs a signed-in caller.
func (a *API) teamRoutes(r chi.Router) {
	r.Get("/orgs/{org}/teams", a.listOrgTeams)
	r.Post("/orgs/{org}/teams", a.createTeam)
	r.Get("/orgs/{org}/teams/search", a.searchTeams)
	r.Get("/teams/{id}", a.getTeam)
	r.Patch("/teams/{id}", a.editTeam)
	r.Delete("/teams/{id}", a.deleteTeam)
	r.Get("/teams/{id}/members", a.listTeamMembers)
	r.Get("/teams/{id}/members/{username}", a.getTeamMember)
	r.Put("/teams/{id}/members/{username}", a.addTeamMember)
	r.Delete("/teams/{id}/members/{username}", a.removeTeamMember)
	r.Get("/teams/{id}/repos", a.listTeamRepos)
	r.Get("/teams/{id}/repos/{org}/{repo}", a.getTeamRepo)
	r.Put("/teams/{id}/repos/{org}/{repo}", a.addTeamRepo)
	r.Delete("/teams/{id}/repos/{org}/{repo}", a.removeTeamRepo)
}

// toTeam renders t; o (its organization) may be nil, as in organization team lists.
func (a *API) toTeam(t *org.Team, o *user.User, v *user.User) *types.Team {
	units := t.UnitNames()
	if units == nil {
		units = []string{}
	}
	out := &types.Team{
		ID: t.ID, Name: t.Name, Description: t.Description, IncludesAllRepositories: t.IncludesAllRepositories,
		Permission: t.Authorize.String(), Units: units, UnitsMap: t.UnitsMap(), CanCreateOrgRepo: t.CanCreateOrgRepo,
	}
	if o != nil {
		out.Organization = a.toOrg(o, v)
	}
	return out
}

// teamCtx is a team loaded for a /teams/{id} route, with its organization and
// the caller's role there.
type teamCtx struct {
	team *org.Team
	org  *user.User
	role access.OrgRole
}

// loadTeam loads the team named by {id} for a caller who is in it, owns its
// organization or is a site administrator. Other members of the organization
// get 403, everyone else the answer for a team that does not exist.
func (a *API) loadTeam(w http.ResponseWriter, r *http.Request) (*teamCtx, bool) {
	id, ok := a.pathID(w, r, "id")
	if !ok {
		return nil, false
	}
	ctx := r.Context()
	t, err := a.Orgs.GetTeam(ctx, id)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	o, err := a.Orgs.GetByID(ctx, t.OrgID)
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	role, ok := a.orgRole(w, r, o)
	if !ok {
		return nil, false
	}
	if !role.Owner {
		in, err := a.Orgs.IsTeamMember(ctx, t.ID, doer(r).ID)
		if err != nil {
			a.fail(w, r, err)
			return nil, false
		}
		if !in {
			if role.Member {
				a.errorJSON(w, http.StatusForbidden, "Must be a team member")
			} else {
				a.fail(w, r, org.ErrTeamNotExist(id))
			}
			return nil, false
		}
	}
	if id := identity(r); id.Token != nil && id.Token.Scope.PublicOnly && o.Visibility != user.VisibilityPublic {
		a.errorJSON(w, http.StatusForbidden, "token scope is limited to public orgs")
		return nil, false
	}
	return &teamCtx{team: t, org: o, role: role}, true
}

// loadTeamAsOwner is loadTeam for changes: only owners of the team's
// organization (and site administrators) pass; others get 404.
func (a *API) loadTeamAsOwner(w http.ResponseWriter, r *http.Request) (*teamCtx, bool) {
	tc, ok := a.loadTeam(w, r)
	if !ok {
		return nil, false
	}
	if !tc.role.Owner {
		a.notFound(w, r)
		return nil, false
	}
	return tc, true
}

var alphaDashDot = regexp.MustCompile(`^[0-9A-Za-z_.-]+$`)

// teamName checks a team name against Gitea's bindings (AlphaDashDot, MaxSize(255)).
func teamName(name string) error {
	if err := maxLen("name", name, 255); err != nil {
		return err
	}
	if !alphaDashDot.MatchString(name) {
		return errs.InvalidField("name", "[Name]: AlphaDashDot (only letters, digits, dash, underscore and dot are allowed)")
	}
	return nil
}

// teamPermission reads a team permission: read, write or admin.
func teamPermission(s string) (access.Mode, error) {
	switch m, _ := access.ParseMode(s); m {
	case access.ModeRead, access.ModeWrite, access.ModeAdmin:
		return m, nil
	}
	return access.ModeNone, errs.InvalidField("permission", "[Permission]: In (must be one of read, write, admin; got %q)", s)
}

// createTeam serves POST /orgs/{org}/teams (owners).
func (a *API) createTeam(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok || !a.requireOrgOwner(w, r, o) {
		return
	}
	var in types.CreateTeamOption
	if err := decode(r, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	err := required("name", in.Name)
	if err == nil {
		err = firstErr(teamName(in.Name), maxLen("description", in.Description, 255))
	}
	perm := access.ModeNone
	// The permission may be left out when a units map gives it.
	if err == nil && (in.Permission != "" || len(in.UnitsMap) == 0) {
		perm, err = teamPermission(in.Permission)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	t, err := a.Orgs.CreateTeam(r.Context(), o, org.CreateTeamOptions{
		Name: in.Name, Description: strings.TrimSpace(in.Description), Permission: perm, Units: in.Units,
		UnitsMap: in.UnitsMap, IncludesAllRepositories: in.IncludesAllRepositories, CanCreateOrgRepo: in.CanCreateOrgRepo,
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, a.toTeam(t, o, doer(r)))
}

// listOrgTeams serves GET /orgs/{org}/teams (members).
func (a *API) listOrgTeams(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok || !a.requireOrgMember(w, r, o) {
		return
	}
	pg := a.paging(r)
	list, total, err := a.Orgs.ListOrgTeams(r.Context(), o, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, a.toTeams(list, nil, doer(r)))
}

// toTeams renders teams; orgs (may be nil) gives their organizations by id.
func (a *API) toTeams(list []*org.Team, orgs map[int64]*user.User, v *user.User) []*types.Team {
	out := make([]*types.Team, 0, len(list))
	for _, t := range list {
		out = append(out, a.toTeam(t, orgs[t.OrgID], v))
	}
	return out
}

// searchTeams serves GET /orgs/{org}/teams/search (members): q matches the
// name and, unless include_desc=false, the description.
func (a *API) searchTeams(w http.ResponseWriter, r *http.Request) {
	o, ok := a.loadOrg(w, r)
	if !ok || !a.requireOrgMember(w, r, o) {
		return
	}
	pg := a.paging(r)
	q := r.URL.Query()
	includeDesc := q.Get("include_desc") == "" || queryBool(r, "include_desc")
	list, total, err := a.Orgs.SearchTeams(r.Context(), o, q.Get("q"), includeDesc, pg.Limit, pg.Offset())
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"ok": false, "error": "could not search teams"})
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, types.TeamSearchResult{OK: true, Data: a.toTeams(list, nil, doer(r))})
}

// listMyTeams serves GET /user/teams: the caller's teams in every
// organization (only public ones for a token limited to public data), each
// with its organization (loaded in one batch).
func (a *API) listMyTeams(w http.ResponseWriter, r *http.Request) {
	pg := a.paging(r)
	cond, args := access.OrgCond(viewer(r))
	list, orgs, total, err := a.Orgs.ListUserTeams(r.Context(), doer(r).ID, cond, args, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, a.toTeams(list, orgs, doer(r)))
}

// getTeam serves GET /teams/{id}.
func (a *API) getTeam(w http.ResponseWriter, r *http.Request) {
	if tc, ok := a.loadTeam(w, r); ok {
		writeJSON(w, http.StatusOK, a.toTeam(tc.team, tc.org, doer(r)))
	}
}

// editTeam serves PATCH /teams/{id} (owners): omitted fields stay unchanged.
func (a *API) editTeam(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeamAsOwner(w, r)
	if !ok {
		return
	}
	var in types.EditTeamOption
	if err := decode(r, &in); err != nil {
		a.fail(w, r, err)
		return
	}
	opts := org.EditTeamOptions{
		Name: in.Name, Units: in.Units, UnitsMap: in.UnitsMap,
		IncludesAllRepositories: in.IncludesAllRepositories, CanCreateOrgRepo: in.CanCreateOrgRepo,
	}
	var err error
	if in.Name != nil && *in.Name != "" {
		err = teamName(*in.Name)
	}
	if err == nil && in.Description != nil {
		d := strings.TrimSpace(*in.Description)
		opts.Description = &d
		err = maxLen("description", d, 255)
	}
	if err == nil && in.Permission != nil && *in.Permission != "" {
		var m access.Mode
		m, err = teamPermission(*in.Permission)
		opts.Permission = &m
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	t, err := a.Orgs.EditTeam(r.Context(), tc.team, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toTeam(t, tc.org, doer(r)))
}

// deleteTeam serves DELETE /teams/{id} (owners); the Owners team stays.
func (a *API) deleteTeam(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeamAsOwner(w, r)
	if !ok {
		return
	}
	if err := a.Orgs.DeleteTeam(r.Context(), tc.team); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// listTeamMembers serves GET /teams/{id}/members.
func (a *API) listTeamMembers(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeam(w, r)
	if !ok {
		return
	}
	pg := a.paging(r)
	list, total, err := a.Orgs.ListTeamMembers(r.Context(), tc.team, pg.Limit, pg.Offset())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, a.toUsers(list, doer(r)))
}

// getTeamMember serves GET /teams/{id}/members/{username}: the user when in
// the team, else 404.
func (a *API) getTeamMember(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeam(w, r)
	if !ok {
		return
	}
	u, ok := a.visibleUserNamed(w, r, chi.URLParam(r, "username"), a.orgMemberRelation(tc.org.ID))
	if !ok {
		return
	}
	in, err := a.Orgs.IsTeamMember(r.Context(), tc.team.ID, u.ID)
	if err == nil && !in {
		err = errs.NotFound("user %s is not a member of team %s", u.Name, tc.team.Name)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.toUser(u, doer(r)))
}

// addTeamMember serves PUT /teams/{id}/members/{username} (owners).
func (a *API) addTeamMember(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeamAsOwner(w, r)
	if !ok {
		return
	}
	u, ok := a.visibleUserNamed(w, r, chi.URLParam(r, "username"), a.orgMemberRelation(tc.org.ID))
	if !ok {
		return
	}
	if err := a.Orgs.AddTeamMember(r.Context(), tc.team, u.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// removeTeamMember serves DELETE /teams/{id}/members/{username} (owners).
func (a *API) removeTeamMember(w http.ResponseWriter, r *http.Request) {
	tc, ok := a.loadTeamAsOwner(w, r)
	if !ok {
		return
	}
	u, ok := a.visibleUserNamed(w, r, chi.URLParam(r, "username"), a.orgMemberRelation(tc.org.ID))
	if !ok {
		return
	}
	if err := a.Orgs.RemoveTeamMember(r.Context(), tc.team, u.ID); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}
