package v1

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/auth"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// multipartSlack is how much a multipart upload may exceed the file limit
// for its headers and other fields.
const multipartSlack = 1 << 20

// attachmentRoutes registers the /assets routes of issues and comments.
func (a *API) attachmentRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.attachmentsEnabled)
		for _, base := range []string{"/issues/{index}/assets", "/issues/comments/{id}/assets"} {
			r.Get(base, a.listAttachments)
			r.With(a.signedIn).Post(base, a.createAttachment)
			r.Get(base+"/{attachment_id}", a.getAttachment)
			r.With(a.signedIn).Patch(base+"/{attachment_id}", a.editAttachment)
			r.With(a.signedIn).Delete(base+"/{attachment_id}", a.deleteAttachment)
		}
	})
}

// attachmentsEnabled answers 404 when [attachment] ENABLED is off.
func (a *API) attachmentsEnabled(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.Config.Attachment.Enabled {
			a.notFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// attachmentLimits are the [attachment] limits in bytes.
func (a *API) attachmentLimits() issue.AttachmentLimits {
	return issue.LimitsMiB(a.Config.Attachment.AllowedTypes, a.Config.Attachment.MaxSize)
}

// attachmentTarget is what an attachment hangs off: an issue or one of its comments.
type attachmentTarget struct {
	rc      *repoContext
	issue   *issue.Issue
	comment *issue.Comment // nil for the issue itself
}

// loadAttachmentTarget loads the issue ({index}) or comment ({id}) of the path.
func (a *API) loadAttachmentTarget(w http.ResponseWriter, r *http.Request) (*attachmentTarget, bool) {
	if chi.URLParam(r, "index") != "" {
		rc, is, ok := a.loadIssue(w, r)
		return &attachmentTarget{rc: rc, issue: is}, ok
	}
	rc, is, c, ok := a.loadComment(w, r)
	return &attachmentTarget{rc: rc, issue: is, comment: c}, ok
}

// canChange: the poster of the issue or comment, or a writer of its unit.
func (t *attachmentTarget) canChange(r *http.Request) bool {
	d := doer(r)
	if d == nil {
		return false
	}
	poster := t.issue.PosterID
	if t.comment != nil {
		poster = t.comment.PosterID
	}
	return d.ID == poster || canWriteIssue(t.rc, t.issue)
}

// checkChange refuses changes in archived repositories (423, as Gitea) and
// by callers who are neither the poster nor writers (403).
func (a *API) checkChange(w http.ResponseWriter, r *http.Request, t *attachmentTarget) bool {
	if t.rc.Repo.IsArchived {
		a.errorJSON(w, http.StatusLocked, "repo is archived")
		return false
	}
	if !t.canChange(r) {
		what := "issue"
		if t.comment != nil {
			what = "comment"
		}
		a.errorJSON(w, http.StatusForbidden, "user should have permission to edit the "+what+": only its poster or a collaborator with write access can change its attachments")
		return false
	}
	return true
}

// listAttachments serves GET .../assets: the attachments of the issue or comment.
func (a *API) listAttachments(w http.ResponseWriter, r *http.Request) {
	t, ok := a.loadAttachmentTarget(w, r)
	if !ok {
		return
	}
	tail, args := "WHERE a.issue_id = ? AND a.comment_id = 0 ORDER BY a.id", []any{t.issue.ID}
	if t.comment != nil {
		tail, args = "WHERE a.comment_id = ? ORDER BY a.id", []any{t.comment.ID}
	}
	list, err := a.Issues.ListAttachments(r.Context(), tail, args...)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := make([]*types.Attachment, 0, len(list))
	for _, at := range list {
		out = append(out, a.toAttachment(at, t.rc.Repo))
	}
	writeJSON(w, http.StatusOK, out)
}

// loadAttachment loads {attachment_id}, which must belong to the target (404 otherwise).
func (a *API) loadAttachment(w http.ResponseWriter, r *http.Request, t *attachmentTarget) (*issue.Attachment, bool) {
	id, ok := a.pathID(w, r, "attachment_id")
	if !ok {
		return nil, false
	}
	at, err := a.Issues.GetAttachment(r.Context(), id)
	if err == nil {
		belongs := at.RepoID == t.rc.Repo.ID && at.IssueID == t.issue.ID
		if t.comment != nil {
			belongs = belongs && at.CommentID == t.comment.ID
		} else {
			belongs = belongs && at.CommentID == 0
		}
		if !belongs {
			err = errs.NotFound("attachment does not exist [id: %d]", id)
		}
	}
	if err != nil {
		a.fail(w, r, err)
		return nil, false
	}
	return at, true
}

// getAttachment serves GET .../assets/{attachment_id}.
func (a *API) getAttachment(w http.ResponseWriter, r *http.Request) {
	t, ok := a.loadAttachmentTarget(w, r)
	if !ok {
		return
	}
	if at, ok := a.loadAttachment(w, r, t); ok {
		writeJSON(w, http.StatusOK, a.toAttachment(at, t.rc.Repo))
	}
}

// createAttachment serves POST .../assets: a multipart/form-data upload with
// the file in the field "attachment" and an optional ?name= override. The
// file is streamed to storage; 413 when it is over [attachment] MAX_SIZE,
// 422 when its type is not allowed.
func (a *API) createAttachment(w http.ResponseWriter, r *http.Request) {
	t, ok := a.loadAttachmentTarget(w, r)
	if !ok || !a.checkChange(w, r, t) {
		return
	}
	lim := a.attachmentLimits()
	if lim.MaxSize >= 0 {
		r.Body = http.MaxBytesReader(w, r.Body, lim.MaxSize+multipartSlack)
	}
	tooLarge := func() {
		a.fail(w, r, &errs.Error{Kind: errs.KindTooLarge, Message: "attachment exceeds limit " + itoa(lim.MaxSize)})
	}
	mr, err := r.MultipartReader()
	if err != nil {
		a.fail(w, r, errs.InvalidField("attachment", "the upload must be multipart/form-data with the file in the field \"attachment\": %v", err))
		return
	}
	for {
		part, err := mr.NextPart()
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			tooLarge()
			return
		case errors.Is(err, io.EOF):
			a.fail(w, r, errs.InvalidField("attachment", "[Attachment]: Required (no file in the field \"attachment\")"))
			return
		case err != nil:
			a.fail(w, r, errs.InvalidField("attachment", "malformed multipart body: %v", err))
			return
		}
		if part.FormName() != "attachment" {
			continue
		}
		name := part.FileName()
		if q := r.URL.Query().Get("name"); q != "" {
			name = q
		}
		at, err := a.Issues.UploadAttachment(r.Context(), doer(r), t.rc.Repo, t.issue, t.comment, name, part, lim)
		if errors.As(err, &mbe) {
			tooLarge()
			return
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusCreated, a.toAttachment(at, t.rc.Repo))
		return
	}
}

// editAttachment serves PATCH .../assets/{attachment_id}: renames it and
// answers 201, as Gitea does.
func (a *API) editAttachment(w http.ResponseWriter, r *http.Request) {
	t, ok := a.loadAttachmentTarget(w, r)
	if !ok || !a.checkChange(w, r, t) {
		return
	}
	at, ok := a.loadAttachment(w, r, t)
	if !ok {
		return
	}
	var o types.EditAttachmentOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if o.Name != "" {
		if err := a.Issues.RenameAttachment(r.Context(), at, o.Name, a.Config.Attachment.AllowedTypes); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusCreated, a.toAttachment(at, t.rc.Repo))
}

// deleteAttachment serves DELETE .../assets/{attachment_id}.
func (a *API) deleteAttachment(w http.ResponseWriter, r *http.Request) {
	t, ok := a.loadAttachmentTarget(w, r)
	if !ok || !a.checkChange(w, r, t) {
		return
	}
	at, ok := a.loadAttachment(w, r, t)
	if !ok {
		return
	}
	if err := a.Issues.DeleteAttachment(r.Context(), at); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// ServeAttachment serves GET /attachments/{uuid}, the browser_download_url
// of attachments. It is mounted on the top-level mux: callers authenticate
// with basic auth or a token header (no session), and the attachment's
// repository unit must be readable by them (404 otherwise, as for a missing
// file). The file is sent as a download with a Content-Type that a browser
// will not render as a page, and the download is counted.
func (a *API) ServeAttachment(w http.ResponseWriter, r *http.Request) {
	uuid := r.PathValue("uuid")
	a.serveAttachment(w, r, errs.NotFound("attachment does not exist [uuid: %s]", uuid),
		func(ctx context.Context) (*issue.Attachment, error) { return a.Issues.GetAttachmentByUUID(ctx, uuid) })
}

// serveReleaseDownload serves GET /{owner}/{repo}/releases/download/{tag}/{name},
// Gitea's web address of a release asset, with ServeAttachment's rules:
// what the caller may not read answers 404 like what does not exist.
func (a *API) serveReleaseDownload(w http.ResponseWriter, r *http.Request) {
	ownerName, repoName := chi.URLParam(r, "owner"), chi.URLParam(r, "repo")
	tag, name := chi.URLParam(r, "tag"), chi.URLParam(r, "name")
	notFound := errs.NotFound("release asset does not exist [tag: %s, name: %s]", tag, name)
	a.serveAttachment(w, r, notFound, func(ctx context.Context) (*issue.Attachment, error) {
		rp, _, err := a.Repos.GetWithOwner(ctx, ownerName, repoName)
		if err == nil {
			var rel *release.Release
			if rel, err = a.Releases.GetByTag(ctx, rp.ID, tag); err == nil && !rel.IsTag {
				assets, err := a.Releases.Assets(ctx, []int64{rel.ID})
				if err != nil {
					return nil, err
				}
				for _, at := range assets[rel.ID] {
					if at.Name == name {
						return at, nil
					}
				}
			}
		}
		if err != nil && !errs.IsNotFound(err) {
			return nil, err
		}
		return nil, notFound
	})
}

// serveAttachment authenticates the caller, finds the attachment, checks
// that the caller may read it (notFound otherwise, whatever went wrong in
// find) and sends it as a download.
func (a *API) serveAttachment(w http.ResponseWriter, r *http.Request, notFound error, find func(ctx context.Context) (*issue.Attachment, error)) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=0, must-revalidate")
	ctx := r.Context()
	id, err := a.Authn.Authenticate(r, false)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if id == nil && a.Config.Service.RequireSigninView { // a web address: sign in first
		http.Redirect(w, r, "/user/login?redirect_to="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	var u, v *user.User // the caller, and the caller as far as visibility goes
	if id != nil {
		u = id.User
		if !u.IsActive || u.ProhibitLogin || u.IsOrganization() {
			a.errorJSON(w, http.StatusForbidden, "This account is prohibited from signing in, please contact your site administrator.")
			return
		}
		v = u
		if id.Token != nil && id.Token.Scope.PublicOnly {
			v = nil
		}
	}
	at, err := find(ctx)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	unit, cat := "", auth.CatIssue
	switch {
	case at.IssueID != 0:
		is, err := a.Issues.GetByID(ctx, at.IssueID)
		if err != nil {
			a.fail(w, r, notFound)
			return
		}
		unit = issueUnit(is)
	case at.ReleaseID != 0:
		unit, cat = repo.UnitReleases, auth.CatRepository
	}
	if unit == "" {
		// Linked to nothing (its comment was deleted): only the uploader may fetch it.
		if u == nil || u.ID != at.UploaderID {
			a.fail(w, r, notFound)
			return
		}
	} else {
		rp, err := a.Repos.GetByID(ctx, at.RepoID)
		if err != nil {
			a.fail(w, r, notFound)
			return
		}
		owner, err := a.Users.Store.GetByID(ctx, rp.OwnerID)
		if err != nil {
			a.fail(w, r, notFound)
			return
		}
		perm, err := a.Access.RepoPermission(ctx, v, rp, owner)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if !rp.HasUnit(unit) || !perm.CanRead(unit) {
			a.fail(w, r, notFound)
			return
		}
		if at.ReleaseID != 0 && a.releaseAssetHidden(ctx, at, perm.CanWrite(repo.UnitReleases)) {
			a.fail(w, r, notFound)
			return
		}
		if id != nil && id.Token != nil && !id.Token.Scope.Has(cat, auth.LevelRead) {
			a.errorJSON(w, http.StatusForbidden, "token does not have at least one of required scope(s), required=["+
				auth.Required(cat, auth.LevelRead)+"], token scope="+id.Token.Scope.String())
			return
		}
	}
	f, info, err := a.Issues.OpenAttachment(ctx, at)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		a.fail(w, r, err)
		return
	}
	if r.Method == http.MethodGet && r.Header.Get("Range") == "" {
		if err := a.Issues.CountDownload(ctx, at); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	h.Set("Content-Type", attachmentContentType(head[:n]))
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": at.Name}))
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	http.ServeContent(w, r, "", info.ModTime, f)
}

// attachmentContentType is the type an attachment download is served with: media and
// archives keep their sniffed type, text is plain text, and anything else
// (HTML, SVG, scripts) is an opaque byte stream a browser will not render.
func attachmentContentType(head []byte) string {
	mt := issue.DetectType(head)
	switch {
	case strings.HasPrefix(mt, "text/"):
		return "text/plain; charset=utf-8"
	case strings.HasPrefix(mt, "image/") && !strings.Contains(mt, "svg"),
		strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"), strings.HasPrefix(mt, "font/"),
		mt == "application/pdf", mt == "application/zip", mt == "application/x-gzip", mt == "application/ogg":
		return mt
	}
	return "application/octet-stream"
}
