package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
)

// Values of the commit_choice field.
const (
	editorCommitDirect    = "direct"
	editorCommitNewBranch = "commit-to-new-branch"
)

// editorStaleMessage says a file changed between opening and posting a form.
const editorStaleMessage = "The file %s has changed since you opened it (branch %s has moved on): " +
	"nothing was committed. Open the file again to see the new version and make your change there."

// editorReadCommitForm reads the commit fields of a posted editor form.
func editorReadCommitForm(r *http.Request) editorCommitForm {
	return editorCommitForm{
		Summary:       strings.TrimSpace(r.PostFormValue("commit_summary")),
		Description:   r.PostFormValue("commit_message"),
		NewBranch:     r.PostFormValue("commit_choice") == editorCommitNewBranch,
		NewBranchName: strings.TrimSpace(r.PostFormValue("new_branch_name")),
		Signoff:       r.PostFormValue("signoff") != "",
		LastCommit:    strings.TrimSpace(r.PostFormValue("last_commit")),
	}
}

// editorPostedPage is the form page of a post, with the visitor's input.
func editorPostedPage(r *http.Request, t *editorTarget, mode string) *editorPage {
	p := &editorPage{Mode: mode, Branch: t.Branch, EmptyRepo: t.Tip == "", Commit: editorReadCommitForm(r)}
	switch mode {
	case editorModeNew, editorModeUpload:
		p.Dir = t.Path
	default:
		p.Path = t.Path
	}
	p.fillLinks(t)
	return p
}

// editorBuild turns a posted form into file operations, reading the files
// as they were in last (the commit the form was opened at).
type editorBuild func(ctx context.Context, last string) ([]repo.FileOperation, error)

// submit commits what build makes of the form and redirects: to the
// comparison of the new branch, or to done (a path of the branch after the
// commit). A refusal (bad input, a file that changed meanwhile, a push rule)
// shows the form again with the message and the visitor's input.
func (e *editorPages) submit(w http.ResponseWriter, r *http.Request, t *editorTarget, p *editorPage, build editorBuild,
	done func(ctx context.Context, commit string) string) error {
	ctx := r.Context()
	res, err := e.commit(ctx, r, t, p, build)
	if err != nil {
		var de *errs.Error
		if !errors.As(err, &de) || de.Kind == errs.KindInternal || de.Kind == errs.KindUnauthorized {
			return err
		}
		status := http.StatusUnprocessableEntity
		switch de.Kind {
		case errs.KindForbidden:
			status = http.StatusForbidden
		case errs.KindConflict:
			status = http.StatusConflict
		}
		p.Error = errMessage(err, "The change was refused.")
		if p.Commit.DefaultSummary == "" {
			p.Commit.DefaultSummary = p.defaultSummary(nil)
		}
		return e.render(w, r, status, t, p)
	}
	link := t.rc.Link
	if res.Branch != t.Branch {
		e.h.flash(w, "success", "Your change was committed to the new branch "+res.Branch+": open a pull request to propose it.")
		http.Redirect(w, r, link+"/compare/"+escapeSegments(t.Branch)+"..."+escapeSegments(res.Branch), http.StatusSeeOther)
		return nil
	}
	e.h.flash(w, "success", "Your change was committed to "+res.Branch+".")
	http.Redirect(w, r, done(ctx, res.Commit.SHA), http.StatusSeeOther)
	return nil
}

