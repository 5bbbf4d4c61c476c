package v1

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/editorconfig/editorconfig-core-go/v2"
	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/repo"
	"github.com/cairn-forge/cairn/internal/templates"
)

// contentsRoutes registers the contents API: reading entries (base64 file
// content, directory listings), raw and media downloads, and file changes
// made as commits. Reading needs read access to the code unit, changing
// write access. File paths hold slashes, so each is routed as "{filepath}"
// plus "{filepath}/*".
func (a *API) contentsRoutes(r chi.Router) {
	read := a.reqUnitRead(repo.UnitCode)
	write := a.reqUnitWrite(repo.UnitCode)

	r.With(read).Get("/contents", a.getContents)
	r.With(read).Get("/contents/", a.getContents) // how the Go SDK lists the root
	r.With(write).Post("/contents", a.changeFiles)
	// Gitea checks the permission before the token here (reqRepoWriter,
	// then reqToken).
	r.With(a.reqUnitWriteBeforeToken(repo.UnitCode)).Post("/diffpatch", a.applyDiffPatch)
	r.With(read).Get("/licenses", a.listRepoLicenses)
	for _, p := range []string{"/editorconfig/{filepath}", "/editorconfig/{filepath}/*"} {
		r.With(read).Get(p, a.getEditorConfig)
	}
	for _, p := range []string{"/contents/{filepath}", "/contents/{filepath}/*"} {
		r.With(read).Get(p, a.getContents)
		r.With(write).Post(p, a.createFile)
		r.With(write).Put(p, a.updateFile)
		r.With(write).Delete(p, a.deleteFile)
	}
	for _, p := range []string{"/raw/{filepath}", "/raw/{filepath}/*"} {
		r.With(read).Get(p, a.getRawFile)
	}
	// Cairn stores no LFS objects: media serves the blob itself.
	for _, p := range []string{"/media/{filepath}", "/media/{filepath}/*"} {
		r.With(read).Get(p, a.getRawFile)
	}
}

// contentsPath is the {filepath} of the request ("" for /contents), joined
// with the rest of the path for "{filepath}/*" routes and unescaped once when
// the router matched the escaped path.
func contentsPath(r *http.Request) string {
	v := chi.URLParam(r, "filepath")
	if v == "" {
		return ""
	}
	if rc := chi.RouteContext(r.Context()); rc != nil && strings.HasSuffix(rc.RoutePattern(), "/*") {
		v += "/" + chi.URLParam(r, "*")
	}
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(v); err == nil {
			return u
		}
	}
	return v
}

// abortContents ends a response whose body is already being written: the
// client sees a broken transfer rather than a truncated document.
func abortContents(r *http.Request, err error) {
	if err != nil && r.Context().Err() == nil {
		slog.Error("streaming file content", "path", r.URL.Path, "err", err)
	}
	panic(http.ErrAbortHandler)
}

// errContentsEmpty answers reads of an empty repository.
func errContentsEmpty() error { return errs.NotFound("Git Repository is empty.") }

