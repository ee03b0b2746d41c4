package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// cacheFolder holds one folder per connection, beside the profiles file.
const cacheFolder = "connections"

// catalogFile is a connection's discovered schema inside its cache folder.
const catalogFile = "catalog.json"

// catalogVersion is the catalog file's format.
const catalogVersion = 1

// ErrNoCatalog means a connection's schema was never discovered (or its
// catalog was removed).
var ErrNoCatalog = errors.New("no catalog for the connection")

// Catalog is a connection's schema as last discovered: what the agent
// and the schema index know about it between discoveries.
type Catalog struct {
	Version      int       `json:"version"`
	Connection   string    `json:"connection"`
	DiscoveredAt time.Time `json:"discovered_at"`
	Schema       *Schema   `json:"schema"`
}

// CacheDir is the folder holding what Loupe keeps about the connection
// called name (its catalog and schema index): connections/NAME beside the
// profiles file. Names are checked by Profile.Normalize, so they are safe
// as folder names.
func (s *Store) CacheDir(name string) string {
	return filepath.Join(filepath.Dir(s.path), cacheFolder, name)
}

// CatalogPath is the catalog file in a connection's cache folder dir.
func CatalogPath(dir string) string { return filepath.Join(dir, catalogFile) }

// SaveCatalog writes sch as the catalog of connection name into dir (its
// CacheDir), stamped with at, replacing the file atomically.
func SaveCatalog(dir, name string, sch *Schema, at time.Time) error {
	b, err := json.Marshal(Catalog{Version: catalogVersion, Connection: name, DiscoveredAt: at.UTC(), Schema: sch})
	if err != nil {
		return fmt.Errorf("encode the catalog of %s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := writeAtomic(dir, catalogFile, b); err != nil {
		return fmt.Errorf("save the catalog of %s: %w", name, err)
	}
	return nil
}

// LoadCatalog reads the catalog kept in dir; an error matching
// ErrNoCatalog when there is none.
func LoadCatalog(dir string) (*Catalog, error) {
	path := CatalogPath(dir)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (loupe connect test discovers it)", dir, ErrNoCatalog)
	}
	if err != nil {
		return nil, fmt.Errorf("read the catalog: %w", err)
	}
	var c Catalog
	if err := json.Unmarshal(b, &c); err != nil || c.Schema == nil || c.Version != catalogVersion {
		return nil, fmt.Errorf("the catalog %s is damaged or from another version: %w (it is rebuilt on the next discovery)", path, ErrNoCatalog)
	}
	return &c, nil
}

// removeCache deletes dir, a connection's cache folder, and all in it.
func removeCache(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the connection's catalog and index %s: %w", dir, err)
	}
	return nil
}

// writeAtomic replaces dir/name with b: a temporary file, synced, then
// renamed over it, so that a reader sees the old file or the new one.
func writeAtomic(dir, name string, b []byte) error {
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b)
	if werr == nil {
		werr = tmp.Chmod(0o600)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}
