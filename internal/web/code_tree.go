package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"html/template"
	"io"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/markup"
	"github.com/cairn-forge/cairn/internal/repo"
)

// codeMaxDisplay is the largest file shown on its page (larger ones offer the
// raw file instead).
const codeMaxDisplay = 1 << 20

// codeMaxRefChoices bounds the branches and tags of the reference selector.
const codeMaxRefChoices = 100

// codePages serves the code pages; it holds their caches of immutable git
// data (keyed by commit or blob names, never invalidated, bounded).
type codePages struct {
	h               *Handler
	lastCommitCache *codeCache[string, map[string]*codeLastCommit]
	dirCache        *codeCache[string, *codeDir]
	languageCache   *codeCache[string, []codeLanguage]
	highlightCache  *codeCache[string, *codeHighlighted]
	kindCache       *codeCache[string, string]
	markdownCache   *codeCache[string, template.HTML]
	blameCache      *codeCache[string, []codeBlameGroup]
	aheadCache      *codeCache[string, [2]int]
	countCache      *codeCache[string, int]
	changesCache    *codeCache[string, *codeChanges]
	// refNamesCache holds each repository's branch and tag names for the
	// reference menus (by repository path): dropped when Cairn changes the
	// repository's references, and at most refNamesTTL old (a mirror's
	// fetch changes references without telling).
	refNamesCache *codeCache[string, *codeRefNames]
	// countSlots bounds the branch counts running at once; counting names
	// those running (see aheadBehind).
	countSlots chan struct{}
	countMu    sync.Mutex
	counting   map[string]bool
}

func newCodePages(h *Handler) *codePages {
	return &codePages{
		h:               h,
		lastCommitCache: newCodeCache[string, map[string]*codeLastCommit](lastCommitCacheRows),
		languageCache:   newCodeCache[string, []codeLanguage](4096),
		dirCache:        newCodeCache[string, *codeDir](codeDirCacheRows),
		highlightCache:  newCodeCache[string, *codeHighlighted](highlightCacheBytes),
		kindCache:       newCodeCache[string, string](100_000),
		markdownCache:   newCodeCache[string, template.HTML](16 << 20),
		blameCache:      newCodeCache[string, []codeBlameGroup](codeBlameCacheLines),
		aheadCache:      newCodeCache[string, [2]int](100_000),
		countCache:      newCodeCache[string, int](100_000),
		changesCache:    newCodeCache[string, *codeChanges](codeChangesCacheLines),
		refNamesCache:   newCodeCache[string, *codeRefNames](4096),
		countSlots:      make(chan struct{}, 2),
		counting:        map[string]bool{},
	}
}

// codeCrumb is one step of the breadcrumbs above a tree or file.
type codeCrumb struct {
	Name string
	URL  string // "" for the last one
}

// codeTreeRow is one entry of a directory listing.
type codeTreeRow struct {
	Name string
	// URL is the entry's page (a submodule has none).
	URL                           string
	IsDir, IsSubmodule, IsSymlink bool
	Commit                        *codeLastCommit
	CommitURL                     string
	Size                          int64
}

// codeRefChoice is a branch or tag of the selector.
type codeRefChoice struct {
	Name, URL string
	Current   bool
}

// codeSrcPage is the data of repo_src.tmpl: the repository home, a directory
// or a file at a reference.
type codeSrcPage struct {
	Ref *codeRef
	// Home has the repository's summary (on its home page only).
	Home *codeHome
	// Empty reports a repository without commits (clone instructions).
	Empty  bool
	Crumbs []codeCrumb
	// Branches and Tags fill the selector; MoreRefs links to the lists.
	Branches, Tags []codeRefChoice
	MoreRefs       bool
	// Latest is the newest commit that changed the path.
	Latest    *codeLastCommit
	LatestURL string
	// HistoryURL is the path's commit history.
	HistoryURL string
	// Entries is the directory listing (directories only); Readme its
	// README rendered.
	Entries []codeTreeRow
	Readme  *codeReadme
	// File is the file shown (files only).
	File *codeFile
}

// codeReadme is a README shown below a directory listing.
type codeReadme struct {
	Name string
	// HTML is Markdown rendered (and sanitized) by the markup renderer;
	// Text is shown as preformatted text when HTML is empty.
	HTML template.HTML
	Text string
}

