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

// CommitObject is a commit read from its raw object, with its signature.
type CommitObject struct {
	Commit
	// Signature is the armored signature of a signed commit (the gpgsig
	// header, OpenPGP, SSH or X.509), "" for an unsigned one.
	Signature string
	// Payload is the object without its signature header: what the
	// signature signs. Set only for signed commits.
	Payload string
}

// ReadCommits reads the commits revs name (tags are peeled), in order, with
// one git process for all of them. A revision that names no commit fails the
// whole call with ErrNotFound.
func (g *Git) ReadCommits(ctx context.Context, repoPath string, revs []string) ([]CommitObject, error) {
	return g.ReadCommitsEnv(ctx, repoPath, nil, revs)
}

// readBatchObject reads one answer of cat-file --batch: the object's name,
// type and content, or type "missing" (and no content) for a name that
// resolves to nothing.
func readBatchObject(br *bufio.Reader) (sha, typ string, data []byte, err error) {
	header, err := br.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			return "", "", nil, errors.New("git: truncated cat-file output")
		}
		return "", "", nil, err
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return "", "missing", nil, nil
	}
	f := strings.Fields(header)
	if len(f) != 3 || !IsSHA(f[0]) {
		return "", "", nil, fmt.Errorf("git: unexpected cat-file header %q", header)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return "", "", nil, fmt.Errorf("git: unexpected cat-file header %q", header)
	}
	data = make([]byte, size+1)
	if _, err := io.ReadFull(br, data); err != nil {
		return "", "", nil, fmt.Errorf("git: truncated object %s: %w", f[0], err)
	}
	return f[0], f[1], data[:size], nil
}

// splitCommitSignature separates the signature headers (gpgsig,
// gpgsig-sha256 and their continuation lines) from a commit object.
func splitCommitSignature(data []byte) (string, []byte) {
	var sig strings.Builder
	var payload bytes.Buffer
	inSig := false
	rest := data
	for len(rest) > 0 {
		line, tail, found := bytes.Cut(rest, []byte{'\n'})
		if len(line) == 0 && found {
			// End of the headers: the message follows unchanged.
			payload.Write(rest)
			break
		}
		switch {
		case bytes.HasPrefix(line, []byte("gpgsig ")) || bytes.HasPrefix(line, []byte("gpgsig-sha256 ")):
			inSig = true
			_, v, _ := bytes.Cut(line, []byte{' '})
			sig.Write(v)
			sig.WriteByte('\n')
		case inSig && bytes.HasPrefix(line, []byte(" ")):
			sig.Write(line[1:])
			sig.WriteByte('\n')
		default:
			inSig = false
			payload.Write(line)
			if found {
				payload.WriteByte('\n')
			}
		}
		rest = tail
	}
	return sig.String(), payload.Bytes()
}

// RevListOptions selects commits for RevList and CountCommits.
type RevListOptions struct {
	// Revs are where history starts (at least one).
	Revs []string
	// Not excludes the commits reachable from these revisions.
	Not []string
	// Path limits history to commits touching this path ("" for all); it
	// must be a clean tree path (see CleanTreePath).
	Path string
	// Skip and Limit select a page; Limit <= 0 means no limit.
	Skip  int
	Limit int
}

// revListCmd builds a rev-list command for opts after validating it.
func (g *Git) revListCmd(repoPath string, opts RevListOptions, args ...Arg) (*Cmd, error) {
	if len(opts.Revs) == 0 {
		return nil, fmt.Errorf("%w: no revision", ErrInvalidArgument)
	}
	var paths []string
	if opts.Path != "" {
		p, err := CleanTreePath(opts.Path)
		if err != nil {
			return nil, err
		}
		if p != "" {
			paths = append(paths, p)
		}
	}
	cmd := g.repoCommand(repoPath, "rev-list", args...)
	if opts.Skip > 0 {
		cmd.Option("--skip", strconv.Itoa(opts.Skip))
	}
	if opts.Limit > 0 {
		cmd.Option("--max-count", strconv.Itoa(opts.Limit))
	}
	cmd.EndOfOptions()
	for _, rev := range opts.Revs {
		if err := checkRevision(rev); err != nil {
			return nil, err
		}
		cmd.Values(rev)
	}
	for _, rev := range opts.Not {
		if err := checkRevision(rev); err != nil {
			return nil, err
		}
		cmd.Values("^" + rev)
	}
	return cmd.Paths(paths...), nil
}

// RevList returns the names of a page of the commits opts selects, newest
// first (git log's order). Revisions that name nothing are ErrNotFound.
func (g *Git) RevList(ctx context.Context, repoPath string, opts RevListOptions) ([]string, error) {
	cmd, err := g.revListCmd(repoPath, opts)
	if err != nil {
		return nil, err
	}
	out, err := cmd.Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	var shas []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			shas = append(shas, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, revListNotFound(err)
	}
	return shas, nil
}

