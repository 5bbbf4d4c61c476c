package web

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/org"
	"github.com/cairn-forge/cairn/internal/user"
)

// orgSettingsForm is the organization settings' fields.
type orgSettingsForm struct {
	FullName, Email, Description, Website, Location string
	Visibility                                      string
	RepoAdminChangeTeamAccess                       bool
}

// orgSettingsPage is the data of /org/{org}/settings.
type orgSettingsPage struct {
	Form orgSettingsForm
	// DeleteError is the message of a refused deletion.
	DeleteError string
}

func orgSettingsFormOf(o *user.User) orgSettingsForm {
	return orgSettingsForm{FullName: o.FullName, Email: o.Email, Description: o.Description, Website: o.Website,
		Location: o.Location, Visibility: o.Visibility.String(), RepoAdminChangeTeamAccess: o.RepoAdminChangeTeamAccess}
}

// orgSettings serves GET /org/{org}/settings (owners).
func (h *Handler) orgSettings(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgOwnerOnly, "settings")
	if err != nil {
		return err
	}
	return h.renderOrg(w, r, http.StatusOK, "org_settings_options", "Settings", oc, orgSettingsPage{Form: orgSettingsFormOf(oc.Org)})
}

// updateOrgSettings serves POST /org/{org}/settings (owners): the fields of
// the API's PATCH /orgs/{org}, with the organization service's rules.
func (h *Handler) updateOrgSettings(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgOwnerOnly, "settings")
	if err != nil {
		return err
	}
	f := orgSettingsForm{FullName: strings.TrimSpace(r.PostFormValue("full_name")), Email: strings.TrimSpace(r.PostFormValue("email")),
		Description: strings.TrimSpace(r.PostFormValue("description")), Website: strings.TrimSpace(r.PostFormValue("website")),
		Location: strings.TrimSpace(r.PostFormValue("location")), Visibility: r.PostFormValue("visibility"),
		RepoAdminChangeTeamAccess: formChecked(r, "repo_admin_change_team_access")}
	vis, ok := user.ParseVisibility(f.Visibility)
	if !ok {
		err = errs.InvalidField("visibility", "Choose public, limited or private.")
	}
	if err == nil {
		_, err = h.Orgs.Edit(r.Context(), oc.Org, org.EditOptions{FullName: &f.FullName, Email: &f.Email,
			Description: &f.Description, Website: &f.Website, Location: &f.Location, Visibility: &vis,
			RepoAdminChangeTeamAccess: &f.RepoAdminChangeTeamAccess})
	}
	if err != nil {
		if !userError(err) {
			return err
		}
		oc.Error = errMessage(err, "The settings could not be saved.")
		return h.renderOrg(w, r, http.StatusUnprocessableEntity, "org_settings_options", "Settings", oc, orgSettingsPage{Form: f})
	}
	return h.orgDone(w, r, oc.Link+"/settings", "The organization's settings have been updated.")
}

// uploadOrgAvatar serves POST /org/{org}/settings/avatar (owners; multipart
// field "avatar"), checked and stored as the API's POST /orgs/{org}/avatar.
func (h *Handler) uploadOrgAvatar(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgOwnerOnly, "settings")
	if err != nil {
		return err
	}
	back := oc.Link + "/settings"
	png, err := h.postedAvatar(r)
	if err != nil {
		return h.orgRefused(w, r, back, err)
	}
	if err := h.replaceAvatar(r.Context(), oc.Org, png); err != nil {
		return err
	}
	return h.orgDone(w, r, back, "The organization's avatar has been changed.")
}

// postedAvatar reads and checks the image of the form's "avatar" field (the
// CSRF check has parsed the multipart body within the upload limits).
func (h *Handler) postedAvatar(r *http.Request) ([]byte, error) {
	pic := h.Config.Picture
	file, header, err := r.FormFile("avatar")
	if err != nil {
		return nil, errs.Invalid("Choose an image file to upload.")
	}
	defer file.Close()
	if header.Size > pic.AvatarMaxFileSize {
		return nil, errs.Invalid("The image is too large: at most %s.", fileSize(pic.AvatarMaxFileSize))
	}
	data, err := io.ReadAll(io.LimitReader(file, pic.AvatarMaxFileSize+1))
	if err != nil {
		return nil, err
	}
	png, err := avatar.Prepare(data, avatar.Limits{MaxWidth: pic.AvatarMaxWidth, MaxHeight: pic.AvatarMaxHeight, MaxFileSize: pic.AvatarMaxFileSize})
	if errors.Is(err, avatar.ErrInvalidImage) {
		return nil, errs.Invalid("%s", err.Error())
	}
	return png, err
}

// deleteOrgAvatar serves POST /org/{org}/settings/avatar/delete (owners).
func (h *Handler) deleteOrgAvatar(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgOwnerOnly, "settings")
	if err != nil {
		return err
	}
	if err := h.replaceAvatar(r.Context(), oc.Org, nil); err != nil {
		return err
	}
	return h.orgDone(w, r, oc.Link+"/settings", "The organization's avatar has been removed.")
}

// deleteOrg serves POST /org/{org}/settings/delete (owners): the form must
// repeat the organization's name; an organization that still owns
// repositories is refused, as by the API.
func (h *Handler) deleteOrg(w http.ResponseWriter, r *http.Request) error {
	oc, err := h.loadOrgPage(r, orgOwnerOnly, "settings")
	if err != nil {
		return err
	}
	if strings.TrimSpace(r.PostFormValue("org_name")) != oc.Org.Name {
		err = errs.Invalid("Type the organization's name, %s, to confirm.", oc.Org.Name)
	} else {
		err = h.Orgs.Delete(r.Context(), oc.Org)
	}
	if err != nil {
		if !userError(err) {
			return err
		}
		return h.renderOrg(w, r, http.StatusUnprocessableEntity, "org_settings_options", "Settings", oc,
			orgSettingsPage{Form: orgSettingsFormOf(oc.Org), DeleteError: errMessage(err, "The organization could not be deleted.")})
	}
	return h.orgDone(w, r, "/", "The organization "+oc.Org.Name+" has been deleted.")
}
