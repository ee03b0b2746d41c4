package guard

import (
	"context"
	"errors"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
)

// TestCheckExpandedTrustsOnlyDuckDB feeds checkExpanded texts the splitter
// might (through some future disagreement with DuckDB's scanner) take for
// one statement: DuckDB's own statement list decides, and nothing runs.
// (A CREATE before the last statement passes, as the PIVOT helpers are
// CREATE TYPEs; it then runs inside the read-only transaction, which
// refuses persistent objects and rolls back temporary ones.)
func TestCheckExpandedTrustsOnlyDuckDB(t *testing.T) {
	ctx := context.Background()
	eng, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.DB().ExecContext(ctx, `CREATE TABLE t AS SELECT range AS id, 'k' || (range % 3) AS k FROM range(10)`); err != nil {
		t.Fatal(err)
	}
	err = eng.Raw(ctx, func(c *duckdb.Conn) error {
		for _, text := range []string{
			"SELECT 1; COMMIT; DELETE FROM t; PIVOT t ON k USING count(*)",
			"COMMIT; PIVOT t ON k USING count(*)",
		} {
			_, err := checkExpanded(c, statement{text: text, words: []string{"PIVOT"}})
			if !errors.Is(err, ErrRefused) {
				t.Errorf("%q: want a refusal, got %v", text, err)
			}
		}
		chk, err := checkExpanded(c, statement{text: "PIVOT t ON k USING count(*)", words: []string{"PIVOT"}})
		if err != nil || !chk.Expanded {
			t.Errorf("a real PIVOT: %+v %v", chk, err)
		}
		_, err = checkExpanded(c, statement{text: "SELECT 1; SELECT 2"})
		if !errors.Is(err, ErrRefused) {
			t.Errorf("without PIVOT: want a refusal, got %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := eng.DB().QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 10 {
		t.Fatalf("t has %d rows (%v): something ran", n, err)
	}
}

// TestCheckImportDir checks that file functions may read only the import
// folder the caller names.
func TestCheckImportDir(t *testing.T) {
	ctx := context.Background()
	eng, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	q := "SELECT * FROM glob('" + eng.ImportDir() + "/*')"
	err = eng.Raw(ctx, func(c *duckdb.Conn) error {
		for _, tc := range []struct {
			dir     string
			refused bool
		}{{eng.ImportDir(), false}, {"", true}, {eng.Dir() + "/elsewhere", true}} {
			chk, err := Check(c, q, tc.dir)
			if errors.Is(err, ErrRefused) != tc.refused {
				t.Errorf("import dir %q: refused=%v, got %v", tc.dir, tc.refused, err)
			}
			if chk != nil && chk.Stmt != nil {
				_ = chk.Stmt.Close()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
