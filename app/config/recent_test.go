package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loupeapp/loupe/app/config"
)

func TestRecentKeepsTheLastTenThatExist(t *testing.T) {
	dir, files := t.TempDir(), t.TempDir()
	r := config.NewRecent(func() (string, error) { return dir, nil })
	var paths []string
	for i := range 12 {
		p := filepath.Join(files, fmt.Sprintf("f%02d.csv", i))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		r.Add(p)
	}
	r.Add(paths[5]) // again: moves first, not twice
	if err := os.Remove(paths[11]); err != nil {
		t.Fatal(err)
	}
	want := []string{paths[5], paths[10], paths[9], paths[8], paths[7], paths[6], paths[4], paths[3], paths[2]}
	if got := config.NewRecent(func() (string, error) { return dir, nil }).List(); !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "recent.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := r.List(); len(got) != 0 {
		t.Errorf("a damaged list gave %v", got)
	}
}
