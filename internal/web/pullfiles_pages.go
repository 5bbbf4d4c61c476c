package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/db"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/issue"
	"github.com/cairn-forge/cairn/internal/pull"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/user"
)

const (
	// pullFilesPerPage is how many files of a pull request a page shows.
	pullFilesPerPage = 40
	// pullFileListMax bounds the list of changed file names on a page.
	pullFileListMax = 500
	// pullCommitsPerPage is the length of a page of a pull request's commits.
	pullCommitsPerPage = 50
	// pullMaxReviews bounds the reviews whose line comments a page shows.
	pullMaxReviews = 500
)

// pullHeader is the top of a pull request's files and commits pages.
type pullHeader struct {
	Pull   *pull.PullRequest
	Poster *user.User
	// Link is the pull request's page; HeadLabel names its head branch
	// ("owner/repo:branch" when it comes from another repository).
	Link, HeadLabel string
	// Tab is the active tab: files or commits.
	Tab string
	// CanCode links commits and files to the code pages.
	CanCode bool
}

// State is open, closed or merged.
func (p *pullHeader) State() string {
	switch {
	case p.Pull.HasMerged:
		return "merged"
	case p.Pull.Issue.IsClosed:
		return "closed"
	}
	return "open"
}

// loadPullPage loads pull request {index} of the repository for one of its
// pages: the pulls unit must be readable.
func (h *Handler) loadPullPage(r *http.Request, tab string) (*repoCtx, *pullHeader, error) {
	rc, err := h.loadRepoUnit(r, repo.UnitPulls, "pulls")
	if err != nil {
		return nil, nil, err
	}
	idx, err := strconv.ParseInt(chi.URLParam(r, "index"), 10, 64)
	if err != nil || idx <= 0 {
		return nil, nil, errs.NotFound("no such pull request")
	}
	ctx := r.Context()
	p, err := h.Pulls.GetByIndex(ctx, rc.Repo.ID, idx)
	if err != nil {
		return nil, nil, err
	}
	poster, err := h.Users.Store.GetByID(ctx, p.Issue.PosterID)
	if errs.IsNotFound(err) {
		poster, err = user.Ghost(), nil
	}
	if err != nil {
		return nil, nil, err
	}
	hd := &pullHeader{Pull: p, Poster: poster, Link: rc.Link + "/pulls/" + strconv.FormatInt(idx, 10), HeadLabel: p.HeadBranch,
		Tab: tab, CanCode: rc.Perm.CanRead(repo.UnitCode)}
	if !p.IsSameRepo() {
		if head, err := h.Repos.GetByID(ctx, p.HeadRepoID); err == nil {
			if owner, err := h.Users.Store.GetByID(ctx, head.OwnerID); err == nil {
				hd.HeadLabel = owner.Name + "/" + head.Name + ":" + p.HeadBranch
			}
		} else if !errs.IsNotFound(err) {
			return nil, nil, err
		}
	}
	return rc, hd, nil
}

// pullCommentView is a line comment as the files page shows it.
type pullCommentView struct {
	*issue.Comment
	Poster *user.User
	Body   template.HTML
	// Pending marks a comment of the visitor's review not yet submitted.
	Pending bool
}

// Side is "old" or "new", LineNum the line's number on that side.
func (c *pullCommentView) Side() string {
	if c.Line < 0 {
		return "old"
	}
	return "new"
}

// LineNum is the commented line's number on its side.
func (c *pullCommentView) LineNum() int64 {
	if c.Line < 0 {
		return -c.Line
	}
	return c.Line
}

// pullFileView is a file of the page's diff with its line comments.
type pullFileView struct {
	*DiffFile
	// Anchor is the file's id on the page; SkipTo its page's query.
	Anchor, SkipTo string
	// placed are the comments shown under a line, by hunk and line index;
	// Elsewhere those on lines the diff does not show (outdated, or on the
	// file as a whole).
	placed    map[[2]int][]*pullCommentView
	Elsewhere []*pullCommentView
}

// CommentsAt returns the comments under line li of hunk hi.
func (f *pullFileView) CommentsAt(hi, li int) []*pullCommentView { return f.placed[[2]int{hi, li}] }

// pullFileEntry is one line of the changed file list.
type pullFileEntry struct {
	git.ChangedFile
	// Link shows the file; OnPage reports it is on this page.
	Link   string
	OnPage bool
}

