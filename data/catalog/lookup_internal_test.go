package catalog

import (
	"context"
	"database/sql"
	"reflect"
	"sort"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// TestLookups checks the catalog reads that do not decode every record
// against the records they should find, with a note that holds the very
// text their filters look for.
func TestLookups(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs := []Dataset{
		{Name: "sales", Source: "/d/sales.csv", Profiled: true, Note: `tricky: "attach":"x" and "profiled":true`},
		{Name: "book_jan", Source: "/d/book.xlsx", Part: "Jan", Profiled: true},
		{Name: "book_feb", Source: "/d/book.xlsx", Part: "Feb"},
		{Name: "nyc_trips", Source: "/d/nyc.duckdb", Part: "trips", Attach: "src_nyc", Staged: "/w/import/nyc.duckdb", Profiled: true},
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Raw(func(dc any) error {
		c := dc.(*duckdb.Conn)
		if err := Ensure(ctx, c); err != nil {
			return err
		}
		for _, d := range recs {
			if err := Put(ctx, c, d); err != nil {
				return err
			}
		}
		src, err := OfSource(ctx, c, "/d/book.xlsx")
		if err != nil {
			return err
		}
		if got := keys(src); !reflect.DeepEqual(got, []string{"book_feb", "book_jan"}) {
			t.Errorf("OfSource(book.xlsx) = %v, want book_feb, book_jan", got)
		}
		for name, want := range map[string]bool{"sales": true, "book_jan": true, "Sales": false, "sales_2": false, "": false} {
			got, err := Taken(ctx, c, name)
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("Taken(%q) = %v, want %v", name, got, want)
			}
		}
		return nil
	})
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	att, err := Attached(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(att) != 1 || att[0].Name != "nyc_trips" || att[0].Staged != "/w/import/nyc.duckdb" {
		t.Errorf("Attached = %+v, want nyc_trips alone", att)
	}
	un, err := Unprofiled(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(un) != 1 || un[0].Name != "book_feb" {
		t.Errorf("Unprofiled = %+v, want book_feb alone", un)
	}
}

// TestDescribeByName describes a table, a view and a missing table in a
// transaction, by names that need quoting: a missing table has no
// columns and leaves the transaction usable.
func TestDescribeByName(t *testing.T) {
	setup := `CREATE TABLE "we""ird.na me" ("A b" DECIMAL(18,3), s STRUCT(a INT, "b c" VARCHAR), l INT[]); CREATE VIEW "V" AS SELECT l, "A b" FROM "we""ird.na me"`
	withConn(t, setup, func(c *duckdb.Conn) {
		ctx := context.Background()
		if _, err := c.ExecContext(ctx, "BEGIN TRANSACTION", nil); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			table string
			want  []Column
		}{
			{`we"ird.na me`, []Column{{Name: "A b", Type: "DECIMAL(18,3)"}, {Name: "s", Type: `STRUCT(a INTEGER, "b c" VARCHAR)`}, {Name: "l", Type: "INTEGER[]"}}},
			{"V", []Column{{Name: "l", Type: "INTEGER[]"}, {Name: "A b", Type: "DECIMAL(18,3)"}}},
			{"missing", nil},
		} {
			got, err := Describe(ctx, c, tc.table)
			if err != nil {
				t.Errorf("Describe(%q): %v", tc.table, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Describe(%q) = %+v, want %+v", tc.table, got, tc.want)
			}
		}
		if _, err := c.ExecContext(ctx, "CREATE TABLE after_miss AS SELECT 1 AS x", nil); err != nil {
			t.Errorf("the transaction after describing a missing table: %v", err)
		}
		if _, err := c.ExecContext(ctx, "COMMIT", nil); err != nil {
			t.Errorf("commit: %v", err)
		}
	})
}

func keys(m map[string]Dataset) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
