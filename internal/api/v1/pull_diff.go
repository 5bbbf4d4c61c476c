package v1

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/pull"
)

// pullDiffRoutes registers the files and commits of a pull request; its
// .diff and .patch are served by getPull (one path segment with the number).
func (a *API) pullDiffRoutes(r chi.Router) {
	r.Get("/pulls/{index}/files", a.handle(a.listPullFiles))
	r.Get("/pulls/{index}/commits", a.handle(a.listPullCommits))
}

// pullSides returns the old and new side of p's changes in the base
// repository (pull.Service.DiffSides).
func (a *API) pullSides(r *http.Request, rc *repoContext, p *pull.PullRequest) (string, string, error) {
	return a.Pulls.DiffSides(r.Context(), rc.Repo, p)
}

// servePullDiff streams p's diff (?binary=true includes binary changes) or
// its patch series.
func (a *API) servePullDiff(w http.ResponseWriter, r *http.Request, rc *repoContext, p *pull.PullRequest, kind string) error {
	from, to, err := a.pullSides(r, rc, p)
	if err != nil {
		return err
	}
	binary, _ := strconv.ParseBool(r.URL.Query().Get("binary"))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	opts := git.DiffOptions{Base: from, Head: to, Binary: binary}
	path := a.Repos.Path(rc.Repo)
	if kind == "patch" {
		err = a.Repos.Git.Patch(r.Context(), path, opts, w)
	} else {
		err = a.Repos.Git.Diff(r.Context(), path, opts, w)
	}
	if err != nil {
		abortStream(r, kind, err)
	}
	return nil
}

// setPageHeaders writes Gitea's paging headers of diff lists.
func (a *API) setPageHeaders(w http.ResponseWriter, r *http.Request, pg page, total int) {
	a.setTotal(w, r, pg, int64(total))
	pages := (total + pg.Limit - 1) / pg.Limit
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(pg.Page))
	h.Set("X-PerPage", strconv.Itoa(pg.Limit))
	h.Set("X-PageCount", strconv.Itoa(pages))
	h.Set("X-HasMore", strconv.FormatBool(pg.Page < pages))
	h.Set("Access-Control-Expose-Headers", h.Get("Access-Control-Expose-Headers")+", X-Page, X-PerPage, X-PageCount, X-HasMore")
}

// listPullFiles serves GET /pulls/{index}/files: the changed files, paged
// (?skip-to= starts at a file name), with ?whitespace= as Gitea.
func (a *API) listPullFiles(w http.ResponseWriter, r *http.Request) error {
	rc, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ws := q.Get("whitespace")
	switch ws {
	case "", git.WhitespaceShowAll, git.WhitespaceIgnoreAll, git.WhitespaceIgnoreChange, git.WhitespaceIgnoreEOL:
	default:
		return errs.InvalidField("whitespace", "invalid whitespace mode %q", ws)
	}
	from, to, err := a.pullSides(r, rc, p)
	if err != nil {
		return err
	}
	files, _, err := a.Repos.Git.ChangedFiles(r.Context(), a.Repos.Path(rc.Repo), from, to,
		git.ChangedFilesOptions{Whitespace: ws, DetectRenames: true})
	if err != nil {
		return err
	}
	if skip := q.Get("skip-to"); skip != "" {
		for i, f := range files {
			if f.Filename == skip {
				files = files[i:]
				break
			}
		}
	}
	pg := a.paging(r)
	total := len(files)
	start := min(pg.Offset(), total)
	end := min(start+pg.Limit, total)
	base := a.repoLink(rc.Repo)
	api := a.repoAPIURL(rc)
	out := make([]*types.ChangedFile, 0, end-start)
	for _, f := range files[start:end] {
		esc := pathEscapeSegments(f.Filename)
		out = append(out, &types.ChangedFile{
			Filename: f.Filename, PreviousFilename: f.PreviousFilename, Status: f.Status,
			Additions: f.Additions, Deletions: f.Deletions, Changes: f.Additions + f.Deletions,
			HTMLURL:     base + "/src/commit/" + to + "/" + esc,
			ContentsURL: api + "/contents/" + esc + "?ref=" + url.QueryEscape(to),
			RawURL:      base + "/raw/commit/" + to + "/" + esc,
		})
	}
	a.setPageHeaders(w, r, pg, total)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// listPullCommits serves GET /pulls/{index}/commits: the commits of the
// pull request, newest first, paged, with ?verification= and ?files=.
func (a *API) listPullCommits(w http.ResponseWriter, r *http.Request) error {
	rc, p, err := a.pullOf(r)
	if err != nil {
		return err
	}
	from, to, err := a.pullSides(r, rc, p)
	if err != nil {
		return err
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	opts := git.RevListOptions{Revs: []string{to}, Not: []string{from}}
	total, err := a.Repos.Git.CountCommits(ctx, path, opts)
	if err != nil {
		return err
	}
	pg := a.paging(r)
	opts.Skip, opts.Limit = pg.Offset(), pg.Limit
	shas, err := a.Repos.Git.RevList(ctx, path, opts)
	if err != nil {
		return err
	}
	commits, err := a.Repos.Git.ReadCommits(ctx, path, shas)
	if err != nil {
		return err
	}
	co := commitOptionsOf(r)
	list, err := a.toCommits(ctx, r, rc, commits, co)
	if err != nil {
		return err
	}
	a.setPageHeaders(w, r, pg, total)
	writeJSON(w, http.StatusOK, list)
	return nil
}

// pullDiffKind splits "{index}.diff" / "{index}.patch".
func pullDiffKind(raw string) (string, string, bool) {
	for _, kind := range []string{"diff", "patch"} {
		if idx, ok := strings.CutSuffix(raw, "."+kind); ok {
			return idx, kind, true
		}
	}
	return raw, "", false
}
