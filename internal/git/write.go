package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ChangeOp is the kind of a FileChange.
type ChangeOp int

// File change operations.
const (
	// ChangeCreate adds a file that must not exist.
	ChangeCreate ChangeOp = iota + 1
	// ChangeUpdate replaces the content of an existing file.
	ChangeUpdate
	// ChangeDelete removes an existing file.
	ChangeDelete
	// ChangeRename moves an existing file from FromPath to Path (which
	// must not exist), with new content when Content is set.
	ChangeRename
)

// File modes accepted in FileChange.Mode.
const (
	ModeFile       = "100644"
	ModeExecutable = "100755"
	ModeSymlink    = "120000"
	modeGitlink    = "160000"
)

// FileChange is one change of a CommitFiles call.
type FileChange struct {
	Op   ChangeOp
	Path string
	// FromPath is the source of a rename.
	FromPath string
	// Content is the new content (create, update, optional for rename).
	Content io.Reader
	// Mode is ModeFile, ModeExecutable or ModeSymlink; "" keeps the mode
	// of an existing file, or ModeFile for a new one.
	Mode string
	// SHA, when set, is the blob the existing file (Path, or FromPath for a
	// rename) must have: update, delete and rename fail with ErrConflict
	// otherwise.
	SHA string
}

// CommitFilesOptions describes a commit made without a work tree.
type CommitFilesOptions struct {
	// Branch receives the commit (short name).
	Branch string
	// StartPoint, when set, is a revision to start from: Branch is then
	// created and must not exist yet (ErrAlreadyExists).
	StartPoint string
	// ExpectedSHA, when set (and StartPoint is not), is the commit Branch
	// must point to; otherwise its tip is read at the start. Either way
	// the branch is only moved if it still points to that commit when the
	// new commit is ready (ErrConflict otherwise). A branch that does not
	// exist (and no ExpectedSHA) receives a root commit.
	ExpectedSHA string
	Message     string
	Author      Signature
	// Committer defaults to Author. Zero times mean now.
	Committer *Signature
	Changes   []FileChange
	// Patch, when set, is a diff applied to the parent's tree (as git apply
	// --cached does) instead of Changes. ErrPatchDoesNotApply when it does
	// not apply cleanly.
	Patch []byte
	// BeforeUpdate, when set, is called once the new commit is written and
	// just before the branch moves to it, with the branch's expected old
	// value ("" when the branch is created) and the new commit. An error
	// it returns is returned as is and leaves the branch untouched (the
	// server's push rules plug in here).
	BeforeUpdate func(ctx context.Context, oldSHA, newSHA string) error
	// Sign, when set, signs the commit: it gets the commit object without
	// signature and returns an armored signature, which goes into the
	// object's gpgsig header (signature.Signer.Sign fits).
	Sign func(payload []byte) (string, error)
}

// indexEntry is a file in the temporary index.
type indexEntry struct {
	mode string
	sha  string
}

