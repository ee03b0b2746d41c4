package load_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestDuckDBFileViewsStayInTheirFile loads a DuckDB file whose views try
// to read the workspace: a dataset by its full name, by schema.name and by
// a bare name the file lacks (DuckDB looks it up in the workspace), through
// query(), read_csv() of the CSV's copy in the import folder and a macro, and through another such view. Before
// the check each became a dataset showing the workspace's customers,
// private column and all; now only the file's table and the views reading
// it are loaded, each refused view is named in a warning, and a query
// naming the attached file directly is refused by the guard.
func TestDuckDBFileViewsStayInTheirFile(t *testing.T) {
	w := openWS(t)
	csv := write(t, "customers.csv", []byte("id,name,ssn\n1,ann,111-22-3333\n2,bob,444-55-6666\n"))
	staged := loadOne(t, w, csv).Staged // the copy in the import folder, which DuckDB may read
	if staged == "" {
		t.Fatal("the CSV has no copy in the import folder")
	}
	ws := catalogName(t, w)

	dir := t.TempDir()
	fake := filepath.Join(dir, "fake.duckdb") // stands in for the workspace while the file is made
	path := filepath.Join(dir, "gift.duckdb")
	execDuckDB(t, path,
		"ATTACH '"+fake+"' AS "+ws,
		"CREATE TABLE "+ws+".main.customers (id BIGINT, name VARCHAR, ssn VARCHAR)",
		"CREATE TEMP TABLE customers (id BIGINT, name VARCHAR, ssn VARCHAR)",
		"CREATE TABLE sales AS SELECT range AS id, range * 10 AS amount FROM range(5)",
		"CREATE VIEW big_sales AS SELECT * FROM sales WHERE amount > 20",
		"CREATE VIEW totals AS WITH t AS (SELECT sum(amount) AS s FROM main.sales) SELECT s FROM t, range(1)",
		"CREATE VIEW by_full_name AS SELECT * FROM "+ws+".main.customers",
		"CREATE VIEW by_schema AS SELECT * FROM "+ws+".customers",
		"CREATE VIEW by_bare_name AS SELECT * FROM customers",
		"CREATE VIEW by_query AS SELECT * FROM query('SELECT * FROM customers')",
		"CREATE VIEW by_file AS SELECT * FROM read_csv('"+staged+"')",
		"CREATE MACRO ssns() AS (SELECT string_agg(ssn, ',') FROM "+ws+".main.customers)",
		"CREATE VIEW by_macro AS SELECT ssns() AS s",
		"CREATE VIEW by_view AS SELECT * FROM by_bare_name",
		"CREATE VIEW cte_out_of_scope AS SELECT * FROM (WITH customers AS (SELECT 1 AS id) SELECT * FROM customers) a, customers")

	names, warnings := loadNames(t, w, path)
	if want := []string{"big_sales", "sales", "totals"}; !slices.Equal(names, want) {
		t.Errorf("datasets %v, want %v", names, want)
	}
	for _, v := range []string{"by_full_name", "by_schema", "by_bare_name", "by_query", "by_file", "by_macro", "by_view", "cte_out_of_scope"} {
		if !namesView(warnings, v) {
			t.Errorf("no warning names the view %s: %q", v, warnings)
		}
	}
	if got := rows(t, w, "SELECT s FROM totals"); len(got) != 1 || got[0][0] == nil {
		t.Errorf("totals: %v", got)
	}

	alias := "src_gift"
	for _, q := range []string{
		"SELECT * FROM " + alias + ".by_bare_name",
		"SELECT * FROM " + alias + ".main.by_full_name",
		"SELECT (SELECT max(ssn) FROM " + alias + ".by_query)",
		"SELECT * FROM histogram(" + alias + ".by_schema, ssn)",
		"SUMMARIZE " + alias + ".by_bare_name",
	} {
		_, err := w.Query.Run(context.Background(), q, query.Limits{})
		if !errors.Is(err, guard.ErrRefused) {
			t.Errorf("%s: want a refusal, got %v", q, err)
		}
	}
}

