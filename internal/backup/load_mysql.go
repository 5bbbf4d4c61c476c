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
// TABLE, and keeps them in l.indexes for finish to build again over the
// loaded rows: InnoDB builds an index by sorting far faster than it keeps
// one up row by row. Until then the target is not usable, which the
// restore-incomplete marker says.
func (l *loader) dropMySQLIndexes(ctx context.Context, table string) error {
	indexes, err := mysqlLooseIndexes(ctx, l.conn, table)
	if err != nil || len(indexes) == 0 {
		return err
	}
	drops := make([]string, len(indexes))
	for i, ix := range indexes {
		drops[i] = "DROP INDEX " + quote(db.MySQL, ix.name)
	}
	if _, err := l.conn.ExecContext(ctx, "ALTER TABLE "+quote(db.MySQL, table)+" "+strings.Join(drops, ", ")); err != nil {
		return err
	}
	l.indexes = append(l.indexes, indexes...)
	return nil
}

// mysqlLooseIndexes lists the non-unique indexes of table with the ALTER
// TABLE statement that adds each back.
func mysqlLooseIndexes(ctx context.Context, conn *sql.Conn, table string) ([]looseIndex, error) {
	rows, err := conn.QueryContext(ctx, `SELECT index_name, index_type, column_name, sub_part FROM information_schema.statistics
		WHERE table_schema = DATABASE() AND table_name = ? AND non_unique = 1 ORDER BY index_name, seq_in_index`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type index struct {
		name, kind string
		columns    []string
	}
	var list []*index
	for rows.Next() {
		var name, kind, column string
		var sub sql.NullInt64
		if err := rows.Scan(&name, &kind, &column, &sub); err != nil {
			return nil, err
		}
		if len(list) == 0 || list[len(list)-1].name != name {
			list = append(list, &index{name: name, kind: kind})
		}
		c := quote(db.MySQL, column)
		if sub.Valid {
			c += "(" + strconv.FormatInt(sub.Int64, 10) + ")"
		}
		list[len(list)-1].columns = append(list[len(list)-1].columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]looseIndex, len(list))
	for i, ix := range list {
		add := "INDEX "
		if ix.kind == "FULLTEXT" {
			add = "FULLTEXT INDEX "
		}
		out[i] = looseIndex{
			name:       ix.name,
			definition: "ALTER TABLE " + quote(db.MySQL, table) + " ADD " + add + quote(db.MySQL, ix.name) + " (" + strings.Join(ix.columns, ", ") + ")",
			fullText:   ix.kind == "FULLTEXT",
		}
	}
	return out, nil
}
