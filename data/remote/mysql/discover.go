package mysql

import (
	"context"
	"database/sql"
	"time"

	"github.com/loupeapp/loupe/data/remote"
)

// discoverTimeout bounds the catalog queries of one discovery.
const discoverTimeout = 2 * time.Minute

const tablesSQL = `SELECT TABLE_NAME, TABLE_TYPE, COALESCE(TABLE_COMMENT, ''), COALESCE(TABLE_ROWS, -1)
FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()`

const columnsSQL = `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_COMMENT, '')
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
ORDER BY TABLE_NAME, ORDINAL_POSITION`

const keysSQL = `SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, COALESCE(REFERENCED_TABLE_SCHEMA, ''),
  COALESCE(REFERENCED_TABLE_NAME, ''), COALESCE(REFERENCED_COLUMN_NAME, ''), DATABASE()
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = DATABASE() AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL)
ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`

// Discover implements remote.Source: three information_schema queries for
// the current database, whatever the number of tables.
func (s *Source) Discover(ctx context.Context) (*remote.Schema, error) {
	start := time.Now()
	sc := &remote.Schema{Dialect: s.dialect, Database: s.profile.Database}
	qctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	ss, err := s.begin(qctx, discoverTimeout)
	if err != nil {
		return nil, s.queryError(ctx, qctx, err, discoverTimeout, false)
	}
	defer ss.end()
	if err := s.discover(qctx, ss.conn, sc); err != nil {
		return nil, s.queryError(ctx, qctx, err, discoverTimeout, false)
	}
	sc.Sort()
	sc.Elapsed = time.Since(start)
	sc.ElapsedMS = float64(sc.Elapsed.Microseconds()) / 1000
	return sc, nil
}

func (s *Source) discover(ctx context.Context, conn *sql.Conn, sc *remote.Schema) error {
	byName := map[string]int{}
	err := each(ctx, conn, tablesSQL, func(r *sql.Rows) error {
		var t remote.Table
		var typ string
		if err := r.Scan(&t.Name, &typ, &t.Comment, &t.Rows); err != nil {
			return err
		}
		t.Kind = "table"
		if typ == "VIEW" {
			t.Kind, t.Comment, t.Rows = "view", "", -1
		}
		t.Columns = []remote.Column{}
		byName[t.Name] = len(sc.Tables)
		sc.Tables = append(sc.Tables, t)
		return nil
	})
	if err != nil {
		return err
	}
	err = each(ctx, conn, columnsSQL, func(r *sql.Rows) error {
		var table, nullable string
		var c remote.Column
		if err := r.Scan(&table, &c.Name, &c.Type, &nullable, &c.Comment); err != nil {
			return err
		}
		c.Nullable = nullable == "YES"
		if i, ok := byName[table]; ok {
			sc.Tables[i].Columns = append(sc.Tables[i].Columns, c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	type key struct{ table, name string }
	fks := map[key]int{} // index into the table's ForeignKeys
	return each(ctx, conn, keysSQL, func(r *sql.Rows) error {
		var table, name, col, refSchema, refTable, refCol, db string
		if err := r.Scan(&table, &name, &col, &refSchema, &refTable, &refCol, &db); err != nil {
			return err
		}
		i, ok := byName[table]
		if !ok {
			return nil
		}
		t := &sc.Tables[i]
		if name == "PRIMARY" {
			t.PrimaryKey = append(t.PrimaryKey, col)
			return nil
		}
		if refSchema == db {
			refSchema = ""
		}
		k := key{table, name}
		j, ok := fks[k]
		if !ok {
			j = len(t.ForeignKeys)
			fks[k] = j
			t.ForeignKeys = append(t.ForeignKeys, remote.ForeignKey{Name: name, RefSchema: refSchema, RefTable: refTable})
		}
		fk := &t.ForeignKeys[j]
		fk.Columns = append(fk.Columns, col)
		fk.RefColumns = append(fk.RefColumns, refCol)
		return nil
	})
}

func each(ctx context.Context, conn *sql.Conn, q string, fn func(*sql.Rows) error) error {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
