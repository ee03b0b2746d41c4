package load_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/load"
)

// hostile is a name that ends a statement if it is not quoted, or quoted
// with the wrong quote.
const hostile = `x"; CREATE TABLE pwned AS SELECT 42 AS v; --'` + "`"

// A DuckDB or SQLite file's schema, table and column names reach the
// statements a load builds (the views over a DuckDB file's tables, the
// copies of a SQLite file's tables, their column renames): whatever they
// hold, they stay names, and the load runs nothing of theirs.
func TestFileNamesCannotRunSQL(t *testing.T) {
	dir := t.TempDir()
	q := duck.QuoteIdent(hostile)
	files := map[string][]string{
		"odd.duckdb": {
			"CREATE SCHEMA " + q,
			"CREATE TABLE " + q + "." + q + " (" + q + " INTEGER, " + duck.QuoteIdent("tab\there") + " VARCHAR)",
			"INSERT INTO " + q + "." + q + " VALUES (1, 'a'), (2, 'b')",
		},
		"odd.sqlite": {
			"CREATE TABLE " + q + " (" + q + " INTEGER, " + duck.QuoteIdent("tab\there") + " TEXT)",
			"INSERT INTO " + q + " VALUES (1, 'a'), (2, 'b')",
		},
	}
	w := openWS(t)
	for name, stmts := range files {
		path := filepath.Join(dir, name)
		driver := "duckdb"
		if strings.HasSuffix(name, ".sqlite") {
			driver = "sqlite"
		}
		db, err := sql.Open(driver, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %s: %v", name, s, err)
			}
		}
		db.Close()
		ds, err := w.Loader.Load(context.Background(), path, load.Options{})
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		if len(ds) != 1 || ds[0].Rows != 2 || len(ds[0].Columns) != 2 || ds[0].Columns[0].Name != hostile {
			t.Errorf("%s: loaded %+v; want one dataset of 2 rows whose first column is named %q", name, ds, hostile)
			continue
		}
		if got := rows(t, w, "SELECT sum("+q+") FROM "+duck.QuoteIdent(ds[0].Name)); len(got) != 1 || got[0][0] == nil {
			t.Errorf("%s: sum of the first column: %v", name, got)
		}
	}
	if got := rows(t, w, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'pwned'"); got[0][0] != int64(0) {
		t.Errorf("a name ran its statement: pwned exists")
	}
}
