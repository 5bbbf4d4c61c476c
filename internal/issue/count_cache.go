package issue

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-forge/cairn/internal/db"
)

// countCache remembers the totals of keyword searches on PostgreSQL, where
// counting a common word means visiting most pages of the issue table (a
// word found in 39,000 of 100,000 issues takes ~20 ms to count; the page of
// results itself ~2 ms). An entry holds with the sum of the search versions
// of the searched repositories, which triggers raise whenever an issue of
// theirs is added, removed or changes text, state or kind (migration 9):
// while the sum is unchanged, so is the total.
type countCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]countEntry
}

type countEntry struct {
	stamp int64 // sum of the repositories' search versions when counted
	total int64
}

// maxCachedCounts bounds the searches remembered; beyond it, an arbitrary
// entry makes room.
const maxCachedCounts = 4096

func newCountCache(max int) *countCache {
	return &countCache{max: max, entries: make(map[string]countEntry)}
}

func (c *countCache) get(key string, stamp int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e.total, ok && e.stamp == stamp
}

func (c *countCache) put(key string, stamp, total int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = countEntry{stamp: stamp, total: total}
}

// cachedCountRepos returns the repositories a keyword search of o is
// confined to, when its total may be remembered: o filters on nothing but
// repositories named by id, kind, state and the keyword, all of which the
// search versions follow. Filters on labels, people, milestones or times
// change without moving a version, and are always counted.
func (o ListOptions) cachedCountRepos() ([]int64, bool) {
	if strings.TrimSpace(o.Keyword) == "" || o.RepoCond != "" || len(o.LabelIDs) > 0 || o.NoLabel || len(o.MilestoneIDs) > 0 ||
		o.NoMilestone || o.AssigneeID != 0 || o.PosterID != 0 || o.MentionedID != 0 || !o.Since.IsZero() || !o.Before.IsZero() || o.Pinned {
		return nil, false
	}
	ids := slices.Clone(o.RepoIDs)
	if o.UnitRepos != nil {
		ids = append(append(ids, o.UnitRepos.Issues...), o.UnitRepos.Pulls...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return ids, len(ids) > 0 && len(ids) <= maxCachedCountRepos
}

// maxCachedCountRepos bounds the repositories whose versions a remembered
// total is checked against (one IN list); wider searches are counted.
const maxCachedCountRepos = 400

// countSearch returns the number of issues matching where and args, from
// the cache when o allows it and no searched repository changed since.
func (s *Service) countSearch(ctx context.Context, o ListOptions, where string, args []any) (int64, error) {
	const count = "SELECT COUNT(*) FROM issue i WHERE "
	repos, ok := o.cachedCountRepos()
	if s.counts == nil || !ok {
		return s.db.Count(ctx, count+where, args...)
	}
	// The stamp is read before counting: a change committed in between
	// leaves a stale stamp with the entry, and the next search counts again.
	var stamp int64
	if err := s.db.QueryRow(ctx, "SELECT COALESCE(SUM(search_version), 0) FROM repository WHERE id IN "+db.In(len(repos)),
		db.Int64Args(repos)...).Scan(&stamp); err != nil {
		return 0, err
	}
	key := where + "\x00" + fmt.Sprintf("%#v", args) // quoted: no two argument lists read alike
	if total, ok := s.counts.get(key, stamp); ok {
		return total, nil
	}
	total, err := s.db.Count(ctx, count+where, args...)
	if err != nil {
		return 0, err
	}
	s.counts.put(key, stamp, total)
	return total, nil
}
