package v1

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/release"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

// releaseRoutes registers /releases. Reading needs read access to the
// releases unit (404 otherwise); changing needs write access to it, and
// creating a tag write access to the code. Drafts exist only for writers of
// the releases unit, on every route.
func (a *API) releaseRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(a.reqUnitRead(repo.UnitReleases))
		write := a.reqUnitWrite(repo.UnitReleases)
		r.Get("/releases", a.handle(a.listReleases))
		r.With(write).Post("/releases", a.handle(a.createRelease))
		r.Get("/releases/latest", a.handle(a.getLatestRelease))
		for _, p := range []string{"/releases/tags/{tag}", "/releases/tags/{tag}/*"} {
			r.Get(p, a.handle(a.getReleaseByTag))
			r.With(write).Delete(p, a.handle(a.deleteReleaseByTag))
		}
		r.Get("/releases/{id}", a.handle(a.getRelease))
		r.With(write).Patch("/releases/{id}", a.handle(a.editRelease))
		r.With(write).Delete("/releases/{id}", a.handle(a.deleteRelease))
		a.releaseAssetRoutes(r, write)
	})
}

// canSeeDrafts: writers of the releases unit.
func canSeeDrafts(rc *repoContext) bool { return rc.Perm.CanWrite(repo.UnitReleases) }

// visibleRelease hides tag-only rows from everyone and drafts from readers.
func visibleRelease(rc *repoContext, rel *release.Release, err error, missing error) (*release.Release, error) {
	if err != nil {
		if errs.IsNotFound(err) {
			return nil, missing
		}
		return nil, err
	}
	if rel.IsTag || (rel.IsDraft && !canSeeDrafts(rc)) {
		return nil, missing
	}
	return rel, nil
}

// releaseByID loads {id} of the current repository as the caller may see it.
func (a *API) releaseByID(r *http.Request) (*repoContext, *release.Release, error) {
	rc := currentRepo(r)
	missing := errs.NotFound("release does not exist [id: %s]", chi.URLParam(r, "id"))
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil {
		return nil, nil, missing
	}
	rel, err := a.Releases.GetByID(r.Context(), rc.Repo.ID, id)
	rel, err = visibleRelease(rc, rel, err, missing)
	return rc, rel, err
}

// releaseByTag loads the release of {tag} as the caller may see it.
func (a *API) releaseByTag(r *http.Request) (*repoContext, *release.Release, error) {
	rc := currentRepo(r)
	tag := wildcardName(r, "tag")
	rel, err := a.Releases.GetByTag(r.Context(), rc.Repo.ID, tag)
	rel, err = visibleRelease(rc, rel, err, errs.NotFound("release does not exist [tag: %s]", tag))
	return rc, rel, err
}

// toReleases renders releases with their assets and publishers, each
// loaded in one query whatever the number of releases.
func (a *API) toReleases(ctx context.Context, rc *repoContext, v *user.User, list []*release.Release) ([]*types.Release, error) {
	ids := make([]int64, 0, len(list))
	var publishers []int64
	for _, rel := range list {
		ids = append(ids, rel.ID)
		publishers = append(publishers, rel.PublisherID)
	}
	assets, err := a.Releases.Assets(ctx, ids)
	if err != nil {
		return nil, err
	}
	users, err := a.Users.Store.GetByIDs(ctx, publishers)
	if err != nil {
		return nil, err
	}
	apiBase, html := a.repoAPIURL(rc), a.repoHTMLURL(rc)
	out := make([]*types.Release, 0, len(list))
	for _, rel := range list {
		u := users[rel.PublisherID]
		if u == nil {
			u = user.Ghost()
		}
		esc := pathEscapeSegments(rel.TagName)
		self := apiBase + "/releases/" + strconv.FormatInt(rel.ID, 10)
		tr := &types.Release{
			ID: rel.ID, TagName: rel.TagName, Target: rel.Target, Title: rel.Title, Note: rel.Note,
			URL: self, HTMLURL: html + "/releases/tag/" + esc,
			TarURL: html + "/archive/" + esc + ".tar.gz", ZipURL: html + "/archive/" + esc + ".zip",
			UploadURL: self + "/assets", IsDraft: rel.IsDraft, IsPrerelease: rel.IsPrerelease,
			CreatedAt: rel.Created, PublishedAt: rel.Created, Publisher: a.toUser(u, v),
			Attachments: make([]*types.Attachment, 0, len(assets[rel.ID])),
		}
		for _, at := range assets[rel.ID] {
			tr.Attachments = append(tr.Attachments, a.toAttachment(at, rc.Repo))
		}
		out = append(out, tr)
	}
	return out, nil
}

