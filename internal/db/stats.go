package db

import "database/sql"

// PoolStats returns the statistics of the connection pools by name: "write"
// and "read" on SQLite, "main" (one pool for both) otherwise.
func (d *DB) PoolStats() map[string]sql.DBStats {
	if d.reader == d.writer {
		return map[string]sql.DBStats{"main": d.writer.Stats()}
	}
	return map[string]sql.DBStats{"write": d.writer.Stats(), "read": d.reader.Stats()}
}
