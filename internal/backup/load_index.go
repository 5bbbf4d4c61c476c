package backup

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/cairn-forge/cairn/internal/db"
)

// looseIndex is an index that a bulk load drops and builds again after: its
// name and the statement that makes it.
type looseIndex struct {
	name, definition string
	fullText         bool
}

// indexBuilders is how many connections build the dropped indexes at once.
const indexBuilders = 2

// startBuilds builds l.indexes in the background, on the loader's
// connection and a second one, while the repositories are written and
// checked: the database server's work beside git's. The full-text indexes,
// the longest, go first. wait awaits them.
func (l *loader) startBuilds(ctx context.Context) {
	bctx, cancel := context.WithCancel(ctx)
	l.building, l.cancelBuild = make(chan struct{}), cancel
	todo := make(chan looseIndex, len(l.indexes))
	for _, fullText := range []bool{true, false} {
		for _, ix := range l.indexes {
			if ix.fullText == fullText {
				todo <- ix
			}
		}
	}
	close(todo)
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		if l.buildErr == nil {
			l.buildErr = err
			cancel()
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	build := func(conn *sql.Conn) {
		defer wg.Done()
		for ix := range todo {
			if _, err := conn.ExecContext(bctx, ix.definition); err != nil {
				fail(fmt.Errorf("building index %s: %w", ix.name, err))
				return
			}
		}
	}
	wg.Add(1)
	go build(l.conn)
	for range indexBuilders - 1 {
		conn, err := l.d.WriteConn(bctx)
		if err == nil {
			err = bulkSession(bctx, l.d.Dialect, conn)
		}
		if err != nil {
			if conn != nil {
				conn.Close()
			}
			fail(err)
			break
		}
		wg.Add(1)
		go func() {
			defer conn.Close()
			build(conn)
		}()
	}
	go func() {
		wg.Wait()
		close(l.building)
	}()
}

// bulkSession sets up a PostgreSQL connection that loads rows and builds
// indexes: the sorts of index builds get memory.
func bulkSession(ctx context.Context, d db.Dialect, conn *sql.Conn) error {
	if d != db.Postgres {
		return nil
	}
	_, err := conn.ExecContext(ctx, "SET maintenance_work_mem = '256MB'")
	return err
}
