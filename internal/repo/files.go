package repo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/cairn-forge/cairn/internal/errs"
	"github.com/cairn-forge/cairn/internal/git"
	"github.com/cairn-forge/cairn/internal/hooks"
	"github.com/cairn-forge/cairn/internal/user"
)

// Kinds of FileRef.
const (
	RefKindBranch = "branch"
	RefKindTag    = "tag"
	RefKindCommit = "commit"
)

// maxFilePathLen bounds the file paths the contents API accepts.
const maxFilePathLen = 4096

// symlinkTargetMax is how much of a symbolic link's blob is read as its target.
const symlinkTargetMax = 1024

// gitmodulesMax is how much of .gitmodules is read to find submodule URLs.
const gitmodulesMax = 256 << 10

// FileRef is the revision a contents request reads: a branch, a tag or a
// commit, and the commit it resolves to.
type FileRef struct {
	// Name is the branch or tag name, or the commit SHA as given.
	Name   string
	Kind   string
	Commit string
}

// ResolveFileRef resolves ref for the contents API: a branch name, a tag
// name, "refs/heads/…" or "refs/tags/…", or a commit SHA (4 to 64 hex
// digits); "" is the default branch. Any other revision expression is
// refused: not found.
func (s *Service) ResolveFileRef(ctx context.Context, r *Repository, ref string) (FileRef, error) {
	if ref == "" {
		ref = r.DefaultBranch
	}
	path := s.Path(r)
	notFound := errs.NotFound("no commit found for the ref [ref: %s]", ref)
	if !git.ValidRevision(ref) {
		return FileRef{}, notFound
	}
	try := func(full, name, kind string) (FileRef, bool, error) {
		if !git.ValidRefName(full) {
			return FileRef{}, false, nil
		}
		sha, err := s.Git.ResolveCommit(ctx, path, full)
		if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
			return FileRef{}, false, nil
		}
		if err != nil {
			return FileRef{}, false, err
		}
		return FileRef{Name: name, Kind: kind, Commit: sha}, true, nil
	}
	branch, tag := ref, ref
	switch {
	case strings.HasPrefix(ref, git.BranchPrefix):
		branch, tag = strings.TrimPrefix(ref, git.BranchPrefix), ""
	case strings.HasPrefix(ref, git.TagPrefix):
		branch, tag = "", strings.TrimPrefix(ref, git.TagPrefix)
	}
	if branch != "" {
		if fr, ok, err := try(git.BranchPrefix+branch, branch, RefKindBranch); ok || err != nil {
			return fr, err
		}
	}
	if tag != "" {
		if fr, ok, err := try(git.TagPrefix+tag, tag, RefKindTag); ok || err != nil {
			return fr, err
		}
	}
	if isHexPrefix(ref) {
		sha, err := s.Git.ResolveCommit(ctx, path, ref)
		if errors.Is(err, git.ErrNotFound) {
			return FileRef{}, notFound
		}
		if err != nil {
			return FileRef{}, err
		}
		// Only an object name, never a reference that happens to look
		// like one.
		if strings.HasPrefix(sha, strings.ToLower(ref)) {
			return FileRef{Name: ref, Kind: RefKindCommit, Commit: sha}, nil
		}
	}
	return FileRef{}, notFound
}

