package catalog

import (
	"context"
	"database/sql/driver"
	"fmt"
)

// ReaderSchema holds the readers of small text files kept as views (see
// Dataset.Reader): table macros the loader makes, one per shape of file,
// each called by the views of that shape with their copy's path. It is
// the catalog's own schema, whose functions the guard does not let a
// query call.
const ReaderSchema = "_loupe"

// DropReader drops d's reader when no dataset reads through it any more,
// on c (in the caller's transaction, after d's record is gone or
// replaced). A dataset without one needs nothing.
func DropReader(ctx context.Context, c Conn, d Dataset) error {
	if d.Reader == "" {
		return nil
	}
	users := 0
	err := each(ctx, c, "SELECT count(*) FROM _loupe.datasets WHERE reader = $1", []any{d.Reader}, func(v []driver.Value) {
		users = int(num(v[0]))
	})
	if err != nil {
		return fmt.Errorf("find the datasets reading through %s: %w", d.Reader, err)
	}
	if users > 0 {
		return nil
	}
	if _, err := c.ExecContext(ctx, "DROP MACRO TABLE IF EXISTS "+ReaderSchema+"."+quoteIdent(d.Reader), nil); err != nil {
		return fmt.Errorf("drop the reader of %s: %w", d.Name, err)
	}
	return nil
}

// SweepReaders drops, on c, the readers no dataset reads through: those
// a load killed before it published, or an older version, left behind.
// It lists DuckDB's functions, too slow for every open: the loader's
// sweep calls it when it found such a load's objects.
func SweepReaders(ctx context.Context, c Conn) error {
	var names []string
	q := "SELECT function_name FROM duckdb_functions() WHERE database_name = current_database() AND schema_name = '" + ReaderSchema + "'" +
		" AND function_type = 'table_macro' AND function_name NOT IN (SELECT reader FROM _loupe.datasets WHERE reader <> '')"
	if err := each(ctx, c, q, nil, func(v []driver.Value) { names = append(names, fmt.Sprint(v[0])) }); err != nil {
		return fmt.Errorf("find unused readers: %w", err)
	}
	for _, n := range names {
		if _, err := c.ExecContext(ctx, "DROP MACRO TABLE IF EXISTS "+ReaderSchema+"."+quoteIdent(n), nil); err != nil {
			return fmt.Errorf("drop the unused reader %s: %w", n, err)
		}
	}
	return nil
}
