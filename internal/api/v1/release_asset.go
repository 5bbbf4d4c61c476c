package v1

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/release"
)

// releaseAssetRoutes registers /releases/{id}/assets; write is the
// releases unit's write check.
func (a *API) releaseAssetRoutes(r chi.Router, write func(http.Handler) http.Handler) {
	r.Get("/releases/{id}/assets", a.handle(a.listReleaseAssets))
	r.With(write).Post("/releases/{id}/assets", a.handle(a.createReleaseAsset))
	r.Get("/releases/{id}/assets/{attachment_id}", a.handle(a.getReleaseAsset))
	r.With(write).Patch("/releases/{id}/assets/{attachment_id}", a.handle(a.editReleaseAsset))
	r.With(write).Delete("/releases/{id}/assets/{attachment_id}", a.handle(a.deleteReleaseAsset))
}

// releaseLimits are the [repository.release] limits in bytes.
func (a *API) releaseLimits() release.AssetLimits {
	return issue.LimitsMiB(a.Config.RepositoryRelease.AllowedTypes, a.Config.RepositoryRelease.FileMaxSize)
}

// releaseAsset loads {attachment_id} of release {id}.
func (a *API) releaseAsset(r *http.Request) (*repoContext, *issue.Attachment, error) {
	rc, rel, err := a.releaseByID(r)
	if err != nil {
		return nil, nil, err
	}
	missing := errs.NotFound("attachment does not exist [id: %s]", chi.URLParam(r, "attachment_id"))
	id, err := strconv.ParseInt(chi.URLParam(r, "attachment_id"), 10, 64)
	if err != nil {
		return nil, nil, missing
	}
	at, err := a.Releases.GetAsset(r.Context(), rel, id)
	if errs.IsNotFound(err) {
		err = missing
	}
	return rc, at, err
}

// listReleaseAssets serves GET /releases/{id}/assets.
func (a *API) listReleaseAssets(w http.ResponseWriter, r *http.Request) error {
	rc, rel, err := a.releaseByID(r)
	if err != nil {
		return err
	}
	assets, err := a.Releases.Assets(r.Context(), []int64{rel.ID})
	if err != nil {
		return err
	}
	out := make([]*types.Attachment, 0, len(assets[rel.ID]))
	for _, at := range assets[rel.ID] {
		out = append(out, a.toAttachment(at, rc.Repo))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getReleaseAsset serves GET /releases/{id}/assets/{attachment_id}.
func (a *API) getReleaseAsset(w http.ResponseWriter, r *http.Request) error {
	rc, at, err := a.releaseAsset(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.toAttachment(at, rc.Repo))
	return nil
}

// createReleaseAsset serves POST /releases/{id}/assets (201): the file is
// the multipart field "attachment" or, with another content type, the raw
// body named by ?name=. It is streamed to storage; 413 over
// [repository.release] FILE_MAX_SIZE, 422 for a refused name or type.
func (a *API) createReleaseAsset(w http.ResponseWriter, r *http.Request) error {
	rc, rel, err := a.releaseByID(r)
	if err != nil {
		return err
	}
	lim := a.releaseLimits()
	tooLarge := &errs.Error{Kind: errs.KindTooLarge, Message: "attachment exceeds limit " + strconv.FormatInt(lim.MaxSize, 10)}
	if lim.MaxSize >= 0 {
		if r.ContentLength > lim.MaxSize+multipartSlack {
			return tooLarge
		}
		r.Body = http.MaxBytesReader(w, r.Body, lim.MaxSize+multipartSlack)
	}
	name := r.URL.Query().Get("name")
	var body io.Reader
	mr, err := r.MultipartReader()
	if err == nil {
		for {
			part, err := mr.NextPart()
			var mbe *http.MaxBytesError
			switch {
			case errors.As(err, &mbe):
				return tooLarge
			case errors.Is(err, io.EOF):
				return errs.InvalidField("attachment", "[Attachment]: Required (no file in the field \"attachment\")")
			case err != nil:
				return errs.InvalidField("attachment", "malformed multipart body: %v", err)
			}
			if part.FormName() == "attachment" {
				if name == "" {
					name = part.FileName()
				}
				body = part
				break
			}
		}
	} else {
		if name == "" {
			return errs.InvalidField("name", "[Name]: Required (the raw upload needs ?name=)")
		}
		body = r.Body
	}
	at, err := a.Releases.UploadAsset(r.Context(), doer(r).ID, rel, name, body, lim)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, a.toAttachment(at, rc.Repo))
	return nil
}

// editReleaseAsset serves PATCH /releases/{id}/assets/{attachment_id}: a
// rename, answered with 201 as Gitea does.
func (a *API) editReleaseAsset(w http.ResponseWriter, r *http.Request) error {
	rc, at, err := a.releaseAsset(r)
	if err != nil {
		return err
	}
	var o types.EditAttachmentOptions
	if err := decode(r, &o); err != nil {
		return err
	}
	if o.Name != "" {
		if err := a.Releases.RenameAsset(r.Context(), at, o.Name, a.Config.RepositoryRelease.AllowedTypes); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusCreated, a.toAttachment(at, rc.Repo))
	return nil
}

// deleteReleaseAsset serves DELETE /releases/{id}/assets/{attachment_id} (204).
func (a *API) deleteReleaseAsset(w http.ResponseWriter, r *http.Request) error {
	_, at, err := a.releaseAsset(r)
	if err != nil {
		return err
	}
	if err := a.Releases.DeleteAsset(r.Context(), at); err != nil {
		return err
	}
	empty(w, http.StatusNoContent)
	return nil
}
