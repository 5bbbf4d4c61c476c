package web

import (
	"context"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// releasesPerPage is the length of a page of the release list.
const releasesPerPage = 10

// releaseView is one release as the pages show it.
type releaseView struct {
	*release.Release
	Publisher *user.User
	Assets    []*issue.Attachment
	// Notes is the rendered release note.
	Notes template.HTML
	// Link is the release's page; Download the prefix of its asset links.
	Link, EditLink, Download string
}

// DisplayTitle is the title, or the tag when there is none.
func (v *releaseView) DisplayTitle() string {
	if strings.TrimSpace(v.Title) != "" {
		return v.Title
	}
	return v.TagName
}

// releaseListPage is the data of the release list and of one release.
type releaseListPage struct {
	Releases []*releaseView
	CanWrite bool
	// Single is set on a release's own page.
	Single     bool
	Page       int
	Prev, Next string
}

// routeWildcard is the "/*" part of a route (a tag or a branch may hold
// slashes), unescaped once when the router matched the escaped path.
func routeWildcard(r *http.Request) string {
	v := chi.URLParam(r, "*")
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(v); err == nil {
			return u
		}
	}
	return v
}

// noteHTML renders Markdown written in a repository (release notes,
// milestone descriptions, review comments) through the sanitizing renderer.
func (h *Handler) noteHTML(ctx context.Context, rc *repoCtx, text string) template.HTML {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	out, err := h.Markup.Render(ctx, []byte(text), markup.Options{Mode: markup.ModeComment,
		RepoLink: strings.TrimSuffix(h.rootURL, "/") + rc.Link})
	if err != nil {
		// Too large (over markup.MaxText) or the visitor left.
		return template.HTML(`<p class="muted">This text is too large to show.</p>`)
	}
	return template.HTML(out) // sanitized by the renderer
}

// releaseViews loads the publishers and assets of list (two queries
// whatever its length) and renders the notes.
func (h *Handler) releaseViews(ctx context.Context, rc *repoCtx, list []*release.Release) ([]*releaseView, error) {
	ids := make([]int64, 0, len(list))
	publishers := make([]int64, 0, len(list))
	for _, rel := range list {
		ids = append(ids, rel.ID)
		publishers = append(publishers, rel.PublisherID)
	}
	assets, err := h.Releases.Assets(ctx, ids)
	if err != nil {
		return nil, err
	}
	users, err := h.Users.Store.GetByIDs(ctx, publishers)
	if err != nil {
		return nil, err
	}
	out := make([]*releaseView, 0, len(list))
	for _, rel := range list {
		u := users[rel.PublisherID]
		if u == nil {
			u = user.Ghost()
		}
		esc := escapeSegments(rel.TagName)
		out = append(out, &releaseView{Release: rel, Publisher: u, Assets: assets[rel.ID],
			Notes: h.noteHTML(ctx, rc, rel.Note), Link: rc.Link + "/releases/tag/" + esc,
			EditLink: rc.Link + "/releases/edit/" + esc, Download: rc.Link + "/releases/download/" + url.PathEscape(rel.TagName) + "/"})
	}
	return out, nil
}

// releases lists a repository's releases, newest first; drafts only for
// writers of the releases unit.
func (h *Handler) releases(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoUnit(r, repo.UnitReleases, "releases")
	if err != nil {
		return err
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	canWrite := rc.Perm.CanWrite(repo.UnitReleases)
	list, total, err := h.Releases.List(r.Context(), rc.Repo.ID, release.ListOptions{Drafts: canWrite,
		Offset: (page - 1) * releasesPerPage, Limit: releasesPerPage})
	if err != nil {
		return err
	}
	views, err := h.releaseViews(r.Context(), rc, list)
	if err != nil {
		return err
	}
	data := releaseListPage{Releases: views, CanWrite: canWrite, Page: page}
	if page > 1 {
		data.Prev = rc.Link + "/releases?page=" + strconv.Itoa(page-1)
	}
	if int64(page*releasesPerPage) < total {
		data.Next = rc.Link + "/releases?page=" + strconv.Itoa(page+1)
	}
	return h.renderRepo(w, r, http.StatusOK, "release_list", "Releases", rc, data)
}

// visibleReleaseByTag loads the release of tag as the visitor may see it:
// tag-only rows and, for readers, drafts are not found.
func (h *Handler) visibleReleaseByTag(ctx context.Context, rc *repoCtx, tag string) (*release.Release, error) {
	rel, err := h.Releases.GetByTag(ctx, rc.Repo.ID, tag)
	if err != nil {
		return nil, err
	}
	if rel.IsTag || (rel.IsDraft && !rc.Perm.CanWrite(repo.UnitReleases)) {
		return nil, errs.NotFound("release does not exist [tag: %s]", tag)
	}
	return rel, nil
}

// releaseByTag shows one release.
func (h *Handler) releaseByTag(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.loadRepoUnit(r, repo.UnitReleases, "releases")
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
	return h.renderRepo(w, r, http.StatusOK, "release_list", views[0].DisplayTitle(), rc,
		releaseListPage{Releases: views, CanWrite: rc.Perm.CanWrite(repo.UnitReleases), Single: true})
}

// releaseWriter loads the repository of a page that changes releases: the
// visitor must be signed in and write the releases unit.
func (h *Handler) releaseWriter(r *http.Request) (*repoCtx, error) {
	rc, err := h.loadRepoUnit(r, repo.UnitReleases, "releases")
	if err != nil {
		return nil, err
	}
	if err := signedIn(r); err != nil {
		return nil, err
	}
	if !rc.Perm.CanWrite(repo.UnitReleases) {
		if rc.Repo.IsArchived {
			return nil, errs.Forbidden("The repository is archived.")
		}
		return nil, errs.Forbidden("You need write access to the releases of this repository.")
	}
	return rc, nil
}

// deleteRelease deletes the release of form field id; its tag stays.
func (h *Handler) deleteRelease(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.releaseWriter(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	if err != nil {
		return errs.NotFound("no such release")
	}
	rel, err := h.Releases.GetByID(r.Context(), rc.Repo.ID, id)
	if err != nil {
		return err
	}
	if rel.IsTag {
		return errs.NotFound("no such release")
	}
	if err := h.Releases.Delete(r.Context(), doer(r).ID, rel); err != nil {
		return err
	}
	h.flash(w, "success", "Release "+rel.TagName+" deleted; its tag stays.")
	http.Redirect(w, r, rc.Link+"/releases", http.StatusSeeOther)
	return nil
}

// deleteReleaseAsset deletes asset id of release release.
func (h *Handler) deleteReleaseAsset(w http.ResponseWriter, r *http.Request) error {
	rc, err := h.releaseWriter(r)
	if err != nil {
		return err
	}
	relID, err1 := strconv.ParseInt(r.PostFormValue("release"), 10, 64)
	id, err2 := strconv.ParseInt(r.PostFormValue("id"), 10, 64)
	if err1 != nil || err2 != nil {
		return errs.NotFound("no such asset")
	}
	rel, err := h.Releases.GetByID(r.Context(), rc.Repo.ID, relID)
	if err != nil {
		return err
	}
	if rel.IsTag {
		return errs.NotFound("no such release")
	}
	at, err := h.Releases.GetAsset(r.Context(), rel, id)
	if err != nil {
		return err
	}
	if err := h.Releases.DeleteAsset(r.Context(), at); err != nil {
		return err
	}
	h.flash(w, "success", "Asset "+at.Name+" deleted.")
	http.Redirect(w, r, rc.Link+"/releases/edit/"+escapeSegments(rel.TagName), http.StatusSeeOther)
	return nil
}
