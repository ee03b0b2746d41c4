package tooltest_test

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/tools/tooltest"
)

// The fixtures load as the documented datasets, with the row counts tests
// rely on.
func TestWorkspace(t *testing.T) {
	ws := tooltest.Workspace(t)
	ds, err := ws.Datasets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"customers": {10, 5}, "orders": {40, 8}}
	if len(ds) != len(want) {
		t.Fatalf("%d datasets, want %d", len(ds), len(want))
	}
	for _, d := range ds {
		w, ok := want[d.Name]
		if !ok || d.Rows != int64(w[0]) || len(d.Columns) != w[1] {
			t.Fatalf("dataset %s: %d rows, %d columns", d.Name, d.Rows, len(d.Columns))
		}
	}
	if empty, err := tooltest.Empty(t).Datasets(context.Background()); err != nil || len(empty) != 0 {
		t.Fatalf("Empty: %d datasets, %v", len(empty), err)
	}
}
