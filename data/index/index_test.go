package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func fixture(t *testing.T) []Table {
	t.Helper()
	raw, err := os.ReadFile("testdata/tables.json")
	if err != nil {
		t.Fatal(err)
	}
	var ts []Table
	if err := json.Unmarshal(raw, &ts); err != nil {
		t.Fatal(err)
	}
	return ts
}

func found(t *testing.T, x *Index, question string) []string {
	t.Helper()
	hits, err := x.Search(context.Background(), question, Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Table.Name)
	}
	return out
}

func TestSyncUpdateRemove(t *testing.T) {
	ctx := context.Background()
	x, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if !x.Rebuilt() {
		t.Error("a new index should report Rebuilt")
	}
	ts := fixture(t)
	st, err := x.Sync(ctx, Workspace, ts)
	if err != nil || st.Indexed != len(ts) {
		t.Fatalf("first sync: %+v, %v", st, err)
	}
	if got := found(t, x, "salary of employees"); len(got) == 0 || got[0] != "employees" {
		t.Errorf("salary of employees → %v", got)
	}
	st, err = x.Sync(ctx, Workspace, ts)
	if err != nil || st.Unchanged != len(ts) || st.Indexed != 0 {
		t.Fatalf("unchanged sync: %+v, %v", st, err)
	}

	// another origin is not touched by a workspace sync
	remote := []Table{{Name: "public.payroll", Columns: []Column{{Name: "salary", Type: "numeric"}}, Description: "monthly pay per employee"}}
	if _, err := x.Sync(ctx, "remote:hr", remote); err != nil {
		t.Fatal(err)
	}
	// a refresh changes employees, a removal drops sensor_readings
	next := slices.Clone(ts)
	next[5].Columns = append(next[5].Columns, Column{Name: "bonus", Type: "DOUBLE"})
	next = slices.Delete(next, 6, 7)
	st, err = x.Sync(ctx, Workspace, next)
	if err != nil || st.Indexed != 1 || st.Removed != 1 || st.Unchanged != len(ts)-2 {
		t.Fatalf("sync after refresh and removal: %+v, %v", st, err)
	}
	if got := found(t, x, "device temperature readings"); slices.Contains(got, "sensor_readings") {
		t.Errorf("a removed table is still found: %v", got)
	}
	if got := found(t, x, "bonus"); len(got) != 1 || got[0] != "employees" {
		t.Errorf("bonus → %v, want the refreshed employees", got)
	}
	if got := found(t, x, "monthly payroll"); len(got) == 0 || got[0] != "public.payroll" {
		t.Errorf("the remote table is gone after a workspace sync: %v", got)
	}

	// Update and Remove, as the loader's callers use them
	if err := x.Update(ctx, Table{Name: "weather", Columns: []Column{{Name: "snow_depth_cm", Type: "DOUBLE"}}}); err != nil {
		t.Fatal(err)
	}
	if got := found(t, x, "snow depth"); len(got) != 1 || got[0] != "weather" {
		t.Errorf("snow depth → %v after Update", got)
	}
	if err := x.Remove(ctx, Workspace, "weather"); err != nil {
		t.Fatal(err)
	}
	if got := found(t, x, "snow depth"); len(got) != 0 {
		t.Errorf("snow depth → %v after Remove", got)
	}
	if x.Len() != len(next)+1 {
		t.Errorf("Len = %d, want %d", x.Len(), len(next)+1)
	}
}

func TestReopenAndRebuild(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	x, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	ts := fixture(t)
	if _, err := x.Sync(ctx, Workspace, ts); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// reopened: kept, nothing to redo
	x, err = Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if x.Rebuilt() || x.Len() != len(ts) {
		t.Fatalf("reopen: rebuilt %v, %d tables", x.Rebuilt(), x.Len())
	}
	st, err := x.Sync(ctx, Workspace, ts)
	if err != nil || st.Unchanged != len(ts) {
		t.Fatalf("sync after reopen: %+v, %v", st, err)
	}
	size, err := x.Size()
	if err != nil || size == 0 {
		t.Errorf("Size = %d, %v", size, err)
	}
	// an index from an older version is rebuilt
	if err := x.bi.SetInternal(keyVersion, []byte("0")); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x, err = Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !x.Rebuilt() || x.Len() != 0 {
		t.Fatalf("old version: rebuilt %v, %d tables", x.Rebuilt(), x.Len())
	}
	if st, err := x.Sync(ctx, Workspace, ts); err != nil || st.Indexed != len(ts) {
		t.Fatalf("rebuild: %+v, %v", st, err)
	}
	if got := found(t, x, "genre"); len(got) == 0 || got[0] != "genres" {
		t.Errorf("genre → %v after the rebuild", got)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// a damaged index is rebuilt, and so is a missing one
	if err := os.WriteFile(filepath.Join(Path(ws), "index_meta.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err = Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !x.Rebuilt() {
		t.Error("a damaged index was not rebuilt")
	}
	x.Close()
	if err := os.RemoveAll(Path(ws)); err != nil {
		t.Fatal(err)
	}
	x, err = Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if !x.Rebuilt() || x.Len() != 0 {
		t.Errorf("missing index: rebuilt %v, %d tables", x.Rebuilt(), x.Len())
	}
}

func TestCancelledSync(t *testing.T) {
	x, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := x.Sync(ctx, Workspace, fixture(t)); err != context.Canceled {
		t.Fatalf("cancelled sync: %v", err)
	}
	if x.Len() != 0 {
		t.Errorf("a cancelled sync indexed %d tables", x.Len())
	}
}
