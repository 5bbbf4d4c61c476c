package backup

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// copyTable loads the rows next reads into table t of a PostgreSQL target
// with COPY (pgx's binary CopyFrom), in one transaction. The table's
// indexes that back no constraint are dropped first and kept in l.indexes:
// finish builds them over the loaded rows, once each instead of row by row
// (the full-text GIN index above all). Until then the target is not usable,
// which the restore-incomplete marker says. src and kinds map the target's
// columns onto the dumped row. It returns the number of rows read.
func (l *loader) copyTable(ctx context.Context, t TableInfo, src []int, kinds []colKind, row []any, next func() (bool, error)) (int64, error) {
	columns := make([]string, len(src))
	for i, j := range src {
		columns[i] = t.Columns[j]
	}
	var n int64
	err := l.conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the PostgreSQL driver connection is a %T", dc)
		}
		c := sc.Conn()
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		var indexes []looseIndex
		if !l.done { // else finish has built the dropped ones already
			if indexes, err = pgLooseIndexes(ctx, tx, t.Name); err != nil {
				return err
			}
		}
		for _, ix := range indexes {
			if _, err := tx.Exec(ctx, "DROP INDEX "+pgx.Identifier{ix.name}.Sanitize()); err != nil {
				return fmt.Errorf("dropping index %s: %w", ix.name, err)
			}
		}
		values := make([]any, len(src))
		var rowErr error
		_, err = tx.CopyFrom(ctx, pgx.Identifier{t.Name}, columns, pgx.CopyFromFunc(func() ([]any, error) {
			ok, err := next()
			if err != nil {
				rowErr = fmt.Errorf("row %d: %w", n+1, err)
				return nil, rowErr
			}
			if !ok {
				return nil, nil
			}
			n++
			for i, j := range src {
				v, err := copyValue(row[j], kinds[i])
				if err != nil {
					rowErr = fmt.Errorf("row %d, column %s: %w", n, t.Columns[j], err)
					return nil, rowErr
				}
				values[i] = v
			}
			return values, nil
		}))
		if rowErr != nil {
			return rowErr
		}
		if err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		l.indexes = append(l.indexes, indexes...)
		return nil
	})
	return n, err
}

// pgLooseIndexes lists the indexes of table that no constraint (primary key,
// UNIQUE) owns: those a restore may drop and build again.
func pgLooseIndexes(ctx context.Context, tx pgx.Tx, table string) ([]looseIndex, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
		ORDER BY c.relname`, pgx.Identifier{table}.Sanitize())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (looseIndex, error) {
		var ix looseIndex
		err := r.Scan(&ix.name, &ix.definition)
		ix.fullText = strings.Contains(ix.definition, " USING gin ")
		return ix, err
	})
}

// copyValue turns a value read from a row into what COPY's binary encoding
// of a column of kind takes: integers for integer columns, booleans for
// boolean ones, and text for the others (a number SQLite kept in a text
// column, say).
func copyValue(v any, kind colKind) (any, error) {
	v, err := toColumn(v, kind)
	if err != nil || v == nil {
		return v, err
	}
	switch kind {
	case kindInt:
		switch x := v.(type) {
		case string:
			return strconv.ParseInt(x, 10, 64)
		case float64:
			if x != float64(int64(x)) {
				return nil, fmt.Errorf("%v is not an integer", x)
			}
			return int64(x), nil
		}
	case kindBool:
		if s, ok := v.(string); ok {
			return strconv.ParseBool(s)
		}
	case kindOther:
		switch x := v.(type) {
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), nil
		case bool:
			return strconv.FormatBool(x), nil
		case []byte:
			return string(x), nil
		}
	case kindBlob:
		if s, ok := v.(string); ok {
			return []byte(s), nil
		}
	}
	if _, ok := v.(map[string]any); ok {
		return nil, errors.New("unexpected object value")
	}
	return v, nil
}
