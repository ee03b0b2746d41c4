package remote

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCatalogFile(t *testing.T) {
	store := NewStore(filepath.Join(t.TempDir(), "cfg", "connections.json"))
	dir := store.CacheDir("prod")
	if want := filepath.Join(filepath.Dir(store.Path()), "connections", "prod"); dir != want {
		t.Fatalf("cache dir %s, want %s", dir, want)
	}
	if _, err := LoadCatalog(dir); !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("before discovery: %v", err)
	}
	sch := &Schema{Database: "sales", Tables: []Table{{Schema: "public", Name: "orders", Kind: "table", Comment: "one row per order", Rows: 12,
		Columns: []Column{{Name: "id", Type: "bigint"}}, PrimaryKey: []string{"id"}}}}
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	if err := SaveCatalog(dir, "prod", sch, at); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCatalog(dir)
	if err != nil || c.Connection != "prod" || !c.DiscoveredAt.Equal(at) || c.Schema.Table("orders").Comment != "one row per order" {
		t.Fatalf("loaded %+v %v", c, err)
	}
	if fi, err := os.Stat(CatalogPath(dir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("catalog file: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("stray files beside the catalog: %v", entries)
	}
	if err := os.WriteFile(CatalogPath(dir), []byte(`{"version": 1, "schema": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCatalog(dir); !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("a damaged catalog should read as none: %v", err)
	}
}

// The cache goes with the profile it describes: when the connection is
// removed, or saved again pointing elsewhere; saving it unchanged keeps it.
func TestCacheFollowsProfile(t *testing.T) {
	base := Profile{Name: "prod", Kind: Postgres, Host: "db.example", Database: "sales", User: "analyst"}
	cases := []struct {
		name string
		act  func(s *Store) error
		kept bool
	}{
		{"saved unchanged", func(s *Store) error { _, err := s.Put(base); return err }, true},
		{"another database", func(s *Store) error {
			p := base
			p.Database = "hr"
			_, err := s.Put(p)
			return err
		}, false},
		{"removed", func(s *Store) error { return s.Remove("prod") }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewStore(filepath.Join(t.TempDir(), "connections.json"))
			if _, err := s.Put(base); err != nil {
				t.Fatal(err)
			}
			if err := SaveCatalog(s.CacheDir("prod"), "prod", &Schema{}, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := c.act(s); err != nil {
				t.Fatal(err)
			}
			_, err := LoadCatalog(s.CacheDir("prod"))
			if kept := err == nil; kept != c.kept {
				t.Fatalf("catalog kept = %v, want %v (%v)", kept, c.kept, err)
			}
		})
	}
}