// isHexPrefix reports an abbreviated or full object name.
func isHexPrefix(s string) bool {
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

// maxRefComponents bounds how many leading components of a legacy raw path
// are tried as a branch or tag name.
const maxRefComponents = 16

// InferFileRef splits the path of a legacy raw URL, "<ref>/<file path>",
// into the revision and the file path: the shortest leading part that names
// a branch, else a tag, else a full commit SHA as first component; when
// none does, the whole path is read from the default branch.
func (s *Service) InferFileRef(ctx context.Context, r *Repository, p string) (FileRef, string, error) {
	parts := strings.Split(p, "/")
	path := s.Path(r)
	for _, kind := range []string{RefKindBranch, RefKindTag} {
		prefix := git.BranchPrefix
		if kind == RefKindTag {
			prefix = git.TagPrefix
		}
		for i := 1; i < len(parts) && i <= maxRefComponents; i++ {
			name := strings.Join(parts[:i], "/")
			if !git.ValidBranchName(name) {
				continue
			}
			sha, err := s.Git.ResolveCommit(ctx, path, prefix+name)
			if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
				continue
			}
			if err != nil {
				return FileRef{}, "", err
			}
			return FileRef{Name: name, Kind: kind, Commit: sha}, strings.Join(parts[i:], "/"), nil
		}
	}
	if len(parts) > 1 && git.IsSHA(parts[0]) {
		sha, err := s.Git.ResolveCommit(ctx, path, parts[0])
		if err == nil && sha == parts[0] {
			return FileRef{Name: sha, Kind: RefKindCommit, Commit: sha}, strings.Join(parts[1:], "/"), nil
		}
		if err != nil && !errors.Is(err, git.ErrNotFound) {
			return FileRef{}, "", err
		}
	}
	fr, err := s.ResolveFileRef(ctx, r, "")
	return fr, p, err
}

// FileEntry is an entry of a repository tree as the contents API shows it.
type FileEntry struct {
	git.TreeEntry
	// LastCommit is the newest commit that changed the entry.
	LastCommit string
	// Target is the target of a symbolic link.
	Target string
	// SubmoduleURL is the URL .gitmodules gives a submodule ("" if none).
	SubmoduleURL string
}

// Kind is "file", "dir", "symlink" or "submodule".
func (e *FileEntry) Kind() string {
	switch {
	case e.IsDir():
		return "dir"
	case e.IsSubmodule():
		return "submodule"
	case e.IsSymlink():
		return "symlink"
	}
	return "file"
}

// CleanFilePath validates a file path of a contents request that reads (see
// git.CleanTreePath) and returns its canonical form; a bad path is an
// errs.Invalid naming it.
func CleanFilePath(p string) (string, error) { return cleanFilePath(p, git.CleanTreePath) }

// CleanWriteFilePath is CleanFilePath for a path that a request writes: it
// also refuses names a file system could take for .git (git.CleanWritePath).
func CleanWriteFilePath(p string) (string, error) { return cleanFilePath(p, git.CleanWritePath) }

func cleanFilePath(p string, clean func(string) (string, error)) (string, error) {
	if len(p) > maxFilePathLen {
		return "", errs.Invalid("path is longer than %d bytes", maxFilePathLen)
	}
	c, err := clean(p)
	var dotgit *git.DotGitError
	if errors.As(err, &dotgit) {
		return "", errs.Invalid("path contains a malformed path component [path: %s]: it %s", p, dotgit.Problem())
	}
	if err != nil {
		return "", errs.Invalid("path contains a malformed path component [path: %s]", p)
	}
	return c, nil
}

// ReadEntry returns the entry at p (a clean path, "" for the root) in the
// tree of ref. For a directory it also returns its entries, each with its
// last commit, in tree order. Missing paths are errs.NotFound.
func (s *Service) ReadEntry(ctx context.Context, r *Repository, ref FileRef, p string) (*FileEntry, []*FileEntry, error) {
	path := s.Path(r)
	te, err := s.Git.GetTreeEntry(ctx, path, ref.Commit, p)
	if errors.Is(err, git.ErrNotFound) || errors.Is(err, git.ErrInvalidArgument) {
		return nil, nil, errs.NotFound("object does not exist [id: %s, rel_path: %s]", ref.Commit, p)
	}
	if err != nil {
		return nil, nil, err
	}
	if !te.IsDir() {
		e := &FileEntry{TreeEntry: te}
		if err := s.fillEntries(ctx, path, ref, p, []*FileEntry{e}); err != nil {
			return nil, nil, err
		}
		return e, nil, nil
	}
	var list []*FileEntry
	err = s.Git.WalkTree(ctx, path, ref.Commit, p, false, func(te git.TreeEntry) error {
		list = append(list, &FileEntry{TreeEntry: te})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if err := s.fillEntries(ctx, path, ref, p, list); err != nil {
		return nil, nil, err
	}
	return &FileEntry{TreeEntry: te}, list, nil
}

// fillEntries sets the last commit of every entry (one history walk below
// dir), the targets of symbolic links and the URLs of submodules.
func (s *Service) fillEntries(ctx context.Context, path string, ref FileRef, dir string, list []*FileEntry) error {
	if len(list) == 0 {
		return nil
	}
	paths := make([]string, len(list))
	for i, e := range list {
		paths[i] = e.Path
	}
	last, err := s.Git.LastCommits(ctx, path, ref.Commit, dir, paths)
	if err != nil {
		return err
	}
	var modules map[string]string
	for _, e := range list {
		e.LastCommit = last[e.Path]
		switch {
		case e.IsSymlink():
			if e.Target, err = s.readSmallBlob(ctx, path, e.SHA, symlinkTargetMax); err != nil {
				return err
			}
		case e.IsSubmodule():
			if modules == nil {
				if modules, err = s.submoduleURLs(ctx, path, ref.Commit); err != nil {
					return err
				}
			}
			e.SubmoduleURL = modules[e.Path]
		}
	}
	return nil
}

// readSmallBlob reads at most limit bytes of a blob.
func (s *Service) readSmallBlob(ctx context.Context, path, sha string, limit int64) (string, error) {
	rc, _, err := s.Git.ReadBlob(ctx, path, sha)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit))
	return string(b), err
}

