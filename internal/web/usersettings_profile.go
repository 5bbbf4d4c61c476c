package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/user"
)

// settingsTab is one entry of the user settings' navigation.
type settingsTab struct {
	Link, Label string
	Active      bool
}

// settingsTabs is the user settings' navigation with active marked.
func settingsTabs(active string) []settingsTab {
	tabs := []settingsTab{{"/user/settings", "Profile", false}, {"/user/settings/account", "Account", false},
		{"/user/settings/security", "Security", false},
		{"/user/settings/keys", "SSH / GPG keys", false}, {"/user/settings/applications", "Applications", false}}
	for i := range tabs {
		tabs[i].Active = tabs[i].Link == active
	}
	return tabs
}

// profileForm is the profile settings' fields.
type profileForm struct {
	FullName, Description, Website, Location string
	Visibility                               string
	KeepEmailPrivate                         bool
}

// profileSettingsPage is the data of /user/settings.
type profileSettingsPage struct {
	Tabs  []settingsTab
	User  *user.User
	Form  profileForm
	Error string
}

func profileFormOf(u *user.User) profileForm {
	return profileForm{FullName: u.FullName, Description: u.Description, Website: u.Website, Location: u.Location,
		Visibility: u.Visibility.String(), KeepEmailPrivate: u.KeepEmailPrivate}
}

func (h *Handler) renderProfileSettings(w http.ResponseWriter, r *http.Request, status int, form profileForm, msg string) error {
	return h.render(w, r, status, "user_settings_profile", "Profile settings",
		profileSettingsPage{Tabs: settingsTabs("/user/settings"), User: doer(r), Form: form, Error: msg})
}

// profileSettings serves GET /user/settings.
func (h *Handler) profileSettings(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	return h.renderProfileSettings(w, r, http.StatusOK, profileFormOf(doer(r)), "")
}

// checkLength refuses a value longer than n characters (the API's MaxSize rule).
func checkLength(field, label, v string, n int) error {
	if utf8.RuneCountInString(v) > n {
		return errs.InvalidField(field, "%s is too long: at most %d characters.", label, n)
	}
	return nil
}

// updateProfile serves POST /user/settings: the fields the API's PATCH
// /user/settings edits, with its length and website rules, plus the
// account's visibility.
func (h *Handler) updateProfile(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	form := profileForm{FullName: strings.TrimSpace(r.PostFormValue("full_name")), Description: strings.TrimSpace(r.PostFormValue("description")),
		Website: strings.TrimSpace(r.PostFormValue("website")), Location: strings.TrimSpace(r.PostFormValue("location")),
		Visibility: r.PostFormValue("visibility"), KeepEmailPrivate: r.PostFormValue("keep_email_private") != ""}
	vis, ok := user.ParseVisibility(form.Visibility)
	err := errors.Join(checkLength("full_name", "The full name", form.FullName, 100),
		checkLength("description", "The description", form.Description, 255),
		checkLength("website", "The website", form.Website, 255),
		checkLength("location", "The location", form.Location, 50))
	if err == nil {
		err = user.ValidateWebsite(form.Website)
	}
	if err == nil && !ok {
		err = errs.InvalidField("visibility", "Choose public, limited or private.")
	}
	if err != nil {
		return h.renderProfileSettings(w, r, http.StatusUnprocessableEntity, form, firstMessage(err))
	}
	u := *doer(r)
	u.FullName, u.Description, u.Website, u.Location = form.FullName, form.Description, form.Website, form.Location
	u.Visibility, u.KeepEmailPrivate = vis, form.KeepEmailPrivate
	if err := h.Users.Store.Update(r.Context(), &u); err != nil {
		return err
	}
	h.flash(w, "success", "Your profile has been updated.")
	http.Redirect(w, r, "/user/settings", http.StatusSeeOther)
	return nil
}

// firstMessage is the message of the first domain error joined in err.
func firstMessage(err error) string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e != nil {
				return errMessage(e, "The form is not valid.")
			}
		}
	}
	return errMessage(err, "The form is not valid.")
}

// uploadAvatar serves POST /user/settings/avatar (multipart field "avatar"):
// the image is checked and stored as the API's POST /user/avatar does.
func (h *Handler) uploadAvatar(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	pic := h.Config.Picture
	// The CSRF check has already parsed the multipart body.
	file, header, err := r.FormFile("avatar")
	if err != nil {
		return h.avatarRefused(w, r, "Choose an image file to upload.")
	}
	defer file.Close()
	if header.Size > pic.AvatarMaxFileSize {
		return h.avatarRefused(w, r, "The image is too large: at most "+fileSize(pic.AvatarMaxFileSize)+".")
	}
	data, err := io.ReadAll(io.LimitReader(file, pic.AvatarMaxFileSize+1))
	if err != nil {
		return err
	}
	png, err := avatar.Prepare(data, avatar.Limits{MaxWidth: pic.AvatarMaxWidth, MaxHeight: pic.AvatarMaxHeight, MaxFileSize: pic.AvatarMaxFileSize})
	if errors.Is(err, avatar.ErrInvalidImage) {
		return h.avatarRefused(w, r, err.Error())
	}
	if err != nil {
		return err
	}
	u := doer(r)
	if err := h.replaceAvatar(r.Context(), u, png); err != nil {
		return err
	}
	h.flash(w, "success", "Your avatar has been changed.")
	http.Redirect(w, r, "/user/settings", http.StatusSeeOther)
	return nil
}

// deleteAvatar serves POST /user/settings/avatar/delete: back to the default avatar.
func (h *Handler) deleteAvatar(w http.ResponseWriter, r *http.Request) error {
	if err := signedIn(r); err != nil {
		return err
	}
	if err := h.replaceAvatar(r.Context(), doer(r), nil); err != nil {
		return err
	}
	h.flash(w, "success", "Your avatar has been removed.")
	http.Redirect(w, r, "/user/settings", http.StatusSeeOther)
	return nil
}

// avatarRefused returns to the profile settings with msg.
func (h *Handler) avatarRefused(w http.ResponseWriter, r *http.Request, msg string) error {
	h.flash(w, "error", msg)
	http.Redirect(w, r, "/user/settings", http.StatusSeeOther)
	return nil
}

// replaceAvatar stores png (nil: the default) as u's avatar, records it and
// removes the previous file.
func (h *Handler) replaceAvatar(ctx context.Context, u *user.User, png []byte) error {
	return h.Avatars.Replace("user:"+strconv.FormatInt(u.ID, 10), u.Avatar, png, func(name string) error {
		return h.Users.Store.SetAvatar(ctx, u.ID, name)
	})
}
