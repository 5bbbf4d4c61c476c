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

// Object types.
const (
	TypeCommit = "commit"
	TypeTree   = "tree"
	TypeBlob   = "blob"
	TypeTag    = "tag"
)

// The empty tree of each object format.
const (
	emptyTreeSHA1   = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	emptyTreeSHA256 = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
)

// emptyTreeLike returns the empty tree in the object format of sha.
func emptyTreeLike(sha string) string {
	if len(sha) == 64 {
		return emptyTreeSHA256
	}
	return emptyTreeSHA1
}

// ObjectInfo is an object's name, type and size.
type ObjectInfo struct {
	SHA  string
	Type string
	Size int64
}

// Stat resolves rev (any revision expression, e.g. a SHA, "main",
// "main:docs/README.md") to its object's name, type and size. ErrNotFound
// when it names nothing.
func (g *Git) Stat(ctx context.Context, repoPath, rev string) (ObjectInfo, error) {
	if err := checkRevision(rev); err != nil {
		return ObjectInfo{}, err
	}
	// The name goes in on stdin, never on the command line.
	out, err := g.repoCommand(repoPath, "cat-file", "--batch-check").Stdin(strings.NewReader(rev + "\n")).Output(ctx)
	if err != nil {
		return ObjectInfo{}, err
	}
	line := strings.TrimSuffix(string(out), "\n")
	if strings.HasSuffix(line, " missing") || strings.HasSuffix(line, " ambiguous") {
		return ObjectInfo{}, fmt.Errorf("%w: object %q", ErrNotFound, rev)
	}
	f := strings.Fields(line)
	if len(f) != 3 || !IsSHA(f[0]) {
		return ObjectInfo{}, fmt.Errorf("git: unexpected cat-file output %q", line)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("git: unexpected cat-file output %q", line)
	}
	return ObjectInfo{SHA: f[0], Type: f[1], Size: size}, nil
}

// ObjectType returns the type of the object rev names ("commit", "tree",
// "blob", "tag").
func (g *Git) ObjectType(ctx context.Context, repoPath, rev string) (string, error) {
	info, err := g.Stat(ctx, repoPath, rev)
	return info.Type, err
}

// BlobSize returns the size of the blob rev names; ErrNotFound when it names
// no blob.
func (g *Git) BlobSize(ctx context.Context, repoPath, rev string) (int64, error) {
	info, err := g.statBlob(ctx, repoPath, rev)
	return info.Size, err
}

// statBlob is Stat requiring a blob.
func (g *Git) statBlob(ctx context.Context, repoPath, rev string) (ObjectInfo, error) {
	info, err := g.Stat(ctx, repoPath, rev)
	if err != nil {
		return info, err
	}
	if info.Type != TypeBlob {
		return info, fmt.Errorf("%w: %q is a %s, not a blob", ErrNotFound, rev, info.Type)
	}
	return info, nil
}

// ReadBlob streams the content of the blob rev names and returns its size.
// The caller must Close the reader.
func (g *Git) ReadBlob(ctx context.Context, repoPath, rev string) (io.ReadCloser, int64, error) {
	info, err := g.statBlob(ctx, repoPath, rev)
	if err != nil {
		return nil, 0, err
	}
	r, err := g.repoCommand(repoPath, "cat-file", "blob").EndOfOptions().Values(info.SHA).Stream(ctx)
	if err != nil {
		return nil, 0, err
	}
	return r, info.Size, nil
}

// ErrBlobTooLarge refuses a blob larger than ReadSmallBlob's limit.
var ErrBlobTooLarge = errors.New("git: file too large")

// ReadSmallBlob reads the blob rev names whole (a template, a
// configuration, a license): ErrBlobTooLarge when it has more than max bytes.
func (g *Git) ReadSmallBlob(ctx context.Context, repoPath, rev string, max int64) ([]byte, error) {
	info, err := g.statBlob(ctx, repoPath, rev)
	if err != nil {
		return nil, err
	}
	if info.Size > max {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", ErrBlobTooLarge, info.Size, max)
	}
	r, err := g.repoCommand(repoPath, "cat-file", "blob").EndOfOptions().Values(info.SHA).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, max))
}

