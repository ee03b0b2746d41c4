package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// loupe sql --out writes a result as XLSX or Parquet that loupe load
// reads back with the same rows.
func TestSQLOutReadsBack(t *testing.T) {
	ws := askWorkspace(t)
	dir := t.TempDir()
	const q = "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region"
	for _, name := range []string{"totals.xlsx", "totals.parquet", "totals.csv"} {
		path := filepath.Join(dir, name)
		if code, out, errs := run(t, "", "sql", "--workspace", ws, "--out", path, q); code != ExitOK || strings.TrimSpace(out) != path {
			t.Fatalf("sql --out %s: %d %q %s", name, code, out, errs)
		}
		code, out, errs := run(t, "", "load", "--workspace", ws, path)
		var rep struct {
			Table string `json:"table"`
		}
		if code != ExitOK || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &rep) != nil {
			t.Fatalf("load %s: %d %s %s", name, code, out, errs)
		}
		code, out, _ = run(t, "", "sql", "--workspace", ws, "--json", `SELECT region, total FROM "`+rep.Table+`" ORDER BY region`)
		if code != ExitOK || !strings.Contains(out, `"rows":[["north",17],["south",12]]`) {
			t.Errorf("%s read back: %s", name, out)
		}
	}
	if code, _, errs := run(t, "", "sql", "--workspace", ws, "--out", filepath.Join(dir, "x.pdf"), q); code == ExitOK || !strings.Contains(errs, ".xlsx or .parquet") {
		t.Errorf("--out x.pdf: %d %s", code, errs)
	}
}
