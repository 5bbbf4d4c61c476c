package v1

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/cairn-forge/cairn/internal/api/v1/types"
	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/repo"
)

// gitRoutes registers the git data of a repository: branches and tags
// (read and managed), commits, raw git objects and references, compare,
// archives and languages. Reading needs read access to the code unit,
// changing references write access.
//
// Names that may hold slashes (branches, tags, references, archives,
// compare) are routed as "{name}" plus "{name}/*"; wildcardName joins them.
func (a *API) gitRoutes(r chi.Router) {
	read := a.reqUnitRead(repo.UnitCode)
	write := a.reqUnitWrite(repo.UnitCode)

	r.With(read).Get("/branches", a.listBranches)
	r.With(write).Post("/branches", a.createBranch)
	for _, p := range []string{"/branches/{branch}", "/branches/{branch}/*"} {
		r.With(read).Get(p, a.getBranch)
		r.With(write).Delete(p, a.deleteBranch)
		r.With(write).Patch(p, a.renameBranch)
	}

	r.With(read).Get("/tags", a.listTags)
	r.With(write).Post("/tags", a.createTag)
	for _, p := range []string{"/tags/{tag}", "/tags/{tag}/*"} {
		r.With(read).Get(p, a.getTag)
		r.With(write).Delete(p, a.deleteTag)
	}

	r.With(read).Get("/commits", a.listCommits)
	r.With(read).Get("/git/commits/{sha}", a.getGitCommit)
	r.With(read).Get("/git/refs", a.listAllRefs)
	r.With(read).Get("/git/refs/{ref}", a.listRefs)
	r.With(read).Get("/git/refs/{ref}/*", a.listRefs)
	r.With(read).Get("/git/trees/{sha}", a.getTree)
	r.With(read).Get("/git/blobs/{sha}", a.getBlob)
	r.With(read).Get("/git/tags/{sha}", a.getAnnotatedTag)
	r.With(read).Get("/git/notes/{sha}", a.getNote)

	r.With(read).Get("/compare/{basehead}", a.compare)
	r.With(read).Get("/compare/{basehead}/*", a.compare)
	r.With(read).Get("/archive/{archive}", a.getArchive)
	r.With(read).Get("/archive/{archive}/*", a.getArchive)
	r.With(read).Get("/languages", a.getLanguages)
}

// wildcardName returns the path parameter name, joined with the rest of the
// path when the route ends in "/*" (names with slashes), unescaped once.
func wildcardName(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if rc := chi.RouteContext(r.Context()); rc != nil && strings.HasSuffix(rc.RoutePattern(), "/*") {
		v += "/" + chi.URLParam(r, "*")
	}
	if r.URL.RawPath != "" {
		// The router matched the escaped path: unescape the value once.
		if u, err := url.PathUnescape(v); err == nil {
			return u
		}
	}
	return v
}

// pathParam returns a single-segment path parameter, unescaped once when
// the router matched the escaped path.
func pathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(v); err == nil {
			return u
		}
	}
	return v
}

// repoAPIURL is the API address of the repository, without a trailing slash.
func (a *API) repoAPIURL(rc *repoContext) string {
	return a.rootURL + "api/v1/repos/" + url.PathEscape(rc.Owner.Name) + "/" + url.PathEscape(rc.Repo.Name)
}

// repoHTMLURL is the web address of the repository, without a trailing slash.
func (a *API) repoHTMLURL(rc *repoContext) string {
	return a.rootURL + url.PathEscape(rc.Owner.Name) + "/" + url.PathEscape(rc.Repo.Name)
}