// submoduleURLs maps submodule paths to their URLs from the .gitmodules of
// commit (empty when there is none).
func (s *Service) submoduleURLs(ctx context.Context, path, commit string) (map[string]string, error) {
	out := map[string]string{}
	te, err := s.Git.GetTreeEntry(ctx, path, commit, ".gitmodules")
	if errors.Is(err, git.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if te.Type != git.TypeBlob {
		return out, nil
	}
	text, err := s.readSmallBlob(ctx, path, te.SHA, gitmodulesMax)
	if err != nil {
		return nil, err
	}
	return parseGitmodules(text), nil
}

// parseGitmodules reads the path and url of every [submodule "…"] section.
func parseGitmodules(text string) map[string]string {
	out := map[string]string{}
	var p, u string
	inSection := false
	flush := func() {
		if inSection && p != "" && u != "" {
			out[strings.Trim(p, "/")] = u
		}
		p, u = "", ""
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), gitmodulesMax)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			flush()
			inSection = strings.HasPrefix(strings.ToLower(line), "[submodule")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !inSection {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "path":
			p = v
		case "url":
			u = v
		}
	}
	flush()
	return out
}

// File operations of ChangeFiles.
const (
	FileCreate = "create"
	FileUpdate = "update"
	FileDelete = "delete"
)

// FileOperation is one file of a ChangeFiles call.
type FileOperation struct {
	// Operation is FileCreate, FileUpdate or FileDelete.
	Operation string
	Path      string
	// FromPath, for an update, moves the file from there to Path.
	FromPath string
	// Content is the new content of a created or updated file.
	Content []byte
	// SHA is the blob an updated (or moved) or deleted file must have now;
	// required for those.
	SHA string
}

// FileIdentity is a git identity given for a commit; zero when not given.
type FileIdentity struct {
	Name  string
	Email string
}

// ChangeFilesOptions describes one commit made through the contents API.
type ChangeFilesOptions struct {
	// Branch is the branch to start from; "" is the default branch.
	Branch string
	// NewBranch, when set and different from Branch, is created from
	// Branch and receives the commit.
	NewBranch string
	// Message defaults to "Add …", "Update …", "Delete …".
	Message   string
	Author    FileIdentity
	Committer FileIdentity
	// AuthorDate and CommitterDate default to now.
	AuthorDate    time.Time
	CommitterDate time.Time
	// Signoff adds a Signed-off-by trailer for the committer.
	Signoff bool
	Files   []FileOperation
	// Patch, when set, replaces Files: a unified diff (as git diff or git
	// format-patch write it) applied to the branch.
	Patch []byte
}

// ChangeFilesResult is the outcome of ChangeFiles.
type ChangeFilesResult struct {
	// Branch received the commit.
	Branch string
	Commit git.Commit
	// Paths are the clean paths of the operations, in order.
	Paths []string
	// Entries are the files as written (nil for deletions), in order.
	Entries []*git.TreeEntry
}

