package db

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps prepared statements per pool and query text. It holds at
// most max statements; queries beyond that run unprepared, so queries with
// literal values (LIMIT/OFFSET, IN lists of many sizes) cannot grow it forever.
type stmtCache struct {
	mu    sync.Mutex
	max   int
	stmts map[stmtKey]*sql.Stmt
}

type stmtKey struct {
	pool *sql.DB
	q    string
}

func newStmtCache(max int) *stmtCache {
	return &stmtCache{max: max, stmts: make(map[stmtKey]*sql.Stmt, max)}
}

// lookup returns the statement of q on pool if it was prepared already.
func (c *stmtCache) lookup(pool *sql.DB, q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[stmtKey{pool, q}]
}

// get returns the prepared statement of q on pool, preparing it once; nil
// when the cache is full or the statement does not prepare.
func (c *stmtCache) get(ctx context.Context, pool *sql.DB, q string) *sql.Stmt {
	k := stmtKey{pool, q}
	c.mu.Lock()
	st, ok := c.stmts[k]
	full := len(c.stmts) >= c.max
	c.mu.Unlock()
	if ok || full {
		return st
	}
	st, err := pool.PrepareContext(context.WithoutCancel(ctx), q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.stmts[k]; ok {
		st.Close()
		return old
	}
	c.stmts[k] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, st := range c.stmts {
		st.Close()
		delete(c.stmts, k)
	}
}
