package web

import (
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/access"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
)

// teamUnitChoice is a unit a team form offers.
type teamUnitChoice struct {
	Key, Label string
	// External units (tracker, wiki elsewhere) give read access at most.
	External bool
}

// teamUnitChoices are the units of a team, in Gitea's order.
func teamUnitChoices() []teamUnitChoice {
	return []teamUnitChoice{
		{org.UnitCode, "Code", false}, {org.UnitIssues, "Issues", false}, {org.UnitExternalIssue, "External issue tracker", true},
		{org.UnitPulls, "Pull requests", false}, {org.UnitReleases, "Releases", false}, {org.UnitWiki, "Wiki", false},
		{org.UnitExternalWiki, "External wiki", true}, {org.UnitProjects, "Projects", false}, {org.UnitPackages, "Packages", false},
		{org.UnitActions, "Actions", false},
	}
}

// teamUnitField is one unit row of the team form.
type teamUnitField struct {
	teamUnitChoice
	// Field is the form field; Mode the chosen access (none, read, write);
	// Modes the choices.
	Field, Mode string
	Modes       []string
}

// teamForm is the team form's fields.
type teamForm struct {
	Name, Description string
	// Admin: administrator access to every unit; otherwise Units apply.
	Admin     bool
	AllRepos  bool
	CanCreate bool
	Units     []teamUnitField
}

// teamFormPage is the data of the new and edit team pages.
type teamFormPage struct {
	Form teamForm
	// Team is the team edited (nil for a new team); IsOwners locks the
	// Owners team's access.
	Team     *org.Team
	IsOwners bool
	Action   string
	Error    string
}

// unitFields are the form's unit rows with the modes of units (a key to
// access name; missing keys are none), leaving out units disabled site-wide.
func (h *Handler) unitFields(units map[string]string) []teamUnitField {
	var out []teamUnitField
	for _, c := range teamUnitChoices() {
		if h.Repos.UnitDisabled(c.Key) {
			continue
		}
		f := teamUnitField{teamUnitChoice: c, Field: "unit_" + c.Key, Mode: "none",
			Modes: []string{"none", "read", "write"}}
		if c.External {
			f.Modes = f.Modes[:2]
		}
		if m, ok := units[c.Key]; ok && m != "" {
			f.Mode = m
		}
		if c.External && f.Mode != "none" {
			f.Mode = "read"
		}
		out = append(out, f)
	}
	return out
}

// teamFormOf fills the form with team t (nil: a new team's defaults).
func (h *Handler) teamFormOf(t *org.Team) teamForm {
	if t == nil {
		return teamForm{Units: h.unitFields(map[string]string{org.UnitCode: "read", org.UnitIssues: "read",
			org.UnitPulls: "read", org.UnitReleases: "read", org.UnitWiki: "read", org.UnitProjects: "read", org.UnitPackages: "read",
			org.UnitActions: "read"})}
	}
	modes := map[string]string{}
	for k, m := range t.Units {
		modes[k] = min(m, access.ModeWrite).String()
	}
	return teamForm{Name: t.Name, Description: t.Description, Admin: t.Authorize >= access.ModeAdmin,
		AllRepos: t.IncludesAllRepositories, CanCreate: t.CanCreateOrgRepo, Units: h.unitFields(modes)}
}

// readTeamForm reads the posted team form. Units disabled site-wide keep the
// access they had in old (nil: none).
func (h *Handler) readTeamForm(r *http.Request, old *org.Team) (teamForm, map[string]string) {
	f := teamForm{Name: strings.TrimSpace(r.PostFormValue("team_name")), Description: strings.TrimSpace(r.PostFormValue("description")),
		Admin: r.PostFormValue("permission") == "admin", AllRepos: r.PostFormValue("repo_access") == "all",
		CanCreate: formChecked(r, "can_create_org_repo")}
	posted := map[string]string{}
	for _, c := range teamUnitChoices() {
		v := r.PostFormValue("unit_" + c.Key)
		switch v {
		case "read", "write":
		default:
			v = "none"
		}
		posted[c.Key] = v
	}
	f.Units = h.unitFields(posted)
	unitsMap := map[string]string{}
	for _, c := range teamUnitChoices() {
		if h.Repos.UnitDisabled(c.Key) {
			if old != nil {
				unitsMap[c.Key] = old.UnitMode(c.Key).String()
			} else {
				unitsMap[c.Key] = "none"
			}
		}
	}
	for _, u := range f.Units {
		unitsMap[u.Key] = u.Mode
	}
	return f, unitsMap
}

// checkTeamUnits refuses a team below admin without access to any unit.
func checkTeamUnits(f teamForm) error {
	if f.Admin {
		return nil
	}
	for _, u := range f.Units {
		if u.Mode != "none" {
			return nil
		}
	}
	return errs.InvalidField("units", "Give the team access to at least one unit.")
}

