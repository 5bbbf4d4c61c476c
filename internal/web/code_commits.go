package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
)

// codeCommitsPerPage is the length of a page of history.
const codeCommitsPerPage = 50

// codeCommitRow is a commit in a list.
type codeCommitRow struct {
	git.Commit
	URL, TreeURL string
}

// codePager links the pages of a list.
type codePager struct {
	Page, Pages      int
	PrevURL, NextURL string
}

// newCodePager builds the links of page (from 1) of total items, n a page, on
// the address base (its query without "page").
func newCodePager(base *url.URL, page, total, n int) *codePager {
	p := &codePager{Page: page, Pages: (total + n - 1) / n}
	link := func(to int) string {
		u := *base
		q := u.Query()
		q.Set("page", strconv.Itoa(to))
		u.RawQuery = q.Encode()
		return u.RequestURI()
	}
	if page > 1 {
		p.PrevURL = link(page - 1)
	}
	if page < p.Pages {
		p.NextURL = link(page + 1)
	}
	return p
}

// codePageParam is the ?page= of the request, from 1.
func codePageParam(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, 1<<20) // the offset cannot overflow
}

// codeCommitsPage is the data of repo_commits.tmpl.
type codeCommitsPage struct {
	Ref     *codeRef
	Crumbs  []codeCrumb
	Commits []codeCommitRow
	Total   int
	Pager   *codePager
}

// codeCommitRows adds the links of each commit.
func codeCommitRows(rc *repoCtx, commits []git.Commit) []codeCommitRow {
	rows := make([]codeCommitRow, len(commits))
	for i, co := range commits {
		rows[i] = codeCommitRow{Commit: co, URL: rc.Link + "/commit/" + co.SHA, TreeURL: rc.Link + "/src/commit/" + co.SHA}
	}
	return rows
}

// commits serves /commits/{kind}/{ref}/{path}: the history of a reference,
// or of a path in it, a page at a time.
func (c *codePages) commits(kind string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc, repoPath, ref, err := c.loadRef(r, kind)
		if err != nil {
			return err
		}
		ctx := r.Context()
		page := codePageParam(r)
		list, total, err := c.history(ctx, repoPath, ref.Commit, ref.Path, (page-1)*codeCommitsPerPage, codeCommitsPerPage)
		if err != nil {
			return gitNotFound(err)
		}
		if total == 0 && ref.Path != "" {
			return errs.NotFound("no history for this path")
		}
		data := &codeCommitsPage{Ref: ref, Crumbs: codeCrumbs(rc, ref, ref.Path), Commits: codeCommitRows(rc, list), Total: total,
			Pager: newCodePager(r.URL, page, total, codeCommitsPerPage)}
		title := "Commits of " + ref.ShortName()
		if ref.Path != "" {
			title = "History of " + ref.Path + " at " + ref.ShortName()
		}
		return c.h.renderRepo(w, r, http.StatusOK, "repo_commits", title, rc, data)
	}
}

// codeCommitPage is the data of repo_commit.tmpl.
type codeCommitPage struct {
	Commit git.Commit
	// Subject is the message's first line, Body the rest.
	Subject, Body string
	Parents       []codeCommitRow
	Stats         git.DiffStats
	Diff          *diffView
	TreeURL       string
	DiffURL       string
	PatchURL      string
}

