package catalog_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestNotesRoundTrip sets notes inside a transaction, reads them back,
// and checks that a failed change writes nothing.
func TestNotesRoundTrip(t *testing.T) {
	ctx := context.Background()
	w, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(p, []byte("id,amt_net\n1,9.5\n2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Loader.Load(ctx, p, load.Options{}); err != nil {
		t.Fatal(err)
	}
	set := func(name string, n catalog.Notes) error {
		return w.Engine.Write(ctx, func(c *duckdb.Conn) error {
			if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
				return err
			}
			if _, err := catalog.SetNotes(ctx, c, name, n); err != nil {
				_ = duck.Exec(ctx, c, "ROLLBACK")
				return err
			}
			return duck.Exec(ctx, c, "COMMIT")
		})
	}
	if err := set("orders", catalog.Notes{Table: new("  One row per web order.  "), Columns: map[string]string{"AMT_NET": "net amount in euros"}}); err != nil {
		t.Fatal(err)
	}
	d, err := catalog.Get(ctx, w.Engine.DB(), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if d.Note != "One row per web order." || d.Columns[1].Note != "net amount in euros" || d.Columns[0].Note != "" {
		t.Errorf("stored notes: %q, columns %+v", d.Note, d.Columns)
	}
	if d.Description() != d.Note || d.Columns[1].Description() != "net amount in euros" {
		t.Errorf("descriptions %q %q", d.Description(), d.Columns[1].Description())
	}
	// Without a table note, only the columns named change.
	if err := set("orders", catalog.Notes{Columns: map[string]string{"id": "order number"}}); err != nil {
		t.Fatal(err)
	}
	if d, _ := catalog.Get(ctx, w.Engine.DB(), "orders"); d.Note != "One row per web order." || d.Columns[0].Note != "order number" || d.Columns[1].Note != "net amount in euros" {
		t.Errorf("a column-only change: %q %+v", d.Note, d.Columns)
	}

	cases := []struct {
		name  string
		table string
		notes catalog.Notes
		check func(error) bool
	}{
		{"unknown dataset", "nope", catalog.Notes{Table: new("x")}, func(err error) bool { return errors.Is(err, catalog.ErrNotFound) }},
		{"unknown column", "orders", catalog.Notes{Table: new("changed"), Columns: map[string]string{"price": "x"}}, func(err error) bool {
			var ne *catalog.NoteError
			return errors.As(err, &ne) && ne.Column == "price"
		}},
		{"too long", "orders", catalog.Notes{Table: new(strings.Repeat("é", catalog.MaxNote+1))}, func(err error) bool {
			var ne *catalog.NoteError
			return errors.As(err, &ne) && strings.Contains(ne.Error(), "2000")
		}},
	}
	for _, tc := range cases {
		err := set(tc.table, tc.notes)
		if err == nil || !tc.check(err) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	if d, _ := catalog.Get(ctx, w.Engine.DB(), "orders"); d.Note != "One row per web order." {
		t.Errorf("a refused change was written: %q", d.Note)
	}
	// A note of exactly MaxNote characters is fine; an empty one clears.
	if err := set("orders", catalog.Notes{Table: new(strings.Repeat("é", catalog.MaxNote))}); err != nil {
		t.Errorf("note of MaxNote characters: %v", err)
	}
	if err := set("orders", catalog.Notes{Table: new(""), Columns: map[string]string{"amt_net": ""}}); err != nil {
		t.Fatal(err)
	}
	if d, _ := catalog.Get(ctx, w.Engine.DB(), "orders"); d.Note != "" || d.Columns[1].Note != "" {
		t.Errorf("cleared notes remain: %q %q", d.Note, d.Columns[1].Note)
	}
}
