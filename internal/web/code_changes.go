package web

import (
	"context"

	"github.com/cairn-forge/cairn/internal/git"
)

// codeChangesCacheLines bounds the cache of changes: this many diff lines
// (and listed commits) in all.
const codeChangesCacheLines = 200_000

// codeChanges is what a commit, or a comparison of two commits, changed:
// the commits (comparisons only), the line counts and the diff. It depends
// on the commits alone, so it is cached by their names.
type codeChanges struct {
	// Unrelated reports two histories without a common commit, Equal a
	// head with nothing its base lacks (comparisons only).
	Unrelated, Equal bool
	MergeBase        string
	Commits          []git.Commit
	Total            int
	Stats            git.DiffStats
	Diff             *Diff
}

// weight is the cache weight: the diff's lines and the commits.
func (ch *codeChanges) weight() int {
	n := 1 + len(ch.Commits) + len(ch.Stats.Files)
	if ch.Diff != nil {
		for _, f := range ch.Diff.Files {
			for _, h := range f.Hunks {
				n += len(h.Lines)
			}
		}
	}
	return n
}

// commitChanges is what commit (a full name) changed against its first
// parent.
func (c *codePages) commitChanges(ctx context.Context, repoPath, commit string) (*codeChanges, error) {
	key := "commit\x00" + commit
	if ch, ok := c.changesCache.get(key); ok {
		return ch, nil
	}
	stats, err := c.h.Git.CommitStats(ctx, repoPath, commit)
	if err != nil {
		return nil, err
	}
	d, err := c.h.renderableDiff(ctx, repoPath, "", commit, diffOptions{})
	if err != nil {
		return nil, err
	}
	ch := &codeChanges{Stats: stats, Diff: d}
	c.changesCache.put(key, ch, ch.weight())
	return ch, nil
}

// compareChanges is what head (a full commit name) has that base lacks:
// its commits (the newest codeCompareMaxCommits) and the diff from the
// merge base.
func (c *codePages) compareChanges(ctx context.Context, repoPath, base, head string) (*codeChanges, error) {
	key := "compare\x00" + base + "\x00" + head
	if ch, ok := c.changesCache.get(key); ok {
		return ch, nil
	}
	ch := &codeChanges{}
	mb, err := c.h.Git.MergeBase(ctx, repoPath, base, head)
	if err != nil {
		return nil, err
	}
	ch.MergeBase = mb
	switch {
	case mb == "":
		ch.Unrelated = true
	case mb == head:
		ch.Equal = true
	default:
		if ch.Commits, ch.Total, err = c.commitsBetween(ctx, repoPath, base, head, codeCompareMaxCommits); err != nil {
			return nil, err
		}
		if ch.Total == 0 {
			ch.Equal = true
			break
		}
		if ch.Stats, err = c.h.Git.DiffStats(ctx, repoPath, mb, head); err != nil {
			return nil, err
		}
		if ch.Diff, err = c.h.renderableDiff(ctx, repoPath, mb, head, diffOptions{}); err != nil {
			return nil, err
		}
	}
	c.changesCache.put(key, ch, ch.weight())
	return ch, nil
}
