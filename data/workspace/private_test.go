package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/data/workspace"
)

// TestOpenTightensButLeavesSandboxInputs: an old workspace is made private
// at open, except the Python sandbox's inputs, which the container's own
// user must still read.
func TestOpenTightensButLeavesSandboxInputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	ws, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = ws.Close()
	inputs := filepath.Join(dir, filepath.FromSlash(workspace.SandboxInputs), "123-abcd")
	if err := os.MkdirAll(inputs, 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(inputs, "orders.csv")
	if err := os.WriteFile(in, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "workspace.duckdb")
	for p, m := range map[string]os.FileMode{dir: 0o755, filepath.Join(dir, "import"): 0o755, db: 0o644, inputs: 0o755, in: 0o644} {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	ws, err = workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "import"): 0o700, db: 0o600, inputs: 0o755, in: 0o644} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}
