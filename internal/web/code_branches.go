package web

import (
	"context"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
)

// codeRefsPerPage is the length of a page of branches or tags.
const codeRefsPerPage = 30

// codeBranchRow is a branch of the branches page.
type codeBranchRow struct {
	Name      string
	Commit    codeCommitRow
	IsDefault bool
	// Ahead and Behind count the commits the branch has that the default
	// branch lacks, and the other way round.
	Ahead, Behind               int
	URL, CommitsURL, CompareURL string
}

// codeBranchesPage is the data of repo_branches.tmpl.
type codeBranchesPage struct {
	Default  string
	Branches []codeBranchRow
	Total    int
	Pager    *codePager
}

// branches serves /branches: every branch with its last commit and how far
// it is from the default branch.
func (c *codePages) branches(w http.ResponseWriter, r *http.Request) error {
	rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return err
	}
	ctx := r.Context()
	repoPath := c.h.Repos.Path(rc.Repo)
	page := codePageParam(r)
	data := &codeBranchesPage{Default: rc.Repo.DefaultBranch}
	if !rc.Repo.IsEmpty {
		list, total, err := c.h.Git.ListBranches(ctx, repoPath, git.ListOptions{Skip: (page - 1) * codeRefsPerPage, Limit: codeRefsPerPage})
		if err != nil {
			return err
		}
		data.Total = total
		for _, b := range list {
			esc := escapeSegments(b.Name)
			data.Branches = append(data.Branches, codeBranchRow{Name: b.Name, IsDefault: b.Name == rc.Repo.DefaultBranch,
				Commit: codeCommitRows(rc, []git.Commit{b.Commit})[0],
				URL:    rc.Link + "/src/branch/" + esc, CommitsURL: rc.Link + "/commits/branch/" + esc,
				CompareURL: rc.Link + "/compare/" + escapeSegments(rc.Repo.DefaultBranch) + "..." + esc})
		}
		if err := c.aheadBehind(r, repoPath, rc.Repo.DefaultBranch, data.Branches); err != nil {
			return err
		}
	}
	data.Pager = newCodePager(r.URL, page, data.Total, codeRefsPerPage)
	return c.h.renderRepo(w, r, http.StatusOK, "repo_branches", "Branches", rc, data)
}

// codeAheadBudget is how long the branches page waits for the counts of
// commits between each branch and the default branch; counts not ready by
// then are left blank and finish in the background for the next visit.
const codeAheadBudget = 300 * time.Millisecond

// codeAheadTimeout bounds one background count.
const codeAheadTimeout = 30 * time.Second

// aheadBehind counts, for each branch but the default one, the commits
// between it and the default branch (two rev-list counts, at most two
// running at a time for the whole interface). Two commits are always as far
// apart, so counts are cached; the page waits for them at most
// codeAheadBudget.
func (c *codePages) aheadBehind(r *http.Request, repoPath, def string, rows []codeBranchRow) error {
	if !git.ValidBranchName(def) {
		return nil
	}
	tips, err := c.h.Git.RefTips(r.Context(), repoPath, []string{git.BranchPrefix + def})
	if err != nil {
		return err
	}
	base, ok := tips[git.BranchPrefix+def]
	if !ok {
		return nil
	}
	var wg sync.WaitGroup
	// The counts outlive the request when they take long.
	bg, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), codeAheadTimeout)
	for i := range rows {
		rows[i].Ahead, rows[i].Behind = -1, -1
		key := base + "..." + rows[i].Commit.SHA
		if rows[i].IsDefault {
			continue
		}
		if n, ok := c.aheadCache.get(key); ok {
			rows[i].Ahead, rows[i].Behind = n[0], n[1]
			continue
		}
		if !c.startCount(key) {
			continue // another request is counting it
		}
		wg.Add(1)
		go func(head string) {
			defer wg.Done()
			defer c.endCount(key)
			c.countSlots <- struct{}{}
			defer func() { <-c.countSlots }()
			ahead, err := c.h.Git.CountCommits(bg, repoPath, git.RevListOptions{Revs: []string{head}, Not: []string{base}})
			if err != nil {
				return
			}
			behind, err := c.h.Git.CountCommits(bg, repoPath, git.RevListOptions{Revs: []string{base}, Not: []string{head}})
			if err != nil {
				return
			}
			c.aheadCache.put(key, [2]int{ahead, behind}, 1)
		}(rows[i].Commit.SHA)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); cancel(); close(done) }()
	select {
	case <-done:
	case <-time.After(codeAheadBudget):
	case <-r.Context().Done():
	}
	for i := range rows {
		if rows[i].Ahead < 0 && !rows[i].IsDefault {
			if n, ok := c.aheadCache.get(base + "..." + rows[i].Commit.SHA); ok {
				rows[i].Ahead, rows[i].Behind = n[0], n[1]
			}
		}
	}
	return nil
}

