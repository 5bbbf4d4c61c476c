package web

import (
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// collaboratorRow is one collaborator with their access.
type collaboratorRow struct {
	User *user.User
	Mode string // read, write, admin
}

// collaborationPage is the data of /{owner}/{repo}/settings/collaboration.
type collaborationPage struct {
	settingsPage
	Collaborators []collaboratorRow
	Pager         listPager
	Modes         []string
	// OrgOwned shows the teams; CanChangeTeams their forms.
	OrgOwned       bool
	CanChangeTeams bool
	Teams          []*org.Team
}

// collabModeNames are the collaboration modes by their stored number.
var collabModeNames = map[int]string{repo.CollabRead: "read", repo.CollabWrite: "write", repo.CollabAdmin: "admin"}

const collaboratorsPerPage = 50

// collaboration serves GET /{owner}/{repo}/settings/collaboration.
func (h *Handler) collaboration(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	return h.renderCollaboration(w, r, rc, http.StatusOK, "")
}

func (h *Handler) renderCollaboration(w http.ResponseWriter, r *http.Request, rc *repoCtx, status int, msg string) error {
	ctx := r.Context()
	p := collaborationPage{settingsPage: h.newSettingsPage(rc, "collaboration"), Modes: []string{"read", "write", "admin"},
		OrgOwned: rc.Owner.IsOrganization(), CanChangeTeams: h.canChangeRepoTeams(rc)}
	p.Error = msg
	pg := newListPager(r, 0, collaboratorsPerPage)
	// A repository's administrators see all its collaborators, whatever
	// their visibility (as the API lets them name them).
	list, total, err := h.Repos.ListCollaborators(ctx, rc.Repo.ID, "1 = 1", nil, collaboratorsPerPage, pg.offset(collaboratorsPerPage))
	if err != nil {
		return err
	}
	p.Pager = newListPager(r, total, collaboratorsPerPage)
	modes, err := h.Repos.CollaboratorModes(ctx, rc.Repo.ID)
	if err != nil {
		return err
	}
	for _, u := range list {
		p.Collaborators = append(p.Collaborators, collaboratorRow{User: u, Mode: collabModeNames[modes[u.ID]]})
	}
	if p.OrgOwned {
		if p.Teams, err = h.Orgs.ListRepoTeams(ctx, rc.Owner.ID, rc.Repo.ID); err != nil {
			return err
		}
	}
	return h.renderRepo(w, r, status, "repo_settings_collaboration", "Collaborators", rc, p)
}

// collaborationFail re-renders the page with the message of a refused form,
// or returns err when it is not the visitor's mistake.
func (h *Handler) collaborationFail(w http.ResponseWriter, r *http.Request, rc *repoCtx, err error) error {
	if userError(err) && !errs.IsNotFound(err) && !errs.Is(err, errs.KindForbidden) {
		return h.renderCollaboration(w, r, rc, http.StatusUnprocessableEntity, errMessage(err, "The change was refused."))
	}
	return err
}

// parseCollabMode reads the form's mode (write when absent).
func parseCollabMode(r *http.Request) (int, error) {
	v := r.PostFormValue("mode")
	if v == "" {
		return repo.CollabWrite, nil
	}
	m, ok := repo.ParseCollabMode(v)
	if !ok {
		return 0, errs.Invalid("The permission must be read, write or admin.")
	}
	return m, nil
}

// addCollaborator serves POST .../settings/collaboration: an individual
// the doer may see gets the chosen access.
func (h *Handler) addCollaborator(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	name := strings.TrimSpace(r.PostFormValue("collaborator"))
	mode, err := parseCollabMode(r)
	if err != nil {
		return h.collaborationFail(w, r, rc, err)
	}
	u, err := h.Users.Store.GetByName(ctx, name)
	if err == nil {
		var visible bool
		if visible, err = h.Access.CanSeeOwner(ctx, doer(r), u); err == nil && !visible {
			err = errs.NotFound("hidden")
		}
	}
	if errs.IsNotFound(err) {
		err = errs.Invalid("There is no user named %q.", name)
	}
	if err == nil {
		err = h.Repos.AddCollaborator(ctx, rc.Repo, u, mode)
	}
	if err != nil {
		return h.collaborationFail(w, r, rc, err)
	}
	return h.settingsDone(w, r, rc, "/collaboration", u.Name+" is now a collaborator with "+collabModeNames[mode]+" access.")
}

// formCollaborator loads the collaborator named by the form's uid.
func (h *Handler) formCollaborator(r *http.Request, rc *repoCtx) (*user.User, error) {
	id, err := formID(r.PostFormValue("uid"))
	if err != nil {
		return nil, err
	}
	is, err := h.Repos.IsCollaborator(r.Context(), rc.Repo.ID, id)
	if err != nil {
		return nil, err
	}
	if !is {
		return nil, errs.NotFound("not a collaborator")
	}
	return h.Users.Store.GetByID(r.Context(), id)
}

// changeCollaboratorMode serves POST .../settings/collaboration/access_mode.
func (h *Handler) changeCollaboratorMode(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	u, err := h.formCollaborator(r, rc)
	if err != nil {
		return err
	}
	mode, err := parseCollabMode(r)
	if err == nil {
		err = h.Repos.AddCollaborator(r.Context(), rc.Repo, u, mode)
	}
	if err != nil {
		return h.collaborationFail(w, r, rc, err)
	}
	return h.settingsDone(w, r, rc, "/collaboration", u.Name+" now has "+collabModeNames[mode]+" access.")
}

// removeCollaborator serves POST .../settings/collaboration/delete.
func (h *Handler) removeCollaborator(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	u, err := h.formCollaborator(r, rc)
	if err != nil {
		return err
	}
	if err := h.Repos.RemoveCollaborator(r.Context(), rc.Repo, u); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "/collaboration", u.Name+" is no longer a collaborator.")
}