// CommitFiles writes the changes as one commit on top of the branch and
// moves the branch to it with a compare-and-swap on its old value, so of
// concurrent calls expecting the same old commit exactly one succeeds. It
// works on a temporary index file; no work tree is involved. It returns the
// new commit's SHA.
//
// Errors: ErrInvalidArgument (bad names, paths, modes), ErrNotFound (start
// point, a file to update, delete or rename), ErrAlreadyExists (a file to
// create or rename onto; the branch with StartPoint), ErrConflict (SHA
// mismatch, file/directory clash, the branch moved).
func (g *Git) CommitFiles(ctx context.Context, repoPath string, opts CommitFilesOptions) (string, error) {
	if err := checkBranch("branch", opts.Branch); err != nil {
		return "", err
	}
	author := opts.Author
	if err := author.check("author"); err != nil {
		return "", err
	}
	committer := author
	if opts.Committer != nil {
		committer = *opts.Committer
		if err := committer.check("committer"); err != nil {
			return "", err
		}
	}
	now := g.now()
	if author.When.IsZero() {
		author.When = now
	}
	if committer.When.IsZero() {
		committer.When = now
	}
	if opts.ExpectedSHA != "" && !IsSHA(opts.ExpectedSHA) {
		return "", fmt.Errorf("%w: expected SHA %q", ErrInvalidArgument, opts.ExpectedSHA)
	}
	var changes []FileChange
	var err error
	if opts.Patch == nil {
		if changes, err = cleanChanges(opts.Changes); err != nil {
			return "", err
		}
	} else if len(bytes.TrimSpace(opts.Patch)) == 0 {
		return "", fmt.Errorf("%w: empty patch", ErrInvalidArgument)
	}
	ref := BranchPrefix + opts.Branch

	// The parent, and the value the branch must still have at the end
	// ("" = must not exist).
	var parent string
	switch {
	case opts.StartPoint != "":
		if parent, err = g.ResolveCommit(ctx, repoPath, opts.StartPoint); err != nil {
			return "", err
		}
		if _, err := g.revParse(ctx, repoPath, ref); err == nil {
			return "", fmt.Errorf("%w: branch %q", ErrAlreadyExists, opts.Branch)
		} else if !errors.Is(err, ErrNotFound) {
			return "", err
		}
	case opts.ExpectedSHA != "":
		if parent, err = g.ResolveCommit(ctx, repoPath, opts.ExpectedSHA); err != nil {
			return "", err
		}
	default:
		parent, err = g.revParse(ctx, repoPath, ref+"^{commit}")
		if errors.Is(err, ErrNotFound) {
			parent, err = "", nil
		}
		if err != nil {
			return "", err
		}
	}

	tmp, err := os.MkdirTemp(g.tempDir, "cairn-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	indexEnv := "GIT_INDEX_FILE=" + filepath.Join(tmp, "index")
	idx := func(sub Arg, args ...Arg) *Cmd {
		return g.repoCommand(repoPath, sub, args...).Env(indexEnv)
	}

	if parent != "" {
		if err := idx("read-tree").EndOfOptions().Values(parent).Run(ctx); err != nil {
			return "", err
		}
	}

	if opts.Patch != nil {
		if err := g.checkPatchPaths(ctx, repoPath, opts.Patch); err != nil {
			return "", err
		}
		err := idx("apply", "--cached", "--recount", "--binary", "--whitespace=nowarn").Stdin(bytes.NewReader(opts.Patch)).Run(ctx)
		if err != nil {
			var ge *Error
			if errors.As(err, &ge) && ge.ExitCode > 0 {
				return "", fmt.Errorf("%w: %s", ErrPatchDoesNotApply, firstLine(ge.Stderr))
			}
			return "", err
		}
		return g.commitIndex(ctx, repoPath, idx, parent, ref, opts, author, committer)
	}

	// Current state of every touched path.
	state, err := g.indexState(ctx, idx, changes)
	if err != nil {
		return "", err
	}
	orig := make(map[string]bool, len(state))
	for p := range state {
		orig[p] = true
	}
	removed := map[string]bool{}
	var order []string
	seen := map[string]bool{}
	touch := func(p string) {
		if !seen[p] {
			seen[p] = true
			order = append(order, p)
		}
	}
	for _, ch := range changes {
		cur, exists := state[ch.Path]
		switch ch.Op {
		case ChangeCreate:
			if exists {
				return "", fmt.Errorf("%w: file %q", ErrAlreadyExists, ch.Path)
			}
		case ChangeUpdate, ChangeDelete:
			if !exists {
				return "", fmt.Errorf("%w: file %q", ErrNotFound, ch.Path)
			}
			if ch.SHA != "" && ch.SHA != cur.sha {
				return "", fmt.Errorf("%w: file %q is at %s, not %s", ErrConflict, ch.Path, cur.sha, ch.SHA)
			}
		case ChangeRename:
			src, ok := state[ch.FromPath]
			if !ok {
				return "", fmt.Errorf("%w: file %q", ErrNotFound, ch.FromPath)
			}
			if ch.SHA != "" && ch.SHA != src.sha {
				return "", fmt.Errorf("%w: file %q is at %s, not %s", ErrConflict, ch.FromPath, src.sha, ch.SHA)
			}
			if exists && ch.Path != ch.FromPath {
				return "", fmt.Errorf("%w: file %q", ErrAlreadyExists, ch.Path)
			}
			cur = src
			delete(state, ch.FromPath)
			removed[ch.FromPath] = true
			touch(ch.FromPath)
		}
		if ch.Op == ChangeDelete {
			delete(state, ch.Path)
			removed[ch.Path] = true
			touch(ch.Path)
			continue
		}
		entry := cur
		if ch.Content != nil {
			sha, err := g.hashObject(ctx, repoPath, ch.Content)
			if err != nil {
				return "", err
			}
			entry.sha = sha
		}
		switch {
		case ch.Mode != "":
			entry.mode = ch.Mode
		case entry.mode == "", ch.Content != nil && entry.mode == modeGitlink:
			// New files, and content written over a submodule, are
			// regular files.
			entry.mode = ModeFile
		}
		if err := checkGitmodulesLink(ch.Path, entry.mode); err != nil {
			return "", err
		}
		state[ch.Path] = entry
		delete(removed, ch.Path)
		touch(ch.Path)
	}

	// Write the touched paths into the index in one go: new entries, and
	// removals of paths the parent had (mode 0 and the zero SHA).
	var info bytes.Buffer
	zero := strings.Repeat("0", len(parent))
	for _, p := range order {
		if e, ok := state[p]; ok {
			fmt.Fprintf(&info, "%s %s\t%s\x00", e.mode, e.sha, p)
		} else if orig[p] {
			fmt.Fprintf(&info, "0 %s\t%s\x00", zero, p)
		}
	}
	if err := idx("update-index", "-z", "--index-info").Stdin(&info).Run(ctx); err != nil {
		return "", err
	}
	// --index-info silently replaces a file by a directory of the same
	// name and vice versa; refuse such clashes.
	if err := g.checkIndex(ctx, idx, parent, state, removed); err != nil {
		return "", err
	}

	return g.commitIndex(ctx, repoPath, idx, parent, ref, opts, author, committer)
}

// checkPatchPaths refuses a patch that writes or removes a path
// CleanTreePath refuses, before it is applied, so the caller learns which
// path is wrong (git apply, run with core.protectHFS and core.protectNTFS,
// would only say "invalid path").
func (g *Git) checkPatchPaths(ctx context.Context, repoPath string, patch []byte) error {
	out, err := g.repoCommand(repoPath, "apply", "--numstat", "-z", "--recount").Stdin(bytes.NewReader(patch)).Output(ctx)
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.ExitCode > 0 {
			return fmt.Errorf("%w: %s", ErrPatchDoesNotApply, firstLine(ge.Stderr))
		}
		return err
	}
	// Records are "added<TAB>deleted<TAB>path" ending in NUL.
	for _, rec := range bytes.Split(out, []byte{0}) {
		f := bytes.SplitN(rec, []byte{'\t'}, 3)
		if len(f) != 3 {
			continue
		}
		if _, err := CleanWritePath(string(f[2])); err != nil {
			return err
		}
	}
	return nil
}

