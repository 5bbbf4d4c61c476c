package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Merge styles of MergeOptions.Style, with Gitea's names.
const (
	MergeStyleMerge           = "merge"
	MergeStyleRebase          = "rebase"
	MergeStyleRebaseMerge     = "rebase-merge"
	MergeStyleSquash          = "squash"
	MergeStyleFastForwardOnly = "fast-forward-only"
)

var (
	// ErrNotFastForward is returned by a fast-forward-only merge when the
	// base is not an ancestor of the head.
	ErrNotFastForward = errors.New("git: not a fast-forward")
	// ErrUnrelatedHistories is returned when base and head have no common
	// ancestor. Such errors also match ErrMergeConflict.
	ErrUnrelatedHistories = errors.New("git: unrelated histories")
)

// maxConflictFiles caps the conflicting files reported by CheckMerge and
// MergeConflictError.
const maxConflictFiles = 100

// MergeConflictError is a merge that needs a person. It matches
// ErrMergeConflict.
type MergeConflictError struct {
	// Files are the conflicting paths (at most 100).
	Files []string
	// Commit is, for a rebase, the head commit whose replay conflicted.
	Commit string
}

func (e *MergeConflictError) Error() string {
	var b strings.Builder
	b.WriteString(ErrMergeConflict.Error())
	if e.Commit != "" {
		b.WriteString(" replaying " + e.Commit)
	}
	if len(e.Files) > 0 {
		b.WriteString(" in " + strings.Join(e.Files, ", "))
	}
	return b.String()
}

// Is makes the error match ErrMergeConflict.
func (e *MergeConflictError) Is(target error) bool { return target == ErrMergeConflict }

// unrelatedError reports base and head without common history.
func unrelatedError(base, head string) error {
	return fmt.Errorf("%w: %s and %s (%w)", ErrUnrelatedHistories, base, head, ErrMergeConflict)
}

// MergeBase returns the best common ancestor of two commits, or "" (and no
// error) when their histories are unrelated.
func (g *Git) MergeBase(ctx context.Context, repoPath, a, b string) (string, error) {
	if err := checkRevision(a); err != nil {
		return "", err
	}
	if err := checkRevision(b); err != nil {
		return "", err
	}
	return g.mergeBase(ctx, repoPath, a, b)
}

// mergeBase is MergeBase for validated revisions.
func (g *Git) mergeBase(ctx context.Context, repoPath, a, b string) (string, error) {
	out, err := g.repoCommand(repoPath, "merge-base").EndOfOptions().Values(a, b).Output(ctx)
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", revNotFound(err)
	}
	return strings.TrimSpace(string(out)), nil
}

// IsAncestor reports whether commit a is an ancestor of (or is) commit b.
func (g *Git) IsAncestor(ctx context.Context, repoPath, a, b string) (bool, error) {
	if err := checkRevision(a); err != nil {
		return false, err
	}
	if err := checkRevision(b); err != nil {
		return false, err
	}
	ok, err := g.isAncestor(ctx, repoPath, a, b)
	return ok, revNotFound(err)
}

