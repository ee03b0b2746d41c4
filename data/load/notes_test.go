package load_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

func setNotes(t *testing.T, w *workspace.Workspace, name string, n catalog.Notes) {
	t.Helper()
	err := w.Engine.Write(context.Background(), func(c *duckdb.Conn) error {
		_, err := catalog.SetNotes(context.Background(), c, name, n)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func byName(cols []catalog.Column) map[string]catalog.Column {
	out := map[string]catalog.Column{}
	for _, c := range cols {
		out[c.Name] = c
	}
	return out
}

// TestNotesSurviveRefresh reloads a file whose columns changed: the
// table's note and the notes of the columns still there are kept.
func TestNotesSurviveRefresh(t *testing.T) {
	w := openWS(t)
	p := write(t, "sales.csv", []byte("region,amt\nnorth,1\n"))
	d := loadOne(t, w, p)
	setNotes(t, w, d.Name, catalog.Notes{Table: new("Sales per region, from the ERP."), Columns: map[string]string{"amt": "in euros", "region": "sales region"}})
	if err := os.WriteFile(p, []byte("amt,day\n1,2024-01-01\n2,2024-01-02\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := loadOne(t, w, p)
	for _, got := range []catalog.Dataset{again, mustGet(t, w, d.Name)} {
		cols := byName(got.Columns)
		if got.Name != d.Name || got.Rows != 2 || got.Note != "Sales per region, from the ERP." || cols["amt"].Note != "in euros" || cols["day"].Note != "" {
			t.Errorf("after refresh: %s rows %d note %q columns %+v", got.Name, got.Rows, got.Note, cols)
		}
		if _, ok := cols["region"]; ok {
			t.Errorf("dropped column still listed")
		}
	}
	// Another file of the same base name does not inherit the notes.
	other := write(t, "sales.csv", []byte("amt\n5\n"))
	if d3 := loadOne(t, w, other); d3.Note != "" || d3.Columns[0].Note != "" {
		t.Errorf("another file took the notes: %+v", d3)
	}
}

func mustGet(t *testing.T, w *workspace.Workspace, name string) catalog.Dataset {
	t.Helper()
	d, err := catalog.Get(context.Background(), w.Engine.DB(), name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDuckDBComments loads a DuckDB file with COMMENT ON a table, a view
// and columns: they become the datasets' comments, a user's note wins
// over them, and a reload reads the file's current comments.
func TestDuckDBComments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.duckdb")
	exec := func(stmts ...string) {
		t.Helper()
		execDuckDB(t, path, stmts...)
	}
	exec("CREATE TABLE customers (id INTEGER, seg VARCHAR)",
		"INSERT INTO customers VALUES (1, 'smb'), (2, 'ent')",
		"COMMENT ON TABLE customers IS 'Buyers with an account'",
		"COMMENT ON COLUMN customers.seg IS 'market segment: smb or ent'",
		"CREATE VIEW big AS SELECT * FROM customers WHERE seg = 'ent'",
		"COMMENT ON VIEW big IS 'Enterprise buyers only'")
	w := openWS(t)
	load1 := func() map[string]catalog.Dataset {
		t.Helper()
		ds, err := w.Loader.Load(context.Background(), path, load.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]catalog.Dataset{}
		for _, d := range ds {
			out[d.Name] = mustGet(t, w, d.Name)
		}
		return out
	}
	ds := load1()
	cust, big := ds["customers"], ds["big"]
	if cust.Comment != "Buyers with an account" || big.Comment != "Enterprise buyers only" {
		t.Errorf("table comments %q %q", cust.Comment, big.Comment)
	}
	if c := byName(cust.Columns); c["seg"].Comment != "market segment: smb or ent" || c["id"].Comment != "" || c["seg"].Description() != c["seg"].Comment {
		t.Errorf("column comments %+v", c)
	}
	if cust.Columns[0].Distinct == 0 && cust.Rows != 2 {
		t.Errorf("statistics lost: %+v", cust)
	}

	setNotes(t, w, "customers", catalog.Notes{Table: new("Our customers (user note)")})
	w.Close()
	exec("COMMENT ON COLUMN customers.seg IS 'segment code'")
	w2, err := workspace.Open(context.Background(), w.Engine.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	w = w2
	cust = load1()["customers"]
	if cust.Description() != "Our customers (user note)" || cust.Comment != "Buyers with an account" {
		t.Errorf("after reload: note %q comment %q", cust.Note, cust.Comment)
	}
	if c := byName(cust.Columns); c["seg"].Comment != "segment code" {
		t.Errorf("the column's new comment was not read: %+v", c["seg"])
	}
}
