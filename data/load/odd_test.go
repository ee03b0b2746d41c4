package load_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// wideCSV writes a CSV of cols columns (c0, c1, …) and rows rows of small
// integers, and returns its path.
func wideCSV(t testing.TB, cols, rows int) string {
	t.Helper()
	var b strings.Builder
	for j := 0; j < cols; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", (i+j)%7)
		}
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), fmt.Sprintf("wide_%d.csv", cols))
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// leftovers lists the workspace's tables and views other than the
// catalog's, and the catalog's records: what a load left behind.
func leftovers(t *testing.T, w *workspace.Workspace) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		"SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'",
		"SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal",
		"SELECT 'record ' || name FROM _loupe.datasets",
	} {
		rs, err := w.Engine.DB().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			var s string
			_ = rs.Scan(&s)
			out = append(out, s)
		}
		rs.Close()
	}
	return out
}

// TestWideFileProfilesInBatches loads files far wider than any one
// profile query may be: every column is profiled (the last batch too)
// and the load ends in a time that grows with the cells, not explodes.
// Before the profile was batched, 9,074 columns drove DuckDB to 19 GiB.
func TestWideFileProfilesInBatches(t *testing.T) {
	w := openWS(t)
	for _, cols := range []int{catalog.BatchColumns + 10, 10000} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			path := wideCSV(t, cols, 4)
			start := time.Now()
			d := loadOne(t, w, path)
			t.Logf("%d columns × 4 rows loaded in %s", cols, time.Since(start).Round(time.Millisecond))
			if len(d.Columns) != cols || d.Rows != 4 || !d.Profiled {
				t.Fatalf("%d columns, %d rows, profiled %v; want %d, 4, true", len(d.Columns), d.Rows, d.Profiled, cols)
			}
			for _, i := range []int{0, catalog.BatchColumns, cols - 1} {
				c := d.Columns[i]
				if c.Distinct != 4 || len(c.Top) != 4 || c.Min == nil || *c.Min != fmt.Sprint(i%7) && i%7 < 4 {
					t.Errorf("column %s: distinct %d, top %v, min %v; want 4 distinct values and a minimum", c.Name, c.Distinct, c.Top, c.Min)
				}
			}
			for _, warn := range d.Warnings {
				if strings.Contains(warn, "no statistics") {
					t.Errorf("a wide file left columns without statistics: %s", warn)
				}
			}
			got := rows(t, w, fmt.Sprintf("SELECT sum(c%d) FROM %s", cols-1, d.Name))
			if fmt.Sprint(got[0][0]) == "" {
				t.Errorf("query of the last column: %v", got)
			}
		})
	}
}

// TestProfileBudget gives the profile no time: the load still succeeds,
// with every column present, none with statistics, and a warning that
// says so.
func TestProfileBudget(t *testing.T) {
	w := openWS(t)
	ds, err := w.Loader.Load(context.Background(), wideCSV(t, 300, 4), load.Options{ProfileBudget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	if len(d.Columns) != 300 || d.Rows != 4 {
		t.Fatalf("%d columns, %d rows; want 300, 4", len(d.Columns), d.Rows)
	}
	if d.Columns[0].Distinct != 0 || len(d.Columns[0].Top) != 0 {
		t.Errorf("a column has statistics though the profile had no time: %+v", d.Columns[0])
	}
	warn := strings.Join(d.Warnings, "\n")
	if !strings.Contains(warn, "300 column(s) have no statistics (profiling stopped after") {
		t.Errorf("warnings %q do not say the columns were left without statistics", warn)
	}
}

// TestCancelMidProfile cancels a load of a wide file while it profiles:
// Load returns within a second (DuckDB is interrupted) and the workspace
// holds nothing of it. Before, the profile ran on with cancel ignored.
func TestCancelMidProfile(t *testing.T) {
	w := openWS(t)
	path := wideCSV(t, 10000, 50)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	_, err := w.Loader.Load(ctx, path, load.Options{Progress: func(p load.Progress) {
		if p.Phase == "profiling" && len(cancelled) == 0 {
			go func() {
				time.Sleep(300 * time.Millisecond)
				cancelled <- time.Now()
				cancel()
			}()
		}
	}})
	returned := time.Now()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("load cancelled while profiling: err %v, want context.Canceled", err)
	}
	took := returned.Sub(<-cancelled)
	t.Logf("load returned %s after the cancel", took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("load returned %s after the cancel, want < 1s", took)
	}
	if left := leftovers(t, w); len(left) != 0 {
		t.Errorf("a cancelled load left %v", left)
	}
}

// TestOddColumnNames loads headers with names that broke statements or
// terminals: each loads under a clean name (control characters removed,
// with a warning naming the column), is queried by that name, profiled,
// and reloaded into the same dataset.
func TestOddColumnNames(t *testing.T) {
	long := strings.Repeat("n", 10000)
	tests := []struct {
		name    string
		header  string // the CSV header row (two columns)
		want    []string
		renamed bool
	}{
		{"NUL", "col1|col\x00 2", []string{"col1", "col 2"}, true},
		{"control characters", "a\x10b|c\x01\x02d", []string{"a b", "c d"}, true},
		{"only control characters", "\x07|x", []string{"column0", "x"}, true},
		{"only a quote", `""""|x`, []string{`"`, "x"}, false},
		{"very long", long + "|x", []string{long, "x"}, false},
		{"differ only in case", "Amount|amount", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := openWS(t)
			// Enough rows that a few control bytes do not make it binary.
			path := write(t, "odd.csv", []byte(tc.header+"\n"+strings.Repeat("1|2\n3|4\n", 25)))
			d := loadOne(t, w, path)
			var names []string
			for _, c := range d.Columns {
				names = append(names, c.Name)
			}
			if len(names) != 2 {
				t.Fatalf("columns %q, want 2", names)
			}
			if tc.want != nil && (names[0] != tc.want[0] || names[1] != tc.want[1]) {
				t.Errorf("columns %q, want %q", names, tc.want)
			}
			if strings.EqualFold(names[0], names[1]) {
				t.Errorf("columns %q are the same name to DuckDB", names)
			}
			warn := strings.Join(d.Warnings, "\n")
			if got := strings.Contains(warn, "control characters removed"); got != tc.renamed {
				t.Errorf("warning about renamed columns: %v, want %v (warnings %q)", got, tc.renamed, warn)
			}
			if !d.Profiled || d.Columns[1].Distinct != 2 || d.Columns[0].Min == nil || *d.Columns[0].Min != "1" {
				t.Errorf("not profiled: %+v", d.Columns)
			}
			got := rows(t, w, "SELECT sum("+duck.QuoteIdent(names[0])+") + sum("+duck.QuoteIdent(names[1])+") FROM "+duck.QuoteIdent(d.Name))
			if fmt.Sprint(got[0][0]) != "250" {
				t.Errorf("sum of both columns = %v, want 250", got[0][0])
			}
			again := loadOne(t, w, path)
			if again.Name != d.Name {
				t.Errorf("reload made %s, want %s again", again.Name, d.Name)
			}
			if left := leftovers(t, w); len(left) != 2 {
				t.Errorf("after a reload the workspace holds %v, want the table and its record", left)
			}
		})
	}
}

// TestSweepStagingTables reopens a workspace holding a staging table, as
// a load killed before it published leaves: the open drops it.
func TestSweepStagingTables(t *testing.T) {
	dir := t.TempDir()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Engine.DB().Exec(`CREATE TABLE "_loupe_loading_sales" AS SELECT 1 AS x`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w, err = workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if left := leftovers(t, w); len(left) != 0 {
		t.Errorf("the open left %v", left)
	}
}
