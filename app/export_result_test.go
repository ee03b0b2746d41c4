package app_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loupeapp/loupe/app"
)

// A console result exported to XLSX and Parquet from the window opens
// again in Loupe as a dataset with the same rows and column types.
func TestExportResultAsXLSXAndParquet(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	const q = "SELECT region, count(*) AS n, min(order_date) AS first FROM orders GROUP BY region ORDER BY region"
	res, err := e.app.RunSQL(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{app.ExportXLSX, app.ExportParquet} {
		t.Run(format, func(t *testing.T) {
			path, err := e.app.ExportResult(res.Ref, format)
			if err != nil || path == nil || filepath.Ext(*path) != "."+format {
				t.Fatalf("export: %v %v", path, err)
			}
			reps, err := e.app.OpenFiles([]string{*path})
			if err != nil || len(reps) != 1 || reps[0].Error != nil || len(reps[0].Datasets) != 1 {
				t.Fatalf("open the export: %+v %v", reps, err)
			}
			back, err := e.app.RunSQL(fmt.Sprintf(`SELECT * FROM "%s" ORDER BY region`, reps[0].Datasets[0].Name))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(back.Columns, res.Columns, func(a, b app.Column) bool { return a.Name == b.Name && a.Type == b.Type }) {
				t.Errorf("columns %+v, want %+v", back.Columns, res.Columns)
			}
			if back.Rows != res.Rows || fmt.Sprint(back.Page.Rows) != fmt.Sprint(res.Page.Rows) {
				t.Errorf("rows %v, want %v", back.Page.Rows, res.Page.Rows)
			}
		})
	}
	if _, err := e.app.ExportResult(res.Ref, "pdf"); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("an unknown format: %v", err)
	}
}
