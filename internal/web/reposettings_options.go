package web

import (
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
)

// unitToggle is a unit the options page turns on or off.
type unitToggle struct {
	Field, Unit, Name string
	On                bool
}

// mergeStyleToggle is a merge style the options page allows or not.
type mergeStyleToggle struct {
	Field, Name string
	Allowed     bool
}

// repoOptionsPage is the data of /{owner}/{repo}/settings.
type repoOptionsPage struct {
	settingsPage
	Units       []unitToggle
	MergeStyles []mergeStyleToggle
	// StyleNames are the styles the default merge style may take.
	StyleNames []string
	// IsOwner shows the danger zone (transfer, archive, delete).
	IsOwner bool
	// TransferTo is the recipient of a pending transfer ("" for none).
	TransferTo string
	// ForcePrivate is [repository] FORCE_PRIVATE for a non-admin.
	ForcePrivate bool
	FullName     string
	// Mirror is the pull mirror's state (nil: not a mirror).
	Mirror *repo.Mirror
}

// optionUnits are the units the options page toggles: form field, unit and
// title. The wiki can only be turned off (Cairn has none to show).
var optionUnits = []struct{ field, unit, name string }{
	{"enable_issues", repo.UnitIssues, "Issues"},
	{"enable_pulls", repo.UnitPulls, "Pull requests"},
	{"enable_releases", repo.UnitReleases, "Releases"},
	{"enable_wiki", repo.UnitWiki, "Wiki (Cairn has no wiki: it can only be turned off)"},
}

// mergeStyleFields are the merge style checkboxes: form field and title.
var mergeStyleFields = []struct{ field, name string }{
	{"pulls_allow_merge", "Create a merge commit"},
	{"pulls_allow_rebase", "Rebase and fast-forward"},
	{"pulls_allow_rebase_merge", "Rebase and create a merge commit"},
	{"pulls_allow_squash", "Squash"},
	{"pulls_allow_fast_forward_only", "Fast-forward only"},
	{"pulls_allow_manual_merge", "Mark as manually merged"},
}

// mergeStyleSetting is the setting behind a merge style checkbox.
func mergeStyleSetting(s *repo.Settings, field string) *bool {
	switch field {
	case "pulls_allow_merge":
		return &s.AllowMergeCommits
	case "pulls_allow_rebase":
		return &s.AllowRebase
	case "pulls_allow_rebase_merge":
		return &s.AllowRebaseExplicit
	case "pulls_allow_squash":
		return &s.AllowSquashMerge
	case "pulls_allow_fast_forward_only":
		return &s.AllowFastForwardOnly
	case "pulls_allow_manual_merge":
		return &s.AllowManualMerge
	}
	return nil
}

// shownUnits are the toggles of rc: units disabled site-wide are left out,
// and the wiki unless it is on.
func (h *Handler) shownUnits(rc *repoCtx) []unitToggle {
	var out []unitToggle
	for _, u := range optionUnits {
		on := rc.Repo.HasUnit(u.unit)
		if h.Repos.UnitDisabled(u.unit) || (u.unit == repo.UnitWiki && !on) {
			continue
		}
		out = append(out, unitToggle{Field: u.field, Unit: u.unit, Name: u.name, On: on})
	}
	return out
}

// repoOptions serves GET /{owner}/{repo}/settings.
func (h *Handler) repoOptions(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	return h.renderRepoOptions(w, r, rc, http.StatusOK, "")
}

// renderRepoOptions renders the options page, with the error of a refused
// form (and status) when there is one.
func (h *Handler) renderRepoOptions(w http.ResponseWriter, r *http.Request, rc *repoCtx, status int, msg string) error {
	p := repoOptionsPage{settingsPage: h.newSettingsPage(rc, "options"), Units: h.shownUnits(rc),
		StyleNames: repo.MergeStyles(), IsOwner: rc.Perm.IsOwner(), FullName: rc.Owner.Name + "/" + rc.Repo.Name,
		ForcePrivate: h.Config.Repository.ForcePrivate && !doer(r).IsAdmin}
	p.Error = msg
	st := rc.Repo.Settings
	for _, m := range mergeStyleFields {
		p.MergeStyles = append(p.MergeStyles, mergeStyleToggle{Field: m.field, Name: m.name, Allowed: *mergeStyleSetting(&st, m.field)})
	}
	if rc.Repo.IsMirror {
		ms, err := h.Repos.MirrorsOf(r.Context(), []int64{rc.Repo.ID})
		if err != nil {
			return err
		}
		if m, ok := ms[rc.Repo.ID]; ok {
			p.Mirror = &m
		}
	}
	if p.IsOwner {
		t, err := h.Repos.PendingTransfer(r.Context(), rc.Repo.ID)
		switch {
		case err == nil:
			to, err := h.Users.Store.GetByID(r.Context(), t.RecipientID)
			if err != nil {
				return err
			}
			p.TransferTo = to.Name
		case !errs.IsNotFound(err):
			return err
		}
	}
	return h.renderRepo(w, r, status, "repo_settings_options", "Settings", rc, p)
}