// TestDuckDBFileOverwrittenInPlace loads a file whose view reads its own
// table, then overwrites the file in place (as cp does: the import folder
// holds a hard link to it) with one whose view of that name reads the
// workspace. The next open must not attach it; a reload keeps the table
// and drops the view's dataset with a warning.
func TestDuckDBFileOverwrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t)
	loadOne(t, w, write(t, "customers.csv", []byte("id,ssn\n1,111-22-3333\n")))
	ws := catalogName(t, w)
	path := filepath.Join(dir, "shop.duckdb")
	execDuckDB(t, path, "CREATE TABLE sales AS SELECT 1 AS id", "CREATE VIEW recent AS SELECT * FROM sales")
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil || len(ds) != 2 {
		t.Fatalf("load: %v %v", ds, err)
	}
	evil := filepath.Join(dir, "evil.duckdb")
	execDuckDB(t, evil, "ATTACH '"+filepath.Join(dir, "fake.duckdb")+"' AS "+ws,
		"CREATE TABLE "+ws+".main.customers (id BIGINT, ssn VARCHAR)",
		"CREATE TABLE sales AS SELECT 2 AS id",
		"CREATE VIEW recent AS SELECT * FROM "+ws+".main.customers")
	w2 := overwriteAndReopen(t, w, path, evil)
	if res, err := w2.Query.Run(context.Background(), "SELECT * FROM recent", query.Limits{}); err == nil {
		t.Errorf("the overwritten view was attached and read: %v", res.Rows)
	}
	ds, err = w2.Loader.Load(context.Background(), path, load.Options{})
	if err != nil || len(ds) != 1 || ds[0].Name != "sales" {
		t.Fatalf("reload: %+v %v", ds, err)
	}
	if !slices.ContainsFunc(ds[0].Warnings, func(s string) bool { return strings.HasPrefix(s, "view 'recent' was not loaded: ") }) {
		t.Errorf("warnings %q", ds[0].Warnings)
	}
	if got, err := w2.Query.Run(context.Background(), "SELECT id FROM sales", query.Limits{}); err != nil || fmt.Sprint(got.Rows) != "[[2]]" {
		t.Errorf("sales after the reload: %v %v", got, err)
	}
	if _, err := w2.Query.Run(context.Background(), "SELECT * FROM recent", query.Limits{}); err == nil {
		t.Error("recent is still there after the reload")
	}
}

// execDuckDB runs stmts in the DuckDB file at path (made if missing),
// failing the test on the first error.
func execDuckDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
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
}

// TestDuckDBFileViewsBoundAsDuckDBBinds loads a DuckDB file whose views
// read the workspace's clients through names the check once took for the
// file's: a CTE's name inside its own definition, inside an earlier CTE
// or on the first side of a recursive CTE (DuckDB binds each to a table),
// and a bare name that only Unicode case folding matches to one of the
// file's tables (DuckDB folds ASCII letters only, so "Clİents" is not
// "clients"). Before the fix each became a dataset showing the private
// column; now none is loaded and each is named in a warning.
func TestDuckDBFileViewsBoundAsDuckDBBinds(t *testing.T) {
	w := openWS(t)
	loadOne(t, w, write(t, "clients.csv", []byte("id,ssn\n1,111-22-3333\n")))
	ws := catalogName(t, w)
	dir := t.TempDir()
	path := filepath.Join(dir, "gift.duckdb")
	execDuckDB(t, path,
		"ATTACH '"+filepath.Join(dir, "fake.duckdb")+"' AS "+ws,
		"CREATE TABLE "+ws+".main.clients (id BIGINT, ssn VARCHAR)",
		"CREATE TEMP TABLE clients (id BIGINT, ssn VARCHAR)",
		"CREATE TABLE sales AS SELECT range AS id FROM range(3)",
		`CREATE TABLE "Clİents" AS SELECT 1 AS id, 'none' AS ssn`,
		"CREATE VIEW cte_own AS WITH clients AS (SELECT * FROM clients) SELECT * FROM clients",
		"CREATE VIEW cte_later AS WITH a AS (SELECT * FROM clients), clients AS (SELECT 1 AS id, 'x' AS ssn) SELECT * FROM a",
		"CREATE VIEW cte_first_side AS WITH RECURSIVE clients AS (SELECT * FROM clients UNION ALL SELECT * FROM clients WHERE false) SELECT * FROM clients",
		"CREATE VIEW folded AS SELECT * FROM clients",
		"CREATE VIEW counted AS WITH RECURSIVE c AS (SELECT 0 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 2) SELECT n FROM c JOIN sales ON id = n",
	)
	names, warnings := loadNames(t, w, path)
	if want := []string{"cl_ents", "counted", "sales"}; !slices.Equal(names, want) {
		t.Errorf("datasets %v, want %v", names, want)
	}
	for _, v := range []string{"cte_own", "cte_later", "cte_first_side", "folded"} {
		if !namesView(warnings, v) {
			t.Errorf("no warning names the view %s: %q", v, warnings)
		}
	}
	if got := rows(t, w, "SELECT count(*) FROM counted"); fmt.Sprint(got) != "[[3]]" {
		t.Errorf("counted: %v", got)
	}
}

