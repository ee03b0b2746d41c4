package app_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/app"
)

// storeFolder writes n small CSVs of the same columns (one per store,
// 3 rows each) and a note that is not data into a new folder.
func storeFolder(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "stores")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		body := fmt.Sprintf("day,amount\n2024-01-01,%d\n2024-01-02,%d\n2024-01-03,%d\n", i, i+1, i+2)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("store_%02d.csv", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("exports"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOpenFolderEitherWay: the window finds the folders among the paths
// it was given and opens one as a dataset per file or as one dataset,
// with the folder's progress.
func TestOpenFolderEitherWay(t *testing.T) {
	e := newEnv(t, setup{})
	dir := storeFolder(t, 3)
	file := filepath.Join(dir, "store_00.csv")
	folders, err := e.app.FoldersAmong([]string{file, dir, filepath.Join(dir, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	if len(folders) != 1 || folders[0].Path != dir || folders[0].Files != 3 || folders[0].Skipped != 1 || folders[0].Name != "stores" || folders[0].Error != nil {
		t.Fatalf("folders among a file, the folder and a missing path: %+v", folders)
	}

	reports, err := e.app.OpenFolder(dir, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 3 {
		t.Fatalf("%d reports for 3 files: %+v", len(reports), reports)
	}
	for i, r := range reports {
		if r.Error != nil || len(r.Datasets) != 1 || r.Datasets[0].Name != fmt.Sprintf("store_%02d", i) || r.Datasets[0].Rows != 3 {
			t.Errorf("report %d: %+v", i, r)
		}
	}
	var third bool
	for _, ev := range e.rec.of(app.EventLoadProgress) {
		p := ev.(app.LoadProgress)
		if p.File != dir {
			t.Errorf("a folder's load reported progress of %s, want the folder", p.File)
		}
		third = third || strings.HasPrefix(p.Table, "store_02.csv (3 of 3)")
	}
	if !third {
		t.Errorf("no progress event named the third file of three")
	}

	one, err := e.app.OpenFolder(dir, true, "all stores")
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 1 || one[0].Error != nil || len(one[0].Datasets) != 1 {
		t.Fatalf("as one: %+v", one)
	}
	d := one[0].Datasets[0]
	if d.Name != "all_stores" || d.Rows != 9 || len(d.Columns) != 3 || d.Columns[2].Name != "source_file" {
		t.Errorf("as one: %s, %d rows, columns %+v; want all_stores, 9 rows, day, amount and source_file", d.Name, d.Rows, d.Columns)
	}
	ds, _ := e.app.ListDatasets()
	if got := listed(ds); len(got) != 4 {
		t.Errorf("datasets %v, want the three files' and the folder's", got)
	}

	if r, err := e.app.OpenFolder(filepath.Join(dir, "missing"), false, ""); err != nil || len(r) != 1 || r[0].Error == nil || !strings.Contains(r[0].Error.Message, "no such file") {
		t.Errorf("a missing folder: %+v, %v", r, err)
	}
}

// TestCancelOpenFolder: CancelLoad stops a folder's load between files;
// the files loaded before stay, the rest are reported as not opened.
func TestCancelOpenFolder(t *testing.T) {
	e := newEnv(t, setup{})
	const n = 40
	dir := storeFolder(t, n)
	done := make(chan []app.LoadReport, 1)
	go func() {
		r, err := e.app.OpenFolder(dir, false, "")
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	deadline := time.After(time.Minute)
	for canceled := false; !canceled; {
		select {
		case <-deadline:
			t.Fatal("no progress of the third file within a minute")
		case <-time.After(5 * time.Millisecond):
		}
		for _, ev := range e.rec.of(app.EventLoadProgress) {
			if strings.Contains(ev.(app.LoadProgress).Table, fmt.Sprintf("(3 of %d)", n)) {
				_ = e.app.CancelLoad(dir)
				canceled = true
				break
			}
		}
	}
	reports := <-done
	last := reports[len(reports)-1]
	if last.File != dir || last.Error == nil || last.Error.Code != app.CodeCanceled {
		t.Fatalf("the last report %+v, want the folder's cancel", last)
	}
	loaded := reports[:len(reports)-1]
	if len(loaded) < 2 || len(loaded) >= n {
		t.Fatalf("%d files loaded before the cancel, want some but not all %d", len(loaded), n)
	}
	if want := fmt.Sprintf("Canceled: %d of the folder's %d files were not opened.", n-len(loaded), n); last.Error.Message != want {
		t.Errorf("cancel says %q, want %q", last.Error.Message, want)
	}
	ds, _ := e.app.ListDatasets()
	if len(ds) != len(loaded) {
		t.Errorf("%d datasets after the cancel, want the %d loaded before it", len(ds), len(loaded))
	}
}