// pathEscapeSegments escapes each segment of a slash-separated name.
func pathEscapeSegments(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// validRevision accepts what users may name a commit by: a full or
// abbreviated object name, or a reference name (branch, tag or full
// reference). Revision syntax ("~", "^", ":", "@{", "..") and anything
// starting with '-' is refused, so a value can never become an option or
// reach outside the repository.
func validRevision(s string) bool {
	return git.ValidRefName(s) && git.ValidRevision(s)
}

// zeroSHA is the all-zero object name of the format of sha.
func zeroSHA(sha string) string { return strings.Repeat("0", len(sha)) }

// errEmptyRepo is Gitea's answer for routes that need a commit.
func errEmptyRepo() error { return errs.NotFound("Git Repository is empty.") }

// changeRefs applies a reference change Cairn makes itself for r's caller
// through repo.Service.ChangeRefs (push rules first, a refusal is 403 with
// their message; then apply; then the recording and the push listeners).
func (a *API) changeRefs(r *http.Request, rc *repoContext, check, updates []hooks.RefUpdate, apply func() error) error {
	var pusher int64
	if d := doer(r); d != nil {
		pusher = d.ID
	}
	return a.Repos.ChangeRefs(r.Context(), rc.Repo, pusher, check, updates, apply)
}

// abortStream ends a response whose body is already being written: the
// client sees a broken transfer rather than a truncated document.
func abortStream(r *http.Request, what string, err error) {
	if err != nil && r.Context().Err() == nil {
		slog.Error("streaming "+what, "path", r.URL.Path, "err", err)
	}
	panic(http.ErrAbortHandler)
}

// listAllRefs serves GET /git/refs.
func (a *API) listAllRefs(w http.ResponseWriter, r *http.Request) { a.writeRefs(w, r, "") }

// listRefs serves GET /git/refs/{ref}: the references whose name starts
// with refs/{ref}; one that matches exactly and alone is answered as an
// object.
func (a *API) listRefs(w http.ResponseWriter, r *http.Request) {
	a.writeRefs(w, r, "refs/"+wildcardName(r, "ref"))
}

func (a *API) writeRefs(w http.ResponseWriter, r *http.Request, filter string) {
	rc := currentRepo(r)
	base := a.repoAPIURL(rc)
	toRef := func(ref git.Ref) *types.Reference {
		return &types.Reference{Ref: ref.Name, URL: base + "/git/" + pathEscapeSegments(ref.Name),
			Object: &types.GitObject{Type: ref.Type, SHA: ref.SHA, URL: base + "/git/" + ref.Type + "s/" + ref.SHA}}
	}
	// The first two references decide between an object and an array;
	// after that the array is streamed.
	var head []git.Ref
	var enc *json.Encoder
	started := false
	start := func() {
		started = true
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "[")
		enc = json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i, ref := range head {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			_ = enc.Encode(toRef(ref))
		}
	}
	err := a.Repos.Git.WalkRefs(r.Context(), a.Repos.Path(rc.Repo), filter, func(ref git.Ref) error {
		if !started {
			head = append(head, ref)
			if len(head) > 2 {
				start()
			}
			return nil
		}
		_, _ = io.WriteString(w, ",")
		return enc.Encode(toRef(ref))
	})
	if started {
		if err != nil {
			abortStream(r, "references", err)
		}
		_, _ = io.WriteString(w, "]\n")
		return
	}
	if err != nil && !errors.Is(err, git.ErrInvalidArgument) {
		a.fail(w, r, err)
		return
	}
	switch {
	case len(head) == 0:
		a.notFound(w, r)
	case len(head) == 1 && head[0].Name == filter:
		writeJSON(w, http.StatusOK, toRef(head[0]))
	default:
		list := make([]*types.Reference, 0, len(head))
		for _, ref := range head {
			list = append(list, toRef(ref))
		}
		writeJSON(w, http.StatusOK, list)
	}
}