// getContents serves GET /contents[/{filepath}]: a file, symbolic link or
// submodule as an object (a file with its content in base64 when it is no
// larger than [api] DEFAULT_MAX_BLOB_SIZE), a directory as an array of its
// entries (without content).
func (a *API) getContents(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	p, err := repo.CleanFilePath(contentsPath(r))
	if err != nil {
		// Nothing can exist at a path that leaves the tree.
		a.fail(w, r, errs.NotFound("%s", err.Error()))
		return
	}
	if rc.Repo.IsEmpty {
		if p == "" {
			writeJSON(w, http.StatusOK, []*types.ContentsResponse{})
			return
		}
		a.fail(w, r, errContentsEmpty())
		return
	}
	ref, err := a.Repos.ResolveFileRef(r.Context(), rc.Repo, strings.TrimSpace(r.URL.Query().Get("ref")))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	entry, list, err := a.Repos.ReadEntry(r.Context(), rc.Repo, ref, p)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if entry.IsDir() {
		out := make([]*types.ContentsResponse, 0, len(list))
		for _, e := range list {
			out = append(out, a.contentsEntry(rc, ref, e))
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	cr := a.contentsEntry(rc, ref, entry)
	if entry.Kind() != "file" || entry.Size > a.Config.API.DefaultMaxBlobSize {
		writeJSON(w, http.StatusOK, cr)
		return
	}
	a.writeContentsStreamed(w, r, rc, cr, entry.SHA)
}

// writeContentsStreamed writes cr with the blob sha as its base64 content,
// encoding the blob as it is read rather than holding it in memory.
func (a *API) writeContentsStreamed(w http.ResponseWriter, r *http.Request, rc *repoContext, cr *types.ContentsResponse, sha string) {
	blob, _, err := a.Repos.Git.ReadBlob(r.Context(), a.Repos.Path(rc.Repo), sha)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer blob.Close()
	enc := "base64"
	cr.Encoding = &enc
	// The outer Content hides the response's own (nil) one, so the
	// document ends without a "content" key; it is appended below.
	var head bytes.Buffer
	je := json.NewEncoder(&head)
	je.SetEscapeHTML(false)
	if err := je.Encode(struct {
		*types.ContentsResponse
		Content *string `json:"content,omitempty"`
	}{ContentsResponse: cr}); err != nil {
		a.fail(w, r, err)
		return
	}
	doc := bytes.TrimRight(head.Bytes(), "\n")
	if len(doc) == 0 || doc[len(doc)-1] != '}' {
		a.fail(w, r, errors.New("contents: unexpected JSON encoding"))
		return
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(doc[:len(doc)-1])
	_, _ = bw.WriteString(`,"content":"`)
	b64 := base64.NewEncoder(base64.StdEncoding, bw)
	if _, err := io.Copy(b64, blob); err != nil {
		abortContents(r, err)
	}
	if err := b64.Close(); err != nil {
		abortContents(r, err)
	}
	_, _ = bw.WriteString("\"}\n")
	if err := bw.Flush(); err != nil {
		abortContents(r, err)
	}
}

// contentsEntry renders an entry read at ref.
func (a *API) contentsEntry(rc *repoContext, ref repo.FileRef, e *repo.FileEntry) *types.ContentsResponse {
	apiBase, htmlBase := a.repoAPIURL(rc), a.repoHTMLURL(rc)
	escaped := pathEscapeSegments(e.Path)
	self := apiBase + "/contents/" + escaped + "?ref=" + url.QueryEscape(ref.Name)
	size := e.Size
	if size < 0 {
		size = 0
	}
	out := &types.ContentsResponse{
		Name: e.Name, Path: e.Path, SHA: e.SHA, LastCommitSHA: e.LastCommit, Type: e.Kind(), Size: size,
		URL: &self, Links: &types.FileLinksResponse{Self: &self},
	}
	refPath := ref.Kind + "/" + pathEscapeSegments(ref.Name)
	switch e.Kind() {
	case "symlink":
		target := e.Target
		out.Target = &target
	case "submodule":
		if e.SubmoduleURL != "" {
			u := e.SubmoduleURL
			out.SubmoduleGitURL = &u
		}
	}
	if k := e.Kind(); k == "file" || k == "symlink" {
		download := htmlBase + "/raw/" + refPath + "/" + escaped
		out.DownloadURL = &download
	}
	if !e.IsSubmodule() {
		html := htmlBase + "/src/" + refPath + "/" + escaped
		gitURL := apiBase + "/git/blobs/" + e.SHA
		if e.IsDir() {
			gitURL = apiBase + "/git/trees/" + e.SHA
		}
		out.HTMLURL, out.Links.HTMLURL = &html, &html
		out.GitURL, out.Links.GitURL = &gitURL, &gitURL
	}
	return out
}

// getRawFile serves GET /raw/{filepath} and GET /media/{filepath}: the blob
// of a file or symbolic link, streamed. The revision is ?ref=, or else the
// leading part of the path that names a branch, tag or commit (Gitea's
// "{ref}/{filepath}"), or else the default branch. The content type is
// never one a browser would run: text is text/plain, known media keep their
// type, everything else is application/octet-stream, and a sandboxing
// Content-Security-Policy is set.
func (a *API) getRawFile(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if rc.Repo.IsEmpty {
		a.fail(w, r, errContentsEmpty())
		return
	}
	raw := contentsPath(r)
	var ref repo.FileRef
	var err error
	if q := strings.TrimSpace(r.URL.Query().Get("ref")); q != "" {
		ref, err = a.Repos.ResolveFileRef(r.Context(), rc.Repo, q)
	} else {
		ref, raw, err = a.Repos.InferFileRef(r.Context(), rc.Repo, raw)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p, err := repo.CleanFilePath(raw)
	if err != nil || p == "" {
		a.notFound(w, r)
		return
	}
	entry, _, err := a.Repos.ReadEntry(r.Context(), rc.Repo, ref, p)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if entry.IsDir() || entry.IsSubmodule() {
		a.notFound(w, r)
		return
	}
	etag := `"` + entry.SHA + `"`
	h := w.Header()
	h.Set("X-Gitea-Object-Type", entry.Kind())
	h.Set("ETag", etag)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	if entry.LastCommit != "" {
		if c, err := a.Repos.Git.GetCommit(r.Context(), a.Repos.Path(rc.Repo), entry.LastCommit); err == nil {
			h.Set("Last-Modified", c.Committer.When.UTC().Format(http.TimeFormat))
		}
	}
	if match := r.Header.Get("If-None-Match"); match != "" && (match == etag || match == "*") {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	blob, size, err := a.Repos.Git.ReadBlob(r.Context(), a.Repos.Path(rc.Repo), entry.SHA)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	defer blob.Close()
	br := bufio.NewReaderSize(blob, 4096)
	sniff, _ := br.Peek(1024)
	ctype, inline := safeContentType(sniff, int64(len(sniff)) == size)
	h.Set("Content-Type", ctype)
	disposition := "attachment"
	if inline {
		disposition = "inline"
	}
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": path.Base(p)}))
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, br); err != nil {
		abortContents(r, err)
	}
}

// safeContentType chooses the content type of a raw file from its first
// bytes (all of it when complete): text/plain for UTF-8 text, the detected
// type for images (except SVG, which can hold scripts), audio, video and
// PDF, application/octet-stream for everything else. HTML and XML are served
// as text. It also reports whether the file may be shown inline.
func safeContentType(head []byte, complete bool) (string, bool) {
	detected := http.DetectContentType(head)
	mediaType, _, _ := mime.ParseMediaType(detected)
	switch {
	case strings.HasPrefix(mediaType, "image/") && mediaType != "image/svg+xml",
		strings.HasPrefix(mediaType, "audio/"), strings.HasPrefix(mediaType, "video/"),
		mediaType == "application/pdf":
		return mediaType, true
	}
	if isText(head, complete) {
		return "text/plain; charset=utf-8", true
	}
	return "application/octet-stream", false
}

// isText reports UTF-8 text without NUL bytes; a rune cut off at the end
// of an incomplete sample is allowed.
func isText(b []byte, complete bool) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	if !complete {
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	return utf8.Valid(b)
}

// fileChangeCommon is what every file-changing request shares.
type fileChangeCommon struct {
	Author, Committer types.Identity
	Branch, NewBranch string
	Message           string
	Dates             types.CommitDateOptions
	Signoff           bool
}

func (c fileChangeCommon) options(files []repo.FileOperation) repo.ChangeFilesOptions {
	return repo.ChangeFilesOptions{
		Branch: strings.TrimSpace(c.Branch), NewBranch: strings.TrimSpace(c.NewBranch), Message: c.Message,
		Author:        repo.FileIdentity{Name: c.Author.Name, Email: c.Author.Email},
		Committer:     repo.FileIdentity{Name: c.Committer.Name, Email: c.Committer.Email},
		AuthorDate:    c.Dates.Author,
		CommitterDate: c.Dates.Committer,
		Signoff:       c.Signoff, Files: files,
	}
}

// fileAndContent reads the file path of the URL and the base64 content of a
// one-file change.
func fileAndContent(r *http.Request, b64 string) (string, []byte, error) {
	p, err := urlFilePath(r)
	if err != nil {
		return "", nil, err
	}
	content, err := decodeContent("content", b64)
	return p, content, err
}

// decodeContent decodes a base64 "content" field.
func decodeContent(field, s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, errs.InvalidField(field, "[%s]: content must be base64 encoded: %v", fieldTitle(field), err)
	}
	return b, nil
}

// urlFilePath is the cleaned {filepath} of a file-changing request.
func urlFilePath(r *http.Request) (string, error) {
	raw := contentsPath(r)
	p, err := repo.CleanWriteFilePath(raw)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", errs.Invalid("path contains a malformed path component [path: %s]", raw)
	}
	return p, nil
}

// createFile serves POST /contents/{filepath}: 201 with the new file and
// its commit.
func (a *API) createFile(w http.ResponseWriter, r *http.Request) {
	var o types.CreateFileOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	p, content, err := fileAndContent(r, o.Content)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	common := fileChangeCommon{o.Author, o.Committer, o.Branch, o.NewBranch, o.Message, o.Dates, o.Signoff}
	a.writeFileChange(w, r, http.StatusCreated, common.options([]repo.FileOperation{{Operation: repo.FileCreate, Path: p, Content: content}}))
}

// updateFile serves PUT /contents/{filepath}: the file at sha (or at
// from_path, which moves it) gets the new content; 200.
func (a *API) updateFile(w http.ResponseWriter, r *http.Request) {
	var o types.UpdateFileOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := required("sha", o.SHA); err != nil {
		a.fail(w, r, err)
		return
	}
	p, content, err := fileAndContent(r, o.Content)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	common := fileChangeCommon{o.Author, o.Committer, o.Branch, o.NewBranch, o.Message, o.Dates, o.Signoff}
	a.writeFileChange(w, r, http.StatusOK, common.options([]repo.FileOperation{{
		Operation: repo.FileUpdate, Path: p, FromPath: o.FromPath, Content: content, SHA: strings.TrimSpace(o.SHA),
	}}))
}

// deleteFile serves DELETE /contents/{filepath}: 200 with the commit.
func (a *API) deleteFile(w http.ResponseWriter, r *http.Request) {
	var o types.DeleteFileOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := required("sha", o.SHA); err != nil {
		a.fail(w, r, err)
		return
	}
	p, err := urlFilePath(r)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	common := fileChangeCommon{o.Author, o.Committer, o.Branch, o.NewBranch, o.Message, o.Dates, o.Signoff}
	res, err := a.Repos.ChangeFiles(r.Context(), currentRepo(r).Repo, doer(r), common.options([]repo.FileOperation{{
		Operation: repo.FileDelete, Path: p, SHA: strings.TrimSpace(o.SHA),
	}}))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	rc := currentRepo(r)
	writeJSON(w, http.StatusOK, types.FileDeleteResponse{
		Content: nil, Commit: a.fileCommitResponse(rc, res.Commit), Verification: contentsVerification(),
	})
}

// writeFileChange makes a one-file change and answers with the file.
func (a *API) writeFileChange(w http.ResponseWriter, r *http.Request, status int, opts repo.ChangeFilesOptions) {
	rc := currentRepo(r)
	res, err := a.Repos.ChangeFiles(r.Context(), rc.Repo, doer(r), opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, status, types.FileResponse{
		Content:      a.writtenContents(rc, res, 0, opts.Files[0].Content),
		Commit:       a.fileCommitResponse(rc, res.Commit),
		Verification: contentsVerification(),
	})
}

// maxLicenseFile bounds a license file read for detection.
const maxLicenseFile = 256 << 10

// listRepoLicenses serves GET /licenses: the SPDX ids of the licenses found
// in the license files (LICENSE, COPYING, ...) at the root of the default
// branch, sorted. Only the licenses Cairn ships as templates are recognized.
func (a *API) listRepoLicenses(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	out := []string{}
	if rc.Repo.IsEmpty {
		writeJSON(w, http.StatusOK, out)
		return
	}
	ctx := r.Context()
	gitDir := a.Repos.Path(rc.Repo)
	root, err := a.Repos.Git.ListTree(ctx, gitDir, git.BranchPrefix+rc.Repo.DefaultBranch, "", false)
	if errors.Is(err, git.ErrNotFound) {
		writeJSON(w, http.StatusOK, out)
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	found := map[string]bool{}
	for _, e := range root {
		if e.Type != git.TypeBlob || e.Size > maxLicenseFile || !templates.IsLicenseFile(e.Name) {
			continue
		}
		text, err := a.Repos.Git.ReadSmallBlob(ctx, gitDir, e.SHA, maxLicenseFile)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		id, ok, err := a.Templates.DetectLicense(text)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		if ok && !found[id] {
			found[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	writeJSON(w, http.StatusOK, out)
}

// maxEditorConfig bounds the .editorconfig file read.
const maxEditorConfig = 1 << 20

// getEditorConfig serves GET /editorconfig/{filepath}: the EditorConfig
// properties that the root .editorconfig of ?ref= (default branch) gives the
// file; 404 when there is no .editorconfig or nothing applies.
func (a *API) getEditorConfig(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	if rc.Repo.IsEmpty {
		a.fail(w, r, errs.NotFound("the repository has no .editorconfig"))
		return
	}
	ctx := r.Context()
	ref, err := a.Repos.ResolveFileRef(ctx, rc.Repo, strings.TrimSpace(r.URL.Query().Get("ref")))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	name, err := repo.CleanFilePath(contentsPath(r))
	if err != nil || name == "" {
		a.notFound(w, r)
		return
	}
	gitDir := a.Repos.Path(rc.Repo)
	entry, err := a.Repos.Git.GetTreeEntry(ctx, gitDir, ref.Commit, ".editorconfig")
	if errors.Is(err, git.ErrNotFound) || (err == nil && entry.Type != git.TypeBlob) {
		a.fail(w, r, errs.NotFound("the repository has no .editorconfig"))
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	text, err := a.Repos.Git.ReadSmallBlob(ctx, gitDir, entry.SHA, maxEditorConfig)
	if errors.Is(err, git.ErrBlobTooLarge) {
		err = errs.Invalid(".editorconfig is larger than %d bytes", maxEditorConfig)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	ec, err := editorconfig.Parse(bytes.NewReader(text))
	if err != nil {
		a.fail(w, r, errs.Invalid("the .editorconfig cannot be read: %v", err))
		return
	}
	def, err := ec.GetDefinitionForFilename(name)
	if err != nil || def == nil {
		a.fail(w, r, errs.NotFound("no EditorConfig definition for %s", name))
		return
	}
	writeJSON(w, http.StatusOK, def)
}

// applyDiffPatch serves POST /diffpatch: content is a unified diff (plain
// text, as git diff writes it) applied to the branch as one commit; 201
// with the commit, as Gitea answers.
func (a *API) applyDiffPatch(w http.ResponseWriter, r *http.Request) {
	var o types.UpdateFileOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if err := required("content", o.Content); err != nil {
		a.fail(w, r, err)
		return
	}
	common := fileChangeCommon{o.Author, o.Committer, o.Branch, o.NewBranch, o.Message, o.Dates, o.Signoff}
	opts := common.options(nil)
	opts.Patch = []byte(o.Content)
	rc := currentRepo(r)
	res, err := a.Repos.ChangeFiles(r.Context(), rc.Repo, doer(r), opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, types.FileResponse{
		Content: nil, Commit: a.fileCommitResponse(rc, res.Commit), Verification: contentsVerification(),
	})
}

// changeFiles serves POST /contents: several files created, updated or
// deleted in one commit; 201.
func (a *API) changeFiles(w http.ResponseWriter, r *http.Request) {
	var o types.ChangeFilesOptions
	if err := decode(r, &o); err != nil {
		a.fail(w, r, err)
		return
	}
	if len(o.Files) == 0 {
		a.fail(w, r, errs.InvalidField("files", "[Files]: Required"))
		return
	}
	files := make([]repo.FileOperation, 0, len(o.Files))
	for i, f := range o.Files {
		if f == nil {
			a.fail(w, r, errs.InvalidField("files", "[Files]: entry %d is null", i))
			return
		}
		if err := required("operation", f.Operation); err != nil {
			a.fail(w, r, err)
			return
		}
		op := repo.FileOperation{Operation: f.Operation, Path: f.Path, FromPath: f.FromPath, SHA: strings.TrimSpace(f.SHA)}
		if f.Operation != repo.FileDelete {
			content, err := decodeContent("content", f.Content)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			op.Content = content
		}
		files = append(files, op)
	}
	common := fileChangeCommon{o.Author, o.Committer, o.Branch, o.NewBranch, o.Message, o.Dates, o.Signoff}
	opts := common.options(files)
	rc := currentRepo(r)
	res, err := a.Repos.ChangeFiles(r.Context(), rc.Repo, doer(r), opts)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := types.FilesResponse{
		Files:        make([]*types.ContentsResponse, len(files)),
		Commit:       a.fileCommitResponse(rc, res.Commit),
		Verification: contentsVerification(),
	}
	for i := range files {
		out.Files[i] = a.writtenContents(rc, res, i, files[i].Content)
	}
	writeJSON(w, http.StatusCreated, out)
}

// writtenContents renders the i-th file of a change as written (nil for a
// deletion), with the content that was sent.
func (a *API) writtenContents(rc *repoContext, res *repo.ChangeFilesResult, i int, content []byte) *types.ContentsResponse {
	te := res.Entries[i]
	if te == nil {
		return nil
	}
	e := &repo.FileEntry{TreeEntry: *te, LastCommit: res.Commit.SHA}
	if e.IsSymlink() {
		if len(content) > 1024 {
			content = content[:1024]
		}
		e.Target = string(content)
	}
	cr := a.contentsEntry(rc, repo.FileRef{Name: res.Branch, Kind: repo.RefKindBranch, Commit: res.Commit.SHA}, e)
	if e.Kind() == "file" && e.Size <= a.Config.API.DefaultMaxBlobSize {
		enc, c := "base64", base64.StdEncoding.EncodeToString(content)
		cr.Encoding, cr.Content = &enc, &c
	}
	return cr
}

// fileCommitResponse renders the commit a file change made.
func (a *API) fileCommitResponse(rc *repoContext, c git.Commit) *types.FileCommitResponse {
	apiBase := a.repoAPIURL(rc)
	parents := make([]*types.CommitMeta, 0, len(c.Parents))
	for _, p := range c.Parents {
		parents = append(parents, &types.CommitMeta{URL: apiBase + "/git/commits/" + p, SHA: p})
	}
	person := func(s git.Signature) *types.CommitUser {
		return &types.CommitUser{Name: s.Name, Email: s.Email, Date: s.When.UTC().Format(time.RFC3339)}
	}
	return &types.FileCommitResponse{
		URL: apiBase + "/git/commits/" + c.SHA, SHA: c.SHA, Created: c.Committer.When,
		HTMLURL: a.repoHTMLURL(rc) + "/commit/" + c.SHA,
		Author:  person(c.Author), Committer: person(c.Committer),
		Parents: parents, Message: c.Message,
		Tree: &types.CommitMeta{URL: apiBase + "/git/trees/" + c.Tree, SHA: c.Tree},
	}
}

// contentsVerification is the verification of the commits Cairn makes for
// file changes, which are not signed.
func contentsVerification() *types.PayloadCommitVerification {
	return &types.PayloadCommitVerification{Verified: false, Reason: "gpg.error.not_signed_commit"}
}
