package results_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

// A result's column names and types come from the data (a file's header,
// a JSON key, a remote column): written to Parquet they stay names and
// types, whatever quotes they hold, and an ENUM column (which a result
// names without its values) is written as text.
func TestParquetKeepsHostileNamesAndEnums(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	res, err := ws.Query.Run(ctx, `SELECT {'x" INTEGER); SELECT 1; --': 1} AS "a"") TO 'x'; --", 'it''s'::ENUM('it''s', 'b"c') AS "it's"`, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(t.TempDir(), "r.parquet")
	if err := results.WriteParquet(ctx, pq, res.Columns, res.Rows); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('"+pq+"'))")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got [][2]string
	for rows.Next() {
		var n, typ string
		if err := rows.Scan(&n, &typ); err != nil {
			t.Fatal(err)
		}
		got = append(got, [2]string{n, typ})
	}
	want := [][2]string{{`a") TO 'x'; --`, `STRUCT("x"" INTEGER); SELECT 1; --" INTEGER)`}, {"it's", "VARCHAR"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("columns read back %q, want %q", got, want)
	}
	var v string
	if err := db.QueryRowContext(ctx, `SELECT "it's" FROM read_parquet('`+pq+`')`).Scan(&v); err != nil || v != "it's" {
		t.Errorf("the ENUM value read back %q (%v), want it's", v, err)
	}
}
