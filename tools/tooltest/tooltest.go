// Package tooltest opens real workspaces for tool tests: a temporary
// folder, the real locked DuckDB engine and loader, and small fixture
// datasets loaded the way a user would load them.
//
// Fixtures (in this package's testdata folder):
//
//	orders     40 rows: order_id, customer_id, order_date, region, product,
//	           quantity, unit_price, status (shipped, pending, cancelled)
//	customers  10 rows: customer_id, customer_name, country, segment,
//	           signup_date
package tooltest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// Fixtures are the files Workspace loads, in order.
var Fixtures = []string{"orders.csv", "customers.csv"}

// Fixture returns the absolute path of a file in tooltest's testdata.
func Fixture(name string) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("tooltest: cannot locate its own source file")
	}
	return filepath.Join(filepath.Dir(file), "testdata", name)
}

// Workspace opens a workspace in a fresh temporary folder with every
// fixture loaded, and closes it when the test ends.
func Workspace(t testing.TB) *workspace.Workspace {
	t.Helper()
	ws := Empty(t)
	paths := make([]string, len(Fixtures))
	for i, f := range Fixtures {
		paths[i] = Fixture(f)
	}
	Load(t, ws, paths...)
	return ws
}

// Empty opens a workspace with no datasets, closed when the test ends.
func Empty(t testing.TB) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatalf("open workspace: %v", err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	return ws
}

// Load loads files into ws through the real loader.
func Load(t testing.TB, ws *workspace.Workspace, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := ws.Loader.Load(context.Background(), p, load.Options{}); err != nil {
			t.Fatalf("load %s: %v", p, err)
		}
	}
}

// Args encodes v as a tool's JSON arguments.
func Args(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode args: %v", err)
	}
	return b
}