// TestDuckDBFileViewNamingAFile loads a file whose view reads the table
// "<import folder>/customers-*.csv" of main, which the file lacks: DuckDB
// then reads the name as a glob, the CSV's copy in the import folder. The
// file holds schema "main.<import folder>/customers-*" with a table csv,
// which once passed for that table ("schema.name" keys ran together); the
// view must be refused.
func TestDuckDBFileViewNamingAFile(t *testing.T) {
	w := openWS(t)
	loadOne(t, w, write(t, "customers.csv", []byte("id,ssn\n1,111-22-3333\n")))
	glob := filepath.Join(w.Engine.ImportDir(), "customers-*.csv")
	path := filepath.Join(t.TempDir(), "gift.duckdb")
	schema := "main." + strings.TrimSuffix(glob, ".csv")
	execDuckDB(t, path,
		"CREATE TABLE sales AS SELECT 1 AS id",
		`CREATE SCHEMA "`+schema+`"`,
		`CREATE TABLE "`+schema+`".csv AS SELECT 1 AS id`,
		`CREATE VIEW by_glob AS SELECT * FROM "`+glob+`"`,
	)
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Part == "by_glob" {
			t.Errorf("the view reading %s was loaded: %v", glob, rows(t, w, "SELECT * FROM "+d.Name))
		}
	}
	if !slices.ContainsFunc(ds[0].Warnings, func(s string) bool { return strings.HasPrefix(s, "view 'by_glob' was not loaded: ") }) {
		t.Errorf("warnings %q", ds[0].Warnings)
	}
}

// TestDuckDBFileOverwrittenWithSharedPartName loads a file whose table
// "a.b" of main becomes a dataset, then overwrites the file in place with
// one where "a.b" is a view reading the workspace and a table b of a new
// schema a bears the same part name "a.b". The next open must still
// detach the file.
func TestDuckDBFileOverwrittenWithSharedPartName(t *testing.T) {
	dir := t.TempDir()
	w := openWS(t)
	loadOne(t, w, write(t, "customers.csv", []byte("id,ssn\n1,111-22-3333\n")))
	ws := catalogName(t, w)
	path := filepath.Join(dir, "shop.duckdb")
	execDuckDB(t, path, `CREATE TABLE "a.b" AS SELECT 1 AS id, 'none' AS ssn`)
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil || len(ds) != 1 || ds[0].Part != "a.b" {
		t.Fatalf("load: %+v %v", ds, err)
	}
	name := ds[0].Name
	evil := filepath.Join(dir, "evil.duckdb")
	execDuckDB(t, evil, "ATTACH '"+filepath.Join(dir, "fake.duckdb")+"' AS "+ws,
		"CREATE TABLE "+ws+".main.customers (id BIGINT, ssn VARCHAR)",
		`CREATE VIEW "a.b" AS SELECT * FROM `+ws+".main.customers",
		"CREATE SCHEMA a", "CREATE TABLE a.b AS SELECT 2 AS id, 'none' AS ssn")
	w2 := overwriteAndReopen(t, w, path, evil)
	if res, err := w2.Query.Run(context.Background(), "SELECT * FROM "+name, query.Limits{}); err == nil {
		t.Errorf("the overwritten view was attached and read: %v", res.Rows)
	}
}

