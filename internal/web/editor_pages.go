package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
)

// Limits of the web file editor.
const (
	// editorMaxFileSize is the largest file the editor opens (and the
	// largest content it commits from its text area): the size the code
	// pages still show.
	editorMaxFileSize = codeMaxDisplay
	// editorMaxUploadFiles bounds the files of one upload.
	editorMaxUploadFiles = 10
	// editorMaxUploadBytes bounds the total size of one upload.
	editorMaxUploadBytes = 32 << 20
	// editorMaxSummary bounds the commit summary, in characters.
	editorMaxSummary = 255
	// editorBranchSuggestions is how many "{user}-patch-N" names are tried
	// for the suggested new branch.
	editorBranchSuggestions = 20
)

// Modes of the editor form (editorPage.Mode).
const (
	editorModeNew    = "new"
	editorModeEdit   = "edit"
	editorModeDelete = "delete"
	editorModeUpload = "upload"
)

// editorPages serves the web file editor: creating, editing, deleting and
// uploading files as commits on a branch, through the same domain path (and
// push rules) as the contents API.
type editorPages struct{ h *Handler }

// editorTarget is the branch and path an editor page works on.
type editorTarget struct {
	rc       *repoCtx
	repoPath string
	Branch   string
	// Tip is the branch's commit; "" in a repository without commits.
	Tip string
	// Path is the clean tree path after the branch ("" for the root).
	Path string
}

// editorCommitForm is the commit part of every editor form.
type editorCommitForm struct {
	Summary, Description string
	// DefaultSummary is used when Summary is left empty.
	DefaultSummary string
	NewBranch      bool
	NewBranchName  string
	Signoff        bool
	// LastCommit is the branch's commit when the form was opened.
	LastCommit string
}

// editorPage is the data of editor_form.tmpl.
type editorPage struct {
	Mode   string
	Branch string
	// Dir is the directory a new or uploaded file goes to.
	Dir string
	// Path is the file edited or deleted.
	Path string
	// TreePath is the path field of the new and edit forms.
	TreePath string
	Content  string
	// CRLF keeps Windows line endings of an edited file.
	CRLF   bool
	Commit editorCommitForm
	// Error is why the last attempt was refused.
	Error string
	// Action is the form's address; CancelURL where cancelling goes.
	Action, CancelURL string
	// EmptyRepo offers only committing directly (there is no branch yet).
	EmptyRepo bool
	// MaxUploadFiles and MaxUploadBytes are the upload limits.
	MaxUploadFiles int
	MaxUploadBytes int64
}

// load resolves /{owner}/{repo}/_{mode}/{branch}/{path}: the repository
// (404 for those who may not see its code), the visitor's right to change
// it (sign-in, then 403), and the branch and path.
func (e *editorPages) load(r *http.Request) (*editorTarget, error) {
	h := e.h
	rc, err := h.loadRepoUnit(r, repo.UnitCode, "code")
	if err != nil {
		return nil, err
	}
	if err := signedIn(r); err != nil {
		return nil, err
	}
	switch {
	case rc.Repo.IsArchived:
		return nil, errs.Forbidden("This repository is archived: its files cannot be changed.")
	case rc.Repo.IsMirror:
		return nil, errs.Forbidden("This repository is a mirror: its files cannot be changed here.")
	case !rc.Perm.CanWrite(repo.UnitCode):
		return nil, errs.Forbidden("You need write access to this repository's code to change its files.")
	}
	rest, err := codeWildcard(r)
	if err != nil {
		return nil, err
	}
	t := &editorTarget{rc: rc, repoPath: h.Repos.Path(rc.Repo)}
	var pathPart string
	if t.Branch, t.Tip, pathPart, err = e.resolveBranch(r.Context(), rc, t.repoPath, strings.Trim(rest, "/")); err != nil {
		return nil, err
	}
	if t.Path, err = git.CleanTreePath(pathPart); err != nil {
		return nil, errs.NotFound("bad path")
	}
	return t, nil
}

