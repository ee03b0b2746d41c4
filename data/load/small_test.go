package load_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestSmallCSVKeptAsView loads a small CSV as a view over a private copy
// (a table would take a 64 KiB block of its own), which stays a snapshot
// when the user's file changes, is replaced with its copy by a reload,
// and keeps its notes; a large file and one with warnings stay tables.
func TestSmallCSVKeptAsView(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "daily.csv")
	if err := os.WriteFile(p, []byte("store,amount,day\nnorth,10.5,2024-01-02\nsouth,,2024-01-03\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := loadOne(t, w, p)
	if d.Storage != "view" || filepath.Dir(d.Staged) != w.Engine.ImportDir() || d.Rows != 2 || !d.Profiled {
		t.Fatalf("small CSV: storage %q, staged %q, %d rows, profiled %v; want a profiled view of 2 rows over a copy in the import folder", d.Storage, d.Staged, d.Rows, d.Profiled)
	}
	if got := rows(t, w, "SELECT store, amount, day::VARCHAR FROM daily ORDER BY store"); len(got) != 2 || got[0][1] != 10.5 || got[1][1] != nil || got[1][2] != "2024-01-03" {
		t.Errorf("rows = %v", got)
	}
	// The user's file changes in place: the dataset does not, until reloaded.
	if err := os.WriteFile(p, []byte("store,amount,day\nwest,1,2024-02-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, w, "SELECT count(*) FROM daily"); got[0][0] != int64(2) {
		t.Errorf("after the source changed: %v rows, want the 2 loaded", got[0][0])
	}
	again := loadOne(t, w, p)
	if again.Name != "daily" || again.Storage != "view" || again.Staged == d.Staged {
		t.Errorf("reload: %s, %s over %s; want daily, a view over a new copy", again.Name, again.Storage, again.Staged)
	}
	if _, err := os.Stat(d.Staged); !os.IsNotExist(err) {
		t.Errorf("the first load's copy %s is still there after the reload (%v)", d.Staged, err)
	}
	if got := rows(t, w, "SELECT store FROM daily"); len(got) != 1 || got[0][0] != "west" {
		t.Errorf("after the reload: %v, want west", got)
	}

	big := filepath.Join(dir, "big.csv")
	var b strings.Builder
	b.WriteString("id,label\n")
	for i := 0; b.Len() <= load.SmallText; i++ {
		b.WriteString("12345,some label text for the row\n")
	}
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := loadOne(t, w, big); d.Storage != "table" {
		t.Errorf("a CSV over %d bytes: storage %q, want table", load.SmallText, d.Storage)
	}
	dup := filepath.Join(dir, "dup.csv")
	if err := os.WriteFile(dup, []byte("a,a,\n1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := loadOne(t, w, dup); d.Storage != "table" || len(d.Warnings) == 0 {
		t.Errorf("a CSV whose columns were renamed: storage %q, warnings %v; want a table with a warning", d.Storage, d.Warnings)
	}
}

// TestOrphanedCopiesSweptAtOpen: a small CSV's private copy that no
// dataset reads any more (its dataset replaced by a database import, or
// removed by a process that stopped before deleting the file) is removed
// when the workspace opens again; a copy a dataset reads, and other files
// of the import folder, stay.
func TestOrphanedCopiesSweptAtOpen(t *testing.T) {
	ctx := context.Background()
	wsDir, dir := t.TempDir(), t.TempDir()
	w, err := workspace.Open(ctx, wsDir)
	if err != nil {
		t.Fatal(err)
	}
	var kept, orphan catalog.Dataset
	for i, name := range []string{"kept", "orphan"} {
		p := filepath.Join(dir, name+".csv")
		if err := os.WriteFile(p, []byte("store,amount\nnorth,"+strconv.Itoa(i)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		d := loadOne(t, w, p)
		if d.Storage != "view" {
			t.Fatalf("%s: storage %q, want a view over a copy", name, d.Storage)
		}
		if name == "kept" {
			kept = d
		} else {
			orphan = d
		}
	}
	// What a database import of the same name does to the dataset: its
	// view and record go, the copy stays behind.
	err = w.Engine.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "DROP VIEW orphan"); err != nil {
			return err
		}
		return catalog.Delete(ctx, c, "orphan")
	})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(w.Engine.ImportDir(), "sales-0a1b2c3d.parquet")
	if err := os.WriteFile(other, []byte("not ours to judge"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan.Staged); err != nil {
		t.Fatalf("the orphaned copy should still be there before the reopen: %v", err)
	}
	w, err = workspace.Open(ctx, wsDir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := os.Stat(orphan.Staged); !os.IsNotExist(err) {
		t.Errorf("the copy %s no dataset reads survived the open (%v)", orphan.Staged, err)
	}
	for _, p := range []string{kept.Staged, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if got := rows(t, w, "SELECT amount FROM kept"); len(got) != 1 || got[0][0] != int64(0) {
		t.Errorf("the kept dataset reads %v after the sweep", got)
	}
}

// TestSmallWideCSVStaysATable: a file small in bytes but wide in columns is
// a table, since every read of a view parses all its columns.
func TestSmallWideCSVStaysATable(t *testing.T) {
	w := openWS(t)
	var head, row []string
	for j := 0; j <= load.ViewColumns; j++ {
		head = append(head, fmt.Sprintf("c%d", j))
		row = append(row, fmt.Sprint(j%7))
	}
	p := filepath.Join(t.TempDir(), "wide.csv")
	body := strings.Join(head, ",") + "\n" + strings.Join(row, ",") + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := loadOne(t, w, p); d.Storage == "view" || len(d.Columns) != load.ViewColumns+1 {
		t.Errorf("%d columns kept as %q; want a table", len(d.Columns), d.Storage)
	}
}