// commit serves /commit/{sha}: a commit's message, author, parents, stats
// and diff; /commit/{sha}.diff and .patch stream git's text.
func (c *codePages) commit(w http.ResponseWriter, r *http.Request) error {
	rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return err
	}
	param := chi.URLParam(r, "sha")
	name, ext := param, ""
	for _, x := range []string{".diff", ".patch"} {
		if s, ok := strings.CutSuffix(param, x); ok {
			name, ext = s, x
		}
	}
	if rc.Repo.IsEmpty || !isCommitName(name) {
		return errs.NotFound("no such commit")
	}
	ctx := r.Context()
	repoPath := c.h.Repos.Path(rc.Repo)
	co, err := c.h.Git.GetCommit(ctx, repoPath, name)
	if err != nil {
		return gitNotFound(err)
	}
	if ext != "" {
		return c.streamDiff(w, r, repoPath, git.DiffOptions{Head: co.SHA}, ext == ".patch", co.SHA[:10]+ext)
	}
	ch, err := c.commitChanges(ctx, repoPath, co.SHA)
	if err != nil {
		return gitNotFound(err)
	}
	base := ""
	if len(co.Parents) > 0 {
		base = co.Parents[0]
	}
	link := rc.Link + "/commit/" + co.SHA
	subject, body, _ := strings.Cut(strings.TrimSpace(co.Message), "\n")
	parents := make([]git.Commit, len(co.Parents))
	for i, p := range co.Parents {
		parents[i] = git.Commit{SHA: p}
	}
	data := &codeCommitPage{Commit: co, Subject: subject, Body: strings.TrimSpace(body), Parents: codeCommitRows(rc, parents),
		Stats: ch.Stats, TreeURL: rc.Link + "/src/commit/" + co.SHA, DiffURL: link + ".diff", PatchURL: link + ".patch",
		Diff: &diffView{Diff: ch.Diff, Split: r.URL.Query().Get("style") == "split", RepoLink: rc.Link, Head: co.SHA, Base: base,
			RawURL: link + ".diff", UnifiedURL: link + "?style=unified", SplitURL: link + "?style=split"}}
	return c.h.renderRepo(w, r, http.StatusOK, "repo_commit", subject, rc, data)
}

// streamDiff writes a diff (or, with patch, a patch series) as git
// produces it, as plain text.
func (c *codePages) streamDiff(w http.ResponseWriter, r *http.Request, repoPath string, opts git.DiffOptions, patch bool, filename string) error {
	hd := w.Header()
	hd.Set("Content-Type", "text/plain; charset=utf-8")
	hd.Set("Content-Disposition", `inline; filename="`+filename+`"`)
	hd.Set("Content-Security-Policy", codeRawPolicy)
	w.WriteHeader(http.StatusOK)
	var err error
	if patch {
		err = c.h.Git.Patch(r.Context(), repoPath, opts, w)
	} else {
		err = c.h.Git.Diff(r.Context(), repoPath, opts, w)
	}
	if err != nil {
		abortCodeStream(r, "diff", err)
	}
	return nil
}

// commitsBetween lists up to limit commits of head that base lacks, newest
// first, and how many there are.
func (c *codePages) commitsBetween(ctx context.Context, repoPath, base, head string, limit int) ([]git.Commit, int, error) {
	opts := git.RevListOptions{Revs: []string{head}, Not: []string{base}, Limit: limit}
	total, err := c.h.Git.CountCommits(ctx, repoPath, opts)
	if err != nil || total == 0 {
		return nil, total, err
	}
	shas, err := c.h.Git.RevList(ctx, repoPath, opts)
	if err != nil {
		return nil, 0, err
	}
	objs, err := c.h.Git.ReadCommits(ctx, repoPath, shas)
	if err != nil {
		return nil, 0, err
	}
	out := make([]git.Commit, len(objs))
	for i, o := range objs {
		out[i] = o.Commit
	}
	return out, total, nil
}

// history is a page of the commits reachable from commit (touching path,
// when set), newest first, and how many there are in all: the count walks
// the whole history, so it is cached (a commit's history never changes).
func (c *codePages) history(ctx context.Context, repoPath, commit, path string, skip, limit int) ([]git.Commit, int, error) {
	opts := git.RevListOptions{Revs: []string{commit}, Path: path, Skip: skip, Limit: limit}
	key := commit + "\x00" + path
	total, ok := c.countCache.get(key)
	if !ok {
		var err error
		if total, err = c.h.Git.CountCommits(ctx, repoPath, opts); err != nil {
			return nil, 0, err
		}
		c.countCache.put(key, total, 1)
	}
	if skip >= total {
		return nil, total, nil
	}
	shas, err := c.h.Git.RevList(ctx, repoPath, opts)
	if err != nil || len(shas) == 0 {
		return nil, total, err
	}
	objs, err := c.h.Git.ReadCommits(ctx, repoPath, shas)
	if err != nil {
		return nil, 0, err
	}
	out := make([]git.Commit, len(objs))
	for i, o := range objs {
		out[i] = o.Commit
	}
	return out, total, nil
}
