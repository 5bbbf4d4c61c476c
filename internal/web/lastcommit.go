package web

import (
	"container/list"
	"context"
	"strconv"
	"sync"
	"time"
)

// codeCache is a bounded least-recently-used map whose entries each weigh
// something (a number of rows, of bytes); the least recently used go when
// the total weight passes the bound. It is safe for concurrent use. It is
// meant for values derived from immutable git objects (keyed by a commit
// or blob name), which never need invalidating.
type codeCache[K comparable, V any] struct {
	mu     sync.Mutex
	max    int
	weight int
	order  *list.List // front: most recently used
	items  map[K]*list.Element
}

type codeCacheEntry[K comparable, V any] struct {
	key    K
	value  V
	weight int
}

// newCodeCache returns a cache holding at most max weight.
func newCodeCache[K comparable, V any](max int) *codeCache[K, V] {
	return &codeCache[K, V]{max: max, order: list.New(), items: map[K]*list.Element{}}
}

// get returns the value of key and marks it used.
func (c *codeCache[K, V]) get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*codeCacheEntry[K, V]).value, true
	}
	var zero V
	return zero, false
}

// put stores value under key; a value heavier than the whole cache is not
// kept.
func (c *codeCache[K, V]) put(key K, value V, weight int) {
	if weight < 1 {
		weight = 1
	}
	if weight > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		e := el.Value.(*codeCacheEntry[K, V])
		c.weight += weight - e.weight
		e.value, e.weight = value, weight
		c.order.MoveToFront(el)
	} else {
		c.items[key] = c.order.PushFront(&codeCacheEntry[K, V]{key: key, value: value, weight: weight})
		c.weight += weight
	}
	for c.weight > c.max {
		el := c.order.Back()
		e := el.Value.(*codeCacheEntry[K, V])
		c.order.Remove(el)
		delete(c.items, e.key)
		c.weight -= e.weight
	}
}

// drop forgets key (for the few values that are not derived from an
// immutable object, such as a repository's reference names).
func (c *codeCache[K, V]) drop(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.weight -= el.Value.(*codeCacheEntry[K, V]).weight
		c.order.Remove(el)
		delete(c.items, key)
	}
}

// codeLastCommit is the newest commit that changed an entry of a directory.
type codeLastCommit struct {
	SHA     string
	Subject string
	When    time.Time
}

// lastCommitCacheRows bounds the last-commit cache: this many directory
// entries in all (a few hundred bytes each).
const lastCommitCacheRows = 200_000

// lastCommits finds the last commit of each entry of directory dir in
// commit (a full commit name) of repository repoID: one history walk and
// one batch read of the commits found, remembered by repository, commit and
// directory, which never change, so a warm directory costs no git process.
// The map is keyed by entry path and must not be changed.
func (c *codePages) lastCommits(ctx context.Context, repoID int64, repoPath, commit, dir string, paths []string) (map[string]*codeLastCommit, error) {
	key := strconv.FormatInt(repoID, 10) + "\x00" + commit + "\x00" + dir
	if m, ok := c.lastCommitCache.get(key); ok && lastCommitsCover(m, paths) {
		return m, nil
	}
	shas, err := c.h.Git.LastCommits(ctx, repoPath, commit, dir, paths)
	if err != nil {
		return nil, err
	}
	unique := make([]string, 0, len(shas))
	seen := map[string]bool{}
	for _, sha := range shas {
		if !seen[sha] {
			seen[sha] = true
			unique = append(unique, sha)
		}
	}
	byCommit := make(map[string]*codeLastCommit, len(unique))
	if len(unique) > 0 {
		commits, err := c.h.Git.ReadCommits(ctx, repoPath, unique)
		if err != nil {
			return nil, err
		}
		for _, co := range commits {
			byCommit[co.SHA] = &codeLastCommit{SHA: co.SHA, Subject: co.Subject(), When: co.Committer.When}
		}
	}
	m := make(map[string]*codeLastCommit, len(paths))
	for _, p := range paths {
		if lc := byCommit[shas[p]]; lc != nil {
			m[p] = lc
		} else {
			m[p] = nil // no commit touched it (cannot happen in a real history); remembered as such
		}
	}
	c.lastCommitCache.put(key, m, len(m))
	return m, nil
}

// lastCommitsCover reports whether m has an answer for every path.
func lastCommitsCover(m map[string]*codeLastCommit, paths []string) bool {
	for _, p := range paths {
		if _, ok := m[p]; !ok {
			return false
		}
	}
	return true
}

// commitInfo is one commit's subject and time (cached: commits never change).
func (c *codePages) commitInfo(ctx context.Context, repoPath, sha string) (*codeLastCommit, error) {
	key := "commit\x00" + sha
	if m, ok := c.lastCommitCache.get(key); ok {
		return m[""], nil
	}
	co, err := c.h.Git.GetCommit(ctx, repoPath, sha)
	if err != nil {
		return nil, err
	}
	lc := &codeLastCommit{SHA: co.SHA, Subject: co.Subject(), When: co.Committer.When}
	c.lastCommitCache.put(key, map[string]*codeLastCommit{"": lc}, 1)
	return lc, nil
}
