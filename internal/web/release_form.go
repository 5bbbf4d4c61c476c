package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
)

const (
	// releaseFormMemory is how much of a release form (notes and files) is
	// held in memory while it is read; larger files wait on disk.
	releaseFormMemory = 8 << 20
	// maxReleaseFormFiles bounds the assets one form may upload.
	maxReleaseFormFiles = 20
	// maxReleaseTagLength bounds a tag name, in characters (as the API's).
	maxReleaseTagLength = 100
	// maxReleaseFieldLength bounds the title and the target, in characters.
	maxReleaseFieldLength = 255
)

// releaseFormPage is the data of the new and edit release forms.
type releaseFormPage struct {
	IsNew bool
	// Release is the release being edited (nil for a new one).
	Release    *releaseView
	Tag        string
	Target     string
	Title      string
	Content    string
	Draft      bool
	Prerelease bool
	// Branches are offered as targets.
	Branches []string
	// Error is the refusal of the last attempt.
	Error string
	// MaxSize is the asset size limit in bytes (negative: none).
	MaxSize int64
}

// releaseLimits are the [repository.release] limits in bytes.
func (h *Handler) releaseLimits() release.AssetLimits {
	return issue.LimitsMiB(h.Config.RepositoryRelease.AllowedTypes, h.Config.RepositoryRelease.FileMaxSize)
}

// releaseBranches lists up to 100 branches to offer as targets.
func (h *Handler) releaseBranches(ctx context.Context, rc *repoCtx) []string {
	if rc.Repo.IsEmpty {
		return nil
	}
	list, _, err := h.Git.ListBranches(ctx, h.Repos.Path(rc.Repo), git.ListOptions{Limit: 100})
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, b := range list {
		out = append(out, b.Name)
	}
	return out
}

// parseReleaseForm reads a release form, multipart (with files) or not.
// Files beyond releaseFormMemory are kept on disk until the request ends.
func (h *Handler) parseReleaseForm(w http.ResponseWriter, r *http.Request) error {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		return r.ParseForm()
	}
	if r.MultipartForm == nil {
		if lim := h.releaseLimits(); lim.MaxSize >= 0 {
			r.Body = http.MaxBytesReader(w, r.Body, lim.MaxSize*maxReleaseFormFiles+releaseFormMemory)
		}
	}
	err := r.ParseMultipartForm(releaseFormMemory)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return &errs.Error{Kind: errs.KindTooLarge, Message: "The upload is larger than the release asset limit."}
	case err != nil:
		return errs.BadRequest("The form could not be read: %v", err)
	}
	return nil
}

// releaseFormValues reads the fields of a posted release form.
func releaseFormValues(r *http.Request) releaseFormPage {
	return releaseFormPage{
		Tag:        strings.TrimSpace(r.PostFormValue("tag_name")),
		Target:     strings.TrimSpace(r.PostFormValue("tag_target")),
		Title:      strings.TrimSpace(r.PostFormValue("title")),
		Content:    r.PostFormValue("content"),
		Draft:      r.PostFormValue("draft") != "",
		Prerelease: r.PostFormValue("prerelease") != "",
	}
}

// checkReleaseFields applies the API's rules to a form's tag, title and target.
func checkReleaseFields(f releaseFormPage) error {
	switch {
	case f.Tag == "":
		return errs.InvalidField("tag_name", "The tag name is required.")
	case utf8.RuneCountInString(f.Tag) > maxReleaseTagLength:
		return errs.InvalidField("tag_name", "The tag name is longer than %d characters.", maxReleaseTagLength)
	case !git.ValidBranchName(f.Tag) || !release.ValidTagName(f.Tag):
		return errs.InvalidField("tag_name", "%q is not a valid tag name.", f.Tag)
	case utf8.RuneCountInString(f.Title) > maxReleaseFieldLength:
		return errs.InvalidField("title", "The title is longer than %d characters.", maxReleaseFieldLength)
	case len(f.Target) > maxReleaseFieldLength:
		return errs.InvalidField("tag_target", "The target is longer than %d characters.", maxReleaseFieldLength)
	}
	return nil
}

