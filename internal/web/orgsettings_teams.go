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

// teamRow is one team of the teams page.
type teamRow struct {
	Team *org.Team
	Link string
	// CanOpen: the visitor is in the team or owns the organization.
	CanOpen bool
}

// orgTeamsPage is the data of /org/{org}/teams.
type orgTeamsPage struct {
	Teams     []teamRow
	Pager     pager
	CanManage bool
}

// teamLink is the page of team t of organization oc.
func teamLink(oc *orgCtx, t *org.Team) string {
	return oc.Link + "/teams/" + url.PathEscape(t.LowerName)
}

// orgTeams serves GET /org/{org}/teams (members): the organization's teams;
// those the visitor is in (every one for owners) link to their pages.
func (h *Handler) orgTeams(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgInsider, "teams")
	if err != nil {
		return err
	}
	ctx := r.Context()
	page := pageNumber(r)
	list, total, err := h.Orgs.ListOrgTeams(ctx, oc.Org, listPageSize, (page-1)*listPageSize)
	if err != nil {
		return err
	}
	mine := map[int64]bool{}
	if !oc.Role.Owner {
		own, _, _, err := h.Orgs.ListUserTeams(ctx, doer(r).ID, "u.id = ?", []any{oc.Org.ID}, 0, 0)
		if err != nil {
			return err
		}
		for _, t := range own {
			mine[t.ID] = true
		}
	}
	p := orgTeamsPage{Pager: newPager(r, page, total), CanManage: oc.Role.Owner}
	for _, t := range list {
		p.Teams = append(p.Teams, teamRow{Team: t, Link: teamLink(oc, t), CanOpen: oc.Role.Owner || mine[t.ID]})
	}
	return h.renderOrg(w, r, http.StatusOK, "org_teams", "Teams", oc, p)
}

// teamCtx is a team page's team, with whether the visitor is in it.
type teamCtx struct {
	Team     *org.Team
	Link     string
	IsMember bool
	// CanManage: the visitor owns the organization.
	CanManage bool
}

// loadTeamPage loads team {team} of organization {org} for its members and
// the organization's owners (ownerOnly: owners only). Other members of the
// organization are refused (403); a team that does not exist is not found.
func (h *Handler) loadTeamPage(r *http.Request, ownerOnly bool) (*orgCtx, *teamCtx, error) {
	need := orgInsider
	if ownerOnly {
		need = orgOwnerOnly
	}
	oc, err := h.loadOrgPage(r, need, "teams")
	if err != nil {
		return nil, nil, err
	}
	ctx := r.Context()
	t, err := h.Orgs.GetTeamByName(ctx, oc.Org, chi.URLParam(r, "team"))
	if err != nil {
		return nil, nil, err
	}
	in, err := h.Orgs.IsTeamMember(ctx, t.ID, doer(r).ID)
	if err != nil {
		return nil, nil, err
	}
	if !in && !oc.Role.Owner {
		return nil, nil, errs.Forbidden("Only the members of the team %s may see it.", t.Name)
	}
	return oc, &teamCtx{Team: t, Link: teamLink(oc, t), IsMember: in, CanManage: oc.Role.Owner}, nil
}

// teamUnitView is one unit of a team and the access it gives.
type teamUnitView struct {
	Label, Mode string
}

// teamPage is the data of /org/{org}/teams/{team} and its repositories tab.
type teamPage struct {
	T *teamCtx
	// Tab is "members" or "repositories".
	Tab     string
	Units   []teamUnitView
	Members []*user.User
	Repos   []*repo.Repository
	Pager   pager
	Total   int64
}

// teamUnitsView lists the units team t gives access to, in Gitea's order.
func teamUnitsView(t *org.Team) []teamUnitView {
	var out []teamUnitView
	for _, u := range teamUnitChoices() {
		if m := t.UnitMode(u.Key); m > access.ModeNone {
			out = append(out, teamUnitView{Label: u.Label, Mode: m.String()})
		}
	}
	return out
}

// orgTeam serves GET /org/{org}/teams/{team}: the team's settings and members.
func (h *Handler) orgTeam(w http.ResponseWriter, r *http.Request) error {
	oc, tc, err := h.loadTeamPage(r, false)
	if err != nil {
		return err
	}
	page := pageNumber(r)
	p := teamPage{T: tc, Tab: "members", Units: teamUnitsView(tc.Team)}
	if p.Members, p.Total, err = h.Orgs.ListTeamMembers(r.Context(), tc.Team, listPageSize, (page-1)*listPageSize); err != nil {
		return err
	}
	p.Pager = newPager(r, page, p.Total)
	return h.renderOrg(w, r, http.StatusOK, "org_team", tc.Team.Name, oc, p)
}

