package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ForceRef points ref at commit sha whatever it pointed at before (or
// creates it): for references Cairn alone maintains, such as
// refs/pull/N/head.
func (g *Git) ForceRef(ctx context.Context, repoPath, ref, sha string) error {
	if !strings.HasPrefix(ref, "refs/") || !ValidRefName(strings.TrimPrefix(ref, "refs/")) || !IsSHA(sha) {
		return fmt.Errorf("%w: ref %q at %q", ErrInvalidArgument, ref, sha)
	}
	return g.repoCommand(repoPath, "update-ref", "--no-deref").EndOfOptions().Values(ref, sha).Run(ctx)
}

// RefTips returns the object each of refs (full names) points at, read
// from the repository's ref store directly (loose ref files, then
// packed-refs), without starting git: a list page of pull requests reads
// its branch tips this way. Refs that do not exist are left out; symbolic
// refs are not followed. Only the files backend is read, which is what
// Cairn's repositories use.
func (g *Git) RefTips(ctx context.Context, repoPath string, refs []string) (map[string]string, error) {
	out := map[string]string{}
	missing := map[string]bool{}
	for _, r := range refs {
		if !strings.HasPrefix(r, "refs/") || !ValidRefName(r) {
			return nil, fmt.Errorf("%w: ref %q", ErrInvalidArgument, r)
		}
		b, err := os.ReadFile(filepath.Join(repoPath, filepath.FromSlash(r)))
		switch {
		case err == nil:
			if sha := strings.TrimSpace(string(b)); IsSHA(sha) {
				out[r] = sha
			}
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR):
			missing[r] = true
		default:
			return nil, err
		}
	}
	if len(missing) == 0 {
		return out, ctx.Err()
	}
	f, err := os.Open(filepath.Join(repoPath, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() && len(missing) > 0 {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		sha, name, ok := strings.Cut(line, " ")
		if ok && missing[name] && IsSHA(sha) {
			out[name] = sha
			delete(missing, name)
		}
	}
	return out, sc.Err()
}
