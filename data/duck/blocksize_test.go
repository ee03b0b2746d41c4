package duck_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/data/duck"
)

// TestBlockSize checks that a new workspace database is created with
// BlockSize blocks (what keeps a wide file's checkpoint small) and that
// an existing one, made with DuckDB's default, opens with its own.
func TestBlockSize(t *testing.T) {
	blockSize := func(dir string) int64 {
		t.Helper()
		e, err := duck.Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		var n int64
		if err := e.DB().QueryRow("SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := blockSize(t.TempDir()); got != duck.BlockSize {
		t.Errorf("new workspace: block size %d, want %d", got, duck.BlockSize)
	}
	old := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(old, duck.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t AS SELECT 42 AS x"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got := blockSize(old); got != 256<<10 {
		t.Errorf("workspace made with DuckDB's default: block size %d, want %d", got, 256<<10)
	}
}
