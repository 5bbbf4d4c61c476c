package v1

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
)

// stripSignature removes a signature appended to a tag message.
func stripSignature(msg string) string {
	for _, m := range []string{"-----BEGIN PGP SIGNATURE-----", "-----BEGIN SSH SIGNATURE-----", "-----BEGIN SIGNED MESSAGE-----"} {
		if i := strings.Index(msg, m); i >= 0 && (i == 0 || msg[i-1] == '\n') {
			return msg[:i]
		}
	}
	return msg
}

// toTags renders tags. A lightweight tag shows the message and date of its
// commit; those commits are read in one git process.
func (a *API) toTags(ctx context.Context, rc *repoContext, tags []git.Tag) ([]*types.Tag, error) {
	var light []string
	for _, t := range tags {
		if !t.Annotated && t.CommitSHA != "" {
			light = append(light, t.CommitSHA)
		}
	}
	commits, err := a.Repos.Git.ReadCommits(ctx, a.Repos.Path(rc.Repo), light)
	if err != nil {
		return nil, err
	}
	bySHA := make(map[string]git.CommitObject, len(commits))
	for _, c := range commits {
		bySHA[c.SHA] = c
	}
	base := a.repoAPIURL(rc)
	html := a.repoHTMLURL(rc)
	out := make([]*types.Tag, 0, len(tags))
	for _, t := range tags {
		var msg string
		var created time.Time
		if t.Annotated {
			msg = stripSignature(t.Message)
			if t.Tagger != nil {
				created = t.Tagger.When
			}
		} else if c, ok := bySHA[t.CommitSHA]; ok {
			msg = c.Message
			created = c.Committer.When
		}
		esc := pathEscapeSegments(t.Name)
		tt := &types.Tag{
			Name: t.Name, Message: strings.TrimSpace(msg), ID: t.ObjectSHA,
			ZipballURL: html + "/archive/" + esc + ".zip", TarballURL: html + "/archive/" + esc + ".tar.gz",
			Commit: &types.CommitMeta{SHA: t.CommitSHA, Created: created},
		}
		if t.CommitSHA != "" {
			tt.Commit.URL = base + "/git/commits/" + t.CommitSHA
		}
		out = append(out, tt)
	}
	return out, nil
}

// listTags serves GET /tags: a page of the tags, newest first. The
// references are read as a stream; only the page is kept.
func (a *API) listTags(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	pg := a.paging(r)
	ctx := r.Context()
	tags, total, err := a.Repos.Git.ListTags(ctx, a.Repos.Path(rc.Repo), git.ListOptions{Skip: pg.Offset(), Limit: pg.Limit})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.toTags(ctx, rc, tags)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.setTotal(w, r, pg, int64(total))
	writeJSON(w, http.StatusOK, list)
}

// loadTag returns the tag name of the repository, or 404.
func (a *API) loadTag(ctx context.Context, rc *repoContext, name string) (git.Tag, error) {
	missing := errs.NotFound("tag doesn't exist: %s", name)
	if !git.ValidBranchName(name) {
		return git.Tag{}, missing
	}
	t, err := a.Repos.Git.GetTag(ctx, a.Repos.Path(rc.Repo), name)
	if errors.Is(err, git.ErrNotFound) {
		return git.Tag{}, missing
	}
	return t, err
}

// writeTag answers with one tag.
func (a *API) writeTag(w http.ResponseWriter, r *http.Request, rc *repoContext, status int, t git.Tag) {
	list, err := a.toTags(r.Context(), rc, []git.Tag{t})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, list[0])
}