// CountCommits counts the commits opts selects (Skip and Limit ignored).
func (g *Git) CountCommits(ctx context.Context, repoPath string, opts RevListOptions) (int, error) {
	opts.Skip, opts.Limit = 0, 0
	cmd, err := g.revListCmd(repoPath, opts, "--count")
	if err != nil {
		return 0, err
	}
	out, err := cmd.Output(ctx)
	if err != nil {
		return 0, revListNotFound(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("git: unexpected rev-list output %q", out)
	}
	return n, nil
}

// revListNotFound maps rev-list's answer to an unknown revision to ErrNotFound.
func revListNotFound(err error) error {
	if stderrHas(err, "bad revision", "unknown revision", "ambiguous argument", "Invalid revision range") {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// diffTreeInput lists "<commit> <first parent>" (or "<commit>" for a root
// commit) lines for diff-tree --stdin.
func diffTreeInput(commits []Commit) (*bytes.Buffer, error) {
	var in bytes.Buffer
	for _, c := range commits {
		if !IsSHA(c.SHA) {
			return nil, fmt.Errorf("%w: commit name %q", ErrInvalidArgument, c.SHA)
		}
		in.WriteString(c.SHA)
		if len(c.Parents) > 0 {
			if !IsSHA(c.Parents[0]) {
				return nil, fmt.Errorf("%w: commit name %q", ErrInvalidArgument, c.Parents[0])
			}
			in.WriteString(" " + c.Parents[0])
		}
		in.WriteByte('\n')
	}
	return &in, nil
}

// nulTokens reads NUL-terminated tokens.
type nulTokens struct{ br *bufio.Reader }

func (t nulTokens) next() (string, error) {
	s, err := t.br.ReadString(0)
	if err != nil {
		if errors.Is(err, io.EOF) && s != "" {
			return "", errors.New("git: truncated diff-tree output")
		}
		return "", err
	}
	return strings.TrimLeft(s[:len(s)-1], "\n"), nil
}

// CommitsNumstat returns the lines added and deleted by each commit compared
// with its first parent (or with nothing for a root commit), with rename
// detection, keyed by commit name: one git process for all commits.
func (g *Git) CommitsNumstat(ctx context.Context, repoPath string, commits []Commit) (map[string]DiffStats, error) {
	out := make(map[string]DiffStats, len(commits))
	err := g.diffTreeEach(ctx, repoPath, commits, []Arg{"-M", "--numstat", "--no-color", "--no-ext-diff", "--no-textconv"},
		func(sha string) {
			if _, ok := out[sha]; !ok {
				out[sha] = DiffStats{}
			}
		},
		func(tok *nulTokens, current, s string) error {
			parts := strings.SplitN(s, "\t", 3)
			if len(parts) != 3 {
				return fmt.Errorf("git: malformed numstat entry %q", s)
			}
			fs := FileStat{Path: parts[2]}
			if parts[0] == "-" && parts[1] == "-" {
				fs.Binary = true
			} else {
				fs.Additions, _ = strconv.Atoi(parts[0])
				fs.Deletions, _ = strconv.Atoi(parts[1])
			}
			if fs.Path == "" {
				var err error
				if fs.OldPath, err = tok.next(); err != nil {
					return err
				}
				if fs.Path, err = tok.next(); err != nil {
					return err
				}
			}
			st := out[current]
			st.Additions += fs.Additions
			st.Deletions += fs.Deletions
			st.Files = append(st.Files, fs)
			out[current] = st
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// diffTreeEach runs one `git diff-tree --stdin` over commits with the given
// output options and walks its NUL-separated output: onCommit for each
// commit header, onEntry for each entry (which may read more tokens).
func (g *Git) diffTreeEach(ctx context.Context, repoPath string, commits []Commit, opts []Arg,
	onCommit func(sha string), onEntry func(tok *nulTokens, current, s string) error) error {
	if len(commits) == 0 {
		return nil
	}
	in, err := diffTreeInput(commits)
	if err != nil {
		return err
	}
	args := append([]Arg{"--stdin", "-r", "--root", "--always", "-z"}, opts...)
	r, err := g.repoCommand(repoPath, "diff-tree", args...).Stdin(in).Stream(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	tok := &nulTokens{bufio.NewReaderSize(r, 64<<10)}
	current := ""
	for {
		s, err := tok.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if IsSHA(s) {
			current = s
			onCommit(s)
			continue
		}
		if current == "" || s == "" {
			return fmt.Errorf("git: malformed diff-tree entry %q", s)
		}
		if err := onEntry(tok, current, s); err != nil {
			return err
		}
	}
}

// FileStatus is a file a commit added ("A"), deleted ("D"), modified ("M")
// or changed the type of ("T"), without rename detection.
type FileStatus struct {
	Status string
	Path   string
}

// CommitsFiles returns the files each commit changed compared with its first
// parent (or all its files for a root commit), keyed by commit name: one git
// process for all commits.
func (g *Git) CommitsFiles(ctx context.Context, repoPath string, commits []Commit) (map[string][]FileStatus, error) {
	out := make(map[string][]FileStatus, len(commits))
	err := g.diffTreeEach(ctx, repoPath, commits, []Arg{"--no-renames", "--name-status"},
		func(sha string) {
			if _, ok := out[sha]; !ok {
				out[sha] = []FileStatus{}
			}
		},
		func(tok *nulTokens, current, s string) error {
			p, err := tok.next()
			if err != nil {
				return err
			}
			out[current] = append(out[current], FileStatus{Status: s[:1], Path: p})
			return nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}
