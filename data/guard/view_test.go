package guard

import (
	"context"
	"errors"
	"slices"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// TestViewReads runs ViewReads on view definitions of a file attached as
// f (tables main.sales, s2.sales; views main.v, s2.w) beside the workspace
// ws: what it keeps and what it reads, and what it refuses.
func TestViewReads(t *testing.T) {
	in := Contents{
		Catalog: "f",
		Objects: map[string]bool{"main.sales": true, "s2.sales": true, "main.v": true, "s2.w": true, "main.clİents": true, "main.ärzte": true,
			ObjectKey("main./tmp/x", "csv"): true, ObjectKey("main", "a.b"): true},
		Macros:   map[string]bool{"leak": true, "generate_series": true},
		Catalogs: map[string]bool{"f": true, "ws": true, "system": true, "temp": true, "s3": true},
	}
	cases := []struct {
		text, schema string
		reads        []string // nil: refused
	}{
		{"CREATE VIEW v AS SELECT * FROM sales;", "main", []string{"main.sales"}},
		{`CREATE VIEW "x AS y"(a, "AS") AS SELECT id AS a, 1 AS "AS" FROM SALES`, "main", []string{"main.sales"}},
		{"CREATE VIEW s2.w AS SELECT * FROM sales", "s2", []string{"s2.sales"}},
		{"CREATE VIEW v AS SELECT * FROM main.sales JOIN s2.sales USING (id)", "main", []string{"main.sales", "s2.sales"}},
		{"CREATE VIEW v AS SELECT * FROM f.s2.w", "main", []string{"s2.w"}},
		{"CREATE VIEW v AS WITH c AS (SELECT * FROM sales) SELECT * FROM c, range(3), unnest([1, 2])", "main", []string{"main.sales"}},
		{"CREATE VIEW v AS SELECT (SELECT max(id) FROM sales) AS m, lower('A')", "main", []string{"main.sales"}},
		// DuckDB looks up a bare name the view's schema lacks in the workspace.
		{"CREATE VIEW s2.w AS SELECT * FROM v", "s2", nil},
		{"CREATE VIEW v AS SELECT * FROM customers", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM ws.main.customers", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM ws.customers", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM f.sales", "main", nil}, // catalog or schema: ambiguous
		{"CREATE VIEW v AS SELECT * FROM s3.sales", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM temp.main.sales", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM '/tmp/a.csv'", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM query('SELECT 1')", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM read_parquet('x.parquet')", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM duckdb_tables()", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM information_schema.tables", "main", nil},
		{"CREATE VIEW v AS SELECT leak() AS x", "main", nil},
		{"CREATE VIEW v AS SELECT main.lower('x') AS x", "main", []string{}},
		{"CREATE VIEW v AS SELECT s2.lower('x') AS x", "main", nil},
		{"CREATE VIEW v AS SELECT ws.main.lower('x') AS x", "main", nil},
		{"CREATE VIEW v AS SELECT main.leak() AS x", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM (WITH customers AS (SELECT 1) SELECT * FROM customers) a, customers", "main", nil},
		{"CREATE VIEW v AS SELECT (SELECT max(ssn) FROM customers) AS m FROM sales", "main", nil},
		{"CREATE VIEW v", "main", nil},
		// A CTE is in scope only after its definition, and inside it only
		// when it is recursive and on the recursive side: DuckDB binds the
		// other uses of its name to a table, the workspace's.
		{"CREATE VIEW v AS WITH customers AS (SELECT * FROM customers) SELECT * FROM customers", "main", nil},
		{"CREATE VIEW v AS WITH a AS (SELECT * FROM customers), customers AS (SELECT 1) SELECT * FROM a", "main", nil},
		{"CREATE VIEW v AS WITH RECURSIVE customers AS (SELECT * FROM customers UNION ALL SELECT * FROM customers) SELECT * FROM customers", "main", nil},
		{"CREATE VIEW v AS WITH a AS (SELECT * FROM sales), b AS (SELECT * FROM a) SELECT * FROM b", "main", []string{"main.sales"}},
		{"CREATE VIEW v AS WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM (SELECT * FROM c) WHERE n < 3) SELECT * FROM c", "main", []string{}},
		// DuckDB matches names case-insensitively in ASCII only: a bare
		// name that only Unicode case folding matches to one of the file's
		// objects (main.clİents, main.ärzte) or to a CTE is the
		// workspace's.
		{"CREATE VIEW v AS SELECT * FROM clients", "main", nil},
		{`CREATE VIEW v AS SELECT * FROM "ÄRZTE"`, "main", nil},
		{`CREATE VIEW v AS WITH "İnvoices" AS (SELECT 1) SELECT * FROM invoices`, "main", nil},
		{`CREATE VIEW v AS SELECT * FROM "Clİents", "ärzte"`, "main", []string{"main.clİents", "main.ärzte"}},
		// Schema "main./tmp/x" and table csv are not the table "/tmp/x.csv"
		// of main, which DuckDB reads as a file when no table bears it.
		{`CREATE VIEW v AS SELECT * FROM "/tmp/x.csv"`, "main", nil},
		{`CREATE VIEW v AS SELECT * FROM "A.b"`, "main", []string{`main."a.b"`}},
		// A generator's name may be taken by a macro of the file.
		{"CREATE VIEW v AS SELECT * FROM generate_series(3)", "main", nil},
		{"CREATE VIEW v AS SELECT * FROM Range(3)", "main", []string{}},
	}
	eng, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	err = eng.Raw(context.Background(), func(c *duckdb.Conn) error {
		for _, tc := range cases {
			reads, err := ViewReads(c, tc.text, tc.schema, in)
			slices.Sort(reads)
			switch {
			case tc.reads == nil && !errors.Is(err, ErrRefused):
				t.Errorf("%s: want a refusal, got %v (reads %v)", tc.text, err, reads)
			case tc.reads != nil && (err != nil || !slices.Equal(reads, tc.reads)):
				t.Errorf("%s: reads %v, %v; want %v", tc.text, reads, err, tc.reads)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