// maxCommitAttempts bounds how often ChangeFiles starts over when the
// branch moves under it.
const maxCommitAttempts = 3

// ChangeFiles writes the operations as one commit authored (by default) by
// doer, on Branch or on a new branch, after the same checks a push gets:
// the repository's push rules run before the branch moves, and a refusal
// comes back as errs.Forbidden with the rule's message. Expected SHAs are
// compared with the branch's current tree; when the branch moves
// concurrently the change is tried again on the new tip, so of two updates
// expecting the same file SHA exactly one succeeds. The push is recorded
// (AfterPush) like any other.
func (s *Service) ChangeFiles(ctx context.Context, r *Repository, doer *user.User, opts ChangeFilesOptions) (*ChangeFilesResult, error) {
	var ops []FileOperation
	var paths []string
	var err error
	if opts.Patch == nil {
		if ops, paths, err = cleanFileOperations(opts.Files); err != nil {
			return nil, err
		}
	} else if len(strings.TrimSpace(string(opts.Patch))) == 0 {
		return nil, errs.InvalidField("content", "[Content]: the patch is empty")
	}
	branch := opts.Branch
	if branch == "" {
		branch = r.DefaultBranch
	}
	if !git.ValidBranchName(branch) {
		return nil, errs.InvalidField("branch", "[Branch]: invalid branch name %q", branch)
	}
	newBranch := opts.NewBranch
	if newBranch == "" {
		newBranch = branch
	}
	if !git.ValidBranchName(newBranch) {
		return nil, errs.InvalidField("new_branch", "[NewBranch]: invalid branch name %q", newBranch)
	}
	author, committer, err := s.commitIdentities(doer, opts)
	if err != nil {
		return nil, err
	}
	message := strings.TrimSpace(opts.Message)
	switch {
	case message != "":
	case opts.Patch != nil:
		message = "Apply patch"
	default:
		message = defaultFilesMessage(ops)
	}
	if opts.Signoff {
		message += "\n\nSigned-off-by: " + committer.Name + " <" + committer.Email + ">"
	}

	path := s.Path(r)
	var sha, old string
	for attempt := 1; ; attempt++ {
		old = ""
		tip, err := s.branchTip(ctx, path, branch)
		if err != nil {
			return nil, err
		}
		if newBranch != branch {
			if _, err := s.Git.ResolveRef(ctx, path, git.BranchPrefix+newBranch); err == nil {
				return nil, errs.InvalidField("new_branch", "branch already exists [name: %s]", newBranch)
			} else if !errors.Is(err, git.ErrNotFound) {
				return nil, err
			}
		}
		var changes []git.FileChange
		if opts.Patch == nil {
			if changes, err = s.fileChanges(ctx, path, tip, ops); err != nil {
				return nil, err
			}
		}
		co := git.CommitFilesOptions{
			Branch: newBranch, Message: message, Author: author, Committer: &committer, Changes: changes, Patch: opts.Patch,
			BeforeUpdate: func(ctx context.Context, oldSHA, newSHA string) error {
				return s.checkFilesPush(ctx, r, doer, git.BranchPrefix+newBranch, oldSHA, newSHA)
			},
		}
		switch {
		case tip != "" && newBranch != branch:
			co.StartPoint = tip
		case tip != "":
			co.ExpectedSHA, old = tip, tip
		}
		if s.signing != nil {
			if co.Sign, err = s.signing.CRUD(ctx, doer, path, tip); err != nil {
				return nil, err
			}
		}
		sha, err = s.Git.CommitFiles(ctx, path, co)
		if err == nil {
			break
		}
		var de *errs.Error
		if errors.As(err, &de) {
			return nil, err
		}
		if (errors.Is(err, git.ErrConflict) || errors.Is(err, git.ErrAlreadyExists)) && newBranch == branch && attempt < maxCommitAttempts {
			// The branch moved: start over on its new tip, where
			// the expected SHAs are checked again.
			if now, terr := s.branchTip(ctx, path, branch); terr == nil && now != tip {
				continue
			}
		}
		if newBranch == branch && attempt >= maxCommitAttempts && errors.Is(err, git.ErrConflict) {
			return nil, errs.Conflict("branch %s kept moving while the change was being made; try again", branch)
		}
		return nil, filesGitError(err, newBranch)
	}

	req := hooks.Request{RepoID: r.ID, PusherID: doer.ID, Updates: []hooks.RefUpdate{{
		OldSHA: zeroIfEmpty(old, sha), NewSHA: sha, Ref: git.BranchPrefix + newBranch,
	}}}
	// The commit is in: record it even if the caller went away.
	if err := s.AfterPush(context.WithoutCancel(ctx), r, req); err != nil {
		slog.Error("record contents change", "repo", r.ID, "branch", newBranch, "err", err)
	}
	commit, err := s.Git.GetCommit(ctx, path, sha)
	if err != nil {
		return nil, err
	}
	res := &ChangeFilesResult{Branch: newBranch, Commit: commit, Paths: paths, Entries: make([]*git.TreeEntry, len(ops))}
	for i, op := range ops {
		if op.Operation == FileDelete {
			continue
		}
		te, err := s.Git.GetTreeEntry(ctx, path, sha, op.Path)
		if err != nil {
			return nil, err
		}
		res.Entries[i] = &te
	}
	return res, nil
}

