package schema_test

import (
	"context"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
)

// TestDescribeTableNotes: the user's notes on a table and its columns are
// shown, the table's first, each column's after its statistics.
func TestDescribeTableNotes(t *testing.T) {
	e := setup(t)
	err := e.ws.Engine.Write(context.Background(), func(c *duckdb.Conn) error {
		_, err := catalog.SetNotes(context.Background(), c, "orders", catalog.Notes{
			Table:   new("Web shop orders,\nexported nightly."),
			Columns: map[string]string{"region": "sales region of the buyer"},
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, e.describe, `{"table": "orders"}`)
	lines := strings.Split(r.ForModel, "\n")
	if r.Failed || len(lines) != 10 || lines[1] != "Note: Web shop orders, exported nightly." {
		t.Fatalf("%d lines:\n%s", len(lines), r.ForModel)
	}
	var region string
	for _, l := range lines {
		if strings.HasPrefix(l, "- region ") {
			region = l
		}
	}
	if !strings.HasSuffix(region, " — sales region of the buyer") {
		t.Errorf("region line %q", region)
	}
	if strings.Count(r.ForModel, " — ") != 1 {
		t.Errorf("notes on columns without one:\n%s", r.ForModel)
	}
}