// commit checks the commit fields and the commit the form was opened at,
// builds the operations and makes the commit through the domain's file
// changes (the push rules apply there).
func (e *editorPages) commit(ctx context.Context, r *http.Request, t *editorTarget, p *editorPage, build editorBuild) (*repo.ChangeFilesResult, error) {
	c := &p.Commit
	switch {
	case utf8.RuneCountInString(c.Summary) > editorMaxSummary:
		return nil, errs.Invalid("The commit summary is longer than %d characters.", editorMaxSummary)
	case strings.ContainsAny(c.Summary, "\r\n"):
		return nil, errs.Invalid("The commit summary must be one line.")
	case c.NewBranch && t.Tip == "":
		return nil, errs.Invalid("The repository has no commits yet: commit directly to %s first.", t.Branch)
	case c.NewBranch && c.NewBranchName == "":
		return nil, errs.Invalid("Name the new branch.")
	case c.NewBranch && !git.ValidBranchName(c.NewBranchName):
		return nil, errs.Invalid("%q is not a valid branch name.", c.NewBranchName)
	}
	last := c.LastCommit
	if last != "" && last != t.Tip {
		if !git.IsSHA(last) {
			return nil, errs.Invalid("The form does not say which commit it was opened at: reload the page.")
		}
		if _, err := e.h.Git.ResolveCommit(ctx, t.repoPath, last); errors.Is(err, git.ErrNotFound) {
			return nil, errs.Invalid("The commit this form was opened at (%s) is unknown: reload the page.", last)
		} else if err != nil {
			return nil, err
		}
	}
	ops, err := build(ctx, last)
	if err != nil {
		return nil, err
	}
	if last != t.Tip {
		if err := e.checkUnchanged(ctx, t, last, ops); err != nil {
			return nil, err
		}
	}
	summary := c.Summary
	if summary == "" {
		summary = c.DefaultSummary
	}
	if summary == "" {
		summary = p.defaultSummary(nil)
	}
	message := summary
	if d := strings.TrimSpace(editorToLF(c.Description)); d != "" {
		message += "\n\n" + d
	}
	opts := repo.ChangeFilesOptions{Branch: t.Branch, Message: message, Signoff: c.Signoff, Files: ops}
	if c.NewBranch {
		opts.NewBranch = c.NewBranchName
		if opts.NewBranch == t.Branch {
			return nil, errs.Invalid("The new branch must not be %s itself.", t.Branch)
		}
	}
	res, err := e.h.Repos.ChangeFiles(ctx, t.rc.Repo, doer(r), opts)
	var de *errs.Error
	if errors.As(err, &de) && de.Kind == errs.KindInvalid && strings.HasPrefix(de.Message, "sha does not match") {
		// The branch moved between the check above and the commit.
		return nil, errs.Conflict(editorStaleMessage, ops[0].Path, t.Branch)
	}
	return res, err
}

// checkUnchanged refuses the change when a path it touches differs between
// last (the commit the form was opened at; "" for an empty repository) and
// the branch's tip: someone else changed that file meanwhile.
func (e *editorPages) checkUnchanged(ctx context.Context, t *editorTarget, last string, ops []repo.FileOperation) error {
	for _, op := range ops {
		for _, p := range []string{op.FromPath, op.Path} {
			if p == "" {
				continue
			}
			then, err := e.entryAt(ctx, t.repoPath, last, p)
			if err != nil {
				return err
			}
			now, err := e.entryAt(ctx, t.repoPath, t.Tip, p)
			if err != nil {
				return err
			}
			if (then == nil) != (now == nil) || (then != nil && (then.SHA != now.SHA || then.Mode != now.Mode)) {
				return errs.Conflict(editorStaleMessage, p, t.Branch)
			}
		}
	}
	return nil
}

// editorToLF turns the CRLF line breaks a browser sends into LF.
func editorToLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// editorPostedContent is the text area's content: with LF line breaks unless the
// file had CRLF ones; no larger than editorMaxFileSize.
func editorPostedContent(r *http.Request, crlf bool) (string, error) {
	s := r.PostFormValue("content")
	if !crlf {
		s = editorToLF(s)
	}
	if len(s) > editorMaxFileSize {
		return s, errs.Invalid("The content is larger than %s: push large files with git.", fileSize(editorMaxFileSize))
	}
	return s, nil
}

// editorWritePath cleans the path a form writes to; "" is refused.
func editorWritePath(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.HasSuffix(raw, "/") {
		return "", errs.Invalid("Name the file.")
	}
	p, err := repo.CleanWriteFilePath(raw)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", errs.Invalid("Name the file.")
	}
	return p, nil
}