// GetCommit reads the commit rev resolves to (tags are peeled). ErrNotFound
// when rev names no commit.
func (g *Git) GetCommit(ctx context.Context, repoPath, rev string) (Commit, error) {
	if err := checkRevision(rev); err != nil {
		return Commit{}, err
	}
	out, err := g.repoCommand(repoPath, "cat-file", "--batch").Stdin(strings.NewReader(rev + "^{commit}\n")).Output(ctx)
	if err != nil {
		return Commit{}, err
	}
	header, body, _ := bytes.Cut(out, []byte{'\n'})
	f := strings.Fields(string(header))
	if len(f) != 3 || f[1] != TypeCommit || !IsSHA(f[0]) {
		return Commit{}, fmt.Errorf("%w: commit %q", ErrNotFound, rev)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size > len(body) {
		return Commit{}, fmt.Errorf("git: truncated commit %s", f[0])
	}
	return parseCommit(f[0], body[:size])
}

// LogOptions selects commits for Log.
type LogOptions struct {
	// Rev is where history starts; default "HEAD".
	Rev string
	// Path limits history to commits touching this path (a file or a
	// directory); "" for all.
	Path string
	// Skip and Limit select a page; Limit <= 0 means no limit.
	Skip  int
	Limit int
}

// logFormat prints every commit as 10 NUL-terminated fields and a newline.
const (
	logFormat = "--format=tformat:%H%x00%T%x00%P%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B%x00"
	logFields = 10
)

// Log returns a page of the history reachable from opts.Rev (newest first,
// as git log orders it) and the total number of commits in that history
// (rev-list --count with the same path filter).
func (g *Git) Log(ctx context.Context, repoPath string, opts LogOptions) ([]Commit, int, error) {
	rev := opts.Rev
	if rev == "" {
		rev = "HEAD"
	}
	sha, err := g.ResolveCommit(ctx, repoPath, rev)
	if err != nil {
		return nil, 0, err
	}
	var paths []string
	if opts.Path != "" {
		p, err := CleanTreePath(opts.Path)
		if err != nil {
			return nil, 0, err
		}
		if p != "" {
			paths = append(paths, p)
		}
	}

	cmd := g.repoCommand(repoPath, "log", logFormat, "--date=raw", "--no-color")
	if opts.Skip > 0 {
		cmd.Option("--skip", strconv.Itoa(opts.Skip))
	}
	if opts.Limit > 0 {
		cmd.Option("--max-count", strconv.Itoa(opts.Limit))
	}
	out, err := cmd.EndOfOptions().Values(sha).Paths(paths...).Stream(ctx)
	if err != nil {
		return nil, 0, err
	}
	var commits []Commit
	rr := newRecordReader(out, logFields)
	for {
		f, err := rr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.Close()
			return nil, 0, err
		}
		commits = append(commits, Commit{
			SHA:       f[0],
			Tree:      f[1],
			Parents:   splitParents(f[2]),
			Author:    signatureFields(f[3], f[4], f[5]),
			Committer: signatureFields(f[6], f[7], f[8]),
			Message:   f[9],
		})
	}
	out.Close()

	countOut, err := g.repoCommand(repoPath, "rev-list", "--count").EndOfOptions().Values(sha).Paths(paths...).Output(ctx)
	if err != nil {
		return nil, 0, err
	}
	total, err := strconv.Atoi(strings.TrimSpace(string(countOut)))
	if err != nil {
		return nil, 0, fmt.Errorf("git: unexpected rev-list output %q", countOut)
	}
	return commits, total, nil
}

// FileStat is the change of one file in a diff.
type FileStat struct {
	Path string
	// OldPath is the previous path of a renamed file, else "".
	OldPath   string
	Additions int
	Deletions int
	// Binary reports a binary file (no line counts).
	Binary bool
}

// DiffStats sums up a diff.
type DiffStats struct {
	Additions int
	Deletions int
	Files     []FileStat
}