// codeLine is a numbered line of a file view.
type codeLine struct {
	Num  int
	HTML template.HTML
}

// Kinds of codeFile.
const (
	codeKindText     = "text"
	codeKindMarkdown = "markdown"
	codeKindImage    = "image"
	codeKindBinary   = "binary"
	codeKindLarge    = "large"
)

// codeFile is a file's page.
type codeFile struct {
	Name string
	Size int64
	// Kind is text, markdown (rendered), image, binary or large.
	Kind     string
	Language string
	// LineCount is the number of lines of a text file, Rows their table rows.
	LineCount int
	Rows      template.HTML
	Markdown  template.HTML
	// RawURL serves the file; BlameURL shows who changed each line.
	RawURL, BlameURL string
	// SourceURL and RenderedURL switch a Markdown file's view.
	SourceURL, RenderedURL  string
	IsSymlink, IsExecutable bool
}

// home serves /{owner}/{repo}: the summary, the default branch's root
// listing and its README; /{owner}/{repo}.git sends browsers here.
func (c *codePages) home(w http.ResponseWriter, r *http.Request) error {
	if name, ok := strings.CutSuffix(chi.URLParam(r, "repo"), ".git"); ok && name != "" {
		http.Redirect(w, r, "/"+escapeSegments(chi.URLParam(r, "owner")+"/"+name), http.StatusMovedPermanently)
		return nil
	}
	rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return err
	}
	ctx := r.Context()
	repoPath := c.h.Repos.Path(rc.Repo)
	home, err := c.summary(ctx, rc)
	if err != nil {
		return err
	}
	page := &codeSrcPage{Home: home}
	if rc.Repo.IsEmpty {
		page.Empty = true
		return c.h.renderRepo(w, r, http.StatusOK, "repo_src", "", rc, page)
	}
	ref, err := c.defaultRef(ctx, repoPath, rc.Repo.DefaultBranch)
	if errors.Is(err, git.ErrNotFound) {
		page.Empty = true
		return c.h.renderRepo(w, r, http.StatusOK, "repo_src", "", rc, page)
	}
	if err != nil {
		return err
	}
	page.Ref = ref
	if home.Languages, err = c.languages(ctx, rc.Repo.ID, repoPath, ref.Commit); err != nil {
		return err
	}
	if err := c.fillTree(ctx, rc, repoPath, page); err != nil {
		return err
	}
	return c.h.renderRepo(w, r, http.StatusOK, "repo_src", "", rc, page)
}

// src serves /src/{kind}/{ref}/{path}: a directory or a file.
func (c *codePages) src(kind string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc, repoPath, ref, err := c.loadRef(r, kind)
		if err != nil {
			return err
		}
		ctx := r.Context()
		page := &codeSrcPage{Ref: ref}
		entry, err := c.h.Git.GetTreeEntry(ctx, repoPath, ref.Commit, ref.Path)
		if err != nil {
			return gitNotFound(err)
		}
		title := rc.Repo.Name
		if ref.Path != "" {
			title = ref.Path
		}
		title += " at " + ref.ShortName()
		switch {
		case entry.IsDir():
			err = c.fillTree(ctx, rc, repoPath, page)
		case entry.IsSubmodule():
			return errs.NotFound("a submodule has no page here")
		default:
			err = c.fillFile(r, rc, repoPath, page, entry)
		}
		if err != nil {
			return err
		}
		return c.h.renderRepo(w, r, http.StatusOK, "repo_src", title, rc, page)
	}
}

// legacy redirects /{area}/{name}/{path}, where name is a branch, a tag or
// a commit, to the address that says which.
func (c *codePages) legacy(area string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		rc, err := c.h.loadRepoUnit(r, repo.UnitCode, "code")
		if err != nil {
			return err
		}
		rest, err := codeWildcard(r)
		if err != nil {
			return err
		}
		if strings.Trim(rest, "/") == "" {
			http.Redirect(w, r, rc.Link, http.StatusSeeOther)
			return nil
		}
		if rc.Repo.IsEmpty {
			return errs.NotFound("empty repository")
		}
		ref, err := c.resolveLegacy(r.Context(), c.h.Repos.Path(rc.Repo), rest)
		if err != nil {
			return err
		}
		target := rc.Link + "/" + area + "/" + ref.PathURL(ref.Path)
		if q := r.URL.RawQuery; q != "" {
			target += "?" + q
		}
		http.Redirect(w, r, target, http.StatusMovedPermanently)
		return nil
	}
}