// ErrPatchDoesNotApply is returned when a patch does not apply to the tree.
var ErrPatchDoesNotApply = errors.New("git: patch does not apply")

// firstLine is the first non-empty line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// commitIndex writes the temporary index as a commit on top of parent and
// moves ref to it (see CommitFiles).
func (g *Git) commitIndex(ctx context.Context, repoPath string, idx func(sub Arg, args ...Arg) *Cmd, parent, ref string,
	opts CommitFilesOptions, author, committer Signature) (string, error) {
	treeOut, err := idx("write-tree").Output(ctx)
	if err != nil {
		return "", err
	}
	tree := strings.TrimSpace(string(treeOut))

	msg := opts.Message
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	var commit string
	if opts.Sign != nil {
		if commit, err = g.writeSignedCommitOf(ctx, repoPath, tree, parent, author, committer, msg, opts.Sign); err != nil {
			return "", err
		}
	} else {
		ct := g.repoCommand(repoPath, "commit-tree").Values(tree)
		if parent != "" {
			ct.Args("-p").Values(parent)
		}
		commitOut, err := ct.Env(
			"GIT_AUTHOR_NAME="+author.Name, "GIT_AUTHOR_EMAIL="+author.Email, "GIT_AUTHOR_DATE="+gitDate(author.When),
			"GIT_COMMITTER_NAME="+committer.Name, "GIT_COMMITTER_EMAIL="+committer.Email, "GIT_COMMITTER_DATE="+gitDate(committer.When),
		).Stdin(strings.NewReader(msg)).Output(ctx)
		if err != nil {
			return "", err
		}
		commit = strings.TrimSpace(string(commitOut))
	}

	up := refUpdate{ref: ref, newSHA: commit}
	if parent == "" || opts.StartPoint != "" {
		up.create = true
	} else {
		up.oldSHA = parent
	}
	if opts.BeforeUpdate != nil {
		if err := opts.BeforeUpdate(ctx, up.oldSHA, commit); err != nil {
			return "", err
		}
	}
	if err := g.updateRefs(ctx, repoPath, up); err != nil {
		if errors.Is(err, ErrAlreadyExists) && opts.StartPoint == "" {
			return "", fmt.Errorf("%w: %w", ErrConflict, err)
		}
		return "", err
	}
	return commit, nil
}

