package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LastCommits finds, for each of paths (clean tree paths, see
// CleanTreePath), the newest commit reachable from rev that changed it or,
// for a directory, anything below it. Only history touching dir ("" for the
// whole tree) is walked, so dir must contain every path (for a directory
// listing: the directory; for one file: the file itself). It reads one
// "git log" stream and stops it as soon as every path is resolved. Paths
// no commit touched are missing from the result.
func (g *Git) LastCommits(ctx context.Context, repoPath, rev, dir string, paths []string) (map[string]string, error) {
	if err := checkRevision(rev); err != nil {
		return nil, err
	}
	d, err := CleanTreePath(dir)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		c, err := CleanTreePath(p)
		if err != nil {
			return nil, err
		}
		want[c] = true
	}
	found := make(map[string]string, len(want))
	if len(want) == 0 {
		return found, nil
	}
	var spec []string
	if d != "" {
		spec = append(spec, d)
	}
	// Every commit starts with a token "/<sha>"; file names are relative
	// paths, which never start with '/'. The first name after a header
	// carries the newline that ends the header.
	out, err := g.repoCommand(repoPath, "log", "-z", "--format=tformat:/%H", "--name-only", "--no-renames", "--no-color").
		EndOfOptions().Values(rev).Paths(spec...).Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	br := bufio.NewReaderSize(out, 64<<10)
	var commit string
	afterHeader := false
	for len(found) < len(want) {
		tok, err := br.ReadString(0)
		if err != nil {
			if errors.Is(err, io.EOF) && tok == "" {
				return found, nil
			}
			if errors.Is(err, io.EOF) {
				return nil, errors.New("git: truncated log output")
			}
			if stderrHas(err, "unknown revision", "bad revision", "ambiguous argument") {
				return nil, fmt.Errorf("%w: revision %q", ErrNotFound, rev)
			}
			return nil, err
		}
		tok = tok[:len(tok)-1]
		if afterHeader {
			tok = strings.TrimPrefix(tok, "\n")
			afterHeader = false
		}
		if sha, ok := strings.CutPrefix(tok, "/"); ok {
			if !IsSHA(sha) {
				return nil, fmt.Errorf("git: unexpected log output %q", tok)
			}
			commit, afterHeader = sha, true
			continue
		}
		if tok == "" || commit == "" {
			continue
		}
		// The changed file, and every directory above it, were last
		// changed here unless a newer commit already claimed them.
		for p := tok; ; {
			if want[p] {
				if _, ok := found[p]; !ok {
					found[p] = commit
				}
			}
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return found, nil
}