// crumbs are the steps from the repository root to p.
func codeCrumbs(rc *repoCtx, ref *codeRef, p string) []codeCrumb {
	out := []codeCrumb{{Name: rc.Repo.Name, URL: rc.Link + "/src/" + ref.URLPart()}}
	if p == "" {
		out[0].URL = ""
		return out
	}
	parts := strings.Split(p, "/")
	for i, name := range parts {
		cr := codeCrumb{Name: name}
		if i < len(parts)-1 {
			cr.URL = rc.Link + "/src/" + ref.PathURL(strings.Join(parts[:i+1], "/"))
		}
		out = append(out, cr)
	}
	return out
}

// fillRefs fills the selector and the breadcrumbs, and the history link.
func (c *codePages) fillRefs(ctx context.Context, rc *repoCtx, repoPath string, page *codeSrcPage, area string) error {
	ref := page.Ref
	branches, tags, more, err := c.refNames(ctx, repoPath)
	if err != nil {
		return err
	}
	link := func(kind, name string) string {
		u := rc.Link + "/" + area + "/" + kind + "/" + escapeSegments(name)
		if ref.Path != "" {
			u += "/" + escapeSegments(ref.Path)
		}
		return u
	}
	for _, b := range branches {
		page.Branches = append(page.Branches, codeRefChoice{Name: b, URL: link(codeRefBranch, b), Current: ref.Kind == codeRefBranch && ref.Name == b})
	}
	for _, t := range tags {
		page.Tags = append(page.Tags, codeRefChoice{Name: t, URL: link(codeRefTag, t), Current: ref.Kind == codeRefTag && ref.Name == t})
	}
	page.MoreRefs = more
	page.Crumbs = codeCrumbs(rc, ref, ref.Path)
	page.HistoryURL = rc.Link + "/commits/" + ref.PathURL(ref.Path)
	return nil
}

// codeDir is a directory at a commit: its entries (directories first) and
// its README rendered. It never changes, so it is cached.
type codeDir struct {
	Entries []git.TreeEntry
	Readme  *codeReadme
}

// codeDirCacheRows bounds the directory cache: this many entries in all.
const codeDirCacheRows = 200_000

// dir reads (or finds in the cache) the directory dir of commit.
func (c *codePages) dir(ctx context.Context, rc *repoCtx, repoPath, commit, dir string) (*codeDir, error) {
	key := strconv.FormatInt(rc.Repo.ID, 10) + "\x00" + commit + "\x00" + dir
	if d, ok := c.dirCache.get(key); ok {
		return d, nil
	}
	entries, err := c.h.Git.ListTree(ctx, repoPath, commit, dir, false)
	if err != nil {
		return nil, gitNotFound(err)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].IsDir() != entries[j].IsDir() {
			return entries[i].IsDir()
		}
		return entries[i].Name < entries[j].Name
	})
	d := &codeDir{Entries: entries}
	var readme *git.TreeEntry
	for i, e := range entries {
		if e.Type == git.TypeBlob && !e.IsSymlink() && codeReadmeRank(e.Name) > 0 &&
			(readme == nil || codeReadmeRank(e.Name) > codeReadmeRank(readme.Name)) {
			readme = &entries[i]
		}
	}
	weight := len(entries) + 1
	if readme != nil {
		if d.Readme, err = c.readme(ctx, rc, repoPath, *readme); err != nil {
			return nil, err
		}
		if d.Readme != nil {
			weight += (len(d.Readme.HTML) + len(d.Readme.Text)) / 256
		}
	}
	c.dirCache.put(key, d, weight)
	return d, nil
}