// cleanChanges validates the changes and canonicalizes their paths.
func cleanChanges(in []FileChange) ([]FileChange, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("%w: no changes", ErrInvalidArgument)
	}
	out := make([]FileChange, len(in))
	for i, ch := range in {
		p, err := CleanWritePath(ch.Path)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, fmt.Errorf("%w: empty file path", ErrInvalidArgument)
		}
		ch.Path = p
		switch ch.Op {
		case ChangeCreate, ChangeUpdate:
			if ch.Content == nil {
				return nil, fmt.Errorf("%w: no content for %q", ErrInvalidArgument, p)
			}
		case ChangeDelete:
		case ChangeRename:
			from, err := CleanWritePath(ch.FromPath)
			if err != nil {
				return nil, err
			}
			if from == "" {
				return nil, fmt.Errorf("%w: empty source path", ErrInvalidArgument)
			}
			ch.FromPath = from
		default:
			return nil, fmt.Errorf("%w: unknown change %d for %q", ErrInvalidArgument, ch.Op, p)
		}
		switch ch.Mode {
		case "", ModeFile, ModeExecutable, ModeSymlink:
		default:
			return nil, fmt.Errorf("%w: file mode %q", ErrInvalidArgument, ch.Mode)
		}
		if ch.SHA != "" && !IsSHA(ch.SHA) {
			return nil, fmt.Errorf("%w: SHA %q", ErrInvalidArgument, ch.SHA)
		}
		out[i] = ch
	}
	return out, nil
}

// indexState lists the index entries of every path a change touches.
func (g *Git) indexState(ctx context.Context, idx func(Arg, ...Arg) *Cmd, changes []FileChange) (map[string]indexEntry, error) {
	var paths []string
	for _, ch := range changes {
		paths = append(paths, ch.Path)
		if ch.FromPath != "" {
			paths = append(paths, ch.FromPath)
		}
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	state := map[string]indexEntry{}
	err := g.lsFiles(ctx, idx, paths, func(mode, sha, p string) {
		if want[p] {
			state[p] = indexEntry{mode: mode, sha: sha}
		}
	})
	return state, err
}

// lsFiles streams "ls-files -s -z" entries for the given pathspecs.
func (g *Git) lsFiles(ctx context.Context, idx func(Arg, ...Arg) *Cmd, paths []string, fn func(mode, sha, path string)) error {
	out, err := idx("ls-files", "-s", "-z").Paths(paths...).Output(ctx)
	if err != nil {
		return err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return fmt.Errorf("git: malformed ls-files entry %q", rec)
		}
		fn(f[0], f[1], p)
	}
	return nil
}

// checkIndex verifies that the index holds exactly the intended entries
// for the touched paths and that nothing else disappeared.
func (g *Git) checkIndex(ctx context.Context, idx func(Arg, ...Arg) *Cmd, parent string, state map[string]indexEntry, removed map[string]bool) error {
	var paths []string
	for p := range state {
		paths = append(paths, p)
	}
	found := map[string]bool{}
	if len(paths) > 0 {
		err := g.lsFiles(ctx, idx, paths, func(mode, sha, p string) {
			if e, ok := state[p]; ok && e.sha == sha && e.mode == mode {
				found[p] = true
			}
		})
		if err != nil {
			return err
		}
	}
	for _, p := range paths {
		if !found[p] {
			return fmt.Errorf("%w: %q clashes with another file or directory", ErrConflict, p)
		}
	}
	if parent == "" {
		return nil
	}
	out, err := idx("diff-index", "--cached", "--name-only", "--diff-filter=D", "--no-renames", "-z").
		EndOfOptions().Values(parent).Output(ctx)
	if err != nil {
		return err
	}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 && !removed[string(p)] {
			return fmt.Errorf("%w: the change would replace %q", ErrConflict, p)
		}
	}
	return nil
}

// hashObject writes content as a blob and returns its name.
func (g *Git) hashObject(ctx context.Context, repoPath string, content io.Reader) (string, error) {
	out, err := g.repoCommand(repoPath, "hash-object", "-w", "--stdin").Stdin(content).Output(ctx)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
