package perm

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func write(t *testing.T, p string, m fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), m); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, m); err != nil { // past the umask
		t.Fatal(err)
	}
}

// TestTighten: an old 0755/0644 tree ends up 0700/0600, owner bits kept,
// while symlinks' targets, hard links of the user's files and the skipped
// subtree keep their modes.
func TestTighten(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	user := filepath.Join(base, "user")
	write(t, filepath.Join(root, "workspace.duckdb"), 0o644)
	write(t, filepath.Join(root, "chats.db-wal"), 0o664)
	write(t, filepath.Join(root, "import", "sub", "a.csv"), 0o666)
	write(t, filepath.Join(root, "tool.sh"), 0o755)
	write(t, filepath.Join(root, "import", ".python", "in", "t.csv"), 0o644)
	write(t, filepath.Join(user, "mine.csv"), 0o644)
	write(t, filepath.Join(user, "linked.csv"), 0o644)
	if err := os.Symlink(filepath.Join(user, "mine.csv"), filepath.Join(root, "import", "link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(user, "linked.csv"), filepath.Join(root, "import", "linked.csv")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{root, filepath.Join(root, "import"), filepath.Join(root, "import", "sub"), filepath.Join(root, "import", ".python")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Tighten(root, filepath.Join("import", ".python"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		"ws":                         0o700,
		"ws/workspace.duckdb":        0o600,
		"ws/chats.db-wal":            0o600,
		"ws/import":                  0o700,
		"ws/import/sub":              0o700,
		"ws/import/sub/a.csv":        0o600,
		"ws/tool.sh":                 0o700,
		"ws/import/.python":          0o755,
		"ws/import/.python/in/t.csv": 0o644,
		"ws/import/linked.csv":       0o644, // the user's file, hard-linked
		"user/mine.csv":              0o644, // a symlink's target
		"user/linked.csv":            0o644,
	}
	for p, m := range want {
		if got := mode(t, filepath.Join(base, p)); got != m {
			t.Errorf("%s: %v, want %v", p, got, m)
		}
	}
	if r.Changed != 7 || r.Shared != 1 || r.Failed != 0 || r.Truncated {
		t.Errorf("report %+v (%s)", r, r)
	}
	if r, err := Tighten(filepath.Join(base, "missing")); err != nil || r.Seen != 0 {
		t.Errorf("missing root: %+v %v", r, err)
	}
}

// TestTightenTenThousandFiles measures the walk at open on a workspace of
// 10,000 files in 100 folders, all 0644 (the first open after upgrading),
// then again when nothing is left to change (every later open).
func TestTightenTenThousandFiles(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 100 {
			p := filepath.Join(dir, fmt.Sprintf("f%03d", f))
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	r, err := Tighten(root)
	first := time.Since(start)
	if err != nil || r.Seen != 10_101 || r.Changed != 10_101 {
		t.Fatalf("first: %+v %v", r, err)
	}
	start = time.Now()
	r, err = Tighten(root)
	again := time.Since(start)
	if err != nil || r.Changed != 0 {
		t.Fatalf("again: %+v %v", r, err)
	}
	t.Logf("10,101 entries: first open %v (all tightened), later opens %v", first, again)
	if again > 2*time.Second {
		t.Errorf("a walk with nothing to change took %v", again)
	}
}
