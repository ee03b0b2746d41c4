package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/loupeapp/loupe/data/remote"
)

// objectsSQL lists tables and views (not SQLite's own) with their columns
// in one query through the pragma table functions.
const objectsSQL = `SELECT m.name, m.type, p.name, p.type, p."notnull", p.pk
FROM sqlite_master m JOIN pragma_table_info(m.name) p
WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
ORDER BY m.name, p.cid`

const keysSQL = `SELECT m.name, f.id, f.seq, f."table", f."from", f."to"
FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
ORDER BY m.name, f.id, f.seq`

// Discover implements remote.Source. Row counts come from sqlite_stat1
// when ANALYZE has filled it, and are counted otherwise (SQLite keeps no
// other statistics).
func (s *Source) Discover(ctx context.Context) (*remote.Schema, error) {
	start := time.Now()
	sc := &remote.Schema{Dialect: s.dialect, Database: s.profile.Path}
	byName := map[string]int{}
	pkPos := map[string][]int{}
	err := each(ctx, s.db, objectsSQL, func(r *sql.Rows) error {
		var table, kind, col, typ string
		var notNull, pk int
		if err := r.Scan(&table, &kind, &col, &typ, &notNull, &pk); err != nil {
			return err
		}
		i, ok := byName[table]
		if !ok {
			i = len(sc.Tables)
			byName[table] = i
			sc.Tables = append(sc.Tables, remote.Table{Name: table, Kind: kind, Rows: -1, Columns: []remote.Column{}})
		}
		t := &sc.Tables[i]
		t.Columns = append(t.Columns, remote.Column{Name: col, Type: typ, Nullable: notNull == 0 && pk == 0})
		if pk > 0 {
			t.PrimaryKey = append(t.PrimaryKey, col)
			pkPos[table] = append(pkPos[table], pk)
		}
		return nil
	})
	if err != nil {
		return nil, s.discoverError(ctx, err)
	}
	for name, pos := range pkPos { // order composite keys by their position in the key
		t := &sc.Tables[byName[name]]
		ordered := make([]string, len(pos))
		for j, p := range pos {
			if p-1 < len(ordered) {
				ordered[p-1] = t.PrimaryKey[j]
			}
		}
		t.PrimaryKey = ordered
	}
	type key struct {
		table string
		id    int
	}
	fks := map[key]int{}
	err = each(ctx, s.db, keysSQL, func(r *sql.Rows) error {
		var table, ref, from string
		var to sql.NullString
		var id, seq int
		if err := r.Scan(&table, &id, &seq, &ref, &from, &to); err != nil {
			return err
		}
		i, ok := byName[table]
		if !ok {
			return nil
		}
		t := &sc.Tables[i]
		j, ok := fks[key{table, id}]
		if !ok {
			j = len(t.ForeignKeys)
			fks[key{table, id}] = j
			t.ForeignKeys = append(t.ForeignKeys, remote.ForeignKey{RefTable: ref})
		}
		fk := &t.ForeignKeys[j]
		fk.Columns = append(fk.Columns, from)
		fk.RefColumns = append(fk.RefColumns, to.String)
		return nil
	})
	if err != nil {
		return nil, s.discoverError(ctx, err)
	}
	// A key naming no referenced columns points at the primary key.
	for i := range sc.Tables {
		for j := range sc.Tables[i].ForeignKeys {
			fk := &sc.Tables[i].ForeignKeys[j]
			if ref := sc.Table(fk.RefTable); ref != nil && strings.Join(fk.RefColumns, "") == "" {
				fk.RefColumns = append([]string(nil), ref.PrimaryKey...)
			}
		}
	}
	if err := s.rowCounts(ctx, sc); err != nil {
		return nil, s.discoverError(ctx, err)
	}
	sc.Sort()
	sc.Elapsed = time.Since(start)
	sc.ElapsedMS = float64(sc.Elapsed.Microseconds()) / 1000
	return sc, nil
}

func (s *Source) rowCounts(ctx context.Context, sc *remote.Schema) error {
	stat := map[string]int64{}
	var has int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").Scan(&has); err != nil {
		return err
	}
	if has > 0 {
		err := each(ctx, s.db, "SELECT tbl, max(CAST(stat AS INTEGER)) FROM sqlite_stat1 GROUP BY tbl", func(r *sql.Rows) error {
			var tbl string
			var n int64
			if err := r.Scan(&tbl, &n); err != nil {
				return err
			}
			stat[tbl] = n
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i := range sc.Tables {
		t := &sc.Tables[i]
		if t.Kind != "table" {
			continue
		}
		if n, ok := stat[t.Name]; ok {
			t.Rows = n
			continue
		}
		q := "SELECT count(*) FROM " + remote.QuoteIdent(remote.SQLite, t.Name)
		if err := s.db.QueryRowContext(ctx, q).Scan(&t.Rows); err != nil {
			return err
		}
	}
	return nil
}

func (s *Source) discoverError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("read the schema of %s: %w", s.profile.Path, err)
}

func each(ctx context.Context, db *sql.DB, q string, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, q)
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