// ensureReleaseTag returns the commit of tag name, creating the tag at
// target (the default branch when empty) when it does not exist, through the
// repository's push rules (tag protection) and push listeners like every
// reference change, as the API does. Creating needs write access to the code.
func (h *Handler) ensureReleaseTag(r *http.Request, rc *repoCtx, name, target string) (string, error) {
	ctx := r.Context()
	if t, err := h.Git.GetTag(ctx, h.Repos.Path(rc.Repo), name); err == nil {
		return t.CommitSHA, nil
	} else if !errors.Is(err, git.ErrNotFound) {
		return "", err
	}
	if !rc.Perm.CanWrite(repo.UnitCode) {
		return "", errs.Forbidden("You need write access to the code to create the tag %q.", name)
	}
	if rc.Repo.IsEmpty {
		return "", errs.Invalid("The repository is empty: push a commit before publishing a release.")
	}
	if rc.Repo.IsMirror {
		return "", errs.Forbidden("The repository is a mirror.")
	}
	commit, err := h.Repos.CreateTag(ctx, rc.Repo, doer(r).ID, name, target)
	switch {
	case errors.Is(err, repo.ErrTargetNotFound):
		if target == "" {
			target = rc.Repo.DefaultBranch
		}
		return "", errs.InvalidField("tag_target", "The target %q is no branch or commit of this repository.", target)
	case errs.Is(err, errs.KindForbidden):
		return "", errs.Invalid("You may not create the protected tag %q: %v", name, err)
	}
	return commit, err
}

