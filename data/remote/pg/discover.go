package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/loupeapp/loupe/data/remote"
)

// discoverTimeout bounds the catalog queries of one discovery.
const discoverTimeout = 2 * time.Minute

// relations is the filter every catalog query shares: user tables, views,
// materialized views, foreign and partitioned tables (not their partitions)
// that the user may read.
const relations = `c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%'
  AND has_table_privilege(c.oid, 'SELECT')`

const tablesSQL = `SELECT c.oid::int8, n.nspname, c.relname, c.relkind::text, coalesce(d.description, ''),
  CASE WHEN c.relkind IN ('v', 'f') THEN -1
       WHEN c.reltuples >= 0 THEN c.reltuples::int8
       WHEN pg_stat_get_last_analyze_time(c.oid) IS NULL AND pg_stat_get_last_autoanalyze_time(c.oid) IS NULL
            AND pg_stat_get_live_tuples(c.oid) = 0 THEN -1
       ELSE pg_stat_get_live_tuples(c.oid) END
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
WHERE ` + relations

const columnsSQL = `SELECT a.attrelid::int8, a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, coalesce(d.description, '')
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_description d ON d.objoid = a.attrelid AND d.classoid = 'pg_class'::regclass AND d.objsubid = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND ` + relations + `
ORDER BY a.attrelid, a.attnum`

const keysSQL = `SELECT con.conrelid::int8, con.contype::text, con.conname,
  ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, i)
        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.i),
  coalesce(rn.nspname, ''), coalesce(rc.relname, ''),
  ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, i)
        JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.i)
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_class rc ON rc.oid = con.confrelid
LEFT JOIN pg_namespace rn ON rn.oid = rc.relnamespace
WHERE con.contype IN ('p', 'f') AND ` + relations + `
ORDER BY con.conrelid, con.conname`

var relkinds = map[string]string{"r": "table", "p": "partitioned table", "v": "view", "m": "materialized view", "f": "foreign table"}

// Discover implements remote.Source: three catalog queries in one
// read-only transaction, whatever the number of tables.
func (s *Source) Discover(ctx context.Context) (*remote.Schema, error) {
	start := time.Now()
	sc := &remote.Schema{Dialect: s.dialect, Database: s.profile.Database}
	qctx, cancel := context.WithTimeout(ctx, discoverTimeout+cancelGrace)
	defer cancel()
	err := s.inReadOnlyTx(qctx, discoverTimeout, func(tx pgx.Tx) error {
		byOID := map[int64]int{}
		rows, err := tx.Query(qctx, tablesSQL)
		if err != nil {
			return err
		}
		for rows.Next() {
			var t remote.Table
			var oid int64
			if err := rows.Scan(&oid, &t.Schema, &t.Name, &t.Kind, &t.Comment, &t.Rows); err != nil {
				rows.Close()
				return err
			}
			t.Kind = relkinds[t.Kind]
			t.Columns = []remote.Column{}
			byOID[oid] = len(sc.Tables)
			sc.Tables = append(sc.Tables, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(qctx, columnsSQL)
		if err != nil {
			return err
		}
		for rows.Next() {
			var oid int64
			var c remote.Column
			if err := rows.Scan(&oid, &c.Name, &c.Type, &c.Nullable, &c.Comment); err != nil {
				rows.Close()
				return err
			}
			if i, ok := byOID[oid]; ok {
				sc.Tables[i].Columns = append(sc.Tables[i].Columns, c)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(qctx, keysSQL)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var oid int64
			var kind, name, refSchema, refTable string
			var cols, refCols []string
			if err := rows.Scan(&oid, &kind, &name, &cols, &refSchema, &refTable, &refCols); err != nil {
				return err
			}
			i, ok := byOID[oid]
			if !ok {
				continue
			}
			t := &sc.Tables[i]
			if kind == "p" {
				t.PrimaryKey = cols
				continue
			}
			t.ForeignKeys = append(t.ForeignKeys, remote.ForeignKey{Name: name, Columns: cols, RefSchema: refSchema, RefTable: refTable, RefColumns: refCols})
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.queryError(ctx, qctx, err, discoverTimeout)
	}
	sc.Sort()
	sc.Elapsed = time.Since(start)
	sc.ElapsedMS = float64(sc.Elapsed.Microseconds()) / 1000
	s.log.Debug("discovered", "tables", len(sc.Tables), "elapsed", sc.Elapsed)
	return sc, nil
}