// repoOptionsPost serves POST /{owner}/{repo}/settings: the form's action
// says which of its forms was sent, as in Gitea.
func (h *Handler) repoOptionsPost(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoSettings(r)
	if err != nil {
		return err
	}
	action := r.PostFormValue("action")
	switch action {
	case "update":
		err = h.updateRepoBasics(w, r, rc)
	case "advanced":
		err = h.updateRepoUnits(w, r, rc)
	case "mirror", "mirror-sync":
		if !rc.Repo.IsMirror {
			return errs.NotFound("this repository is not a mirror")
		}
		err = h.updateMirror(w, r, rc, action == "mirror-sync")
	case "transfer", "cancel_transfer", "archive", "unarchive", "delete":
		if !rc.Perm.IsOwner() {
			return errs.Forbidden("Only the owner of this repository may do this.")
		}
		switch action {
		case "transfer":
			err = h.transferRepo(w, r, rc)
		case "cancel_transfer":
			err = h.cancelRepoTransfer(w, r, rc)
		case "archive", "unarchive":
			err = h.archiveRepo(w, r, rc, action == "archive")
		case "delete":
			err = h.deleteRepoPost(w, r, rc)
		}
	default:
		return errs.NotFound("no such action")
	}
	if err != nil && userError(err) && !errs.IsNotFound(err) && !errs.Is(err, errs.KindForbidden) {
		return h.renderRepoOptions(w, r, rc, http.StatusUnprocessableEntity, errMessage(err, "The change was refused."))
	}
	return err
}

// updateMirror saves a mirror's interval and pruning (action=mirror) or
// fetches it now (action=mirror-sync).
func (h *Handler) updateMirror(w http.ResponseWriter, r *http.Request, rc *repoCtx, syncNow bool) error {
	if syncNow {
		if err := h.Repos.SyncMirror(r.Context(), rc.Repo); err != nil {
			return err
		}
		return h.settingsDone(w, r, rc, "", "The mirror has been synchronized.")
	}
	interval := strings.TrimSpace(r.PostFormValue("interval"))
	prune := formChecked(r, "enable_prune")
	if _, err := h.Repos.Edit(r.Context(), rc.Repo, repo.EditOptions{MirrorInterval: &interval, EnablePrune: &prune}, repoEditor(r, rc)); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "", "The mirror settings have been updated.")
}

// repoEditor is who edits rc: the owner renames; FORCE_PRIVATE spares site
// administrators.
func repoEditor(r *http.Request, rc *repoCtx) repo.Editor {
	return repo.Editor{Owner: rc.Perm.IsOwner(), SiteAdmin: doer(r).IsAdmin, Doer: doer(r)}
}

// updateRepoBasics saves name, description, website, visibility and the
// template flag (action=update).
func (h *Handler) updateRepoBasics(w http.ResponseWriter, r *http.Request, rc *repoCtx) error {
	name := strings.TrimSpace(r.PostFormValue("repo_name"))
	desc := strings.TrimSpace(r.PostFormValue("description"))
	website := strings.TrimSpace(r.PostFormValue("website"))
	private, template := formChecked(r, "private"), formChecked(r, "template")
	fresh, err := h.Repos.Edit(r.Context(), rc.Repo, repo.EditOptions{Name: &name, Description: &desc, Website: &website,
		Private: &private, Template: &template}, repoEditor(r, rc))
	if err != nil {
		return err
	}
	rc.Repo = fresh
	rc.Link = "/" + escapeSegments(rc.Owner.Name+"/"+fresh.Name)
	return h.settingsDone(w, r, rc, "", "The repository's settings have been updated.")
}

