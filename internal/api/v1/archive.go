package v1

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
)

// compareMaxCommits bounds the commits a comparison lists (total_commits
// still counts them all).
const compareMaxCommits = 250

// languagesMaxEntries bounds the tree entries GET /languages looks at.
const languagesMaxEntries = 200_000

// compareSide strips the "owner:" or "owner/repo:" prefix of one side of a
// comparison when it names this repository. Comparing with another
// repository (a fork) is not supported: 404.
func compareSide(rc *repoContext, s string) (string, error) {
	prefix, ref, ok := strings.Cut(s, ":")
	if !ok {
		return s, nil
	}
	full := rc.Owner.Name + "/" + rc.Repo.Name
	if strings.EqualFold(prefix, rc.Owner.Name) || strings.EqualFold(prefix, full) {
		return ref, nil
	}
	return "", errs.NotFound("comparing with another repository (%s) is not supported", prefix)
}

// compare serves GET /compare/{base}...{head} (or base..head, or only head
// against the default branch): the commits head has and base has not,
// newest first, with their stats.
func (a *API) compare(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	basehead := wildcardName(r, "basehead")
	sides := []string{rc.Repo.DefaultBranch, rc.Repo.DefaultBranch}
	if basehead != "" {
		if b, h, ok := strings.Cut(basehead, "..."); ok {
			sides = []string{b, h}
		} else if b, h, ok := strings.Cut(basehead, ".."); ok {
			sides = []string{b, h}
		} else {
			sides = []string{rc.Repo.DefaultBranch, basehead}
		}
	}
	if rc.Repo.IsEmpty {
		a.fail(w, r, errEmptyRepo())
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	var shas [2]string
	for i, s := range sides {
		rev, err := compareSide(rc, s)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if !validRevision(rev) {
			a.fail(w, r, errs.NotFound("%q is not a branch, tag or commit of this repository", rev))
			return
		}
		if shas[i], err = a.Repos.Git.ResolveCommit(ctx, path, rev); err != nil {
			a.fail(w, r, commitNotFound(err, rev))
			return
		}
	}
	opts := git.RevListOptions{Revs: []string{shas[1]}, Not: []string{shas[0]}}
	total, err := a.Repos.Git.CountCommits(ctx, path, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	opts.Limit = compareMaxCommits
	list, err := a.Repos.Git.RevList(ctx, path, opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	commits, err := a.Repos.Git.ReadCommits(ctx, path, list)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	co := commitOptionsOf(r)
	co.Stat = true
	out, err := a.toCommits(ctx, r, rc, commits, co)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, &types.Compare{TotalCommits: total, Commits: out})
}

// commitDiff serves GET /git/commits/{sha}.diff and .patch: the commit's
// changes against its first parent as a unified diff, or as an mbox patch,
// streamed from git.
func (a *API) commitDiff(w http.ResponseWriter, r *http.Request, rev, kind string) {
	rc := currentRepo(r)
	if !validRevision(rev) {
		a.fail(w, r, errs.NotFound("commit %q does not exist", rev))
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	sha, err := a.Repos.Git.ResolveCommit(ctx, path, rev)
	if err != nil {
		a.fail(w, r, commitNotFound(err, rev))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	opts := git.DiffOptions{Head: sha}
	if kind == "patch" {
		err = a.Repos.Git.Patch(ctx, path, opts, w)
	} else {
		err = a.Repos.Git.Diff(ctx, path, opts, w)
	}
	if err != nil {
		abortStream(r, kind, err)
	}
}

// archiveFormat splits "{ref}.{format}" into the reference and the format:
// its suffix, content type and git archive format ("" for a bundle).
func archiveFormat(name string) (ref, ext, contentType string, format git.ArchiveFormat, ok bool) {
	for _, ext := range []string{".tar.gz", ".zip", ".bundle"} {
		if ref, found := strings.CutSuffix(name, ext); found {
			switch ext {
			case ".tar.gz":
				return ref, ext, "application/gzip", git.ArchiveTarGz, true
			case ".zip":
				return ref, ext, "application/zip", git.ArchiveZip, true
			}
			return ref, ext, "application/octet-stream", "", true
		}
	}
	return "", "", "", "", false
}

// getArchive serves GET /archive/{ref}.zip|.tar.gz|.bundle: the tree of a
// branch, tag or commit as an archive whose entries sit under the
// repository's name, or a git bundle of its history, streamed from git as it
// is produced. An unknown format is 400, an unknown reference 404.
func (a *API) getArchive(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	name := wildcardName(r, "archive")
	ref, ext, contentType, format, ok := archiveFormat(name)
	if !ok {
		a.fail(w, r, errs.BadRequest("unknown archive format: %s", name))
		return
	}
	unknown := errs.NotFound("unrecognized reference: %s", ref)
	if rc.Repo.IsEmpty || !validRevision(ref) {
		a.fail(w, r, unknown)
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	sha, err := a.Repos.Git.ResolveCommit(ctx, path, ref)
	if err != nil {
		if errors.Is(err, git.ErrNotFound) {
			err = unknown
		}
		a.fail(w, r, err)
		return
	}
	download := rc.Repo.Name + "-" + strings.ReplaceAll(ref, "/", "-") + ext
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": download}))
	h.Set("Link", fmt.Sprintf("<%s/archive/%s%s>; rel=\"immutable\"", a.repoAPIURL(rc), sha, ext))
	w.WriteHeader(http.StatusOK)
	if format == "" {
		err = a.Repos.Git.BundleCommit(ctx, path, sha, w)
	} else {
		err = a.Repos.Git.Archive(ctx, path, git.ArchiveOptions{Rev: sha, Format: format, Prefix: rc.Repo.Name}, w)
	}
	if err != nil {
		abortStream(r, "archive", err)
	}
}

// getLanguages serves GET /languages: bytes of code per language in the tree
// of the default branch, recognized by file name and extension.
func (a *API) getLanguages(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	stats := map[string]int64{}
	if !rc.Repo.IsEmpty {
		var err error
		stats, err = a.Repos.Git.LanguageStats(r.Context(), a.Repos.Path(rc.Repo), git.BranchPrefix+rc.Repo.DefaultBranch, languagesMaxEntries)
		if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
			stats, err = map[string]int64{}, nil
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, stats)
}