// fillTree lists the directory page.Ref names, with each entry's last
// commit, and its README.
func (c *codePages) fillTree(ctx context.Context, rc *repoCtx, repoPath string, page *codeSrcPage) error {
	ref := page.Ref
	if err := c.fillRefs(ctx, rc, repoPath, page, "src"); err != nil {
		return err
	}
	d, err := c.dir(ctx, rc, repoPath, ref.Commit, ref.Path)
	if err != nil {
		return err
	}
	// The same history walk finds the directory's own last commit; the
	// root's is the commit itself.
	paths := make([]string, len(d.Entries), len(d.Entries)+1)
	for i, e := range d.Entries {
		paths[i] = e.Path
	}
	if ref.Path != "" {
		paths = append(paths, ref.Path)
	}
	last, err := c.lastCommits(ctx, rc.Repo.ID, repoPath, ref.Commit, ref.Path, paths)
	if err != nil {
		return err
	}
	if ref.Path == "" {
		if page.Latest, err = c.commitInfo(ctx, repoPath, ref.Commit); err != nil {
			return gitNotFound(err)
		}
	} else {
		page.Latest = last[ref.Path]
	}
	page.Entries = make([]codeTreeRow, 0, len(d.Entries))
	for _, e := range d.Entries {
		row := codeTreeRow{Name: e.Name, IsDir: e.IsDir(), IsSubmodule: e.IsSubmodule(), IsSymlink: e.IsSymlink(), Size: e.Size}
		if !e.IsSubmodule() {
			row.URL = rc.Link + "/src/" + ref.PathURL(e.Path)
		}
		if lc := last[e.Path]; lc != nil {
			row.Commit, row.CommitURL = lc, rc.Link+"/commit/"+lc.SHA
		}
		page.Entries = append(page.Entries, row)
	}
	if page.Latest != nil {
		page.LatestURL = rc.Link + "/commit/" + page.Latest.SHA
	}
	page.Readme = d.Readme
	return nil
}

// codeReadmeRank orders the names a README may have (0: not a README).
func codeReadmeRank(name string) int {
	switch strings.ToLower(name) {
	case "readme.md", "readme.markdown":
		return 4
	case "readme.txt":
		return 3
	case "readme":
		return 2
	}
	if strings.HasPrefix(strings.ToLower(name), "readme.") {
		return 1
	}
	return 0
}

// readme renders a README: Markdown through the sanitizing renderer, other
// text escaped; a binary or too large one is left out.
func (c *codePages) readme(ctx context.Context, rc *repoCtx, repoPath string, e git.TreeEntry) (*codeReadme, error) {
	if e.Size > markup.MaxText {
		return nil, nil
	}
	src, err := c.blob(ctx, repoPath, e.SHA).bytes()
	if err != nil {
		return nil, err
	}
	if codeLooksBinary(src) {
		return nil, nil
	}
	rv := &codeReadme{Name: e.Name}
	if codeIsMarkdown(e.Name) {
		out, err := c.h.Markup.Render(ctx, src, markup.Options{Mode: markup.ModeMarkdown, RepoLink: c.h.rootURL + strings.TrimPrefix(rc.Link, "/")})
		if err != nil {
			return nil, err
		}
		rv.HTML = template.HTML(out) // #nosec: the markup renderer's sanitized output
		return rv, nil
	}
	rv.Text = strings.ToValidUTF8(string(src), "\uFFFD")
	return rv, nil
}

// codeBlob reads a blob of at most codeMaxDisplay bytes once, when first
// needed: a warm page finds what it shows in the caches and reads nothing.
type codeBlob struct {
	c        *codePages
	ctx      context.Context
	repoPath string
	sha      string
	data     []byte
	read     bool
}

// blob is the lazily read blob sha.
func (c *codePages) blob(ctx context.Context, repoPath, sha string) *codeBlob {
	return &codeBlob{c: c, ctx: ctx, repoPath: repoPath, sha: sha}
}

// bytes reads the blob (its first codeMaxDisplay bytes).
func (b *codeBlob) bytes() ([]byte, error) {
	if b.read {
		return b.data, nil
	}
	rd, _, err := b.c.h.Git.ReadBlob(b.ctx, b.repoPath, b.sha)
	if err != nil {
		return nil, gitNotFound(err)
	}
	defer rd.Close()
	if b.data, err = io.ReadAll(io.LimitReader(rd, codeMaxDisplay)); err != nil {
		return nil, err
	}
	b.read = true
	return b.data, nil
}