// pullFilesPage is the data of pull_files.tmpl.
type pullFilesPage struct {
	*pullHeader
	Files []*pullFileView
	// List names the changed files (at most pullFileListMax); Total counts them.
	List                 []pullFileEntry
	Total                int
	Additions, Deletions int
	// First is the position of the page's first file (1-based).
	First int
	// Prev and Next page through the files ("" at the ends).
	Prev, Next string
	// Truncated reports files cut short on this page.
	Truncated bool
	// Head is the commit shown; files link to it.
	Head string
	// Pending is the visitor's pending review (nil when none), PendingCount
	// its line comments.
	Pending      *pull.Review
	PendingCount int
	// CanReview shows the review forms; CanVerdict the approve and request
	// changes choices (not on one's own pull request).
	CanReview, CanVerdict bool
}

// pullFileAnchor is a stable id for a file on the page.
func pullFileAnchor(name string) string {
	sum := sha256.Sum256([]byte(name))
	return "file-" + hex.EncodeToString(sum[:6])
}

// pullFilesLink is the files page starting at the file named skipTo.
func pullFilesLink(hd *pullHeader, skipTo string) string {
	if skipTo == "" {
		return hd.Link + "/files"
	}
	return hd.Link + "/files?skip-to=" + url.QueryEscape(skipTo)
}

// pullFiles serves /pulls/{index}/files: a page of the changed files'
// diff (?skip-to= starts at a file, as the API's /files), the line
// comments visible to the visitor under their lines, and the review forms.
func (h *Handler) pullFiles(w http.ResponseWriter, r *http.Request) error {
	rc, hd, err := h.loadPullPage(r, "files")
	if err != nil {
		return err
	}
	ctx := r.Context()
	p := hd.Pull
	from, to, err := h.Pulls.DiffSides(ctx, rc.Repo, p)
	if err != nil {
		return err
	}
	path := h.Repos.Path(rc.Repo)
	files, _, err := h.Git.ChangedFiles(ctx, path, from, to, git.ChangedFilesOptions{DetectRenames: true})
	if err != nil {
		return err
	}
	start := 0
	if skip := r.URL.Query().Get("skip-to"); skip != "" {
		for i, f := range files {
			if f.Filename == skip {
				start = i
				break
			}
		}
	}
	d, err := h.pullPageDiff(ctx, path, from, to, start, diffOptions{MaxFiles: pullFilesPerPage})
	if err != nil {
		return err
	}
	if n := len(d.Files); d.Truncated && n > 1 && n < pullFilesPerPage {
		// The line limit cut the last file: it starts the next page.
		d.Files = d.Files[:n-1]
	}
	data := &pullFilesPage{pullHeader: hd, Total: len(files), First: start + 1, Head: to, Truncated: d.Truncated,
		CanReview: doer(r) != nil, CanVerdict: doer(r) != nil && doer(r).ID != p.Issue.PosterID}
	end := start + len(d.Files)
	for i, f := range files {
		data.Additions += f.Additions
		data.Deletions += f.Deletions
		if i < pullFileListMax {
			e := pullFileEntry{ChangedFile: f, OnPage: i >= start && i < end}
			if e.OnPage {
				e.Link = "#" + pullFileAnchor(f.Filename)
			} else {
				e.Link = pullFilesLink(hd, f.Filename) + "#" + pullFileAnchor(f.Filename)
			}
			data.List = append(data.List, e)
		}
	}
	if start > 0 {
		data.Prev = pullFilesLink(hd, files[max(0, start-pullFilesPerPage)].Filename)
	}
	if end < len(files) && len(d.Files) > 0 {
		data.Next = pullFilesLink(hd, files[end].Filename)
	}
	for _, f := range d.Files {
		data.Files = append(data.Files, &pullFileView{DiffFile: f, Anchor: pullFileAnchor(f.Name), SkipTo: f.Name})
	}
	if err := h.placePullComments(ctx, rc, r, data); err != nil {
		return err
	}
	return h.renderRepo(w, r, http.StatusOK, "pull_files", "Files · "+p.Issue.Title, rc, data)
}