// fileAt is the file p of commit last for an edit or a deletion; a file
// that is gone (or no longer a file) changed since the form was opened.
func (e *editorPages) fileAt(ctx context.Context, t *editorTarget, last, p string) (*git.TreeEntry, error) {
	te, err := e.entryAt(ctx, t.repoPath, last, p)
	if err != nil {
		return nil, err
	}
	if te == nil || te.Type != git.TypeBlob {
		return nil, errs.Conflict(editorStaleMessage, p, t.Branch)
	}
	return te, nil
}

// editorFileURL is the page of p on the target branch.
func editorFileURL(t *editorTarget, p string) string {
	u := t.rc.Link + "/src/branch/" + escapeSegments(t.Branch)
	if p != "" {
		u += "/" + escapeSegments(p)
	}
	return u
}

// newFilePost serves POST /_new/{branch}/{dir}.
func (e *editorPages) newFilePost(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	p := editorPostedPage(r, t, editorModeNew)
	p.TreePath = strings.TrimSpace(r.PostFormValue("tree_path"))
	content, contentErr := editorPostedContent(r, false)
	p.Content = content
	p.Commit.DefaultSummary = p.defaultSummary(nil)
	var written string
	build := func(ctx context.Context, last string) ([]repo.FileOperation, error) {
		if contentErr != nil {
			return nil, contentErr
		}
		fp, err := editorWritePath(p.TreePath)
		if err != nil {
			return nil, err
		}
		te, err := e.entryAt(ctx, t.repoPath, last, fp)
		if err != nil {
			return nil, err
		}
		if te != nil {
			return nil, errs.Invalid("%s already exists on branch %s.", fp, t.Branch)
		}
		written = fp
		p.Commit.DefaultSummary = "Add " + fp
		return []repo.FileOperation{{Operation: repo.FileCreate, Path: fp, Content: []byte(content)}}, nil
	}
	return e.submit(w, r, t, p, build, func(context.Context, string) string { return editorFileURL(t, written) })
}

// editFilePost serves POST /_edit/{branch}/{path}: new content, and a new
// path when the name field changed (the file moves).
func (e *editorPages) editFilePost(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	if t.Path == "" {
		return errs.NotFound("no file")
	}
	p := editorPostedPage(r, t, editorModeEdit)
	p.TreePath = strings.TrimSpace(r.PostFormValue("tree_path"))
	p.CRLF = r.PostFormValue("crlf") != ""
	content, contentErr := editorPostedContent(r, p.CRLF)
	p.Content = content
	p.Commit.DefaultSummary = p.defaultSummary(nil)
	written := t.Path
	build := func(ctx context.Context, last string) ([]repo.FileOperation, error) {
		if contentErr != nil {
			return nil, contentErr
		}
		fp, err := editorWritePath(p.TreePath)
		if err != nil {
			return nil, err
		}
		te, err := e.fileAt(ctx, t, last, t.Path)
		if err != nil {
			return nil, err
		}
		old, err := e.editableText(ctx, t.repoPath, te)
		if err != nil {
			return nil, err
		}
		op := repo.FileOperation{Operation: repo.FileUpdate, Path: fp, Content: []byte(content), SHA: te.SHA}
		if fp != t.Path {
			op.FromPath = t.Path
			moved, err := e.entryAt(ctx, t.repoPath, last, fp)
			if err != nil {
				return nil, err
			}
			if moved != nil {
				return nil, errs.Invalid("%s already exists on branch %s.", fp, t.Branch)
			}
		} else if old == content {
			return nil, errs.Invalid("The file is unchanged: there is nothing to commit.")
		}
		written = fp
		return []repo.FileOperation{op}, nil
	}
	return e.submit(w, r, t, p, build, func(context.Context, string) string { return editorFileURL(t, written) })
}

// deleteFilePost serves POST /_delete/{branch}/{path}; afterwards the
// file's directory is shown, or the branch's root when it is gone too.
func (e *editorPages) deleteFilePost(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	if t.Path == "" {
		return errs.NotFound("no file")
	}
	p := editorPostedPage(r, t, editorModeDelete)
	p.Commit.DefaultSummary = p.defaultSummary(nil)
	build := func(ctx context.Context, last string) ([]repo.FileOperation, error) {
		te, err := e.fileAt(ctx, t, last, t.Path)
		if err != nil {
			return nil, err
		}
		return []repo.FileOperation{{Operation: repo.FileDelete, Path: t.Path, SHA: te.SHA}}, nil
	}
	done := func(ctx context.Context, commit string) string {
		dir := path.Dir(t.Path)
		if dir == "." {
			return editorFileURL(t, "")
		}
		if te, err := e.entryAt(ctx, t.repoPath, commit, dir); err == nil && te != nil && te.IsDir() {
			return editorFileURL(t, dir)
		}
		return editorFileURL(t, "")
	}
	return e.submit(w, r, t, p, build, done)
}