// resolveBranch splits "{branch}/{path}": the longest leading run of
// segments that names an existing branch. A repository without commits has
// only its default branch, not created yet (tip "").
func (e *editorPages) resolveBranch(ctx context.Context, rc *repoCtx, repoPath, rest string) (branch, tip, pathPart string, err error) {
	if rest == "" {
		return "", "", "", errs.NotFound("no branch")
	}
	segs := strings.Split(rest, "/")
	var candidates []string
	for i := 1; i <= len(segs); i++ {
		if name := strings.Join(segs[:i], "/"); git.ValidBranchName(name) {
			candidates = append(candidates, git.BranchPrefix+name)
		}
	}
	if len(candidates) == 0 {
		return "", "", "", errs.NotFound("no such branch")
	}
	tips, err := e.h.Git.RefTips(ctx, repoPath, candidates)
	if err != nil {
		return "", "", "", err
	}
	for i := len(candidates) - 1; i >= 0; i-- {
		if sha, ok := tips[candidates[i]]; ok {
			branch = strings.TrimPrefix(candidates[i], git.BranchPrefix)
			return branch, sha, strings.TrimPrefix(strings.TrimPrefix(rest, branch), "/"), nil
		}
	}
	def := rc.Repo.DefaultBranch
	if rc.Repo.IsEmpty && (rest == def || strings.HasPrefix(rest, def+"/")) {
		return def, "", strings.TrimPrefix(strings.TrimPrefix(rest, def), "/"), nil
	}
	return "", "", "", errs.NotFound("no such branch")
}