// getTag serves GET /tags/{tag} (the name may hold slashes).
func (a *API) getTag(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	t, err := a.loadTag(r.Context(), rc, wildcardName(r, "tag"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeTag(w, r, rc, http.StatusOK, t)
}

// createTag serves POST /tags (201): a tag at target (default branch by
// default), annotated with the caller as tagger when a message is given.
func (a *API) createTag(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	var opt types.CreateTagOption
	if err := decode(r, &opt); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := refNameField("tag_name", "TagName", opt.TagName, true); err != nil {
		a.fail(w, r, err)
		return
	}
	target := opt.Target
	if target == "" {
		target = rc.Repo.DefaultBranch
	}
	targetMissing := errs.NotFound("target not found: %s", target)
	if !validRevision(target) {
		a.fail(w, r, targetMissing)
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	commit, err := a.Repos.Git.ResolveCommit(ctx, path, target)
	if err != nil {
		if errors.Is(err, git.ErrNotFound) {
			err = targetMissing
		}
		a.fail(w, r, err)
		return
	}
	exists := errs.Conflict("tag already exists [name: %s]", opt.TagName)
	if _, err := a.Repos.Git.GetTag(ctx, path, opt.TagName); err == nil {
		a.fail(w, r, exists)
		return
	}
	create := git.CreateTagOptions{Name: opt.TagName, Target: commit}
	if strings.TrimSpace(opt.Message) != "" {
		sig := a.Repos.Signature(doer(r))
		create.Message, create.Tagger = opt.Message, &sig
	}
	var tag git.Tag
	ref := git.TagPrefix + opt.TagName
	// The tag object of an annotated tag does not exist before; the rules
	// see the commit it points to.
	up := []hooks.RefUpdate{{OldSHA: zeroSHA(commit), NewSHA: commit, Ref: ref}}
	err = a.changeRefs(r, rc, up, up, func() error {
		t, err := a.Repos.Git.CreateTag(ctx, path, create)
		switch {
		case errors.Is(err, git.ErrAlreadyExists), errors.Is(err, git.ErrConflict):
			return exists
		case errors.Is(err, git.ErrNotFound):
			return targetMissing
		case errors.Is(err, git.ErrInvalidArgument):
			return errs.InvalidField("tag_name", "cannot create tag %q: %v", opt.TagName, err)
		case err != nil:
			return err
		}
		tag = t
		up[0].NewSHA = t.ObjectSHA
		return nil
	})
	if err = tagRuleError(err, "create"); err != nil {
		a.fail(w, r, err)
		return
	}
	a.writeTag(w, r, rc, http.StatusCreated, tag)
}

// deleteTag serves DELETE /tags/{tag} (204; 409 when the tag has a release).
func (a *API) deleteTag(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	ctx := r.Context()
	name := wildcardName(r, "tag")
	t, err := a.loadTag(ctx, rc, name)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// As Gitea: a tag with a release is deleted with the release, not here.
	if a.Releases != nil {
		if rel, err := a.Releases.GetByTag(ctx, rc.Repo.ID, name); err == nil && !rel.IsTag {
			a.fail(w, r, errs.Conflict("a tag attached to a release cannot be deleted directly"))
			return
		}
	}
	sha := t.ObjectSHA
	up := []hooks.RefUpdate{{OldSHA: sha, NewSHA: zeroSHA(sha), Ref: git.TagPrefix + name}}
	err = a.changeRefs(r, rc, up, up, func() error {
		err := a.Repos.Git.DeleteTag(ctx, a.Repos.Path(rc.Repo), name, sha)
		switch {
		case errors.Is(err, git.ErrNotFound):
			return errs.NotFound("tag doesn't exist: %s", name)
		case errors.Is(err, git.ErrConflict):
			return errs.Conflict("tag %q moved while it was being deleted", name)
		}
		return err
	})
	if err = tagRuleError(err, "delete"); err != nil {
		a.fail(w, r, err)
		return
	}
	empty(w, http.StatusNoContent)
}

// tagRuleError turns a refusal by the push rules of a tag change (only tag
// protection applies to tags) into Gitea's answer: 422 "user not allowed to
// <action> protected tag". Other errors pass unchanged.
func tagRuleError(err error, action string) error {
	if errs.Is(err, errs.KindForbidden) {
		return errs.Invalid("user not allowed to %s protected tag", action)
	}
	return err
}
