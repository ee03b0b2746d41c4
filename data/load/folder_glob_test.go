package load_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/data/load"
)

// A file's name is data: a folder's file called *.csv or [ab].csv is read
// as itself, once, not as a pattern that reads the folder's other files
// again.
func TestFolderFileNamesAreNotPatterns(t *testing.T) {
	w := openWS(t)
	dir := filepath.Join(t.TempDir(), "exports")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"a.csv", "b.csv", "*.csv", "[ab].csv", "c?.csv"}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(fmt.Sprintf("id,v\n%d,2\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := w.Loader.LoadFolder(context.Background(), dir, "exports", load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Rows != int64(len(names)) {
		t.Fatalf("loaded %+v; want one dataset of %d rows", ds, len(names))
	}
	got := rows(t, w, "SELECT source_file, id FROM exports ORDER BY id")
	for i, n := range names {
		if i >= len(got) || got[i][0] != n || fmt.Sprint(got[i][1]) != fmt.Sprint(i) {
			t.Errorf("row %d: %v; want %s, %d", i, got, n, i)
			break
		}
	}
}
