package remote

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
)

func notesSchema() *Schema {
	return &Schema{Database: "shop", Tables: []Table{
		{Schema: "public", Name: "orders", Kind: "table", Comment: "web orders",
			Columns: []Column{{Name: "id", Type: "bigint"}, {Name: "Status", Type: "integer", Comment: "state code"}}},
		{Schema: "public", Name: "customers", Kind: "table", Columns: []Column{{Name: "id", Type: "bigint"}}},
	}}
}

// Notes are set, merged, trimmed, cleared and kept in their own file;
// names match as Schema.Table does, then ignoring case.
func TestSetNotes(t *testing.T) {
	store := NewStore(filepath.Join(t.TempDir(), "cfg", "connections.json"))
	dir := store.CacheDir("shop")
	sch := notesSchema()
	if n, err := LoadNotes(dir); err != nil || len(n.Tables) != 0 {
		t.Fatalf("no notes yet: %+v %v", n, err)
	}
	n, key, err := SetNotes(dir, "shop", sch, "orders", catalog.Notes{Table: new("  One row per web order  "), Columns: map[string]string{"status": "3 means cancelled"}})
	if err != nil || key != "public.orders" {
		t.Fatalf("set: %q %v", key, err)
	}
	if got := n.Of(sch.Table("orders")); got.Note != "One row per web order" || got.Columns["Status"] != "3 means cancelled" {
		t.Fatalf("notes %+v", got)
	}
	if _, _, err := SetNotes(dir, "shop", sch, "PUBLIC.Orders", catalog.Notes{Columns: map[string]string{"id": "order number"}}); err != nil {
		t.Fatal(err)
	}
	n, err = LoadNotes(dir)
	if got := n.Tables["public.orders"]; err != nil || got.Note != "One row per web order" || got.Columns["Status"] != "3 means cancelled" || got.Columns["id"] != "order number" {
		t.Fatalf("reloaded %+v %v", n, err)
	}
	if fi, err := os.Stat(NotesPath(dir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("notes file: %v %v", fi, err)
	}
	if _, err := LoadCatalog(dir); !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("notes are not the catalog: %v", err)
	}
	// Clearing every note forgets the table.
	if n, _, err = SetNotes(dir, "shop", sch, "orders", catalog.Notes{Table: new(""), Columns: map[string]string{"Status": "", "id": " "}}); err != nil || len(n.Tables) != 0 {
		t.Fatalf("cleared: %+v %v", n, err)
	}
}

// Bad input is refused with what exists, and nothing is written.
func TestSetNotesRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	sch := notesSchema()
	if _, _, err := SetNotes(dir, "shop", sch, "orders", catalog.Notes{Table: new("kept")}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(NotesPath(dir))
	long := strings.Repeat("é", catalog.MaxNote+1)
	var te *NoteTargetError
	var ne *catalog.NoteError
	for _, c := range []struct {
		name, table string
		set         catalog.Notes
		check       func(error) bool
		text        string
	}{
		{"unknown table", "refunds", catalog.Notes{Table: new("x")},
			func(err error) bool { return errors.As(err, &te) && te.Column == "" },
			`connection shop has no table "refunds" (its tables: public.orders, public.customers)`},
		{"unknown column", "orders", catalog.Notes{Table: new("changed"), Columns: map[string]string{"colour": "x"}},
			func(err error) bool { return errors.As(err, &te) && te.Column == "colour" },
			`public.orders has no column "colour" (its columns: id, Status)`},
		{"table note too long", "orders", catalog.Notes{Table: &long},
			func(err error) bool { return errors.As(err, &ne) && ne.Column == "" }, "2001 characters, more than the 2000"},
		{"column note too long", "orders", catalog.Notes{Table: new("changed"), Columns: map[string]string{"id": long}},
			func(err error) bool { return errors.As(err, &ne) && ne.Column == "id" }, "public.orders.id: 2001 characters"},
	} {
		_, _, err := SetNotes(dir, "shop", sch, c.table, c.set)
		if err == nil || !c.check(err) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if after, _ := os.ReadFile(NotesPath(dir)); string(after) != string(before) {
		t.Errorf("a refused note changed the file:\n%s", after)
	}
	if err := os.WriteFile(NotesPath(dir), []byte(`{"version": 1, "tables": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadNotes(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged notes file should be an error: %v", err)
	}
	if _, _, err := SetNotes(dir, "shop", sch, "orders", catalog.Notes{Table: new("x")}); err == nil {
		t.Errorf("a damaged notes file was overwritten")
	}
}

// Notes outlive re-discovery and an edit of the profile, follow a rename,
// and go with the connection.
func TestNotesLifecycle(t *testing.T) {
	store := NewStore(filepath.Join(t.TempDir(), "cfg", "connections.json"))
	p := Profile{Name: "shop", Kind: Postgres, Host: "db.example", Database: "shop", User: "analyst"}
	if _, err := store.Put(p); err != nil {
		t.Fatal(err)
	}
	dir := store.CacheDir("shop")
	sch := notesSchema()
	if err := SaveCatalog(dir, "shop", sch, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SetNotes(dir, "shop", sch, "orders", catalog.Notes{Table: new("One row per web order")}); err != nil {
		t.Fatal(err)
	}
	has := func(name string) bool {
		n, err := LoadNotes(store.CacheDir(name))
		if err != nil {
			t.Fatal(err)
		}
		return n.Tables["public.orders"].Note == "One row per web order"
	}
	if err := SaveCatalog(dir, "shop", &Schema{Database: "shop"}, time.Now()); err != nil || !has("shop") {
		t.Fatalf("re-discovery lost the notes: %v", err)
	}
	p.Host = "db2.example"
	if _, err := store.Put(p); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCatalog(dir); !errors.Is(err, ErrNoCatalog) || !has("shop") {
		t.Fatalf("an edited profile should drop its catalog (%v) and keep its notes", err)
	}
	p.Name = "store"
	if _, err := store.Put(p); err != nil {
		t.Fatal(err)
	}
	if err := store.MoveNotes("shop", "store"); err != nil {
		t.Fatal(err)
	}
	if err := store.Remove("shop"); err != nil {
		t.Fatal(err)
	}
	if !has("store") || has("shop") {
		t.Fatal("the notes did not follow the rename")
	}
	if err := store.MoveNotes("shop", "store"); err != nil || !has("store") {
		t.Fatalf("moving no notes: %v", err)
	}
	if err := store.Remove("store"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(store.CacheDir("store")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the notes outlive the connection: %v", err)
	}
}