// zeroIfEmpty returns sha, or the zero name in the format of like.
func zeroIfEmpty(sha, like string) string {
	if sha != "" {
		return sha
	}
	return strings.Repeat("0", len(like))
}

// checkFilesPush runs the push rules on the ref update a file change is
// about to make.
func (s *Service) checkFilesPush(ctx context.Context, r *Repository, doer *user.User, ref, oldSHA, newSHA string) error {
	resp, err := s.PreReceive(ctx, hooks.Request{RepoID: r.ID, PusherID: doer.ID, Updates: []hooks.RefUpdate{{
		OldSHA: zeroIfEmpty(oldSHA, newSHA), NewSHA: newSHA, Ref: ref,
	}}})
	if err != nil {
		return err
	}
	if !resp.Allowed {
		msg := resp.Message
		if msg == "" {
			msg = "the change was refused by a repository rule"
		}
		return errs.Forbidden("%s", msg)
	}
	return nil
}

// branchTip returns the commit at the tip of branch, "" when the repository
// has no commit at all (the first change creates the branch); a missing
// branch of a repository that has commits is errs.NotFound.
func (s *Service) branchTip(ctx context.Context, path, branch string) (string, error) {
	tip, err := s.Git.ResolveCommit(ctx, path, git.BranchPrefix+branch)
	if err == nil {
		return tip, nil
	}
	if !errors.Is(err, git.ErrNotFound) {
		return "", err
	}
	empty, err := s.Git.IsEmpty(ctx, path)
	if err != nil {
		return "", err
	}
	if !empty {
		return "", errs.NotFound("branch does not exist [name: %s]", branch)
	}
	return "", nil
}

// cleanFileOperations validates the operations and cleans their paths.
func cleanFileOperations(in []FileOperation) ([]FileOperation, []string, error) {
	if len(in) == 0 {
		return nil, nil, errs.InvalidField("files", "[Files]: Required")
	}
	out := make([]FileOperation, len(in))
	paths := make([]string, len(in))
	seen := map[string]bool{}
	claim := func(p string) error {
		if seen[p] {
			return errs.InvalidField("files", "path %q is changed by more than one operation", p)
		}
		seen[p] = true
		return nil
	}
	for i, op := range in {
		p, err := CleanWriteFilePath(op.Path)
		if err != nil {
			return nil, nil, err
		}
		if p == "" {
			return nil, nil, errs.Invalid("path contains a malformed path component [path: %s]", op.Path)
		}
		op.Path = p
		switch op.Operation {
		case FileCreate:
			op.FromPath, op.SHA = "", ""
		case FileUpdate, FileDelete:
			if op.SHA == "" {
				return nil, nil, errs.InvalidField("sha", "[SHA]: Required (the SHA of the file to %s [path: %s])", op.Operation, p)
			}
			if op.Operation == FileDelete {
				op.FromPath, op.Content = "", nil
			}
		default:
			return nil, nil, errs.InvalidField("operation", "[Operation]: must be create, update or delete, not %q", op.Operation)
		}
		if op.FromPath != "" {
			from, err := CleanWriteFilePath(op.FromPath)
			if err != nil {
				return nil, nil, err
			}
			if from == "" {
				return nil, nil, errs.Invalid("path contains a malformed path component [path: %s]", op.FromPath)
			}
			op.FromPath = from
			if from == p {
				op.FromPath = ""
			} else if err := claim(from); err != nil {
				return nil, nil, err
			}
		}
		if err := claim(p); err != nil {
			return nil, nil, err
		}
		out[i], paths[i] = op, p
	}
	return out, paths, nil
}

