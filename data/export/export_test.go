package export_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/export"
)

// TestTableWritesEveryRow: a 2,059-row table exports with all its rows
// (not a preview's 1,000), formulas neutralised, numbers, dates, NULLs and
// lists as a spreadsheet expects, and the file lands where asked.
func TestTableWritesEveryRow(t *testing.T) {
	ctx := t.Context()
	eng, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	err = eng.Write(ctx, func(c *duckdb.Conn) error {
		return duck.Exec(ctx, c, `CREATE TABLE "=orders" AS SELECT i AS id,
			CASE WHEN i = 1 THEN '=HYPERLINK("http://x")' WHEN i = 2 THEN '-12.5' WHEN i = 3 THEN '@SUM(1)' ELSE 'row ' || i END AS note,
			-i * 1.5 AS amount, DATE '2024-01-01' + i::INTEGER AS day,
			CASE WHEN i % 2 = 0 THEN NULL ELSE [i, i + 1] END AS pair
			FROM range(1, 2060) t(i)`)
	})
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "orders.csv")
	n, err := export.Table(ctx, eng, "=orders", dest)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2059 {
		t.Errorf("Table reported %d rows, want 2059", n)
	}
	f, err := os.Open(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2060 {
		t.Fatalf("%d records, want a header and 2059 rows", len(recs))
	}
	want := [][]string{
		{"id", "note", "amount", "day", "pair"},
		{"1", `'=HYPERLINK("http://x")`, "-1.5", "2024-01-02", "[1,2]"},
		{"2", "-12.5", "-3.0", "2024-01-03", ""},
		{"3", "'@SUM(1)", "-4.5", "2024-01-04", "[3,4]"},
	}
	for i, w := range want {
		for j := range w {
			if recs[i][j] != w[j] {
				t.Errorf("record %d cell %d = %q, want %q", i, j, recs[i][j], w[j])
			}
		}
	}
	if info, err := os.Stat(dest); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("exported file mode: %v %v", info, err)
	}
	left, _ := filepath.Glob(filepath.Join(eng.ImportDir(), "export-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left in the import folder: %v", left)
	}
	if _, err := export.Table(ctx, eng, "missing", filepath.Join(t.TempDir(), "x.csv")); err == nil {
		t.Error("exporting a missing table succeeded")
	}
}