// uploadFilePost serves POST /_upload/{branch}/{dir}: the files of the
// multipart field "files" are added to the directory; a file of the same
// name is replaced.
func (e *editorPages) uploadFilePost(w http.ResponseWriter, r *http.Request) error {
	t, err := e.load(r)
	if err != nil {
		return err
	}
	p := editorPostedPage(r, t, editorModeUpload)
	p.Commit.DefaultSummary = p.defaultSummary(nil)
	build := func(ctx context.Context, last string) ([]repo.FileOperation, error) {
		var files []editorUploadedFile
		if r.MultipartForm != nil {
			for _, fh := range r.MultipartForm.File["files"] {
				files = append(files, editorUploadedFile{name: fh.Filename, size: fh.Size, open: func() (io.ReadCloser, error) { return fh.Open() }})
			}
		}
		ops, names, err := e.uploadOps(ctx, t, last, files)
		if err != nil {
			return nil, err
		}
		p.Commit.DefaultSummary = p.defaultSummary(names)
		return ops, nil
	}
	return e.submit(w, r, t, p, build, func(context.Context, string) string { return editorFileURL(t, t.Path) })
}

// editorUploadedFile is one file of an upload form.
type editorUploadedFile struct {
	name string
	size int64
	open func() (io.ReadCloser, error)
}

// uploadOps reads the uploaded files (within the limits) into operations:
// a new file is created, an existing file of the same name in last is
// replaced.
func (e *editorPages) uploadOps(ctx context.Context, t *editorTarget, last string, files []editorUploadedFile) ([]repo.FileOperation, []string, error) {
	switch {
	case len(files) == 0:
		return nil, nil, errs.Invalid("Choose at least one file to upload.")
	case len(files) > editorMaxUploadFiles:
		return nil, nil, errs.Invalid("At most %d files can be uploaded at once.", editorMaxUploadFiles)
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	if total > editorMaxUploadBytes {
		return nil, nil, errs.Invalid("The files are larger than %s together: push large files with git.", fileSize(editorMaxUploadBytes))
	}
	ops := make([]repo.FileOperation, 0, len(files))
	names := make([]string, 0, len(files))
	for _, f := range files {
		name := f.name[strings.LastIndexAny(f.name, `/\`)+1:]
		fp := name
		if t.Path != "" {
			fp = t.Path + "/" + name
		}
		fp, err := editorWritePath(fp)
		if err != nil || name == "" {
			return nil, nil, errs.Invalid("%q is not a file name that can be uploaded.", f.name)
		}
		content, err := editorReadUpload(f)
		if err != nil {
			return nil, nil, err
		}
		op := repo.FileOperation{Operation: repo.FileCreate, Path: fp, Content: content}
		te, err := e.entryAt(ctx, t.repoPath, last, fp)
		if err != nil {
			return nil, nil, err
		}
		if te != nil {
			if te.Type != git.TypeBlob || te.IsSymlink() {
				return nil, nil, errs.Invalid("%s exists and is not a regular file: it cannot be replaced by an upload.", fp)
			}
			op.Operation, op.SHA = repo.FileUpdate, te.SHA
		}
		ops = append(ops, op)
		names = append(names, fp)
	}
	return ops, names, nil
}

// editorReadUpload reads one uploaded file, no more than the upload limit.
func editorReadUpload(f editorUploadedFile) ([]byte, error) {
	rd, err := f.open()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(rd, editorMaxUploadBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > editorMaxUploadBytes {
		return nil, errs.Invalid("%s is larger than %s.", f.name, fileSize(editorMaxUploadBytes))
	}
	return buf.Bytes(), nil
}