func (a *API) writeRelease(w http.ResponseWriter, r *http.Request, rc *repoContext, status int, rel *release.Release) error {
	list, err := a.toReleases(r.Context(), rc, doer(r), []*release.Release{rel})
	if err != nil {
		return err
	}
	writeJSON(w, status, list[0])
	return nil
}

// optionalBool reads a true/false query parameter; nil when absent or invalid.
func optionalBool(r *http.Request, name string) *bool {
	b, err := strconv.ParseBool(r.URL.Query().Get(name))
	if err != nil {
		return nil
	}
	return &b
}

// listReleases serves GET /releases: newest first, filtered by ?draft= and
// ?pre-release=, paged by page/limit or the older per_page.
func (a *API) listReleases(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	pg := a.paging(r)
	q := r.URL.Query()
	if q.Get("limit") == "" && q.Get("page_size") == "" {
		if n, _ := strconv.Atoi(q.Get("per_page")); n > 0 {
			pg.Limit = min(n, a.Config.API.MaxResponseItems)
		}
	}
	opts := release.ListOptions{Drafts: canSeeDrafts(rc), Draft: optionalBool(r, "draft"), Prerelease: optionalBool(r, "pre-release"),
		Offset: pg.Offset(), Limit: pg.Limit}
	list, total, err := a.Releases.List(r.Context(), rc.Repo.ID, opts)
	if err != nil {
		return err
	}
	out, err := a.toReleases(r.Context(), rc, doer(r), list)
	if err != nil {
		return err
	}
	a.setTotal(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getLatestRelease serves GET /releases/latest: the newest published
// release that is not a pre-release.
func (a *API) getLatestRelease(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	rel, err := a.Releases.Latest(r.Context(), rc.Repo.ID)
	if err != nil {
		return err
	}
	return a.writeRelease(w, r, rc, http.StatusOK, rel)
}

// getRelease serves GET /releases/{id}.
func (a *API) getRelease(w http.ResponseWriter, r *http.Request) error {
	rc, rel, err := a.releaseByID(r)
	if err != nil {
		return err
	}
	return a.writeRelease(w, r, rc, http.StatusOK, rel)
}

// getReleaseByTag serves GET /releases/tags/{tag}.
func (a *API) getReleaseByTag(w http.ResponseWriter, r *http.Request) error {
	rc, rel, err := a.releaseByTag(r)
	if err != nil {
		return err
	}
	return a.writeRelease(w, r, rc, http.StatusOK, rel)
}

// checkReleaseTag checks a tag name given in a body: a name git can have
// that does not start with '-' (422 otherwise).
func checkReleaseTag(name string) error {
	if err := refNameField("tag_name", "TagName", name, true); err != nil {
		return err
	}
	if !release.ValidTagName(name) {
		return errs.InvalidField("tag_name", "[TagName]: GitRefName")
	}
	return nil
}

// ensureReleaseTag returns the commit of tag name, creating the tag at
// target (the default branch when empty) when it does not exist, through
// the push rules and listeners like every ref change. Creating needs write
// access to the code.
func (a *API) ensureReleaseTag(r *http.Request, rc *repoContext, name, target string) (string, error) {
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	if t, err := a.Repos.Git.GetTag(ctx, path, name); err == nil {
		return t.CommitSHA, nil
	} else if !errors.Is(err, git.ErrNotFound) {
		return "", err
	}
	if !rc.Perm.CanWrite(repo.UnitCode) {
		return "", errs.Forbidden("user should have a permission to write to the code to create tag %q", name)
	}
	if err := writableRefs(rc); err != nil {
		return "", err
	}
	commit, err := a.Repos.CreateTag(ctx, rc.Repo, doer(r).ID, name, target)
	if errors.Is(err, repo.ErrTargetNotFound) {
		if target == "" {
			target = rc.Repo.DefaultBranch
		}
		return "", errs.NotFound("target not found: %s", target)
	}
	return commit, tagRuleError(err, "create")
}

// createRelease serves POST /releases (201). A published release's tag is
// created at target_commitish when missing; a draft's only when published.
func (a *API) createRelease(w http.ResponseWriter, r *http.Request) error {
	rc := currentRepo(r)
	var o types.CreateReleaseOption
	if err := decode(r, &o); err != nil {
		return err
	}
	if err := checkReleaseTag(o.TagName); err != nil {
		return err
	}
	if len([]rune(o.Title)) > 255 {
		return errs.InvalidField("name", "[Name]: MaxSize")
	}
	if len(o.Target) > 255 {
		return errs.InvalidField("target_commitish", "[Target]: MaxSize")
	}
	ctx := r.Context()
	if old, err := a.Releases.GetByTag(ctx, rc.Repo.ID, o.TagName); err == nil && !old.IsTag {
		return errs.Conflict("release already exists [tag: %s]", o.TagName)
	}
	target := o.Target
	if target == "" {
		target = rc.Repo.DefaultBranch
	}
	rel := &release.Release{RepoID: rc.Repo.ID, PublisherID: doer(r).ID, TagName: o.TagName, Target: target, Title: o.Title,
		Note: o.Note, IsDraft: o.IsDraft, IsPrerelease: o.IsPrerelease}
	if !rel.IsDraft {
		sha, err := a.ensureReleaseTag(r, rc, o.TagName, o.Target)
		if err != nil {
			return err
		}
		rel.SHA1 = sha
	}
	if err := a.Releases.Create(ctx, rel); err != nil {
		return err
	}
	return a.writeRelease(w, r, rc, http.StatusCreated, rel)
}

// editRelease serves PATCH /releases/{id}: every field is optional;
// {"draft": false} publishes a draft, creating its tag.
func (a *API) editRelease(w http.ResponseWriter, r *http.Request) error {
	rc, rel, err := a.releaseByID(r)
	if err != nil {
		return err
	}
	var o types.EditReleaseOption
	if err := decode(r, &o); err != nil {
		return err
	}
	wasDraft := rel.IsDraft
	if o.TagName != nil && *o.TagName != "" {
		if err := checkReleaseTag(*o.TagName); err != nil {
			return err
		}
		if *o.TagName != rel.TagName {
			if old, err := a.Releases.GetByTag(r.Context(), rc.Repo.ID, *o.TagName); err == nil && !old.IsTag {
				return errs.Conflict("release already exists [tag: %s]", *o.TagName)
			}
			rel.TagName, rel.SHA1 = *o.TagName, ""
		}
	}
	if o.Target != nil && *o.Target != "" {
		if len(*o.Target) > 255 {
			return errs.InvalidField("target_commitish", "[Target]: MaxSize")
		}
		rel.Target = *o.Target
	}
	// Empty strings leave fields as they are (as Gitea; the Go SDK always
	// sends every string field).
	if o.Title != nil && *o.Title != "" {
		if len([]rune(*o.Title)) > 255 {
			return errs.InvalidField("name", "[Name]: MaxSize")
		}
		rel.Title = *o.Title
	}
	if o.Note != nil && *o.Note != "" {
		rel.Note = *o.Note
	}
	if o.IsDraft != nil {
		rel.IsDraft = *o.IsDraft
	}
	if o.IsPrerelease != nil {
		rel.IsPrerelease = *o.IsPrerelease
	}
	if !rel.IsDraft && rel.SHA1 == "" {
		sha, err := a.ensureReleaseTag(r, rc, rel.TagName, rel.Target)
		if err != nil {
			return err
		}
		rel.SHA1 = sha
	}
	if err := a.Releases.Update(r.Context(), doer(r).ID, rel, wasDraft); err != nil {
		return err
	}
	return a.writeRelease(w, r, rc, http.StatusOK, rel)
}

// deleteRelease serves DELETE /releases/{id} (204); the tag stays.
func (a *API) deleteRelease(w http.ResponseWriter, r *http.Request) error {
	_, rel, err := a.releaseByID(r)
	if err != nil {
		return err
	}
	if err := a.Releases.Delete(r.Context(), doer(r).ID, rel); err != nil {
		return err
	}
	empty(w, http.StatusNoContent)
	return nil
}

// deleteReleaseByTag serves DELETE /releases/tags/{tag} (204); the tag stays.
func (a *API) deleteReleaseByTag(w http.ResponseWriter, r *http.Request) error {
	_, rel, err := a.releaseByTag(r)
	if err != nil {
		return err
	}
	if err := a.Releases.Delete(r.Context(), doer(r).ID, rel); err != nil {
		return err
	}
	empty(w, http.StatusNoContent)
	return nil
}

// releaseAssetHidden reports whether the release asset at is hidden from a
// caller: a draft's assets are for writers of the releases unit only.
func (a *API) releaseAssetHidden(ctx context.Context, at *issue.Attachment, canWrite bool) bool {
	rel, err := a.Releases.GetByID(ctx, at.RepoID, at.ReleaseID)
	if err != nil {
		return true
	}
	return rel.IsTag || (rel.IsDraft && !canWrite)
}
