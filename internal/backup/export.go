package backup

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
)

// tableExport writes the tables of a PostgreSQL or MySQL source out as JSON
// lines, each into a file of its own (a tar entry needs its size first),
// in one snapshot read in the background.
type tableExport struct {
	tables []TableInfo // what the snapshot counted, in order
	paths  []string    // the files, one per table, as they are made
	done   chan struct{}
	err    error // once done is closed
}

// startExport opens the snapshot and reads in it what the manifest says
// (m: schema level, tables, row counts) and the repositories' ids; the
// rows are then written out in the background. writeTo adds them to the
// archive; close removes the files.
func startExport(ctx context.Context, inst Instance, m *Manifest) (*tableExport, []int64, error) {
	tables, err := listTables(ctx, inst.DB)
	if err != nil {
		return nil, nil, err
	}
	e := &tableExport{done: make(chan struct{})}
	var ids []int64
	ready := make(chan error, 1)
	go func() {
		defer close(e.done)
		started := false
		e.err = inst.DB.Snapshot(ctx, func(q func(string, ...any) (*sql.Rows, error)) error {
			var err error
			if ids, err = snapshotFacts(q, inst.DB.Dialect, tables, m); err != nil {
				return err
			}
			e.tables = slices.Clone(m.Tables)
			started = true
			ready <- nil
			for _, t := range e.tables {
				if err := e.table(ctx, inst, q, t); err != nil {
					return fmt.Errorf("table %s: %w", t.Name, err)
				}
			}
			return nil
		})
		if !started {
			ready <- e.err
		}
	}()
	if err := <-ready; err != nil {
		<-e.done
		return nil, nil, err
	}
	return e, ids, nil
}

// table writes the rows of t into a new file and checks them against what
// the snapshot counted.
func (e *tableExport) table(ctx context.Context, inst Instance, q func(string, ...any) (*sql.Rows, error), t TableInfo) error {
	f, err := os.CreateTemp(inst.Paths.TempDir, "dump-*.jsonl")
	if err != nil {
		return err
	}
	e.paths = append(e.paths, f.Name())
	info, err := dumpTable(ctx, inst.DB, q, t.Name, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if info.Rows != t.Rows || !slices.Equal(info.Columns, t.Columns) {
		return fmt.Errorf("%d rows of columns %q were read, the snapshot counted %d of %q", info.Rows, info.Columns, t.Rows, t.Columns)
	}
	return nil
}

// writeTo waits for the export and adds its files to the archive, as
// db/<table>.jsonl.
func (e *tableExport) writeTo(a *archive) error {
	<-e.done
	if e.err != nil {
		return e.err
	}
	for i, t := range e.tables {
		f, err := os.Open(e.paths[i])
		if err != nil {
			return err
		}
		err = a.writeFile("db/"+t.Name+".jsonl", f)
		f.Close()
		if err != nil {
			return err
		}
		os.Remove(e.paths[i])
	}
	return nil
}

// close waits for the export to stop and removes its files.
func (e *tableExport) close() {
	<-e.done
	for _, p := range e.paths {
		os.Remove(p)
	}
}