// TestDuckDBFileWithPendingWAL loads a DuckDB file whose last changes are
// still in its write-ahead log (its writer did not checkpoint): what the
// file holds is loaded, and a warning says the log's changes were not,
// and what to do.
func TestDuckDBFileWithPendingWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.duckdb")
	execDuckDB(t, path, "CREATE TABLE kept AS SELECT 1 AS id")
	execDuckDB(t, path, "PRAGMA disable_checkpoint_on_shutdown", "CREATE TABLE late AS SELECT 2 AS id")
	if fi, err := os.Stat(path + ".wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no pending log to test with: %v", err)
	}
	w := openWS(t)
	names, warnings := loadNames(t, w, path)
	if !slices.Equal(names, []string{"kept"}) {
		t.Errorf("datasets %v, want [kept]", names)
	}
	if !slices.ContainsFunc(warnings, func(s string) bool {
		return strings.HasPrefix(s, "live.duckdb.wal holds changes not yet written into the file") && strings.Contains(s, "CHECKPOINT")
	}) {
		t.Errorf("no warning about the pending log: %q", warnings)
	}
}

// TestDuckDBFileAllInItsWAL: a file whose every table is still in its log
// is refused with what to do, rather than "has no tables".
func TestDuckDBFileAllInItsWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fresh.duckdb")
	execDuckDB(t, path, "PRAGMA disable_checkpoint_on_shutdown", "CREATE TABLE late AS SELECT 2 AS id")
	_, err := openWS(t).Loader.Load(context.Background(), path, load.Options{})
	var fe *load.FileError
	if !errors.As(err, &fe) || !strings.Contains(fe.Problem, "fresh.duckdb.wal") || !strings.Contains(fe.Hint, "CHECKPOINT") {
		t.Errorf("got %v", err)
	}
}

// overwriteAndReopen closes w, writes the bytes of the file from over the
// file at path in place (as cp does: the import folder's hard link to it
// sees the change) and opens w's workspace again, closed at the test's end.
func overwriteAndReopen(t *testing.T, w *workspace.Workspace, path, from string) *workspace.Workspace {
	t.Helper()
	body, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	dir := w.Engine.Dir()
	w.Close()
	if err := os.WriteFile(path, body, 0o644); err != nil { // in place: same inode
		t.Fatal(err)
	}
	w2, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w2.Close() })
	return w2
}

// loadNames loads path into w and returns the datasets' names, sorted,
// and all their warnings.
func loadNames(t *testing.T, w *workspace.Workspace, path string) (names, warnings []string) {
	t.Helper()
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		names = append(names, d.Name)
		warnings = append(warnings, d.Warnings...)
	}
	slices.Sort(names)
	return names, warnings
}

// namesView reports whether a load warning says view was not loaded.
func namesView(warnings []string, view string) bool {
	return slices.ContainsFunc(warnings, func(s string) bool { return strings.HasPrefix(s, "view '"+view+"' was not loaded: ") })
}

// catalogName is the name DuckDB gives w's database, which a crafted file
// names to read the workspace.
func catalogName(t *testing.T, w *workspace.Workspace) string {
	t.Helper()
	var ws string
	if err := w.Engine.DB().QueryRow("SELECT current_database()").Scan(&ws); err != nil {
		t.Fatal(err)
	}
	return ws
}
