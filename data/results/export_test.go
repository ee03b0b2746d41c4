package results_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

// typedSQL is a result with a column of each kind an analyst exports.
const typedSQL = `SELECT * FROM (VALUES
	(1::BIGINT, 2.5::DOUBLE, 12.34::DECIMAL(10,2), DATE '2024-03-05', TIMESTAMP '2024-03-05 10:11:12', true, 'a,b "q"', '=HYPERLINK("http://x")'),
	(2::BIGINT, -0.125::DOUBLE, 0.5::DECIMAL(10,2), DATE '1999-12-31', TIMESTAMP '1999-12-31 23:59:59', false, NULL, 'plain'))
	AS t(n, x, d, day, stamp, ok, s, f) ORDER BY n`

// A result exported to XLSX and Parquet is read back by Loupe itself (its
// loader, into a workspace) with the same values, and the Parquet file
// with the same types.
func TestExportsReadBackByLoupe(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	res, err := ws.Query.Run(ctx, typedSQL, query.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	var book bytes.Buffer
	if err := results.WriteXLSX(&book, res.Columns, res.Rows); err != nil {
		t.Fatal(err)
	}
	xlsx := filepath.Join(dir, "result.xlsx")
	if err := os.WriteFile(xlsx, book.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// A cell that reads like a formula is text, never a formula; the header is frozen.
	wb, err := excelize.OpenReader(bytes.NewReader(book.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if fm, _ := wb.GetCellFormula("Result", "H2"); fm != "" {
		t.Errorf("H2 holds the formula %q", fm)
	}
	if v, _ := wb.GetCellValue("Result", "H2"); v != `=HYPERLINK("http://x")` {
		t.Errorf("H2 = %q", v)
	}
	wb.Close()
	pq := filepath.Join(dir, "result.parquet")
	if err := results.WriteParquet(ctx, pq, res.Columns, res.Rows); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("the exports left %d entries, want the two files", len(left))
	}

	for _, c := range []struct {
		file  string
		types bool // every column type survives (XLSX: typed cells, DECIMAL as a number)
	}{{pq, true}, {xlsx, false}} {
		t.Run(filepath.Ext(c.file), func(t *testing.T) {
			ds, err := ws.Loader.Load(ctx, c.file, load.Options{})
			if err != nil || len(ds) != 1 {
				t.Fatalf("load %s: %+v %v", c.file, ds, err)
			}
			back, err := ws.Query.Run(ctx, fmt.Sprintf(`SELECT * FROM "%s" ORDER BY n`, ds[0].Name), query.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, col := range back.Columns {
				names = append(names, col.Name)
			}
			if strings.Join(names, ",") != "n,x,d,day,stamp,ok,s,f" {
				t.Fatalf("columns %v", names)
			}
			want := res.Columns
			if !c.types { // a spreadsheet's numbers are doubles: DECIMAL reads back as DOUBLE
				want = append([]query.Column(nil), res.Columns...)
				want[2].Type = "DOUBLE"
			}
			if !reflect.DeepEqual(back.Columns, want) {
				t.Errorf("types: got %+v, want %+v", back.Columns, want)
			}
			for i := range res.Rows {
				for j := range res.Columns {
					got, want := results.Cell(back.Rows[i][j]), results.Cell(res.Rows[i][j])
					if got != want && !(j == 4 && strings.HasPrefix(got, want)) { // a spreadsheet's timestamp may read back with seconds' fraction
						t.Errorf("row %d %s: got %q (%T), want %q", i+1, res.Columns[j].Name, got, back.Rows[i][j], want)
					}
				}
			}
		})
	}
}
