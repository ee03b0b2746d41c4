package sample

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "write the generated files into data/")

// The embedded files are exactly what Generate makes: regenerate them with
// go test ./app/sample -update after changing the generator.
func TestEmbeddedFilesAreGenerated(t *testing.T) {
	gen := Generate()
	if *update {
		for name, b := range gen {
			if err := os.WriteFile(filepath.Join("data", name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var names []string
	for n := range gen {
		names = append(names, n)
	}
	slices.Sort(names)
	if got := embedded(); !slices.Equal(got, names) {
		t.Fatalf("embedded %v, generated %v", got, names)
	}
	for _, n := range names {
		b, err := File(n)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, gen[n]) {
			t.Errorf("data/%s differs from Generate(): run go test ./app/sample -update", n)
		}
	}
	if again := Generate(); !bytes.Equal(again["orders.csv"], gen["orders.csv"]) {
		t.Error("Generate is not deterministic")
	}
}

func TestShape(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cols     int
		min, max int
	}{
		{"orders.csv", 10, 1500, 6000},
		{"customers.csv", 6, 160, 160},
		{"products.csv", 4, 18, 18},
	} {
		b, err := File(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := len(recs) - 1; n < tc.min || n > tc.max || len(recs[0]) != tc.cols {
			t.Errorf("%s: %d rows of %d columns, want %d–%d rows of %d", tc.name, n, len(recs[0]), tc.min, tc.max, tc.cols)
		}
	}
	if len(Questions) < 3 {
		t.Errorf("%d example questions", len(Questions))
	}
}

func TestWriteToLeavesSameFilesAlone(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteTo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(Names) {
		t.Fatalf("paths %v", paths)
	}
	st, _ := os.Stat(paths[0])
	if _, err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(paths[0])
	if !st.ModTime().Equal(st2.ModTime()) {
		t.Error("an unchanged file was rewritten")
	}
	b, _ := os.ReadFile(paths[0])
	want, _ := File(Names[0])
	if !bytes.Equal(b, want) {
		t.Error("written file differs from the embedded one")
	}
}