// updateRepoUnits saves the units and the pull request settings
// (action=advanced).
func (h *Handler) updateRepoUnits(w http.ResponseWriter, r *http.Request, rc *repoCtx) error {
	o := repo.EditOptions{Units: map[string]bool{}}
	for _, u := range h.shownUnits(rc) {
		o.Units[u.Unit] = formChecked(r, u.Field)
	}
	st := rc.Repo.Settings
	for _, m := range mergeStyleFields {
		*mergeStyleSetting(&st, m.field) = formChecked(r, m.field)
	}
	o.AllowMergeCommits, o.AllowRebase, o.AllowRebaseExplicit = &st.AllowMergeCommits, &st.AllowRebase, &st.AllowRebaseExplicit
	o.AllowSquashMerge, o.AllowFastForwardOnly, o.AllowManualMerge = &st.AllowSquashMerge, &st.AllowFastForwardOnly, &st.AllowManualMerge
	style := r.PostFormValue("pulls_default_merge_style")
	o.DefaultMergeStyle = &style
	deleteBranch := formChecked(r, "default_delete_branch_after_merge")
	o.DefaultDeleteBranchAfterMerge = &deleteBranch
	if _, err := h.Repos.Edit(r.Context(), rc.Repo, o, repoEditor(r, rc)); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "", "The repository's units and pull request settings have been updated.")
}

// confirmRepoName refuses a dangerous action unless the form's repo_name
// is the repository's full name, owner/name.
func confirmRepoName(r *http.Request, rc *repoCtx) error {
	if !strings.EqualFold(strings.TrimSpace(r.PostFormValue("repo_name")), rc.Owner.Name+"/"+rc.Repo.Name) {
		return errs.Invalid("Type the repository's full name, %s/%s, to confirm.", rc.Owner.Name, rc.Repo.Name)
	}
	return nil
}

// transferRepo gives the repository to another account: at once when the
// doer may (a site admin, the recipient, a repository creator of the
// recipient organization), otherwise once the recipient accepts.
func (h *Handler) transferRepo(w http.ResponseWriter, r *http.Request, rc *repoCtx) error {
	if err := confirmRepoName(r, rc); err != nil {
		return err
	}
	ctx := r.Context()
	d := doer(r)
	name := strings.TrimSpace(r.PostFormValue("new_owner_name"))
	to, err := h.Users.Store.GetByName(ctx, name)
	if err == nil {
		var visible bool
		if visible, err = h.Access.CanSeeOwner(ctx, d, to); err == nil && !visible {
			err = errs.NotFound("hidden")
		}
	}
	if errs.IsNotFound(err) {
		return errs.Invalid("The new owner %q does not exist.", name)
	}
	if err != nil {
		return err
	}
	if to.ID == rc.Owner.ID {
		return errs.Invalid("The repository already belongs to %s.", to.Name)
	}
	now, err := h.Access.TransfersAtOnce(ctx, d, to)
	if err != nil {
		return err
	}
	pending, err := h.Repos.StartTransfer(ctx, d, rc.Repo, to, nil, now)
	if err != nil {
		return err
	}
	if pending {
		return h.settingsDone(w, r, rc, "", "The transfer to "+to.Name+" waits for the recipient to accept it.")
	}
	h.flash(w, "success", "The repository now belongs to "+to.Name+".")
	http.Redirect(w, r, "/"+escapeSegments(to.Name+"/"+rc.Repo.Name), http.StatusSeeOther)
	return nil
}

// cancelRepoTransfer withdraws a pending transfer.
func (h *Handler) cancelRepoTransfer(w http.ResponseWriter, r *http.Request, rc *repoCtx) error {
	if _, err := h.Repos.PendingTransfer(r.Context(), rc.Repo.ID); err != nil {
		return err
	}
	if err := h.Repos.CancelTransfer(r.Context(), rc.Repo.ID); err != nil {
		return err
	}
	return h.settingsDone(w, r, rc, "", "The transfer has been cancelled.")
}

// archiveRepo archives (read-only for everyone) or unarchives the repository.
func (h *Handler) archiveRepo(w http.ResponseWriter, r *http.Request, rc *repoCtx, archive bool) error {
	if _, err := h.Repos.Edit(r.Context(), rc.Repo, repo.EditOptions{Archived: &archive}, repoEditor(r, rc)); err != nil {
		return err
	}
	msg := "The repository has been unarchived."
	if archive {
		msg = "The repository has been archived: it is read-only now."
	}
	return h.settingsDone(w, r, rc, "", msg)
}

// deleteRepoPost deletes the repository once its full name was typed.
func (h *Handler) deleteRepoPost(w http.ResponseWriter, r *http.Request, rc *repoCtx) error {
	if err := confirmRepoName(r, rc); err != nil {
		return err
	}
	if err := h.Repos.Delete(r.Context(), rc.Repo); err != nil {
		return err
	}
	h.flash(w, "success", "The repository "+rc.Owner.Name+"/"+rc.Repo.Name+" has been deleted.")
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}
