package session_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/workspace"
)

// TestRemoveDropsTheReaderWithItsLastDataset removes two small CSVs of
// one shape, which read their copies through one reader (a table macro,
// see data/load): the reader stays while the other dataset reads through
// it, and goes with the last.
func TestRemoveDropsTheReaderWithItsLastDataset(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	dir := t.TempDir()
	for _, n := range []string{"jan", "feb"} {
		p := filepath.Join(dir, n+".csv")
		if err := os.WriteFile(p, []byte("day,amount\n2024-01-01,1.5\n2024-01-02,2.5\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Loader.Load(ctx, p, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	macros := func() int64 {
		t.Helper()
		res, err := ws.Query.Run(ctx, "SELECT count(*) FROM duckdb_functions() WHERE schema_name = '_loupe' AND function_type = 'table_macro'", query.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0].(int64)
	}
	if got := macros(); got != 1 {
		t.Fatalf("%d readers for two files of one shape, want 1", got)
	}
	if err := session.RemoveDataset(ctx, ws, "jan"); err != nil {
		t.Fatal(err)
	}
	if got := macros(); got != 1 {
		t.Errorf("after removing jan: %d readers, want feb's", got)
	}
	res, err := ws.Query.Run(ctx, "SELECT sum(amount) FROM feb", query.Limits{})
	if err != nil || res.Rows[0][0] != 4.0 {
		t.Fatalf("feb after jan went: %v, %v; want 4", res, err)
	}
	if err := session.RemoveDataset(ctx, ws, "feb"); err != nil {
		t.Fatal(err)
	}
	if got := macros(); got != 0 {
		t.Errorf("after removing both: %d readers, want none", got)
	}
}