// startCount claims the count of key; false when it is already running.
func (c *codePages) startCount(key string) bool {
	c.countMu.Lock()
	defer c.countMu.Unlock()
	if c.counting[key] {
		return false
	}
	c.counting[key] = true
	return true
}

// endCount releases the count of key.
func (c *codePages) endCount(key string) {
	c.countMu.Lock()
	defer c.countMu.Unlock()
	delete(c.counting, key)
}

// codeTagRow is a tag of the tags page.
type codeTagRow struct {
	git.Tag
	Commit                *codeCommitRow
	URL, ZipURL, TarGzURL string
}

// codeTagsPage is the data of repo_tags.tmpl.
type codeTagsPage struct {
	Tags  []codeTagRow
	Total int
	Pager *codePager
}

// tags serves /tags: the tags, newest first, with their commits and
// archives.
func (c *codePages) tags(w http.ResponseWriter, r *http.Request) error {
	rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return err
	}
	ctx := r.Context()
	repoPath := c.h.Repos.Path(rc.Repo)
	page := codePageParam(r)
	data := &codeTagsPage{}
	if !rc.Repo.IsEmpty {
		list, total, err := c.h.Git.ListTags(ctx, repoPath, git.ListOptions{Skip: (page - 1) * codeRefsPerPage, Limit: codeRefsPerPage})
		if err != nil {
			return err
		}
		data.Total = total
		var shas []string
		for _, t := range list {
			if t.CommitSHA != "" {
				shas = append(shas, t.CommitSHA)
			}
		}
		commits := map[string]*codeCommitRow{}
		if len(shas) > 0 {
			objs, err := c.h.Git.ReadCommits(ctx, repoPath, shas)
			if err != nil {
				return err
			}
			for _, o := range objs {
				row := codeCommitRows(rc, []git.Commit{o.Commit})[0]
				commits[o.SHA] = &row
			}
		}
		for _, t := range list {
			esc := escapeSegments(t.Name)
			data.Tags = append(data.Tags, codeTagRow{Tag: t, Commit: commits[t.CommitSHA], URL: rc.Link + "/src/tag/" + esc,
				ZipURL: rc.Link + "/archive/" + esc + ".zip", TarGzURL: rc.Link + "/archive/" + esc + ".tar.gz"})
		}
	}
	data.Pager = newCodePager(r.URL, page, data.Total, codeRefsPerPage)
	return c.h.renderRepo(w, r, http.StatusOK, "repo_tags", "Tags", rc, data)
}

// codeCompareMaxCommits bounds the commits a comparison lists.
const codeCompareMaxCommits = 250

// codeComparePage is the data of repo_compare.tmpl.
type codeComparePage struct {
	Base, Head string
	// Equal reports that head has nothing base lacks; Unrelated that they
	// share no history.
	Equal, Unrelated bool
	Commits          []codeCommitRow
	Total            int
	Stats            git.DiffStats
	Diff             *diffView
}