// canChangeRepoTeams reports whether the visitor may give rc to teams or
// take it away, as the API's repository teams routes decide: the
// organization's owners, and its repository administrators when the
// organization lets them (repo_admin_change_team_access).
func (h *Handler) canChangeRepoTeams(rc *repoCtx) bool {
	return rc.Owner.IsOrganization() && (rc.Owner.RepoAdminChangeTeamAccess || rc.Perm.IsOwner())
}

// changeRepoTeam serves POST .../settings/collaboration/team (add, by the
// team's name) and .../team/delete (by team_id).
func (h *Handler) changeRepoTeam(add bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc, err := h.loadRepoSettings(r)
		if err != nil {
			return err
		}
		if !rc.Owner.IsOrganization() {
			return errs.NotFound("the repository belongs to no organization")
		}
		if !h.canChangeRepoTeams(rc) {
			return errs.Forbidden("Only the organization's owners may change the teams of this repository.")
		}
		ctx := r.Context()
		var t *org.Team
		if add {
			name := strings.TrimSpace(r.PostFormValue("team"))
			if t, err = h.Orgs.GetTeamByName(ctx, rc.Owner, name); errs.IsNotFound(err) {
				return h.collaborationFail(w, r, rc, errs.Invalid("%s has no team named %q.", rc.Owner.Name, name))
			}
		} else {
			var id int64
			if id, err = formID(r.PostFormValue("team_id")); err == nil {
				if t, err = h.Orgs.GetTeam(ctx, id); err == nil && t.OrgID != rc.Owner.ID {
					err = errs.NotFound("no such team")
				}
			}
		}
		if err != nil {
			return err
		}
		if err := h.Orgs.ChangeRepoTeam(ctx, t, rc.Repo.ID, add); err != nil {
			return h.collaborationFail(w, r, rc, err)
		}
		msg := "The team " + t.Name + " no longer has access."
		if add {
			msg = "The team " + t.Name + " now has access."
		}
		return h.settingsDone(w, r, rc, "/collaboration", msg)
	}
}