// entryAt is the entry at p in commit, nil when there is none (or no
// commit: an empty repository).
func (e *editorPages) entryAt(ctx context.Context, repoPath, commit, p string) (*git.TreeEntry, error) {
	if commit == "" {
		return nil, nil
	}
	te, err := e.h.Git.GetTreeEntry(ctx, repoPath, commit, p)
	if errors.Is(err, git.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &te, nil
}

// directory checks that the target path is a directory of the branch (the
// root of an empty repository included).
func (e *editorPages) directory(ctx context.Context, t *editorTarget) error {
	if t.Path == "" {
		return nil
	}
	te, err := e.entryAt(ctx, t.repoPath, t.Tip, t.Path)
	if err != nil {
		return err
	}
	if te == nil || !te.IsDir() {
		return errs.NotFound("no such directory")
	}
	return nil
}

// file returns the file the target path names; a directory, a submodule
// or nothing is not found.
func (e *editorPages) file(ctx context.Context, t *editorTarget) (*git.TreeEntry, error) {
	if t.Path == "" {
		return nil, errs.NotFound("no file")
	}
	te, err := e.entryAt(ctx, t.repoPath, t.Tip, t.Path)
	if err != nil {
		return nil, err
	}
	if te == nil || te.Type != git.TypeBlob {
		return nil, errs.NotFound("no such file")
	}
	return te, nil
}

// editableText reads a file for the text area: a symbolic link, a file
// larger than editorMaxFileSize, a binary file or one that is not UTF-8
// is refused.
func (e *editorPages) editableText(ctx context.Context, repoPath string, te *git.TreeEntry) (string, error) {
	switch {
	case te.IsSymlink():
		return "", errs.Invalid("%s is a symbolic link: it cannot be edited here.", te.Path)
	case te.Size > editorMaxFileSize:
		return "", errs.Invalid("%s is too large to edit in the browser (%s; at most %s).", te.Path, fileSize(te.Size), fileSize(editorMaxFileSize))
	}
	rd, _, err := e.h.Git.ReadBlob(ctx, repoPath, te.SHA)
	if err != nil {
		return "", gitNotFound(err)
	}
	defer rd.Close()
	b, err := io.ReadAll(io.LimitReader(rd, editorMaxFileSize+1))
	if err != nil {
		return "", err
	}
	if codeLooksBinary(b) || !utf8.Valid(b) {
		return "", errs.Invalid("%s is a binary file: it cannot be edited in the browser.", te.Path)
	}
	return string(b), nil
}

// suggestBranch is the first free "{user}-patch-N" name (one read of the
// ref store), or "" when all are taken.
func (e *editorPages) suggestBranch(ctx context.Context, t *editorTarget, user string) (string, error) {
	names := make([]string, 0, editorBranchSuggestions)
	for i := 1; i <= editorBranchSuggestions; i++ {
		if n := user + "-patch-" + strconv.Itoa(i); git.ValidBranchName(n) {
			names = append(names, git.BranchPrefix+n)
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	tips, err := e.h.Git.RefTips(ctx, t.repoPath, names)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if _, taken := tips[n]; !taken {
			return strings.TrimPrefix(n, git.BranchPrefix), nil
		}
	}
	return "", nil
}

// newPage is the data of a form just opened on t.
func (e *editorPages) newPage(r *http.Request, t *editorTarget, mode string) (*editorPage, error) {
	p := &editorPage{Mode: mode, Branch: t.Branch, EmptyRepo: t.Tip == "",
		Commit: editorCommitForm{LastCommit: t.Tip}}
	switch mode {
	case editorModeNew, editorModeUpload:
		p.Dir = t.Path
	default:
		p.Path = t.Path
	}
	p.fillLinks(t)
	if !p.EmptyRepo {
		name, err := e.suggestBranch(r.Context(), t, doer(r).LowerName)
		if err != nil {
			return nil, err
		}
		p.Commit.NewBranchName = name
	}
	p.Commit.DefaultSummary = p.defaultSummary(nil)
	return p, nil
}

// fillLinks sets the form's address and where cancelling goes.
func (p *editorPage) fillLinks(t *editorTarget) {
	branchURL := t.rc.Link + "/src/branch/" + escapeSegments(t.Branch)
	p.Action = t.rc.Link + "/_" + p.Mode + "/" + escapeSegments(t.Branch)
	if t.Path != "" {
		p.Action += "/" + escapeSegments(t.Path)
	}
	switch {
	case t.Tip == "":
		p.CancelURL = t.rc.Link
	case t.Path == "":
		p.CancelURL = branchURL
	default:
		p.CancelURL = branchURL + "/" + escapeSegments(t.Path)
	}
	p.MaxUploadFiles, p.MaxUploadBytes = editorMaxUploadFiles, editorMaxUploadBytes
}

// defaultSummary is the summary used when none is given: "Add x",
// "Update x", "Rename x to y", "Delete x", "Upload files to dir".
func (p *editorPage) defaultSummary(uploaded []string) string {
	switch p.Mode {
	case editorModeNew:
		if p.TreePath != "" {
			return "Add " + p.TreePath
		}
		return "Add a file"
	case editorModeEdit:
		if p.TreePath != "" && p.TreePath != p.Path {
			return "Rename " + p.Path + " to " + p.TreePath
		}
		return "Update " + p.Path
	case editorModeDelete:
		return "Delete " + p.Path
	}
	if len(uploaded) > 0 && len(uploaded) <= 3 {
		return "Add " + strings.Join(uploaded, ", ")
	}
	if p.Dir != "" {
		return "Upload files to " + p.Dir
	}
	return "Upload files"
}

// newFile serves GET /_new/{branch}/{dir}: the form of a new file.
func (e *editorPages) newFile(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	if err := e.directory(r.Context(), t); err != nil {
		return err
	}
	p, err := e.newPage(r, t, editorModeNew)
	if err != nil {
		return err
	}
	if t.Path != "" {
		p.TreePath = t.Path + "/"
	}
	return e.render(w, r, http.StatusOK, t, p)
}

// editFile serves GET /_edit/{branch}/{path}: the file in a text area.
func (e *editorPages) editFile(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	te, err := e.file(r.Context(), t)
	if err != nil {
		return err
	}
	text, err := e.editableText(r.Context(), t.repoPath, te)
	if err != nil {
		return err
	}
	p, err := e.newPage(r, t, editorModeEdit)
	if err != nil {
		return err
	}
	p.TreePath, p.Content, p.CRLF = t.Path, text, strings.Contains(text, "\r\n")
	return e.render(w, r, http.StatusOK, t, p)
}

// deleteFile serves GET /_delete/{branch}/{path}: the confirmation form.
func (e *editorPages) deleteFile(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	if _, err := e.file(r.Context(), t); err != nil {
		return err
	}
	p, err := e.newPage(r, t, editorModeDelete)
	if err != nil {
		return err
	}
	return e.render(w, r, http.StatusOK, t, p)
}

// uploadFile serves GET /_upload/{branch}/{dir}: the upload form.
func (e *editorPages) uploadFile(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	if err := e.directory(r.Context(), t); err != nil {
		return err
	}
	p, err := e.newPage(r, t, editorModeUpload)
	if err != nil {
		return err
	}
	return e.render(w, r, http.StatusOK, t, p)
}

// render writes the editor form.
func (e *editorPages) render(w http.ResponseWriter, r *http.Request, status int, t *editorTarget, p *editorPage) error {
	var title string
	switch p.Mode {
	case editorModeNew:
		title = "New file"
	case editorModeEdit:
		title = "Edit " + p.Path
	case editorModeDelete:
		title = "Delete " + p.Path
	default:
		title = "Upload files"
	}
	return e.h.renderRepo(w, r, status, "editor_form", title, t.rc, p)
}
