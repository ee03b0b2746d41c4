package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// withConn runs fn on a driver connection to a fresh DuckDB database
// prepared by setup.
func withConn(t *testing.T, setup string, fn func(c *duckdb.Conn)) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(setup); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error { fn(dc.(*duckdb.Conn)); return nil })
}

// TestTopValueFormsAgree computes the frequent values of the same columns
// both ways topValues can: the results are the same.
func TestTopValueFormsAgree(t *testing.T) {
	withConn(t, `CREATE TABLE t AS SELECT i % 3 AS a, ['x', 'y', NULL][1 + i % 3] AS b, DATE '2024-01-01' + (i % 5)::INTEGER AS d FROM range(100) r(i)`, func(c *duckdb.Conn) {
		ctx := context.Background()
		cols, err := Describe(ctx, c, "t")
		if err != nil {
			t.Fatal(err)
		}
		pick := []int{0, 1, 2}
		pairs := append([]Column(nil), cols...)
		sets := append([]Column(nil), cols...)
		if err := topByPairs(ctx, c, `"t"`, pairs, pick); err != nil {
			t.Fatal(err)
		}
		if err := topBySets(ctx, c, `"t"`, sets, pick); err != nil {
			t.Fatal(err)
		}
		for _, i := range pick {
			a, b := sortedTop(pairs[i].Top), sortedTop(sets[i].Top)
			if !reflect.DeepEqual(a, b) || len(a) == 0 {
				t.Errorf("column %s: pairs %v, sets %v", cols[i].Name, a, b)
			}
		}
	})
}

func sortedTop(v []Value) []string {
	var out []string
	for _, x := range v {
		out = append(out, fmt.Sprintf("%s=%d", x.Value, x.Count))
	}
	return sortStrings(out)
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// TestProfileLeavesOutAFailingColumn profiles a view one of whose columns
// fails when computed: the others get their statistics, that one none,
// and the report says which and why.
func TestProfileLeavesOutAFailingColumn(t *testing.T) {
	setup := `CREATE VIEW v AS SELECT i AS ok, CAST(CASE WHEN i = 3 THEN 'x' ELSE i::VARCHAR END AS INTEGER) AS bad, i % 2 AS half FROM range(10) r(i)`
	withConn(t, setup, func(c *duckdb.Conn) {
		r, err := ProfileWithin(context.Background(), c, "v", time.Minute)
		if err != nil {
			t.Fatalf("one failing column failed the profile: %v", err)
		}
		if r.Rows != 10 || len(r.Columns) != 3 {
			t.Fatalf("rows %d, %d columns; want 10, 3", r.Rows, len(r.Columns))
		}
		if ok, half := r.Columns[0], r.Columns[2]; ok.Distinct != 10 || ok.Max == nil || *ok.Max != "9" || len(half.Top) != 2 {
			t.Errorf("the good columns lack statistics: %+v %+v", ok, half)
		}
		if bad := r.Columns[1]; bad.Distinct != 0 || bad.Min != nil || len(bad.Samples) != 0 {
			t.Errorf("the failing column has statistics: %+v", bad)
		}
		if len(r.Skipped) != 1 || r.Skipped[0].Column != "bad" {
			t.Fatalf("skipped %+v, want the column bad", r.Skipped)
		}
		if w := r.Warning(); !strings.Contains(w, `1 column(s) have no statistics (DuckDB could not compute them: `) || !strings.Contains(w, `"bad"`) {
			t.Errorf("warning %q", w)
		}
	})
}

// TestProfileHonoursCancel cancels a profile before it starts: it
// returns the context's error, not a report with columns left out.
func TestProfileHonoursCancel(t *testing.T) {
	withConn(t, `CREATE TABLE t AS SELECT 1 AS a`, func(c *duckdb.Conn) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := ProfileWithin(ctx, c, "t", time.Minute); err == nil {
			t.Error("a cancelled profile succeeded")
		}
	})
}