// placePullComments loads the line comments on the page's files of the
// reviews the visitor may see (three queries) and puts each under its line.
func (h *Handler) placePullComments(ctx context.Context, rc *repoCtx, r *http.Request, data *pullFilesPage) error {
	if len(data.Files) == 0 {
		return nil
	}
	d := doer(r)
	reviews, _, err := h.Pulls.ListReviews(ctx, d, data.Pull, pullMaxReviews, 0)
	if err != nil {
		return err
	}
	pendingIDs := map[int64]bool{}
	var ids []int64
	for _, rv := range reviews {
		if rv.Type == pull.ReviewRequest {
			continue
		}
		ids = append(ids, rv.ID)
		if rv.Type == pull.ReviewPending {
			pendingIDs[rv.ID] = true
			if d != nil && rv.ReviewerID == d.ID {
				data.Pending = rv
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	byPath := map[string]*pullFileView{}
	var paths []string
	for _, f := range data.Files {
		byPath[f.Name] = f
		paths = append(paths, f.Name)
	}
	args := append([]any{issue.CommentCode}, db.Int64Args(ids)...)
	for _, p := range paths {
		args = append(args, p)
	}
	list, err := h.Issues.ListComments(ctx, "WHERE c.type = ? AND c.review_id IN "+db.In(len(ids))+
		" AND c.tree_path IN "+db.In(len(paths))+" ORDER BY c.id", args...)
	if err != nil {
		return err
	}
	posterIDs := make([]int64, 0, len(list))
	for _, c := range list {
		posterIDs = append(posterIDs, c.PosterID)
	}
	users, err := h.Users.Store.GetByIDs(ctx, posterIDs)
	if err != nil {
		return err
	}
	if data.Pending != nil {
		data.PendingCount, _ = h.countPending(ctx, data.Pending.ID)
	}
	for _, c := range list {
		f := byPath[c.TreePath]
		if f == nil {
			continue
		}
		u := users[c.PosterID]
		if u == nil {
			u = user.Ghost()
		}
		cv := &pullCommentView{Comment: c, Poster: u, Body: h.noteHTML(ctx, rc, c.Content), Pending: pendingIDs[c.ReviewID]}
		if !f.place(cv) {
			f.Elsewhere = append(f.Elsewhere, cv)
		}
	}
	return nil
}

// countPending counts the line comments of the visitor's pending review.
func (h *Handler) countPending(ctx context.Context, reviewID int64) (int, error) {
	n, err := h.DB.Count(ctx, "SELECT COUNT(*) FROM comment WHERE review_id = ? AND type = ?", reviewID, issue.CommentCode)
	return int(n), err
}

// place puts c under the first line of the diff it comments on.
func (f *pullFileView) place(c *pullCommentView) bool {
	if c.Line == 0 {
		return false
	}
	for hi, hk := range f.Hunks {
		for li, l := range hk.Lines {
			onLine := (c.Line > 0 && l.Kind != DiffDelete && int64(l.NewNum) == c.Line) ||
				(c.Line < 0 && l.Kind != DiffAdd && int64(l.OldNum) == -c.Line)
			if onLine {
				if f.placed == nil {
					f.placed = map[[2]int][]*pullCommentView{}
				}
				key := [2]int{hi, li}
				f.placed[key] = append(f.placed[key], c)
				return true
			}
		}
	}
	return false
}

// pullReviewBack is where a review form returns: the files page at the
// form's file, or at its start.
func pullReviewBack(hd *pullHeader, skipTo string) string {
	if skipTo == "" {
		return pullFilesLink(hd, "")
	}
	return pullFilesLink(hd, skipTo) + "#" + pullFileAnchor(skipTo)
}

// addPullReviewComment adds a line comment (path, side, line, body) to the
// visitor's pending review, as the API's review creation does.
func (h *Handler) addPullReviewComment(w http.ResponseWriter, r *http.Request) error {
	rc, hd, err := h.loadPullPage(r, "files")
	if err != nil {
		return err
	}
	if err := signedIn(r); err != nil {
		return err
	}
	path := r.PostFormValue("path")
	back := pullReviewBack(hd, path)
	line, err := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("line")), 10, 64)
	if err != nil || line <= 0 {
		h.flash(w, "error", "Give the number of the line to comment on.")
		http.Redirect(w, r, back, http.StatusSeeOther)
		return nil
	}
	if r.PostFormValue("side") == "old" {
		line = -line
	}
	_, err = h.Pulls.AddPendingComments(r.Context(), doer(r), rc.Repo, hd.Pull,
		[]pull.ReviewCommentOptions{{Path: path, Line: line, Body: r.PostFormValue("body")}})
	if err := h.pullReviewRefusal(w, err); err != nil {
		return err
	}
	h.flash(w, "success", "The comment was added to your pending review.")
	http.Redirect(w, r, back, http.StatusSeeOther)
	return nil
}

// pullReviewRefusal flashes a refused review change (a domain refusal) and
// returns nil; other errors are returned.
func (h *Handler) pullReviewRefusal(w http.ResponseWriter, err error) error {
	if err == nil {
		return nil
	}
	var e *errs.Error
	if !errors.As(err, &e) || (e.Kind != errs.KindInvalid && e.Kind != errs.KindConflict && e.Kind != errs.KindForbidden) {
		return err
	}
	h.flash(w, "error", "Refused: "+e.Message)
	return nil
}

// pullReviewTypes are the verdicts of the submit form.
var pullReviewTypes = map[string]pull.ReviewType{"comment": pull.ReviewComment, "approve": pull.ReviewApprove, "reject": pull.ReviewReject}

// submitPullReview submits the visitor's review (their pending one, with
// its line comments, or a new one) as a comment, an approval or a request
// for changes, as the API does.
func (h *Handler) submitPullReview(w http.ResponseWriter, r *http.Request) error {
	rc, hd, err := h.loadPullPage(r, "files")
	if err != nil {
		return err
	}
	if err := signedIn(r); err != nil {
		return err
	}
	t, ok := pullReviewTypes[r.PostFormValue("type")]
	if !ok {
		return errs.InvalidField("type", "choose comment, approve or request changes")
	}
	ctx, d, p := r.Context(), doer(r), hd.Pull
	body := r.PostFormValue("body")
	reviews, _, err := h.Pulls.ListReviews(ctx, d, p, pullMaxReviews, 0)
	if err != nil {
		return err
	}
	var pending *pull.Review
	for _, rv := range reviews {
		if rv.Type == pull.ReviewPending && rv.ReviewerID == d.ID {
			pending = rv
		}
	}
	if pending != nil {
		_, err = h.Pulls.SubmitReview(ctx, d, rc.Repo, p, pending, t, body)
	} else {
		_, err = h.Pulls.CreateReview(ctx, d, rc.Repo, p, pull.CreateReviewOptions{Type: t, Body: body})
	}
	if err != nil {
		if err := h.pullReviewRefusal(w, err); err != nil {
			return err
		}
		http.Redirect(w, r, pullFilesLink(hd, ""), http.StatusSeeOther)
		return nil
	}
	h.flash(w, "success", "Your review was submitted.")
	http.Redirect(w, r, hd.Link, http.StatusSeeOther)
	return nil
}

// pullCommitRow is a commit of the commits page.
type pullCommitRow struct {
	git.Commit
	Link string
}

// pullCommitsPage is the data of pull_commits.tmpl.
type pullCommitsPage struct {
	*pullHeader
	Commits    []pullCommitRow
	Total      int
	Prev, Next string
}

// pullCommits serves /pulls/{index}/commits: the commits of the pull
// request, newest first, paged.
func (h *Handler) pullCommits(w http.ResponseWriter, r *http.Request) error {
	rc, hd, err := h.loadPullPage(r, "commits")
	if err != nil {
		return err
	}
	ctx := r.Context()
	from, to, err := h.Pulls.DiffSides(ctx, rc.Repo, hd.Pull)
	if err != nil {
		return err
	}
	path := h.Repos.Path(rc.Repo)
	opts := git.RevListOptions{Revs: []string{to}, Not: []string{from}}
	total, err := h.Git.CountCommits(ctx, path, opts)
	if err != nil {
		return err
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	opts.Skip, opts.Limit = (page-1)*pullCommitsPerPage, pullCommitsPerPage
	shas, err := h.Git.RevList(ctx, path, opts)
	if err != nil {
		return err
	}
	objs, err := h.Git.ReadCommits(ctx, path, shas)
	if err != nil {
		return err
	}
	data := &pullCommitsPage{pullHeader: hd, Total: total}
	for _, o := range objs {
		row := pullCommitRow{Commit: o.Commit}
		if hd.CanCode {
			row.Link = rc.Link + "/commit/" + o.SHA
		}
		data.Commits = append(data.Commits, row)
	}
	if page > 1 {
		data.Prev = hd.Link + "/commits?page=" + strconv.Itoa(page-1)
	}
	if page*pullCommitsPerPage < total {
		data.Next = hd.Link + "/commits?page=" + strconv.Itoa(page+1)
	}
	return h.renderRepo(w, r, http.StatusOK, "pull_commits", "Commits · "+hd.Pull.Issue.Title, rc, data)
}
