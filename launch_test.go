package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestWindowFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"sales.csv", "load", "b.parquet"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("a\n1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := func(n string) string { return filepath.Join(dir, n) }
	tests := []struct {
		name string
		args []string
		want []string
		ok   bool
	}{
		{"relative file", []string{"sales.csv"}, []string{abs("sales.csv")}, true},
		{"absolute files", []string{abs("sales.csv"), "./b.parquet"}, []string{abs("sales.csv"), abs("b.parquet")}, true},
		{"no arguments", nil, nil, false},
		{"a command", []string{"load", "sales.csv"}, nil, false},
		{"command named like a file beside it", []string{"load"}, nil, false},
		{"a flag", []string{"--version"}, nil, false},
		{"missing file", []string{"nope.csv"}, nil, false},
		{"one missing among files", []string{"sales.csv", "nope.csv"}, nil, false},
		{"a folder", []string{"folder.d"}, nil, false},
		{"sql text", []string{"sql", "SELECT 1.5"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := windowFiles(tt.args, dir)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("windowFiles(%q) = %q, %v; want %q, %v", tt.args, got, ok, tt.want, tt.ok)
			}
		})
	}
}