// fileChanges checks the operations against the tree of tip ("" when the
// branch is to be created in an empty repository) and turns them into git
// changes that carry the same expectations.
func (s *Service) fileChanges(ctx context.Context, path, tip string, ops []FileOperation) ([]git.FileChange, error) {
	entry := func(p string) (*git.TreeEntry, error) {
		if tip == "" {
			return nil, nil
		}
		te, err := s.Git.GetTreeEntry(ctx, path, tip, p)
		if errors.Is(err, git.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &te, nil
	}
	existing := func(p, sha string) error {
		te, err := entry(p)
		if err != nil {
			return err
		}
		if te == nil {
			return errs.NotFound("repository file does not exist [path: %s]", p)
		}
		if te.IsDir() {
			return errs.Invalid("a directory exists where a file is expected [path: %s]", p)
		}
		if te.Type != git.TypeBlob {
			return errs.Invalid("a submodule exists where a file is expected [path: %s]", p)
		}
		if sha != te.SHA {
			return errs.Invalid("sha does not match [given: %s, expected: %s]", sha, te.SHA)
		}
		return nil
	}
	absent := func(p string) error {
		te, err := entry(p)
		if err != nil {
			return err
		}
		if te != nil {
			return errs.Invalid("repository file already exists [path: %s]", p)
		}
		return nil
	}
	changes := make([]git.FileChange, 0, len(ops))
	for _, op := range ops {
		switch op.Operation {
		case FileCreate:
			if err := absent(op.Path); err != nil {
				return nil, err
			}
			changes = append(changes, git.FileChange{Op: git.ChangeCreate, Path: op.Path, Content: bytes.NewReader(op.Content)})
		case FileUpdate:
			if op.FromPath != "" {
				if err := existing(op.FromPath, op.SHA); err != nil {
					return nil, err
				}
				if err := absent(op.Path); err != nil {
					return nil, err
				}
				changes = append(changes, git.FileChange{Op: git.ChangeRename, Path: op.Path, FromPath: op.FromPath,
					Content: bytes.NewReader(op.Content), SHA: op.SHA})
				continue
			}
			if err := existing(op.Path, op.SHA); err != nil {
				return nil, err
			}
			changes = append(changes, git.FileChange{Op: git.ChangeUpdate, Path: op.Path, Content: bytes.NewReader(op.Content), SHA: op.SHA})
		case FileDelete:
			if err := existing(op.Path, op.SHA); err != nil {
				return nil, err
			}
			changes = append(changes, git.FileChange{Op: git.ChangeDelete, Path: op.Path, SHA: op.SHA})
		}
	}
	return changes, nil
}

// filesGitError maps what CommitFiles refuses to the API's errors.
func filesGitError(err error, branch string) error {
	msg := err.Error()
	for _, p := range []string{"git: invalid argument: ", "git: not found: ", "git: already exists: ", "git: conflict: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	switch {
	case errors.Is(err, git.ErrInvalidArgument):
		return errs.Invalid("%s", msg)
	case errors.Is(err, git.ErrNotFound):
		return errs.NotFound("%s", msg)
	case errors.Is(err, git.ErrAlreadyExists):
		if strings.HasPrefix(msg, "branch ") {
			return errs.InvalidField("new_branch", "branch already exists [name: %s]", branch)
		}
		return errs.Invalid("%s", msg)
	case errors.Is(err, git.ErrConflict):
		return errs.Invalid("a file or directory is in the way: %s", msg)
	case errors.Is(err, git.ErrPatchDoesNotApply):
		return errs.InvalidField("content", "the patch does not apply: %s", strings.TrimPrefix(msg, "git: patch does not apply: "))
	}
	return err
}

// defaultFilesMessage is "Add a, b", "Update c", "Delete d", one line each.
func defaultFilesMessage(ops []FileOperation) string {
	var add, upd, del []string
	for _, op := range ops {
		switch op.Operation {
		case FileCreate:
			add = append(add, op.Path)
		case FileUpdate:
			upd = append(upd, op.Path)
		case FileDelete:
			del = append(del, op.Path)
		}
	}
	var lines []string
	if len(add) > 0 {
		lines = append(lines, "Add "+strings.Join(add, ", "))
	}
	if len(upd) > 0 {
		lines = append(lines, "Update "+strings.Join(upd, ", "))
	}
	if len(del) > 0 {
		lines = append(lines, "Delete "+strings.Join(del, ", "))
	}
	return strings.Join(lines, "\n")
}

// commitIdentities works out author and committer: a given identity (by
// e-mail) is used as is, one given alone stands for both, and the caller is
// the default (their private e-mail hidden behind the no-reply address).
func (s *Service) commitIdentities(doer *user.User, opts ChangeFilesOptions) (git.Signature, git.Signature, error) {
	self := s.doerIdentity(doer)
	pick := func(field string, id FileIdentity) (*git.Signature, error) {
		email := strings.TrimSpace(id.Email)
		if email == "" {
			return nil, nil
		}
		name := strings.TrimSpace(id.Name)
		if name == "" {
			if doer != nil && strings.EqualFold(email, doer.Email) {
				name = self.Name
			} else {
				name, _, _ = strings.Cut(email, "@")
			}
		}
		if len(email) > 254 || !strings.Contains(email, "@") || strings.ContainsAny(email, "<>\n\r\x00 ") {
			return nil, errs.InvalidField(field+".email", "[%s.Email]: invalid e-mail address %q", strings.ToUpper(field[:1])+field[1:], email)
		}
		if strings.ContainsAny(name, "<>\n\r\x00") || len(name) > 255 {
			return nil, errs.InvalidField(field+".name", "[%s.Name]: a name without '<', '>' or line breaks is expected", strings.ToUpper(field[:1])+field[1:])
		}
		return &git.Signature{Name: name, Email: email}, nil
	}
	author, err := pick("author", opts.Author)
	if err != nil {
		return git.Signature{}, git.Signature{}, err
	}
	committer, err := pick("committer", opts.Committer)
	if err != nil {
		return git.Signature{}, git.Signature{}, err
	}
	switch {
	case author == nil && committer == nil:
		author, committer = &self, &self
	case author == nil:
		author = committer
	case committer == nil:
		committer = author
	}
	a, c := *author, *committer
	a.When, c.When = opts.AuthorDate, opts.CommitterDate
	return a, c, nil
}

// doerIdentity is the git identity of doer: their full name (or user name)
// and e-mail, or the no-reply address when they keep it private.
func (s *Service) doerIdentity(doer *user.User) git.Signature {
	if doer == nil {
		return git.Signature{Name: "Cairn", Email: "cairn@" + s.noReplyDomain()}
	}
	name := strings.Map(func(r rune) rune {
		switch r {
		case '<', '>', '\n', '\r', 0:
			return -1
		}
		return r
	}, strings.TrimSpace(doer.FullName))
	if strings.TrimSpace(name) == "" {
		name = doer.Name
	}
	email := doer.Email
	if doer.KeepEmailPrivate || email == "" {
		email = doer.LowerName + "@" + s.noReplyDomain()
	}
	return git.Signature{Name: name, Email: email}
}

// noReplyDomain is "noreply.<host of the root URL>", as the API shows hidden e-mails.
func (s *Service) noReplyDomain() string {
	host := "localhost"
	if u, err := url.Parse(s.cfg.RootURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "noreply." + host
}