// uploadReleaseAssets stores the files of the form's "attachment" inputs
// as assets of rel, stopping at the first refusal.
func (h *Handler) uploadReleaseAssets(r *http.Request, rel *release.Release) (int, error) {
	if r.MultipartForm == nil {
		return 0, nil
	}
	files := r.MultipartForm.File["attachment"]
	if len(files) > maxReleaseFormFiles {
		return 0, errs.Invalid("At most %d files can be uploaded at once.", maxReleaseFormFiles)
	}
	lim := h.releaseLimits()
	n := 0
	for _, fh := range files {
		if fh.Filename == "" && fh.Size == 0 {
			continue // the empty file input
		}
		if lim.MaxSize >= 0 && fh.Size > lim.MaxSize {
			return n, &errs.Error{Kind: errs.KindTooLarge, Message: fh.Filename + " is larger than the release asset limit of " + fileSize(lim.MaxSize) + "."}
		}
		f, err := fh.Open()
		if err != nil {
			return n, err
		}
		_, err = h.Releases.UploadAsset(r.Context(), doer(r).ID, rel, fh.Filename, f, lim)
		_ = f.Close()
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// releaseFormError shows a refusal on the form, with what was entered; other
// errors are the error page's.
func (h *Handler) releaseFormError(w http.ResponseWriter, r *http.Request, rc *repoCtx, data releaseFormPage, err error) error {
	var e *errs.Error
	if !errors.As(err, &e) {
		return err
	}
	status := http.StatusUnprocessableEntity
	switch e.Kind {
	case errs.KindForbidden:
		status = http.StatusForbidden
	case errs.KindConflict, errs.KindAlreadyExists:
		status = http.StatusConflict
	case errs.KindTooLarge:
		status = http.StatusRequestEntityTooLarge
	case errs.KindInvalid, errs.KindBadRequest, errs.KindNotFound:
	default:
		return err
	}
	data.Error = errMessage(err, "The release could not be saved.")
	data.Branches = h.releaseBranches(r.Context(), rc)
	data.MaxSize = h.releaseLimits().MaxSize
	title := "New release"
	if !data.IsNew {
		title = "Edit release"
	}
	return h.renderRepo(w, r, status, "release_form", title, rc, data)
}

// newReleaseForm shows the form of a new release (?tag= fills the tag).
func (h *Handler) newReleaseForm(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.releaseWriter(r)
	if err != nil {
		return err
	}
	data := releaseFormPage{IsNew: true, Tag: r.URL.Query().Get("tag"), Target: rc.Repo.DefaultBranch,
		Branches: h.releaseBranches(r.Context(), rc), MaxSize: h.releaseLimits().MaxSize}
	return h.renderRepo(w, r, http.StatusOK, "release_form", "New release", rc, data)
}

// createRelease creates a release from the form, its tag (unless it is a
// draft) and its assets, as the API's POST /releases does.
func (h *Handler) createRelease(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.releaseWriter(r)
	if err != nil {
		return err
	}
	if err := h.parseReleaseForm(w, r); err != nil {
		return err
	}
	data := releaseFormValues(r)
	data.IsNew = true
	if err := checkReleaseFields(data); err != nil {
		return h.releaseFormError(w, r, rc, data, err)
	}
	ctx := r.Context()
	if old, err := h.Releases.GetByTag(ctx, rc.Repo.ID, data.Tag); err == nil && !old.IsTag {
		return h.releaseFormError(w, r, rc, data, errs.Conflict("A release of the tag %q already exists.", data.Tag))
	}
	target := data.Target
	if target == "" {
		target = rc.Repo.DefaultBranch
	}
	rel := &release.Release{RepoID: rc.Repo.ID, PublisherID: doer(r).ID, TagName: data.Tag, Target: target,
		Title: data.Title, Note: data.Content, IsDraft: data.Draft, IsPrerelease: data.Prerelease}
	if !rel.IsDraft {
		if rel.SHA1, err = h.ensureReleaseTag(r, rc, data.Tag, data.Target); err != nil {
			return h.releaseFormError(w, r, rc, data, err)
		}
	}
	if err := h.Releases.Create(ctx, rel); err != nil {
		return h.releaseFormError(w, r, rc, data, err)
	}
	return h.afterReleaseSave(w, r, rc, rel, "Release "+rel.TagName+" saved.")
}

// afterReleaseSave uploads the form's assets and goes to the release's
// page, or back to its edit form when an asset was refused.
func (h *Handler) afterReleaseSave(w http.ResponseWriter, r *http.Request, rc *repoCtx, rel *release.Release, done string) error {
	esc := escapeSegments(rel.TagName)
	if _, err := h.uploadReleaseAssets(r, rel); err != nil {
		var e *errs.Error
		if !errors.As(err, &e) {
			return err
		}
		h.flash(w, "error", "The release was saved, but an asset was refused: "+e.Message)
		http.Redirect(w, r, rc.Link+"/releases/edit/"+esc, http.StatusSeeOther)
		return nil
	}
	h.flash(w, "success", done)
	http.Redirect(w, r, rc.Link+"/releases/tag/"+esc, http.StatusSeeOther)
	return nil
}

// editReleaseForm shows the edit form of a release and its assets.
func (h *Handler) editReleaseForm(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.releaseWriter(r)
	if err != nil {
		return err
	}
	rel, err := h.visibleReleaseByTag(r.Context(), rc, routeWildcard(r))
	if err != nil {
		return err
	}
	views, err := h.releaseViews(r.Context(), rc, []*release.Release{rel})
	if err != nil {
		return err
	}
	data := releaseFormPage{Release: views[0], Tag: rel.TagName, Target: rel.Target, Title: rel.Title, Content: rel.Note,
		Draft: rel.IsDraft, Prerelease: rel.IsPrerelease, Branches: h.releaseBranches(r.Context(), rc), MaxSize: h.releaseLimits().MaxSize}
	return h.renderRepo(w, r, http.StatusOK, "release_form", "Edit release", rc, data)
}

// editRelease saves the edit form, as the API's PATCH /releases/{id} does:
// publishing a draft (or renaming the tag of a published release) creates
// its tag.
func (h *Handler) editRelease(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.releaseWriter(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	rel, err := h.visibleReleaseByTag(ctx, rc, routeWildcard(r))
	if err != nil {
		return err
	}
	if err := h.parseReleaseForm(w, r); err != nil {
		return err
	}
	data := releaseFormValues(r)
	views, err := h.releaseViews(ctx, rc, []*release.Release{rel})
	if err != nil {
		return err
	}
	data.Release = views[0]
	if err := checkReleaseFields(data); err != nil {
		return h.releaseFormError(w, r, rc, data, err)
	}
	wasDraft := rel.IsDraft
	if data.Tag != rel.TagName {
		if old, err := h.Releases.GetByTag(ctx, rc.Repo.ID, data.Tag); err == nil && !old.IsTag {
			return h.releaseFormError(w, r, rc, data, errs.Conflict("A release of the tag %q already exists.", data.Tag))
		}
		rel.TagName, rel.SHA1 = data.Tag, ""
	}
	if data.Target != "" {
		rel.Target = data.Target
	}
	rel.Title, rel.Note, rel.IsDraft, rel.IsPrerelease = data.Title, data.Content, data.Draft, data.Prerelease
	if !rel.IsDraft && rel.SHA1 == "" {
		if rel.SHA1, err = h.ensureReleaseTag(r, rc, rel.TagName, rel.Target); err != nil {
			return h.releaseFormError(w, r, rc, data, err)
		}
	}
	if err := h.Releases.Update(ctx, doer(r).ID, rel, wasDraft); err != nil {
		return h.releaseFormError(w, r, rc, data, err)
	}
	return h.afterReleaseSave(w, r, rc, rel, "Release "+rel.TagName+" saved.")
}