// compare serves /compare/{base}...{head}: the commits of head that base
// lacks and the diff from their merge base, within one repository.
func (c *codePages) compare(w http.ResponseWriter, r *http.Request) error {
	rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return err
	}
	if rc.Repo.IsEmpty {
		return errs.NotFound("empty repository")
	}
	spec, err := codeWildcard(r)
	if err != nil {
		return err
	}
	base, head, ok := strings.Cut(spec, "...")
	if !ok {
		base, head = rc.Repo.DefaultBranch, spec
	}
	if base, err = c.compareSide(rc, base); err != nil {
		return err
	}
	if head, err = c.compareSide(rc, head); err != nil {
		return err
	}
	ctx := r.Context()
	repoPath := c.h.Repos.Path(rc.Repo)
	baseSHA, err := c.h.Git.ResolveCommit(ctx, repoPath, base)
	if err != nil {
		return gitNotFound(err)
	}
	headSHA, err := c.h.Git.ResolveCommit(ctx, repoPath, head)
	if err != nil {
		return gitNotFound(err)
	}
	data := &codeComparePage{Base: base, Head: head}
	title := "Comparing " + base + "..." + head
	ch, err := c.compareChanges(ctx, repoPath, baseSHA, headSHA)
	if err != nil {
		return gitNotFound(err)
	}
	data.Unrelated, data.Equal, data.Commits, data.Total, data.Stats = ch.Unrelated, ch.Equal, codeCommitRows(rc, ch.Commits), ch.Total, ch.Stats
	if ch.Diff == nil {
		return c.h.renderRepo(w, r, http.StatusOK, "repo_compare", title, rc, data)
	}
	link := rc.Link + "/compare/" + escapeSegments(base) + "..." + escapeSegments(head)
	data.Diff = &diffView{Diff: ch.Diff, Split: r.URL.Query().Get("style") == "split", RepoLink: rc.Link, Head: headSHA, Base: ch.MergeBase,
		UnifiedURL: link + "?style=unified", SplitURL: link + "?style=split"}
	return c.h.renderRepo(w, r, http.StatusOK, "repo_compare", title, rc, data)
}

// compareSide strips "owner:" or "owner/repo:" naming this repository from
// one side of a comparison; other repositories (forks) are not compared
// here. The rest must be a branch, a tag or a commit name.
func (c *codePages) compareSide(rc *repoCtx, s string) (string, error) {
	if prefix, ref, ok := strings.Cut(s, ":"); ok {
		if !strings.EqualFold(prefix, rc.Owner.Name) && !strings.EqualFold(prefix, rc.Owner.Name+"/"+rc.Repo.Name) {
			return "", errs.NotFound("comparing with another repository is not supported")
		}
		s = ref
	}
	if !git.ValidBranchName(s) && !isCommitName(s) {
		return "", errs.NotFound("no such reference")
	}
	return s, nil
}

// archive serves /archive/{ref}.zip and .tar.gz: the tree of a branch, tag
// or commit, streamed from git archive.
func (c *codePages) archive(w http.ResponseWriter, r *http.Request) error {
	rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return err
	}
	name, err := codeWildcard(r)
	if err != nil {
		return err
	}
	var format git.ArchiveFormat
	var ext, typ string
	switch {
	case strings.HasSuffix(name, ".zip"):
		format, ext, typ = git.ArchiveZip, ".zip", "application/zip"
	case strings.HasSuffix(name, ".tar.gz"):
		format, ext, typ = git.ArchiveTarGz, ".tar.gz", "application/gzip"
	default:
		return errs.NotFound("unknown archive format")
	}
	ref := strings.TrimSuffix(name, ext)
	if rc.Repo.IsEmpty || (!git.ValidBranchName(ref) && !isCommitName(ref)) {
		return errs.NotFound("no such reference")
	}
	ctx := r.Context()
	repoPath := c.h.Repos.Path(rc.Repo)
	sha, err := c.h.Git.ResolveCommit(ctx, repoPath, ref)
	if err != nil {
		return gitNotFound(err)
	}
	download := rc.Repo.Name + "-" + strings.ReplaceAll(ref, "/", "-") + ext
	hd := w.Header()
	hd.Set("Content-Type", typ)
	if cd := mime.FormatMediaType("attachment", map[string]string{"filename": download}); cd != "" {
		hd.Set("Content-Disposition", cd)
	}
	w.WriteHeader(http.StatusOK)
	if err := c.h.Git.Archive(ctx, repoPath, git.ArchiveOptions{Rev: sha, Format: format, Prefix: rc.Repo.Name}, w); err != nil {
		abortCodeStream(r, "archive", err)
	}
	return nil
}