// revNotFound maps git's answer to an unknown revision to ErrNotFound.
func revNotFound(err error) error {
	if err != nil && stderrHas(err, "Not a valid object name", "Not a valid commit name", "unknown revision", "bad revision") {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// MergeStatus is the result of CheckMerge.
type MergeStatus string

// Merge statuses.
const (
	// MergeStatusMergeable: head merges into base without conflict.
	MergeStatusMergeable MergeStatus = "mergeable"
	// MergeStatusConflict: the merge has conflicts.
	MergeStatusConflict MergeStatus = "conflict"
	// MergeStatusEmpty: head has commits base lacks, but merging them
	// changes nothing (the merged tree is the base's tree).
	MergeStatusEmpty MergeStatus = "empty"
	// MergeStatusAncestor: head is already contained in base.
	MergeStatusAncestor MergeStatus = "ancestor"
)

// MergeCheck describes merging a head commit into a base commit.
type MergeCheck struct {
	// BaseSHA and HeadSHA are the commits compared.
	BaseSHA, HeadSHA string
	MergeBase        string
	Status           MergeStatus
	// ConflictedFiles are the conflicting paths (at most 100) when Status
	// is MergeStatusConflict.
	ConflictedFiles []string
	// Tree is the merged tree, unless there is a conflict or nothing to
	// merge (MergeStatusAncestor).
	Tree string
	// CommitsAhead counts the commits of head that base lacks,
	// CommitsBehind those of base that head lacks.
	CommitsAhead, CommitsBehind int
}

// CheckMerge tells whether head merges cleanly into base, without a work
// tree and at a cost that follows the size of the change: merge-base,
// rev-list --count and merge-tree --write-tree on the repository. Unrelated
// histories are an error matching ErrUnrelatedHistories and
// ErrMergeConflict; revisions that name no commit are ErrNotFound.
func (g *Git) CheckMerge(ctx context.Context, repoPath, base, head string) (MergeCheck, error) {
	b, h, mb, err := g.mergeSides(ctx, repoPath, base, head, "")
	if err != nil {
		return MergeCheck{}, err
	}
	mc := MergeCheck{BaseSHA: b.SHA, HeadSHA: h.SHA, MergeBase: mb}
	if mc.CommitsBehind, mc.CommitsAhead, err = g.aheadBehind(ctx, repoPath, b.SHA, h.SHA); err != nil {
		return MergeCheck{}, err
	}
	if mb == h.SHA {
		mc.Status = MergeStatusAncestor
		return mc, nil
	}
	tree, err := g.mergeTrees(ctx, repoPath, b, h, mb)
	var ce *MergeConflictError
	switch {
	case errors.As(err, &ce):
		mc.Status = MergeStatusConflict
		mc.ConflictedFiles = ce.Files
		return mc, nil
	case err != nil:
		return MergeCheck{}, err
	}
	mc.Tree = tree
	mc.Status = MergeStatusMergeable
	if tree == b.Tree {
		mc.Status = MergeStatusEmpty
	}
	return mc, nil
}

// mergeSides reads the base and head commits and their merge base
// (unrelated histories are an error).
func (g *Git) mergeSides(ctx context.Context, repoPath, base, head, knownBase string) (b, h Commit, mb string, err error) {
	cs, err := g.ReadCommits(ctx, repoPath, []string{base, head})
	if err != nil {
		return Commit{}, Commit{}, "", err
	}
	b, h = cs[0].Commit, cs[1].Commit
	if IsSHA(knownBase) {
		return b, h, knownBase, nil
	}
	if mb, err = g.mergeBase(ctx, repoPath, b.SHA, h.SHA); err != nil {
		return Commit{}, Commit{}, "", err
	}
	if mb == "" {
		return Commit{}, Commit{}, "", unrelatedError(b.SHA, h.SHA)
	}
	return b, h, mb, nil
}

// aheadBehind counts the commits only base has and only head has.
func (g *Git) aheadBehind(ctx context.Context, repoPath, base, head string) (behind, ahead int, err error) {
	out, err := g.repoCommand(repoPath, "rev-list", "--left-right", "--count").EndOfOptions().Values(base + "..." + head).Output(ctx)
	if err != nil {
		return 0, 0, revNotFound(err)
	}
	f := strings.Fields(string(out))
	if len(f) == 2 {
		behind, err1 := strconv.Atoi(f[0])
		ahead, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			return behind, ahead, nil
		}
	}
	return 0, 0, fmt.Errorf("git: unexpected rev-list output %q", out)
}

// mergeTrees returns the tree of merging head into base (whose merge base
// is mb), or a *MergeConflictError.
func (g *Git) mergeTrees(ctx context.Context, repoPath string, b, h Commit, mb string) (string, error) {
	if mb == b.SHA {
		return h.Tree, nil // a fast-forward: the merge is the head
	}
	return g.mergeTree(ctx, repoPath, b.SHA, h.SHA, false)
}

// mergeTree runs merge-tree --write-tree on two commits and returns the
// merged tree, or a *MergeConflictError listing the conflicting paths. The
// conflicted (and unused) tree objects are left for gc.
func (g *Git) mergeTree(ctx context.Context, repoPath, ours, theirs string, unrelated bool) (string, error) {
	cmd := g.repoCommand(repoPath, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z")
	if unrelated {
		cmd.Args("--allow-unrelated-histories")
	}
	out, err := cmd.EndOfOptions().Values(ours, theirs).Stream(ctx)
	if err != nil {
		return "", err
	}
	defer out.Close()
	// Output: "<tree>\0" then, on conflict, "<path>\0" per conflicted path
	// (several stages of one path come out as one name or repeated).
	br := bufio.NewReaderSize(out, 64<<10)
	var tree string
	var files []string
	seen := map[string]bool{}
	for {
		s, rerr := br.ReadString(0)
		if rerr != nil {
			if errors.Is(rerr, io.EOF) && s == "" {
				break
			}
			if errors.Is(rerr, io.EOF) {
				return "", errors.New("git: truncated merge-tree output")
			}
			if exitCode(rerr) == 1 {
				return "", &MergeConflictError{Files: files}
			}
			if stderrHas(rerr, "refusing to merge unrelated histories") {
				return "", unrelatedError(ours, theirs)
			}
			return "", revNotFound(rerr)
		}
		s = s[:len(s)-1]
		switch {
		case tree == "":
			tree = s
		case s != "" && !seen[s]:
			seen[s] = true
			if len(files) < maxConflictFiles {
				files = append(files, s)
			}
		}
	}
	if len(seen) > 0 {
		return "", &MergeConflictError{Files: files}
	}
	if !IsSHA(tree) {
		return "", fmt.Errorf("git: unexpected merge-tree output %q", tree)
	}
	return tree, nil
}

// MergeOptions describes merging a pull request's head into its base.
type MergeOptions struct {
	// Style is one of the MergeStyle constants.
	Style string
	// Base and Head are full commit names, both present in the repository.
	Base, Head string
	// Message is the full message of the merge or squash commit (styles
	// merge, rebase-merge, squash); rebased commits keep their own.
	Message string
	// Author signs the merge or squash commit. Committer (default Author)
	// commits it and the rebased commits. Zero times mean now.
	Author, Committer Signature
	// MessageLater, when set, gives Message once the merge or squash
	// commit is written, so a caller can compute it (a squash's
	// Co-authored-by trailers) while the merge tree is being made.
	MessageLater func() (string, error)
	// MergeBase, when known (a mergeability check computed it for these
	// Base and Head and found that merging changes Base), saves computing
	// it again and reading both commits: a merge or squash commit then
	// needs only merge-tree and commit-tree.
	MergeBase string
	// Sign, when set, signs every commit the merge writes (the merge or
	// squash commit and rebased commits): it returns the armored
	// signature of a commit object without its gpgsig header.
	Sign func(payload []byte) (string, error)
}

// Merge builds the commit the base branch should move to for merging Head
// into Base in the given style, as Gitea does, and returns it; it writes
// objects only and moves no reference (the caller checks its rules, then
// calls UpdateRef). No work tree is used: merge-tree, commit-tree and
// hash-object on the repository.
//
//   - merge: a merge commit with parents Base and Head, always.
//   - rebase: the non-merge commits of Head that Base lacks, replayed in
//     order onto Base (author and message kept, committer Committer,
//     commits that become empty dropped, commits already in Base by patch
//     dropped); Head itself when Base is its ancestor.
//   - rebase-merge: the rebase, then a merge commit with parents Base and
//     the rebased tip.
//   - squash: one commit with the merged tree and parent Base.
//   - fast-forward-only: Head when Base is its ancestor, else
//     ErrNotFastForward.
//
// When Head is already contained in Base, or when a squash or rebase leaves
// no change, Base itself is returned. Conflicts are a *MergeConflictError
// (errors.Is ErrMergeConflict); unrelated histories match
// ErrUnrelatedHistories.
func (g *Git) Merge(ctx context.Context, repoPath string, opts MergeOptions) (string, error) {
	switch opts.Style {
	case MergeStyleMerge, MergeStyleRebase, MergeStyleRebaseMerge, MergeStyleSquash, MergeStyleFastForwardOnly:
	default:
		return "", fmt.Errorf("%w: merge style %q", ErrInvalidArgument, opts.Style)
	}
	if !IsSHA(opts.Base) || !IsSHA(opts.Head) {
		return "", fmt.Errorf("%w: base %q and head %q must be full commit names", ErrInvalidArgument, opts.Base, opts.Head)
	}
	author, committer := opts.Author, opts.Committer
	if committer.Name == "" && committer.Email == "" {
		committer = author
	}
	needsMessage := opts.Style == MergeStyleMerge || opts.Style == MergeStyleRebaseMerge || opts.Style == MergeStyleSquash
	if needsMessage {
		if strings.TrimSpace(opts.Message) == "" && opts.MessageLater == nil {
			return "", fmt.Errorf("%w: empty merge message", ErrInvalidArgument)
		}
		if err := author.check("author"); err != nil {
			return "", err
		}
	}
	if opts.Style != MergeStyleFastForwardOnly {
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

	mc := mergeCommit{message: opts.Message, messageLater: opts.MessageLater, author: author, committer: committer, sign: opts.Sign}
	if (opts.Style == MergeStyleMerge || opts.Style == MergeStyleSquash) && IsSHA(opts.MergeBase) {
		// With the merge base known, a merge or squash commit needs only
		// merge-tree (which reads both commits, and gives Head's tree for
		// a fast-forward) and commit-tree.
		if opts.MergeBase == opts.Head {
			return opts.Base, nil // nothing to merge
		}
		tree, err := g.mergeTree(ctx, repoPath, opts.Base, opts.Head, false)
		if err != nil {
			return "", err
		}
		parents := []string{opts.Base, opts.Head}
		if opts.Style == MergeStyleSquash {
			parents = parents[:1]
		}
		return g.commitTree(ctx, repoPath, tree, parents, mc)
	}
	b, h, mb, err := g.mergeSides(ctx, repoPath, opts.Base, opts.Head, opts.MergeBase)
	if err != nil {
		return "", err
	}
	if mb == h.SHA {
		return b.SHA, nil // nothing to merge
	}
	switch opts.Style {
	case MergeStyleFastForwardOnly:
		if mb != b.SHA {
			return "", fmt.Errorf("%w: %s is not an ancestor of %s", ErrNotFastForward, b.SHA, h.SHA)
		}
		return h.SHA, nil
	case MergeStyleMerge:
		tree, err := g.mergeTrees(ctx, repoPath, b, h, mb)
		if err != nil {
			return "", err
		}
		return g.commitTree(ctx, repoPath, tree, []string{b.SHA, h.SHA}, mc)
	case MergeStyleSquash:
		tree, err := g.mergeTrees(ctx, repoPath, b, h, mb)
		if err != nil {
			return "", err
		}
		if tree == b.Tree {
			return b.SHA, nil
		}
		return g.commitTree(ctx, repoPath, tree, []string{b.SHA}, mc)
	}
	tip, err := g.rebase(ctx, repoPath, b, h, mb, committer, opts.Sign)
	if err != nil {
		return "", err
	}
	if opts.Style == MergeStyleRebase || tip.SHA == b.SHA {
		return tip.SHA, nil
	}
	return g.commitTree(ctx, repoPath, tip.Tree, []string{b.SHA, tip.SHA}, mc)
}

// mergeCommit is the message and identities of a commit Cairn writes.
type mergeCommit struct {
	message           string
	author, committer Signature
	sign              func(payload []byte) (string, error) // nil: unsigned
	messageLater      func() (string, error)               // nil: message
}

// commitTree writes a commit of tree with the given parents (commit-tree,
// the message on stdin, identities in the environment) and returns it.
func (g *Git) commitTree(ctx context.Context, repoPath, tree string, parents []string, mc mergeCommit) (string, error) {
	cmd := g.repoCommand(repoPath, "commit-tree").Values(tree)
	for _, p := range parents {
		cmd.Args("-p").Values(p)
	}
	msg := mc.message
	if mc.messageLater != nil {
		var err error
		if msg, err = mc.messageLater(); err != nil {
			return "", err
		}
		if strings.TrimSpace(msg) == "" {
			return "", fmt.Errorf("%w: empty merge message", ErrInvalidArgument)
		}
	}
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	a, c := mc.author, mc.committer
	if mc.sign != nil {
		return g.SignAndWriteCommit(ctx, repoPath, nil, CommitPayload(tree, parents, a, c, msg), mc.sign)
	}
	out, err := cmd.Env(
		"GIT_AUTHOR_NAME="+a.Name, "GIT_AUTHOR_EMAIL="+a.Email, "GIT_AUTHOR_DATE="+gitDate(a.When),
		"GIT_COMMITTER_NAME="+c.Name, "GIT_COMMITTER_EMAIL="+c.Email, "GIT_COMMITTER_DATE="+gitDate(c.When),
	).Stdin(strings.NewReader(msg)).Output(ctx)
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(string(out))
	if !IsSHA(sha) {
		return "", fmt.Errorf("git: unexpected commit-tree output %q", out)
	}
	return sha, nil
}

// rebaseCommit is a commit to replay: its parsed form, the verbatim author
// line and encoding header, and its message bytes.
type rebaseCommit struct {
	Commit
	authorLine string
	encoding   string
	message    []byte
}

// rebase replays the non-merge commits of h that b lacks onto b (see Merge)
// and returns the new tip (b itself when every commit was dropped).
func (g *Git) rebase(ctx context.Context, repoPath string, b, h Commit, mb string, committer Signature,
	sign func([]byte) (string, error)) (Commit, error) {
	if mb == b.SHA {
		return h, nil // a fast-forward: Head is the rebased branch
	}
	// The commits git rebase would pick: in graph order, oldest first,
	// without merges and without those Base has by patch.
	out, err := g.repoCommand(repoPath, "rev-list", "--reverse", "--topo-order", "--no-merges", "--right-only", "--cherry-pick").
		EndOfOptions().Values(b.SHA + "..." + h.SHA).Output(ctx)
	if err != nil {
		return Commit{}, err
	}
	shas := strings.Fields(string(out))
	if len(shas) == 0 {
		return b, nil
	}
	commits, err := g.readRebaseCommits(ctx, repoPath, shas)
	if err != nil {
		return Commit{}, err
	}
	parentTrees, err := g.parentTrees(ctx, repoPath, commits)
	if err != nil {
		return Commit{}, err
	}
	committerLine := committer.String()
	tip := b
	for _, c := range commits {
		parent, parentTree := "", emptyTreeLike(c.SHA)
		if len(c.Parents) > 0 {
			parent, parentTree = c.Parents[0], parentTrees[c.Parents[0]]
		}
		var tree string
		switch {
		case c.Tree == parentTree:
			// A commit that was empty from the start is kept, as git
			// rebase does.
			tree = tip.Tree
		case tip.Tree == parentTree:
			tree = c.Tree
		default:
			// Cherry-pick c onto tip: merge c with a throwaway commit of
			// tip's tree whose parent is c's parent, so that the merge
			// base is c's parent (git 2.39 has no merge-tree
			// --merge-base).
			var parents []string
			if parent != "" {
				parents = []string{parent}
			}
			x, err := g.commitTree(ctx, repoPath, tip.Tree, parents, mergeCommit{message: "cairn rebase", author: committer, committer: committer})
			if err != nil {
				return Commit{}, err
			}
			tree, err = g.mergeTree(ctx, repoPath, x, c.SHA, parent == "")
			if err != nil {
				var ce *MergeConflictError
				if errors.As(err, &ce) {
					ce.Commit = c.SHA
				}
				return Commit{}, err
			}
			if tree == tip.Tree {
				continue // became empty
			}
		}
		sha, err := g.writeRebased(ctx, repoPath, c, tree, tip.SHA, committerLine, sign)
		if err != nil {
			return Commit{}, err
		}
		tip = Commit{SHA: sha, Tree: tree}
	}
	return tip, nil
}

// readRebaseCommits reads the raw commits to replay with one cat-file.
func (g *Git) readRebaseCommits(ctx context.Context, repoPath string, shas []string) ([]rebaseCommit, error) {
	var in bytes.Buffer
	for _, s := range shas {
		if !IsSHA(s) {
			return nil, fmt.Errorf("git: unexpected rev-list output %q", s)
		}
		in.WriteString(s + "\n")
	}
	out, err := g.repoCommand(repoPath, "cat-file", "--batch").Stdin(&in).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	br := bufio.NewReaderSize(out, 64<<10)
	list := make([]rebaseCommit, 0, len(shas))
	for range shas {
		sha, typ, data, err := readBatchObject(br)
		if err != nil {
			return nil, err
		}
		if typ != TypeCommit {
			return nil, fmt.Errorf("%w: commit %s", ErrNotFound, sha)
		}
		c, err := parseCommit(sha, data)
		if err != nil {
			return nil, err
		}
		rc := rebaseCommit{Commit: c}
		header, msg, _ := bytes.Cut(data, []byte("\n\n"))
		rc.message = msg
		for _, line := range strings.Split(string(header), "\n") {
			if v, ok := strings.CutPrefix(line, "author "); ok {
				rc.authorLine = v
			} else if v, ok := strings.CutPrefix(line, "encoding "); ok {
				rc.encoding = v
			}
		}
		list = append(list, rc)
	}
	return list, nil
}

// parentTrees returns the trees of the first parents of commits: known
// for parents among commits, read with one cat-file --batch-check for the
// others.
func (g *Git) parentTrees(ctx context.Context, repoPath string, commits []rebaseCommit) (map[string]string, error) {
	trees := make(map[string]string, len(commits)+1)
	for _, c := range commits {
		trees[c.SHA] = c.Tree
	}
	var parents []string
	for _, c := range commits {
		if len(c.Parents) > 0 && trees[c.Parents[0]] == "" {
			trees[c.Parents[0]] = "?"
			parents = append(parents, c.Parents[0])
		}
	}
	if len(parents) == 0 {
		return trees, nil
	}
	var in bytes.Buffer
	for _, p := range parents {
		if !IsSHA(p) {
			return nil, fmt.Errorf("git: malformed parent %q", p)
		}
		in.WriteString(p + "^{tree}\n")
	}
	out, err := g.repoCommand(repoPath, "cat-file", "--batch-check=%(objectname) %(objecttype)").Stdin(&in).Output(ctx)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(parents) {
		return nil, fmt.Errorf("git: unexpected cat-file output %q", out)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 2 || f[1] != TypeTree || !IsSHA(f[0]) {
			return nil, fmt.Errorf("%w: tree of %s", ErrNotFound, parents[i])
		}
		trees[parents[i]] = f[0]
	}
	return trees, nil
}

// writeRebased writes the replayed form of c: the given tree and parent,
// c's author line, encoding and message verbatim, and a new committer.
func (g *Git) writeRebased(ctx context.Context, repoPath string, c rebaseCommit, tree, parent, committerLine string,
	sign func([]byte) (string, error)) (string, error) {
	if strings.ContainsAny(c.authorLine+c.encoding+committerLine, "\n\x00") {
		return "", fmt.Errorf("git: malformed commit %s", c.SHA)
	}
	var obj bytes.Buffer
	fmt.Fprintf(&obj, "tree %s\nparent %s\nauthor %s\ncommitter %s\n", tree, parent, c.authorLine, committerLine)
	if c.encoding != "" {
		fmt.Fprintf(&obj, "encoding %s\n", c.encoding)
	}
	obj.WriteByte('\n')
	obj.Write(c.message)
	if sign != nil {
		return g.SignAndWriteCommit(ctx, repoPath, nil, obj.Bytes(), sign)
	}
	out, err := g.repoCommand(repoPath, "hash-object", "-t", "commit", "-w", "--stdin").Stdin(&obj).Output(ctx)
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(string(out))
	if !IsSHA(sha) {
		return "", fmt.Errorf("git: unexpected hash-object output %q", out)
	}
	return sha, nil
}

// CommitAuthors returns the distinct authors (by name and email) of the
// non-merge commits of head that base lacks, oldest first, each with the
// time of their first commit there: the Co-authored-by list of a squash.
func (g *Git) CommitAuthors(ctx context.Context, repoPath, base, head string) ([]Signature, error) {
	if err := checkRevision(base); err != nil {
		return nil, err
	}
	if err := checkRevision(head); err != nil {
		return nil, err
	}
	out, err := g.repoCommand(repoPath, "log", "--no-merges", "--reverse", "--date=raw", "--format=tformat:%an%x00%ae%x00%ad%x00").
		EndOfOptions().Values(base + ".." + head).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	var authors []Signature
	seen := map[string]bool{}
	rr := newRecordReader(out, 3)
	for {
		f, err := rr.next()
		if errors.Is(err, io.EOF) {
			return authors, nil
		}
		if err != nil {
			return nil, revListNotFound(err)
		}
		key := f[0] + "\x00" + f[1]
		if !seen[key] {
			seen[key] = true
			authors = append(authors, signatureFields(f[0], f[1], f[2]))
		}
	}
}

// checkFullRef returns ErrInvalidArgument unless ref is a valid full
// reference name ("refs/...").
func checkFullRef(ref string) error {
	if !ValidRefName(ref) || !strings.HasPrefix(ref, "refs/") {
		return fmt.Errorf("%w: reference name %q", ErrInvalidArgument, ref)
	}
	return nil
}

// UpdateRef points the full reference ref at newSHA if it still points at
// oldSHA ("" = it must not exist), atomically. ErrConflict when it moved
// (or, with oldSHA "", exists: then the error also matches
// ErrAlreadyExists).
func (g *Git) UpdateRef(ctx context.Context, repoPath, ref, newSHA, oldSHA string) error {
	if err := checkFullRef(ref); err != nil {
		return err
	}
	if !IsSHA(newSHA) || (oldSHA != "" && !IsSHA(oldSHA)) {
		return fmt.Errorf("%w: object names %q, %q", ErrInvalidArgument, newSHA, oldSHA)
	}
	err := g.updateRefs(ctx, repoPath, refUpdate{ref: ref, newSHA: newSHA, oldSHA: oldSHA, create: oldSHA == ""})
	if errors.Is(err, ErrAlreadyExists) {
		return fmt.Errorf("%w: %w", ErrConflict, err)
	}
	return err
}

// DeleteRef deletes the full reference ref; a missing one is no error.
func (g *Git) DeleteRef(ctx context.Context, repoPath, ref string) error {
	if err := checkFullRef(ref); err != nil {
		return err
	}
	return g.updateRefs(ctx, repoPath, refUpdate{ref: ref})
}

// FetchRef copies the full reference srcRef of the repository at
// fromRepoPath (a local path) to dstRef of repoPath, with the objects it
// needs, replacing dstRef whatever it pointed to (e.g. a fork's branch to
// refs/pull/7/head). No tags and no FETCH_HEAD are written. ErrNotFound
// when srcRef does not exist.
func (g *Git) FetchRef(ctx context.Context, repoPath, fromRepoPath, srcRef, dstRef string) error {
	if err := checkFullRef(srcRef); err != nil {
		return err
	}
	if err := checkFullRef(dstRef); err != nil {
		return err
	}
	from, err := absRepo(fromRepoPath)
	if err != nil {
		return err
	}
	err = g.repoCommand(repoPath, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules").
		EndOfOptions().Values(from, "+"+srcRef+":"+dstRef).Run(ctx)
	if stderrHas(err, "couldn't find remote ref", "does not appear to be a git repository") {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}
