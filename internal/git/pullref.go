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
	"sync"
	"syscall"
	"time"
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
	packed, err := g.packed.get(filepath.Join(repoPath, "packed-refs"))
	if err != nil {
		return nil, err
	}
	for name := range missing {
		if sha, ok := packed[name]; ok {
			out[name] = sha
		}
	}
	return out, ctx.Err()
}

// packedRefsCache keeps the parsed packed-refs files of the repositories
// read last, each valid while its file keeps its inode, size and
// modification time (git replaces the file by renaming a new one over it,
// so any rewrite shows). Listing pull requests reads many tips of one
// repository at a time, and refs are packed after pushes: without it each
// list would parse every branch of the repository.
type packedRefsCache struct {
	mu      sync.Mutex
	max     int
	clock   uint64 // counts uses, for eviction
	entries map[string]*packedRefsEntry
}

type packedRefsEntry struct {
	ino, size int64
	mod       time.Time
	refs      map[string]string // full ref name to object
	used      uint64
}

func newPackedRefsCache(max int) *packedRefsCache {
	return &packedRefsCache{max: max, entries: map[string]*packedRefsEntry{}}
}

// get returns the references of the packed-refs file at path (none when it
// does not exist); the map must not be changed.
func (c *packedRefsCache) get(path string) (map[string]string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ino int64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = int64(st.Ino)
	}
	c.mu.Lock()
	e := c.entries[path]
	if e != nil && e.ino == ino && e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
		e.used = c.tick()
		c.mu.Unlock()
		return e.refs, nil
	}
	c.mu.Unlock()
	refs, err := readPackedRefs(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		c.evictOldest()
	}
	c.entries[path] = &packedRefsEntry{ino: ino, size: fi.Size(), mod: fi.ModTime(), refs: refs, used: c.tick()}
	return refs, nil
}

// tick orders uses (the caller holds mu).
func (c *packedRefsCache) tick() uint64 {
	c.clock++
	return c.clock
}

// evictOldest drops the least recently used entry (the caller holds mu).
func (c *packedRefsCache) evictOldest() {
	oldest := ""
	var at uint64
	for p, e := range c.entries {
		if oldest == "" || e.used < at {
			oldest, at = p, e.used
		}
	}
	delete(c.entries, oldest)
}

// readPackedRefs parses a packed-refs file: "<sha> <ref>" lines; comments
// and peeled lines ("^<sha>") are skipped.
func readPackedRefs(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	refs := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		if sha, name, ok := strings.Cut(line, " "); ok && IsSHA(sha) {
			refs[name] = sha
		}
	}
	return refs, sc.Err()
}
