package workspace_test

import (
	"context"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/workspace"
)

func open(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// commitUnprofiled does what a load does up to its commit and stops, as a
// load killed before profiling does: a committed table whose record has
// the columns' names and types (and a user's note) but no statistics.
// Orphan is a record whose table does not exist.
func commitUnprofiled(t *testing.T, w *workspace.Workspace) {
	t.Helper()
	ctx := context.Background()
	err := w.Engine.Write(ctx, func(c *duckdb.Conn) error {
		for _, q := range []string{
			"CREATE TABLE sales (region VARCHAR, amount INTEGER)",
			"INSERT INTO sales VALUES ('north', 10), ('south', 20), ('north', NULL), (NULL, 40), ('north', 5)",
		} {
			if err := duck.Exec(ctx, c, q); err != nil {
				return err
			}
		}
		cols, err := catalog.Describe(ctx, c, "sales")
		if err != nil {
			return err
		}
		cols[0].Note = "sales region"
		d := catalog.Dataset{Name: "sales", Kind: "csv", Source: "/data/sales.csv", Storage: "table", Rows: 5, Columns: cols, Note: "kept"}
		if err := catalog.Put(ctx, c, d); err != nil {
			return err
		}
		return catalog.Put(ctx, c, catalog.Dataset{Name: "orphan", Kind: "csv", Source: "/data/orphan.csv", Storage: "table",
			Columns: []catalog.Column{{Name: "x", Type: "INTEGER"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenProfilesUnprofiledDatasets reopens a workspace holding a dataset
// a load left without statistics: Open computes and records them, keeping
// the user's notes, and a record it cannot profile does not stop it.
func TestOpenProfilesUnprofiledDatasets(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	commitUnprofiled(t, w)
	before, err := catalog.Get(context.Background(), w.Engine.DB(), "sales")
	if err != nil {
		t.Fatal(err)
	}
	if !before.NeedsProfile() {
		t.Fatalf("the record written without statistics does not need a profile: %+v", before)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w = open(t, dir)
	defer w.Close()
	d, err := catalog.Get(context.Background(), w.Engine.DB(), "sales")
	if err != nil {
		t.Fatal(err)
	}
	if d.NeedsProfile() || !d.Profiled {
		t.Fatalf("sales still unprofiled after reopening: %+v", d)
	}
	if d.Rows != 5 || len(d.Columns) != 2 || d.Note != "kept" {
		t.Fatalf("sales: rows %d, %d columns, note %q; want 5, 2, \"kept\"", d.Rows, len(d.Columns), d.Note)
	}
	region, amount := d.Columns[0], d.Columns[1]
	if region.Nulls != 1 || region.Distinct != 2 || region.Note != "sales region" {
		t.Errorf("region: nulls %d distinct %d note %q; want 1, 2, \"sales region\"", region.Nulls, region.Distinct, region.Note)
	}
	if len(region.Top) == 0 || region.Top[0] != (catalog.Value{Value: "north", Count: 3}) {
		t.Errorf("region top values %+v, want north×3 first", region.Top)
	}
	if amount.Nulls != 1 || amount.Min == nil || *amount.Min != "5" || amount.Max == nil || *amount.Max != "40" {
		t.Errorf("amount: nulls %d min %v max %v; want 1, 5, 40", amount.Nulls, deref(amount.Min), deref(amount.Max))
	}
	orphan, err := catalog.Get(context.Background(), w.Engine.DB(), "orphan")
	if err != nil {
		t.Fatal(err)
	}
	if !orphan.NeedsProfile() {
		t.Errorf("a record whose table is missing was marked profiled: %+v", orphan)
	}
}

// TestOpenHonoursCancel opens a workspace with an unprofiled dataset
// under a cancelled context: Open fails and records nothing.
func TestOpenHonoursCancel(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	commitUnprofiled(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if w, err := workspace.Open(ctx, dir); err == nil {
		w.Close()
		t.Fatal("Open with a cancelled context succeeded")
	}
	w = open(t, dir)
	defer w.Close()
	d, err := catalog.Get(context.Background(), w.Engine.DB(), "sales")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Profiled {
		t.Errorf("the open after the cancelled one did not profile sales: %+v", d)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