// orgTeamRepos serves GET /org/{org}/teams/{team}/repositories: the
// repositories the team reaches (all of the organization's for a team that
// includes them all).
func (h *Handler) orgTeamRepos(w http.ResponseWriter, r *http.Request) error {
	oc, tc, err := h.loadTeamPage(r, false)
	if err != nil {
		return err
	}
	where, args := "r.owner_id = ?", []any{oc.Org.ID}
	if !tc.Team.IncludesAllRepositories {
		where += " AND r.id IN (SELECT tr.repo_id FROM team_repo tr WHERE tr.team_id = ?)"
		args = append(args, tc.Team.ID)
	}
	vis, visArgs := access.RepoCond(doer(r))
	page := pageNumber(r)
	p := teamPage{T: tc, Tab: "repositories", Units: teamUnitsView(tc.Team)}
	if p.Repos, p.Total, err = h.Repos.ListVisible(r.Context(), where, args, vis, visArgs, "r.lower_name, r.id",
		listPageSize, (page-1)*listPageSize); err != nil {
		return err
	}
	p.Pager = newPager(r, page, p.Total)
	return h.renderOrg(w, r, http.StatusOK, "org_team", tc.Team.Name, oc, p)
}

// orgTeamAction serves POST /org/{org}/teams/{team}/action/{action}: "add"
// puts the user named uname in the team and "remove" takes member uid out
// (owners), "leave" takes the visitor out of a team they are in.
func (h *Handler) orgTeamAction(w http.ResponseWriter, r *http.Request) error {
	action := chi.URLParam(r, "action")
	oc, tc, err := h.loadTeamPage(r, action != "leave")
	if err != nil {
		return err
	}
	ctx := r.Context()
	d := doer(r)
	var msg string
	switch action {
	case "add":
		name := strings.TrimSpace(r.PostFormValue("uname"))
		var u *user.User
		u, err = h.Users.Store.GetByName(ctx, name)
		if err == nil {
			var visible bool
			if visible, err = h.Access.CanSeeUser(ctx, d, u); err == nil && (!visible || u.IsOrganization()) {
				err = errs.NotFound("hidden")
			}
		}
		if errs.IsNotFound(err) {
			err = errs.Invalid("There is no user named %q.", name)
		}
		if err == nil {
			err = h.Orgs.AddTeamMember(ctx, tc.Team, u.ID)
			msg = u.Name + " is now a member of the team."
		}
	case "remove":
		var uid int64
		if uid, err = formID(r.PostFormValue("uid")); err != nil {
			return err
		}
		err = h.Orgs.RemoveTeamMember(ctx, tc.Team, uid)
		msg = "The member has been removed from the team."
	case "leave":
		if !tc.IsMember {
			return errs.NotFound("not in the team")
		}
		if err = h.Orgs.RemoveTeamMember(ctx, tc.Team, d.ID); err == nil {
			return h.orgDone(w, r, oc.Home, "You have left the team "+tc.Team.Name+".")
		}
	default:
		return errs.NotFound("no such action")
	}
	if err != nil {
		return h.orgRefused(w, r, tc.Link, err)
	}
	return h.orgDone(w, r, tc.Link, msg)
}

// orgTeamRepoAction serves POST /org/{org}/teams/{team}/action/repo/{action}
// (owners): "add" gives the team the organization's repository repo_name,
// "remove" takes repository repoid away.
func (h *Handler) orgTeamRepoAction(w http.ResponseWriter, r *http.Request) error {
	oc, tc, err := h.loadTeamPage(r, true)
	if err != nil {
		return err
	}
	ctx := r.Context()
	back := tc.Link + "/repositories"
	if tc.Team.IncludesAllRepositories {
		return h.orgRefused(w, r, back, errs.Invalid("The team %s has access to every repository of %s.", tc.Team.Name, oc.Org.Name))
	}
	var rp *repo.Repository
	switch chi.URLParam(r, "action") {
	case "add":
		name := strings.TrimSpace(r.PostFormValue("repo_name"))
		if rp, err = h.Repos.Store.GetByName(ctx, oc.Org.Name, name); errs.IsNotFound(err) {
			return h.orgRefused(w, r, back, errs.Invalid("%s has no repository named %q.", oc.Org.Name, name))
		}
		if err != nil {
			return err
		}
		if err := h.Orgs.AddTeamRepo(ctx, tc.Team, rp.ID); err != nil {
			return h.orgRefused(w, r, back, err)
		}
		return h.orgDone(w, r, back, "The team now has access to "+rp.Name+".")
	case "remove":
		var id int64
		if id, err = formID(r.PostFormValue("repoid")); err != nil {
			return err
		}
		if rp, err = h.Repos.Store.GetByID(ctx, id); err != nil {
			return err
		}
		if rp.OwnerID != oc.Org.ID {
			return errs.NotFound("no such repository")
		}
		if err := h.Orgs.RemoveTeamRepo(ctx, tc.Team, rp.ID); err != nil {
			return h.orgRefused(w, r, back, err)
		}
		return h.orgDone(w, r, back, "The team no longer has access to "+rp.Name+".")
	}
	return errs.NotFound("no such action")
}