// kind classifies a blob of at most codeMaxDisplay bytes for its page:
// an image (by extension and content), binary, or text; cached by blob.
func (c *codePages) kind(b *codeBlob, name string, symlink bool) (string, error) {
	ext := strings.ToLower(path.Ext(name))
	key := b.sha + "\x00" + ext
	if k, ok := c.kindCache.get(key); ok {
		return k, nil
	}
	src, err := b.bytes()
	if err != nil {
		return "", err
	}
	k := codeKindText
	switch {
	case codeImageTypes[ext] != "" && !symlink && (ext == ".svg" || strings.HasPrefix(http.DetectContentType(src), "image/")):
		k = codeKindImage
	case codeLooksBinary(src):
		k = codeKindBinary
	}
	c.kindCache.put(key, k, 1)
	return k, nil
}

// markdown renders a Markdown blob (cached by blob).
func (c *codePages) markdown(ctx context.Context, rc *repoCtx, b *codeBlob) (template.HTML, error) {
	if out, ok := c.markdownCache.get(b.sha); ok {
		return out, nil
	}
	src, err := b.bytes()
	if err != nil {
		return "", err
	}
	out, err := c.h.Markup.Render(ctx, src, markup.Options{Mode: markup.ModeMarkdown, RepoLink: c.h.rootURL + strings.TrimPrefix(rc.Link, "/")})
	if err != nil {
		return "", err
	}
	html := template.HTML(out) // #nosec: the markup renderer's sanitized output
	c.markdownCache.put(b.sha, html, len(html)+64)
	return html, nil
}

// codeIsMarkdown tells Markdown files by their extension.
func codeIsMarkdown(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdown", ".mkd", ".mkdn":
		return true
	}
	return false
}

// codeLooksBinary takes data with a NUL byte in its first 8,000 bytes for
// binary, as git does; other text that is not UTF-8 is shown with
// replacement characters.
func codeLooksBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

// codeImageTypes are the image formats shown inline, by extension.
var codeImageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".ico": "image/x-icon", ".avif": "image/avif",
	".svg": "image/svg+xml",
}

// fillFile fills the page of one file.
func (c *codePages) fillFile(r *http.Request, rc *repoCtx, repoPath string, page *codeSrcPage, e git.TreeEntry) error {
	ctx := r.Context()
	ref := page.Ref
	if err := c.fillRefs(ctx, rc, repoPath, page, "src"); err != nil {
		return err
	}
	last, err := c.lastCommits(ctx, rc.Repo.ID, repoPath, ref.Commit, ref.Path, []string{ref.Path})
	if err != nil {
		return err
	}
	if lc := last[ref.Path]; lc != nil {
		page.Latest, page.LatestURL = lc, rc.Link+"/commit/"+lc.SHA
	}
	here := rc.Link + "/src/" + ref.PathURL(ref.Path)
	f := &codeFile{Name: e.Name, Size: e.Size, IsSymlink: e.IsSymlink(), IsExecutable: e.IsExecutable(),
		RawURL: rc.Link + "/raw/" + ref.PathURL(ref.Path), BlameURL: rc.Link + "/blame/" + ref.PathURL(ref.Path)}
	page.File = f
	if e.Size > codeMaxDisplay {
		f.Kind = codeKindLarge
		return nil
	}
	b := c.blob(ctx, repoPath, e.SHA)
	kind, err := c.kind(b, e.Name, e.IsSymlink())
	if err != nil {
		return err
	}
	switch {
	case kind != codeKindText:
		f.Kind = kind
		return nil
	case codeIsMarkdown(e.Name) && r.URL.Query().Get("display") != "source":
		if f.Markdown, err = c.markdown(ctx, rc, b); err != nil {
			return err
		}
		f.Kind, f.SourceURL = codeKindMarkdown, here+"?display=source"
		return nil
	}
	f.Kind = codeKindText
	if codeIsMarkdown(e.Name) {
		f.RenderedURL = here
	}
	if e.Size == 0 {
		return nil
	}
	hl, err := c.highlight(b, e.Name)
	if err != nil {
		return err
	}
	f.Language, f.LineCount, f.Rows = hl.Language, len(hl.Lines), hl.Rows
	return nil
}

// codeRawType decides a raw file's Content-Type from its name and first bytes:
// text as text/plain, images as their type, the rest as a download.
func codeRawType(name string, br *bufio.Reader) string {
	head, _ := br.Peek(8000)
	if t := codeImageTypes[strings.ToLower(path.Ext(name))]; t != "" {
		if t == "image/svg+xml" || strings.HasPrefix(http.DetectContentType(head), "image/") {
			return t
		}
	}
	if !codeLooksBinary(head) {
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}
