package assemble_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/remote"
	_ "github.com/loupeapp/loupe/data/remote/pg"     // registers the PostgreSQL connector
	_ "github.com/loupeapp/loupe/data/remote/sqlite" // registers the SQLite connector
)

// chinookCopy copies the Chinook SQLite file into a fresh folder, so that
// a test may change it.
func chinookCopy(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../data/remote/sqlite/testdata/Chinook_Sqlite.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "chinook.sqlite")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openRemote opens the saved connection name and keeps its schema in its
// cache folder, as `loupe ask --connection` does.
func openRemote(t *testing.T, store *remote.Store, name, password string) (*retrieve.Remote, retrieve.CatalogStats) {
	t.Helper()
	ctx := context.Background()
	p, err := store.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	src, err := remote.Open(ctx, p, password)
	if err != nil {
		t.Fatal(err)
	}
	r, st, err := retrieve.OpenRemote(ctx, name, src, store.CacheDir(name))
	if err != nil {
		src.Close()
		t.Fatal(err)
	}
	return r, st
}
