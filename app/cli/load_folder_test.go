package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadFolder loads a folder's data files one dataset each, saying
// what it left out, and then the same folder as one dataset.
func TestLoadFolder(t *testing.T) {
	ws := t.TempDir()
	src := t.TempDir()
	writeFile(t, src, "store_1.csv", "day,amount\n2024-01-01,10\n2024-01-02,12\n")
	writeFile(t, src, "store_2.csv", "day,amount\n2024-01-01,7\n")
	writeFile(t, src, "store_3.csv", "day,amount,note\n2024-01-03,5,late\n")
	writeFile(t, src, "README.md", "how the exports were made")
	if err := os.Mkdir(filepath.Join(src, "old"), 0o755); err != nil {
		t.Fatal(err)
	}

	code, out, errs := run(t, "", "load", "--workspace", ws, "--quiet", src)
	if code != ExitOK {
		t.Fatalf("load DIR: exit %d: %s", code, errs)
	}
	var tables []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var line loadLine
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("load DIR: line %q: %v", l, err)
		}
		tables = append(tables, line.Table)
	}
	if strings.Join(tables, " ") != "store_1 store_2 store_3" {
		t.Errorf("load DIR made %v, want store_1 store_2 store_3", tables)
	}
	if !strings.Contains(errs, "3 data files; 2 other entries") {
		t.Errorf("load DIR: stderr %q does not say what was left out", errs)
	}

	code, out, errs = run(t, "", "load", "--workspace", ws, "--as-one", "stores", src)
	if code != ExitOK {
		t.Fatalf("load --as-one: exit %d: %s", code, errs)
	}
	var one loadLine
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &one); err != nil {
		t.Fatalf("load --as-one: %q: %v", out, err)
	}
	var cols []string
	for _, c := range one.Columns {
		cols = append(cols, c.Name)
	}
	if one.Table != "stores" || one.Rows != 4 || strings.Join(cols, ",") != "day,amount,note,source_file" {
		t.Errorf("load --as-one = %s, %d rows, columns %v; want stores, 4 rows, day,amount,note,source_file", one.Table, one.Rows, cols)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"as-one of two folders", []string{"--as-one", "x", src, src}, ExitUsage, "--as-one reads one folder"},
		{"a folder with no data", []string{filepath.Join(src, "old")}, ExitError, "holds no data file"},
	} {
		code, _, errs := run(t, "", append([]string{"load", "--workspace", ws}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errs, tc.code, tc.msg)
		}
	}
}
