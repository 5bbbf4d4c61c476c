package v1

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/avatar"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/repo"
)

// repoAvatarURL is the address of a repository's uploaded avatar, "" without one.
func (a *API) repoAvatarURL(r *repo.Repository) string {
	if r.Avatar == "" {
		return ""
	}
	return a.rootURL + "avatars/custom/" + r.Avatar
}

// uploadedAvatar decodes and prepares the image of an avatar upload body.
func (a *API) uploadedAvatar(r *http.Request) ([]byte, error) {
	var in types.UpdateUserAvatarOption
	if err := decode(r, &in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Image) == "" {
		return nil, errs.InvalidField("image", "[Image]: Required")
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(in.Image))
	if err != nil {
		return nil, errs.BadRequest("the image is not valid base64: %v", err)
	}
	pic := a.Config.Picture
	png, err := avatar.Prepare(data, avatar.Limits{MaxWidth: pic.AvatarMaxWidth, MaxHeight: pic.AvatarMaxHeight, MaxFileSize: pic.AvatarMaxFileSize})
	if errors.Is(err, avatar.ErrInvalidImage) {
		return nil, errs.InvalidField("image", "%s", err.Error())
	}
	return png, err
}

// changeAvatar answers an avatar upload (upload) or removal for owner (e.g.
// "user:3"), whose current avatar file is previous; set records the new one.
func (a *API) changeAvatar(w http.ResponseWriter, r *http.Request, upload bool, owner, previous string, set func(name string) error) {
	var png []byte
	if upload {
		var err error
		if png, err = a.uploadedAvatar(r); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	if err := a.Avatars.Replace(owner, previous, png, set); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// setUserAvatar serves POST /user/avatar (upload) and DELETE /user/avatar.
func (a *API) setUserAvatar(upload bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := doer(r)
		a.changeAvatar(w, r, upload, "user:"+strconv.FormatInt(u.ID, 10), u.Avatar, func(name string) error {
			return a.Users.Store.SetAvatar(r.Context(), u.ID, name)
		})
	}
}

// setOrgAvatar serves POST and DELETE /orgs/{org}/avatar (owners).
func (a *API) setOrgAvatar(upload bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		o, ok := a.loadOrg(w, r)
		if !ok || !a.requireOrgOwner(w, r, o) {
			return
		}
		a.changeAvatar(w, r, upload, "user:"+strconv.FormatInt(o.ID, 10), o.Avatar, func(name string) error {
			return a.Users.Store.SetAvatar(r.Context(), o.ID, name)
		})
	}
}

// setRepoAvatar serves POST and DELETE /repos/{owner}/{repo}/avatar (admins).
func (a *API) setRepoAvatar(upload bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rc := currentRepo(r)
		a.changeAvatar(w, r, upload, "repo:"+strconv.FormatInt(rc.Repo.ID, 10), rc.Repo.Avatar, func(name string) error {
			return a.Repos.Store.SetAvatar(r.Context(), rc.Repo.ID, name)
		})
	}
}