// CommitStats returns the lines added and deleted by the commit rev resolves
// to, compared with its first parent (or with nothing for a root commit),
// with rename detection.
func (g *Git) CommitStats(ctx context.Context, repoPath, rev string) (DiffStats, error) {
	c, err := g.GetCommit(ctx, repoPath, rev)
	if err != nil {
		return DiffStats{}, err
	}
	base := emptyTreeLike(c.SHA)
	if len(c.Parents) > 0 {
		base = c.Parents[0]
	}
	return g.DiffStats(ctx, repoPath, base, c.SHA)
}

// DiffStats returns the lines added and deleted between two tree-ish
// revisions, with rename detection.
func (g *Git) DiffStats(ctx context.Context, repoPath, from, to string) (DiffStats, error) {
	if err := checkRevision(from); err != nil {
		return DiffStats{}, err
	}
	if err := checkRevision(to); err != nil {
		return DiffStats{}, err
	}
	out, err := g.repoCommand(repoPath, "diff", "--numstat", "-z", "-M", "--no-color", "--no-ext-diff", "--no-textconv").
		EndOfOptions().Values(from, to).Stream(ctx)
	if err != nil {
		return DiffStats{}, err
	}
	defer out.Close()
	return parseNumstat(out)
}

// parseNumstat parses "diff --numstat -z": "add\tdel\tpath\0" per file, or
// "add\tdel\t\0old\0new\0" for a rename; "-" counts mark binary files.
func parseNumstat(r io.Reader) (DiffStats, error) {
	var st DiffStats
	br := bufio.NewReader(r)
	readTok := func() (string, error) {
		s, err := br.ReadString(0)
		if err != nil {
			if errors.Is(err, io.EOF) && s != "" {
				return "", errors.New("git: truncated numstat output")
			}
			return "", err
		}
		return s[:len(s)-1], nil
	}
	for {
		tok, err := readTok()
		if errors.Is(err, io.EOF) {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		tok = strings.TrimLeft(tok, "\n")
		parts := strings.SplitN(tok, "\t", 3)
		if len(parts) != 3 {
			return st, fmt.Errorf("git: malformed numstat entry %q", tok)
		}
		fs := FileStat{Path: parts[2]}
		if parts[0] == "-" && parts[1] == "-" {
			fs.Binary = true
		} else {
			fs.Additions, _ = strconv.Atoi(parts[0])
			fs.Deletions, _ = strconv.Atoi(parts[1])
		}
		if fs.Path == "" {
			if fs.OldPath, err = readTok(); err != nil {
				return st, err
			}
			if fs.Path, err = readTok(); err != nil {
				return st, err
			}
		}
		st.Additions += fs.Additions
		st.Deletions += fs.Deletions
		st.Files = append(st.Files, fs)
	}
}

// TreeEntry is one entry of a tree.
type TreeEntry struct {
	// Mode is git's octal mode: "100644", "100755", "120000" (symlink),
	// "040000" (tree), "160000" (submodule).
	Mode string
	// Type is "blob", "tree" or "commit" (submodule).
	Type string
	SHA  string
	// Size is the blob size, -1 for other types.
	Size int64
	// Path is the path from the root of the tree; Name its last component.
	Path string
	Name string
}

// IsDir reports a tree entry.
func (e TreeEntry) IsDir() bool { return e.Type == TypeTree }

// IsSymlink reports a symbolic link.
func (e TreeEntry) IsSymlink() bool { return e.Mode == "120000" }

// IsSubmodule reports a submodule (gitlink).
func (e TreeEntry) IsSubmodule() bool { return e.Type == TypeCommit }

// IsExecutable reports an executable file.
func (e TreeEntry) IsExecutable() bool { return e.Mode == "100755" }

// parseTreeEntry parses one "ls-tree -l -z" entry:
// "<mode> <type> <sha> <size>\t<path>".
func parseTreeEntry(s, prefix string) (TreeEntry, error) {
	meta, p, ok := strings.Cut(s, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 4 {
		return TreeEntry{}, fmt.Errorf("git: malformed ls-tree entry %q", s)
	}
	e := TreeEntry{Mode: f[0], Type: f[1], SHA: f[2], Size: -1, Path: p}
	if f[3] != "-" {
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return TreeEntry{}, fmt.Errorf("git: malformed ls-tree entry %q", s)
		}
		e.Size = n
	}
	if prefix != "" {
		e.Path = prefix + "/" + e.Path
	}
	e.Name = e.Path[strings.LastIndexByte(e.Path, '/')+1:]
	return e, nil
}

// treeNotFound maps ls-tree's answer to a bad revision to ErrNotFound.
func treeNotFound(err error, rev string) error {
	if stderrHas(err, "Not a valid object name", "not a tree object", "unknown revision") {
		return fmt.Errorf("%w: tree %q: %w", ErrNotFound, rev, err)
	}
	return err
}

// GetTreeEntry returns the entry at path in the tree of rev. For the root
// ("") it returns a tree entry with an empty path. ErrNotFound when rev or
// path do not exist.
func (g *Git) GetTreeEntry(ctx context.Context, repoPath, rev, path string) (TreeEntry, error) {
	if err := checkRevision(rev); err != nil {
		return TreeEntry{}, err
	}
	p, err := CleanTreePath(path)
	if err != nil {
		return TreeEntry{}, err
	}
	if p == "" {
		info, err := g.Stat(ctx, repoPath, rev+"^{tree}")
		if err != nil {
			return TreeEntry{}, err
		}
		return TreeEntry{Mode: "040000", Type: TypeTree, SHA: info.SHA, Size: -1}, nil
	}
	out, err := g.repoCommand(repoPath, "ls-tree", "-l", "-z").EndOfOptions().Values(rev).Paths(p).Output(ctx)
	if err != nil {
		return TreeEntry{}, treeNotFound(err, rev)
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		e, err := parseTreeEntry(string(rec), "")
		if err != nil {
			return TreeEntry{}, err
		}
		if e.Path == p {
			return e, nil
		}
	}
	return TreeEntry{}, fmt.Errorf("%w: path %q at %q", ErrNotFound, p, rev)
}

// WalkTree streams the entries of directory dir ("" for the root) in the tree
// of rev to fn: its direct entries, or with recursive every entry below it
// (trees included, each before its contents). Paths are from the root. It
// stops at the first error fn returns and returns it. ErrNotFound when rev or
// dir do not exist or dir is not a directory.
func (g *Git) WalkTree(ctx context.Context, repoPath, rev, dir string, recursive bool, fn func(TreeEntry) error) error {
	if err := checkRevision(rev); err != nil {
		return err
	}
	d, err := CleanTreePath(dir)
	if err != nil {
		return err
	}
	treeish := rev
	if d != "" {
		e, err := g.GetTreeEntry(ctx, repoPath, rev, d)
		if err != nil {
			return err
		}
		if !e.IsDir() {
			return fmt.Errorf("%w: %q is not a directory", ErrNotFound, d)
		}
		treeish = e.SHA
	}
	cmd := g.repoCommand(repoPath, "ls-tree", "-l", "-z")
	if recursive {
		cmd.Args("-r", "-t")
	}
	out, err := cmd.EndOfOptions().Values(treeish).Stream(ctx)
	if err != nil {
		return err
	}
	defer out.Close()
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		s, err := br.ReadString(0)
		if err != nil {
			if errors.Is(err, io.EOF) && s == "" {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return errors.New("git: truncated ls-tree output")
			}
			return treeNotFound(err, rev)
		}
		e, err := parseTreeEntry(s[:len(s)-1], d)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// ListTree is WalkTree collecting the entries.
func (g *Git) ListTree(ctx context.Context, repoPath, rev, dir string, recursive bool) ([]TreeEntry, error) {
	var entries []TreeEntry
	err := g.WalkTree(ctx, repoPath, rev, dir, recursive, func(e TreeEntry) error {
		entries = append(entries, e)
		return nil
	})
	return entries, err
}
