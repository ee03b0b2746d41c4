package guard

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// TestCheckRefusesFunctionsOfAttachedFiles attaches, as a loaded DuckDB
// file is, a file holding a view, a scalar macro and a table macro named
// range (an allowed table function), and a file holding only a macro.
// A query that calls a function qualified with either file's name runs
// SQL no check has read (a macro's body binds in the workspace: these
// read its customers under a name no privacy mark follows): it is
// refused, however the name is spelled, as is naming the file holding
// views.
func TestCheckRefusesFunctionsOfAttachedFiles(t *testing.T) {
	ctx := context.Background()
	eng, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	mk := func(name string, stmts ...string) string {
		path := filepath.Join(eng.ImportDir(), name+".duckdb")
		db, err := sql.Open("duckdb", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		return path
	}
	// A macro's body binds in the caller's search path: these read the
	// workspace's customers.
	gift := mk("gift", "CREATE TEMP TABLE customers (ssn VARCHAR)", "CREATE TABLE t AS SELECT 1 AS a", "CREATE VIEW v AS SELECT * FROM t",
		"CREATE MACRO m() AS (SELECT max(ssn) FROM customers)", "CREATE MACRO range(x) AS TABLE SELECT * FROM customers")
	plain := mk("plain", "CREATE TEMP TABLE customers (ssn VARCHAR)", "CREATE TABLE t AS SELECT 1 AS a", "CREATE MACRO m() AS (SELECT max(ssn) FROM customers)")
	err = eng.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "CREATE TABLE customers AS SELECT '111-22-3333' AS ssn"); err != nil {
			return err
		}
		for alias, path := range map[string]string{"src_gift": gift, "src_plain": plain} {
			if err := duck.Exec(ctx, c, "ATTACH '"+path+"' AS "+alias+" (READ_ONLY)"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q       string
		refused bool
	}{
		{"SELECT src_gift.main.m()", true},
		{"SELECT src_gift.m()", true},
		{`SELECT "SRC_GIFT"."main"."m"()`, true},
		{"SELECT * FROM src_gift.main.range(1)", true},
		{"SELECT * FROM src_gift.range(1)", true},
		{"SELECT src_plain.main.m()", true},
		{"SELECT * FROM (SELECT 1 AS x) WHERE x = src_plain.m()", true},
		{"PIVOT (SELECT src_plain.m() AS x) ON x", true},
		{"SELECT * FROM src_gift.v", true},
		{"SELECT * FROM src_plain.t", false},
		{"SELECT main.lower('X'), * FROM range(1)", false},
	}
	err = eng.Raw(ctx, func(c *duckdb.Conn) error {
		for _, tc := range cases {
			chk, err := Check(c, tc.q, eng.ImportDir())
			if chk != nil && chk.Stmt != nil {
				_ = chk.Stmt.Close()
			}
			switch {
			case tc.refused && !errors.Is(err, ErrRefused):
				t.Errorf("%s: want a refusal, got %v", tc.q, err)
			case !tc.refused && err != nil:
				t.Errorf("%s: %v", tc.q, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
