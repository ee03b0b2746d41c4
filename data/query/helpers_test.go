package query_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
)

// fixture is a workspace set up the way the loader leaves one: tables made
// on the engine's internal connection and a CSV staged in the import
// folder, standing for a loaded dataset.
type fixture struct {
	eng    *duck.Engine
	run    *query.Runner
	dir    string // the workspace folder
	imp    string // its import folder
	outDir string // a folder outside the workspace that must stay untouched
	loaded string // the staged CSV, a "loaded dataset"
}

// setupSQL builds the fixture's objects; {IMP} is the import folder.
var setupSQL = []string{
	`CREATE TABLE sales AS SELECT * FROM read_csv('{IMP}/sales.csv', header = true, columns = {
		'id': 'INTEGER', 'region': 'VARCHAR', 'product': 'VARCHAR', 'day': 'DATE',
		'ts': 'TIMESTAMP', 'qty': 'INTEGER', 'price': 'DECIMAL(10,2)'})`,
	`CREATE TABLE t AS SELECT range::INTEGER AS id, 'k' || (range % 3) AS k, range * 1.5 AS v FROM range(20)`,
	`CREATE TABLE pk (id INTEGER PRIMARY KEY, name VARCHAR)`,
	`INSERT INTO pk VALUES (1, 'one'), (2, 'two')`,
	`CREATE VIEW v_t AS SELECT id, k FROM t WHERE id < 5`,
	`CREATE SEQUENCE seq`,
	`CREATE TABLE quotes (sym VARCHAR, ts TIMESTAMP, price DOUBLE)`,
	`INSERT INTO quotes VALUES ('A', '2024-01-01 09:00', 10), ('A', '2024-01-01 10:00', 11), ('B', '2024-01-01 09:30', 20)`,
	`CREATE TABLE trades (id INTEGER, sym VARCHAR, ts TIMESTAMP)`,
	`INSERT INTO trades VALUES (1, 'A', '2024-01-01 09:15'), (2, 'A', '2024-01-01 10:30'), (3, 'B', '2024-01-01 09:45'), (4, 'B', '2024-01-01 09:00')`,
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	eng, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close() })
	f := &fixture{eng: eng, run: query.NewRunner(eng), dir: eng.Dir(), imp: eng.ImportDir(), outDir: t.TempDir()}
	src, err := os.ReadFile(filepath.Join("testdata", "sales.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The engine is locked to its import folder, internal connection included.
	if err := os.WriteFile(filepath.Join(f.imp, "sales.csv"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	f.loaded = filepath.Join(f.imp, "loaded.csv")
	if err := os.WriteFile(f.loaded, []byte("a,b\n1,x\n2,y\n3,z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.outDir, "secret.csv"), []byte("secret\nhunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range setupSQL {
		if _, err := eng.DB().ExecContext(ctx, f.expand(s)); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return f
}

// expand fills the placeholders of a test statement.
func (f *fixture) expand(s string) string {
	return strings.NewReplacer("{IMP}", f.imp, "{DIR}", f.dir, "{OUT}", f.outDir).Replace(s)
}

// fingerprint describes everything a statement could change in the
// database: every table's and view's content hash, the catalog's objects,
// the attached databases, sequences' values, variables, prepared
// statements and every setting. Run it on the connection the runner uses.
func fingerprint(t testing.TB, db *sql.DB) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	one := func(label, q string) {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("fingerprint %s: %v", label, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("fingerprint %s: %v", label, err)
			}
			fmt.Fprintf(&b, "%s: %v\n", label, vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("fingerprint %s: %v", label, err)
		}
	}
	one("tables", `SELECT database_name, schema_name, table_name, temporary, column_count, index_count, sql FROM duckdb_tables() ORDER BY ALL`)
	one("views", `SELECT database_name, schema_name, view_name, temporary, sql FROM duckdb_views() WHERE NOT internal ORDER BY ALL`)
	one("sequences", `SELECT database_name, schema_name, sequence_name, temporary, last_value FROM duckdb_sequences() ORDER BY ALL`)
	one("types", `SELECT database_name, schema_name, type_name, logical_type FROM duckdb_types() WHERE NOT internal ORDER BY ALL`)
	one("schemas", `SELECT database_name, schema_name FROM duckdb_schemas() ORDER BY ALL`)
	one("indexes", `SELECT database_name, table_name, index_name, sql FROM duckdb_indexes() ORDER BY ALL`)
	one("macros", `SELECT database_name, schema_name, function_name, function_type FROM duckdb_functions() WHERE NOT internal ORDER BY ALL`)
	one("databases", `SELECT database_name, path, type, readonly FROM duckdb_databases() ORDER BY ALL`)
	one("variables", `SELECT name, value FROM duckdb_variables() ORDER BY ALL`)
	one("prepared", `SELECT name, statement FROM duckdb_prepared_statements() ORDER BY ALL`)
	one("settings", `SELECT name, value FROM duckdb_settings() ORDER BY name`)
	// Every table's and view's content.
	rel, err := db.QueryContext(ctx, `SELECT database_name, schema_name, table_name FROM duckdb_tables()
		UNION ALL SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rel.Next() {
		var d, s, n string
		if err := rel.Scan(&d, &s, &n); err != nil {
			t.Fatal(err)
		}
		names = append(names, duck.QuoteIdent(d)+"."+duck.QuoteIdent(s)+"."+duck.QuoteIdent(n))
	}
	rel.Close()
	for _, n := range names {
		one("content "+n, `SELECT count(*), md5(coalesce(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR), '')) FROM `+n+` AS x`)
	}
	return b.String()
}

// fileTree lists every file and folder under the roots with its size and
// modification time, so that a created, changed or removed file shows.
func fileTree(t testing.TB, roots ...string) string {
	t.Helper()
	var lines []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			info, err := d.Info()
			if err != nil {
				return nil // removed while walking
			}
			lines = append(lines, fmt.Sprintf("%s %v %d %d", p, info.Mode(), info.Size(), info.ModTime().UnixNano()))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// strayFiles lists files a hostile statement might have written outside
// the folders fileTree watches: /tmp/loupe-pwned-* and DuckDB's secret
// folder in the home directory.
func strayFiles() []string {
	var out []string
	m, _ := filepath.Glob(filepath.Join(os.TempDir(), "loupe-pwned-*"))
	out = append(out, m...)
	m, _ = filepath.Glob("/tmp/loupe-pwned-*")
	out = append(out, m...)
	if home, err := os.UserHomeDir(); err == nil {
		if _, err := os.Stat(filepath.Join(home, ".duckdb", "stored_secrets")); err == nil {
			out = append(out, filepath.Join(home, ".duckdb", "stored_secrets"))
		}
	}
	return out
}

// diff shows the first lines where two fingerprints differ.
func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	seen := map[string]int{}
	for _, l := range al {
		seen[l]++
	}
	for _, l := range bl {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		out = append(out, "+ "+l)
	}
	seen = map[string]int{}
	for _, l := range bl {
		seen[l]++
	}
	for _, l := range al {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		out = append(out, "- "+l)
	}
	if len(out) > 20 {
		out = append(out[:20], "…")
	}
	return strings.Join(out, "\n")
}
