package app_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/duck"
)

// TestOddColumnNamesInTheWindow loads, through the window's façade,
// headers whose names broke statements: each loads under a clean name
// (with a warning when renamed), answers a query by its names, previews,
// profiles, refreshes into the same dataset and is removed, leaving the
// list empty.
func TestOddColumnNamesInTheWindow(t *testing.T) {
	long := strings.Repeat("n", 10000)
	tests := []struct {
		name, header string
		renamed      bool
	}{
		{"NUL", "col1|col\x00 2", true},
		{"control characters", "a\x10b|c\x1bd", true},
		{"only a quote", `""""|x`, false},
		{"very long", long + "|x", false},
		{"differ only in case", "Amount|amount", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, setup{})
			path := filepath.Join(t.TempDir(), "odd.csv")
			if err := os.WriteFile(path, []byte(tc.header+"\n"+strings.Repeat("1|2\n3|4\n", 25)), 0o644); err != nil {
				t.Fatal(err)
			}
			reps, err := e.app.OpenFiles([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			if len(reps) != 1 || reps[0].Error != nil || len(reps[0].Datasets) != 1 {
				t.Fatalf("open %s: %+v", path, reps)
			}
			d := reps[0].Datasets[0]
			if len(d.Columns) != 2 {
				t.Fatalf("columns %+v", d.Columns)
			}
			a, b := d.Columns[0].Name, d.Columns[1].Name
			if strings.ContainsFunc(a+b, func(r rune) bool { return r < 0x20 }) || strings.EqualFold(a, b) {
				t.Errorf("columns %q, %q: control characters kept or one name to DuckDB", a, b)
			}
			if got := strings.Contains(strings.Join(d.Warnings, "\n"), "control characters removed"); got != tc.renamed {
				t.Errorf("renamed-columns warning %v, want %v: %q", got, tc.renamed, d.Warnings)
			}
			res, err := e.app.RunSQL("SELECT sum(" + duck.QuoteIdent(a) + ") + sum(" + duck.QuoteIdent(b) + ") FROM " + duck.QuoteIdent(d.Name))
			if err != nil || fmt.Sprint(res.Page.Rows[0][0]) != "250" {
				t.Fatalf("query by the columns' names: %+v %v", res, err)
			}
			if p, err := e.app.PreviewDataset(d.Name); err != nil || p.Rows != 50 {
				t.Errorf("preview: %+v %v", p, err)
			}
			prof, err := e.app.ProfileDataset(d.Name)
			if err != nil || prof.Kind != "profile" || len(prof.Data) == 0 {
				t.Errorf("profile: %+v %v", prof, err)
			}
			if err := e.app.RefreshDataset(d.Name); err != nil {
				t.Fatalf("refresh: %v", err)
			}
			ds, _ := e.app.ListDatasets()
			if len(ds) != 1 || ds[0].Name != d.Name || ds[0].Rows != 50 {
				t.Errorf("after refresh: %+v", listed(ds))
			}
			if err := e.app.RemoveDataset(d.Name); err != nil {
				t.Fatalf("remove: %v", err)
			}
			if ds, _ := e.app.ListDatasets(); len(ds) != 0 {
				t.Errorf("after remove: %v", listed(ds))
			}
		})
	}
}

// TestWideFileInTheWindow opens a 10,000-column file through the window's
// façade: it loads with statistics for every column, answers a query on
// its last column, previews, refreshes into the same dataset and is
// removed, with the database file that held it. (The window's Profile view, tools/profile, is not exercised: it
// makes one aggregate over every column and stops at the 30 s query limit
// on this file.)
func TestWideFileInTheWindow(t *testing.T) {
	const cols = 10000
	e := newEnv(t, setup{})
	var b strings.Builder
	for j := 0; j < cols; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	for i := 0; i < 4; i++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", (i+j)%7)
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	reps, err := e.app.OpenFiles([]string{path})
	if err != nil || len(reps) != 1 || reps[0].Error != nil || len(reps[0].Datasets) != 1 {
		t.Fatalf("open: %+v %v", reps, err)
	}
	d := reps[0].Datasets[0]
	if len(d.Columns) != cols || d.Rows != 4 {
		t.Fatalf("%d columns, %d rows; want %d, 4", len(d.Columns), d.Rows, cols)
	}
	for _, w := range d.Warnings {
		if strings.Contains(w, "no statistics") {
			t.Errorf("columns left without statistics: %s", w)
		}
	}
	res, err := e.app.RunSQL(fmt.Sprintf("SELECT sum(c%d) FROM %s", cols-1, d.Name))
	if err != nil || fmt.Sprint(res.Page.Rows[0][0]) != "18" { // (9999+i) % 7 for i < 4: 3+4+5+6
		t.Fatalf("query the last column: %+v %v", res, err)
	}
	if p, err := e.app.PreviewDataset(d.Name); err != nil || p.Rows != 4 {
		t.Errorf("preview: %v", err)
	}
	// The Profile view of a wide table: bounded batches, every column.
	start := time.Now()
	prof, err := e.app.ProfileDataset(d.Name)
	if err != nil {
		t.Fatalf("profile: %v", err)
	}
	t.Logf("profile of %d columns in %s", cols, time.Since(start).Round(time.Millisecond))
	if body, _ := json.Marshal(prof); !strings.Contains(string(body), fmt.Sprintf(`"c%d"`, cols-1)) {
		t.Errorf("the profile has no entry for the last column c%d", cols-1)
	}
	if err := e.app.RefreshDataset(d.Name); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if err := e.app.RemoveDataset(d.Name); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if ds, _ := e.app.ListDatasets(); len(ds) != 0 {
		t.Errorf("after remove: %v", listed(ds))
	}
	// A file this wide is stored in a database file of its own (the
	// wide layout, data/load): the removal deletes it.
	if left, _ := filepath.Glob(filepath.Join(e.wsDir, "import", "*.wide.duckdb*")); len(left) != 0 {
		t.Errorf("after remove the import folder holds %v", left)
	}
}
