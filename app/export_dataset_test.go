package app_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
)

// writeRows writes a CSV of n rows (id, amount) and returns its path.
func writeRows(t *testing.T, name string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,amount\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d,%d.25\n", i, i)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExportDatasetWritesEveryRow: a dataset's export holds all 2,059 of
// its rows, not the preview's 1,000, in a file named after it.
func TestExportDatasetWritesEveryRow(t *testing.T) {
	e := newEnv(t, setup{})
	reps, err := e.app.OpenFiles([]string{writeRows(t, "orders.csv", 2059)})
	if err != nil || reps[0].Error != nil {
		t.Fatalf("load: %v %v", err, reps)
	}
	pre, err := e.app.PreviewDataset("orders")
	if err != nil || pre.Kept != 1000 {
		t.Fatalf("preview keeps %v rows (%v); the test needs a capped preview", pre, err)
	}
	out, err := e.app.ExportDataset("orders")
	if err != nil || out == nil {
		t.Fatalf("export: %v %v", out, err)
	}
	if out.Path != filepath.Join(e.saveDir, "orders.csv") || out.Rows != 2059 {
		t.Errorf("exported %+v, want %s with 2059 rows", out, filepath.Join(e.saveDir, "orders.csv"))
	}
	f, err := os.Open(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2060 || recs[2059][0] != "2059" {
		t.Errorf("%d records (last %v), want a header and 2059 rows", len(recs), recs[len(recs)-1])
	}
	if _, err := e.app.ExportDataset("nope"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown dataset: %v", err)
	}
}