func (h *Handler) renderTeamForm(w http.ResponseWriter, r *http.Request, status int, oc *orgCtx, p teamFormPage) error {
	title := "New team"
	if p.Team != nil {
		title = "Edit " + p.Team.Name
	}
	return h.renderOrg(w, r, status, "org_team_form", title, oc, p)
}

// newTeamForm serves GET /org/{org}/teams/new (owners).
func (h *Handler) newTeamForm(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgOwnerOnly, "teams")
	if err != nil {
		return err
	}
	return h.renderTeamForm(w, r, http.StatusOK, oc, teamFormPage{Form: h.teamFormOf(nil), Action: oc.Link + "/teams/new"})
}

// createTeam serves POST /org/{org}/teams/new (owners), with the API's rules.
func (h *Handler) createTeam(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgOwnerOnly, "teams")
	if err != nil {
		return err
	}
	f, units := h.readTeamForm(r, nil)
	p := teamFormPage{Form: f, Action: oc.Link + "/teams/new"}
	err = checkTeamUnits(f)
	var t *org.Team
	if err == nil {
		opts := org.CreateTeamOptions{Name: f.Name, Description: f.Description, UnitsMap: units,
			IncludesAllRepositories: f.AllRepos, CanCreateOrgRepo: f.CanCreate}
		if f.Admin {
			opts.Permission, opts.UnitsMap = access.ModeAdmin, nil
		}
		t, err = h.Orgs.CreateTeam(r.Context(), oc.Org, opts)
	}
	if err != nil {
		if !userError(err) {
			return err
		}
		p.Error = errMessage(err, "The team could not be created.")
		return h.renderTeamForm(w, r, http.StatusUnprocessableEntity, oc, p)
	}
	return h.orgDone(w, r, teamLink(oc, t), "The team "+t.Name+" has been created.")
}

// editTeamForm serves GET /org/{org}/teams/{team}/edit (owners).
func (h *Handler) editTeamForm(w http.ResponseWriter, r *http.Request) error {
	oc, tc, err := h.loadTeamPage(r, true)
	if err != nil {
		return err
	}
	return h.renderTeamForm(w, r, http.StatusOK, oc, teamFormPage{Form: h.teamFormOf(tc.Team), Team: tc.Team,
		IsOwners: tc.Team.IsOwnerTeam(), Action: tc.Link + "/edit"})
}

// editTeam serves POST /org/{org}/teams/{team}/edit (owners). The Owners
// team keeps its name and access; only its description changes.
func (h *Handler) editTeam(w http.ResponseWriter, r *http.Request) error {
	oc, tc, err := h.loadTeamPage(r, true)
	if err != nil {
		return err
	}
	t := tc.Team
	f, units := h.readTeamForm(r, t)
	p := teamFormPage{Form: f, Team: t, IsOwners: t.IsOwnerTeam(), Action: tc.Link + "/edit"}
	var opts org.EditTeamOptions
	if p.IsOwners {
		opts.Description = &f.Description
		p.Form.Name = t.Name
	} else {
		err = checkTeamUnits(f)
		perm := access.ModeNone
		opts = org.EditTeamOptions{Name: &f.Name, Description: &f.Description, Permission: &perm, UnitsMap: units,
			IncludesAllRepositories: &f.AllRepos, CanCreateOrgRepo: &f.CanCreate}
		if f.Admin {
			perm, opts.UnitsMap = access.ModeAdmin, nil
		}
		if err == nil && f.Name == "" {
			err = errs.InvalidField("team_name", "The team needs a name.")
		}
	}
	var updated *org.Team
	if err == nil {
		updated, err = h.Orgs.EditTeam(r.Context(), t, opts)
	}
	if err != nil {
		if !userError(err) {
			return err
		}
		p.Error = errMessage(err, "The team could not be changed.")
		return h.renderTeamForm(w, r, http.StatusUnprocessableEntity, oc, p)
	}
	return h.orgDone(w, r, teamLink(oc, updated), "The team "+updated.Name+" has been updated.")
}

// deleteTeam serves POST /org/{org}/teams/{team}/delete (owners); the Owners
// team stays.
func (h *Handler) deleteTeam(w http.ResponseWriter, r *http.Request) error {
	oc, tc, err := h.loadTeamPage(r, true)
	if err != nil {
		return err
	}
	if err := h.Orgs.DeleteTeam(r.Context(), tc.Team); err != nil {
		return h.orgRefused(w, r, tc.Link, err)
	}
	return h.orgDone(w, r, oc.Link+"/teams", "The team "+tc.Team.Name+" has been deleted.")
}