// getTree serves GET /git/trees/{sha}: the entries of a tree (named by a
// tree, commit or tag, or a branch or tag name), one page of them, the whole
// tree below it with ?recursive=true. The tree is read as a stream; only the
// page is kept. An unknown object is 400, as Gitea answers.
func (a *API) getTree(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	sha := pathParam(r, "sha")
	if !validRevision(sha) {
		a.fail(w, r, errs.BadRequest("sha not found [%s]", sha))
		return
	}
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	info, err := a.Repos.Git.Stat(ctx, path, sha+"^{tree}")
	if err != nil {
		if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
			err = errs.BadRequest("sha not found [%s]", sha)
		}
		a.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	pg, _ := strconv.Atoi(q.Get("page"))
	pg = max(pg, 1)
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	if perPage <= 0 || perPage > a.Config.API.DefaultGitTreesPerPage {
		perPage = a.Config.API.DefaultGitTreesPerPage
	}
	base := a.repoAPIURL(rc)
	out := &types.GitTreeResponse{SHA: info.SHA, URL: base + "/git/trees/" + info.SHA, Page: pg, Entries: []types.GitEntry{}}
	first := int64(pg-1) * int64(perPage)
	total := 0
	err = a.Repos.Git.WalkTree(ctx, path, info.SHA, "", queryBool(r, "recursive"), func(e git.TreeEntry) error {
		i := int64(total)
		total++
		if i < first || i >= first+int64(perPage) {
			return nil
		}
		ge := types.GitEntry{Path: e.Path, Mode: e.Mode, Type: e.Type, Size: max(e.Size, 0), SHA: e.SHA}
		switch {
		case e.IsDir():
			ge.URL = base + "/git/trees/" + e.SHA
		case e.IsSubmodule():
			ge.URL = ""
		default:
			ge.URL = base + "/git/blobs/" + e.SHA
		}
		out.Entries = append(out.Entries, ge)
		return nil
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out.TotalCount = total
	out.Truncated = first+int64(perPage) < int64(total)
	writeJSON(w, http.StatusOK, out)
}

// getBlob serves GET /git/blobs/{sha}: the blob's content in base64 (empty
// above [api] DEFAULT_MAX_BLOB_SIZE), encoded while it streams from git.
func (a *API) getBlob(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	sha := pathParam(r, "sha")
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	notFound := errs.BadRequest("object does not exist [id: %s, rel_path: ]", sha)
	if !isHexName(sha) {
		a.fail(w, r, notFound)
		return
	}
	info, err := a.Repos.Git.Stat(ctx, path, sha)
	if err != nil || info.Type != git.TypeBlob {
		if err == nil || errors.Is(err, git.ErrNotFound) {
			err = notFound
		}
		a.fail(w, r, err)
		return
	}
	var content io.ReadCloser
	if info.Size <= a.Config.API.DefaultMaxBlobSize {
		if content, _, err = a.Repos.Git.ReadBlob(ctx, path, info.SHA); err != nil {
			a.fail(w, r, err)
			return
		}
		defer content.Close()
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, `{"content":"`)
	if content != nil {
		enc := base64.NewEncoder(base64.StdEncoding, w)
		if _, err := io.Copy(enc, content); err != nil {
			abortStream(r, "blob", err)
		}
		if err := enc.Close(); err != nil {
			abortStream(r, "blob", err)
		}
	}
	rest, _ := json.Marshal(struct {
		Encoding string `json:"encoding"`
		URL      string `json:"url"`
		SHA      string `json:"sha"`
		Size     int64  `json:"size"`
	}{"base64", a.repoAPIURL(rc) + "/git/blobs/" + info.SHA, info.SHA, info.Size})
	_, _ = io.WriteString(w, `",`)
	_, _ = w.Write(rest[1:])
	_, _ = io.WriteString(w, "\n")
}

// isHexName reports an abbreviated or full object name (4 to 64 hex digits).
func isHexName(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// getAnnotatedTag serves GET /git/tags/{sha}: an annotated tag object. An
// unknown object or one that is not a tag is 400, as Gitea answers.
func (a *API) getAnnotatedTag(w http.ResponseWriter, r *http.Request) {
	rc := currentRepo(r)
	sha := pathParam(r, "sha")
	ctx := r.Context()
	path := a.Repos.Path(rc.Repo)
	tag, err := a.Repos.Git.ReadTagObject(ctx, path, sha)
	if err != nil {
		if errors.Is(err, git.ErrNotFound) {
			err = errs.BadRequest("tag %q does not exist or is not an annotated tag", sha)
		}
		a.fail(w, r, err)
		return
	}
	commit, err := a.Repos.Git.ResolveCommit(ctx, path, tag.SHA)
	if err != nil {
		if errors.Is(err, git.ErrNotFound) {
			err = errs.BadRequest("tag %q does not point to a commit", sha)
		}
		a.fail(w, r, err)
		return
	}
	base := a.repoAPIURL(rc)
	out := &types.AnnotatedTag{
		Tag: tag.Name, SHA: tag.SHA, URL: base + "/git/tags/" + tag.SHA, Message: tag.Message,
		Object: &types.AnnotatedTagObject{Type: git.TypeCommit, URL: base + "/git/commits/" + commit, SHA: commit},
	}
	// A tag's signature is checked as a commit's, against its tagger.
	signed := git.CommitObject{Commit: git.Commit{SHA: tag.SHA}, Signature: tag.Signature, Payload: tag.Payload}
	if tag.Tagger != nil {
		out.Tagger = commitUser(*tag.Tagger, true)
		signed.Committer = *tag.Tagger
	}
	verified, err := a.verifications(ctx, []git.CommitObject{signed})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out.Verification = verified[0]
	writeJSON(w, http.StatusOK, out)
}
