package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// TestCheckRefusesQuotedAndQualifiedFunctions is issue 16's bypass tried on
// the workspace guard: quoting, qualifying, upper-casing or commenting a
// table function's name must not get a file outside the import folder, a
// URL, an extension, another database or SQL given as text past it. The
// guard reads DuckDB's own syntax tree, where names arrive unquoted, so
// none of these got through before issue 16 either: this test keeps it so.
func TestCheckRefusesQuotedAndQualifiedFunctions(t *testing.T) {
	ctx := context.Background()
	eng, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	secret := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(secret, []byte("canary\nCANARY-16-3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	attacks := []string{
		`SELECT * FROM "read_csv"('` + secret + `')`,
		`SELECT * FROM "READ_CSV"('` + secret + `')`,
		`SELECT * FROM main."read_csv"('` + secret + `')`,
		`SELECT * FROM system.main.read_csv('` + secret + `')`,
		`SELECT * FROM "read_csv_auto" /* c */ ('` + secret + `')`,
		`SELECT * FROM U&"read\005fcsv"('` + secret + `')`,
		`SELECT * FROM "read_text"('/etc/passwd')`,
		`SELECT * FROM "read_blob"('/etc/passwd')`,
		`SELECT * FROM "glob"('/etc/*')`,
		`SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')`,
		`SELECT * FROM "read_parquet"('s3://bucket/x.parquet')`,
		`SELECT * FROM '` + secret + `'`,
		`SELECT * FROM "` + secret + `"`,
		`SELECT * FROM "query"('SELECT * FROM read_csv(''` + secret + `'')')`,
		`SELECT * FROM "query_table"('` + secret + `')`,
		`FROM "QUERY"('SELECT 1')`,
		`SELECT * FROM "checkpoint"()`,
		`SELECT * FROM "duckdb_secrets"()`,
		`SELECT * FROM (SELECT 1) t, LATERAL "read_text"('/etc/passwd')`,
		`EXPLAIN ANALYZE SELECT * FROM "read_text"('/etc/passwd')`,
		`SELECT getenv('HOME')`, // only the DuckDB shell has getenv: a Catalog Error here
		`INSTALL httpfs`,
		`LOAD "httpfs"`,
		`ATTACH '` + secret + `' AS x`,
		`COPY (SELECT 1) TO '/tmp/loupe-guard-canary.csv'`,
		`SET enable_external_access = true`,
		`PRAGMA "read_text"('/etc/passwd')`,
	}
	err = eng.Raw(ctx, func(c *duckdb.Conn) error {
		for _, q := range attacks {
			chk, err := Check(c, q, eng.ImportDir())
			if chk != nil && chk.Stmt != nil {
				_ = chk.Stmt.Close()
			}
			if err == nil {
				t.Errorf("%q: accepted", q)
				continue
			}
			t.Logf("%q: %v", q, err)
			if strings.Contains(err.Error(), "CANARY-16-3") || strings.Contains(err.Error(), "root:") {
				t.Errorf("%q: the error shows the file: %v", q, err)
			}
			if !errors.Is(err, ErrRefused) && !strings.Contains(err.Error(), "Catalog Error") {
				t.Errorf("%q: want a refusal, got %v", q, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/tmp/loupe-guard-canary.csv"); err == nil {
		t.Error("COPY wrote its file")
	}
}
