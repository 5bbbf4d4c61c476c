package backup

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/cairn-forge/cairn/internal/db"
)

// dropMySQLIndexes drops the non-unique indexes of table t of a MySQL
// target (FULLTEXT ones included) before its rows are loaded, in one ALTER
// TABLE, and keeps in l.indexes the statements that add them back for
// finish to run over the loaded rows: InnoDB builds an index by sorting far
// faster than it keeps one up row by row. Until then the target is not
// usable, which the restore-incomplete marker says.
func (l *loader) dropMySQLIndexes(ctx context.Context, table string) error {
	names, adds, err := mysqlLooseIndexes(ctx, l.conn, table)
	if err != nil || len(names) == 0 {
		return err
	}
	drops := make([]string, len(names))
	for i, n := range names {
		drops[i] = "DROP INDEX " + quote(db.MySQL, n)
	}
	if _, err := l.conn.ExecContext(ctx, "ALTER TABLE "+quote(db.MySQL, table)+" "+strings.Join(drops, ", ")); err != nil {
		return err
	}
	l.indexes = append(l.indexes, adds...)
	return nil
}

// mysqlLooseIndexes lists the non-unique indexes of table that are on
// columns (not expressions), and the ALTER TABLE statements that add them
// back: one for all the ordinary ones (InnoDB builds them in one pass) and
// one per FULLTEXT index (which InnoDB adds one at a time).
func mysqlLooseIndexes(ctx context.Context, conn *sql.Conn, table string) ([]string, []looseIndex, error) {
	rows, err := conn.QueryContext(ctx, `SELECT index_name, index_type, column_name, sub_part FROM information_schema.statistics
		WHERE table_schema = DATABASE() AND table_name = ? AND non_unique = 1 ORDER BY index_name, seq_in_index`, table)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	type index struct {
		name, kind string
		columns    []string
		expression bool
	}
	var list []*index
	for rows.Next() {
		var name, kind string
		var column sql.NullString
		var sub sql.NullInt64
		if err := rows.Scan(&name, &kind, &column, &sub); err != nil {
			return nil, nil, err
		}
		if len(list) == 0 || list[len(list)-1].name != name {
			list = append(list, &index{name: name, kind: kind})
		}
		ix := list[len(list)-1]
		if !column.Valid {
			ix.expression = true
			continue
		}
		c := quote(db.MySQL, column.String)
		if sub.Valid {
			c += "(" + strconv.FormatInt(sub.Int64, 10) + ")"
		}
		ix.columns = append(ix.columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	var names, plain, plainNames []string
	var adds []looseIndex
	alter := "ALTER TABLE " + quote(db.MySQL, table) + " "
	for _, ix := range list {
		if ix.expression {
			continue
		}
		names = append(names, ix.name)
		add := "ADD INDEX " + quote(db.MySQL, ix.name) + " (" + strings.Join(ix.columns, ", ") + ")"
		if ix.kind == "FULLTEXT" {
			adds = append(adds, looseIndex{name: ix.name, definition: alter + "ADD FULLTEXT INDEX" + strings.TrimPrefix(add, "ADD INDEX"), fullText: true})
			continue
		}
		plain = append(plain, add)
		plainNames = append(plainNames, ix.name)
	}
	if len(plain) > 0 {
		adds = append(adds, looseIndex{name: strings.Join(plainNames, ", "), definition: alter + strings.Join(plain, ", ")})
	}
	return names, adds, nil
}
