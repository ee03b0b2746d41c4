package retrieve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/tools/search"
)

// ErrClosed means a Remote was used after Close.
var ErrClosed = errors.New("the connection is closed")

// CatalogStats says what keeping a discovered schema cost and holds.
type CatalogStats struct {
	Tables       int       `json:"tables"`  // tables and views discovered
	Indexed      int       `json:"indexed"` // (re)indexed: new or changed since the last discovery
	Removed      int       `json:"removed"` // gone from the database, so from the index
	DiscoveredAt time.Time `json:"discovered_at"`
	DiscoverMS   float64   `json:"discover_ms"` // the source's Discover (0 when given a schema)
	CatalogMS    float64   `json:"catalog_ms"`  // writing catalog.json
	IndexMS      float64   `json:"index_ms"`    // syncing the schema index
	CatalogBytes int64     `json:"catalog_bytes"`
	IndexBytes   int64     `json:"index_bytes"` // on disk; after Catalog, once the index is closed
}

// Origin is the schema index origin of the connection called name.
func Origin(name string) string { return "remote:" + name }

// Catalog keeps sch, just discovered on the connection called name, as its
// catalog (dir/catalog.json, replaced atomically) and in its schema index
// (dir/schema-index), described with the user's notes kept in dir, where
// only new and changed tables are re-indexed and tables no longer there
// are removed. dir is the connection's
// remote.Store.CacheDir.
func Catalog(ctx context.Context, dir, name string, sch *remote.Schema) (CatalogStats, error) {
	r := NewRemote(name, nil, sch)
	idx, st, err := r.catalog(ctx, dir)
	if err != nil {
		return st, err
	}
	if err := idx.Close(); err != nil {
		return st, fmt.Errorf("close the schema index of %s: %w", name, err)
	}
	st.IndexBytes, err = dirSize(index.Path(dir))
	return st, err
}

// OpenRemote discovers the schema of src, the connection called name,
// keeps it (see Catalog) in dir and returns the connection described for
// the agent with its schema index open. Close the Remote (it closes src
// too).
func OpenRemote(ctx context.Context, name string, src remote.Source, dir string) (*Remote, CatalogStats, error) {
	start := time.Now()
	sch, err := src.Discover(ctx)
	if err != nil {
		return nil, CatalogStats{}, fmt.Errorf("read the schema of %s: %w", name, err)
	}
	discovered := time.Since(start)
	r := NewRemote(name, src, sch)
	r.Dir = dir
	idx, st, err := r.catalog(ctx, dir)
	st.DiscoverMS = ms(discovered)
	if err != nil {
		return nil, st, err
	}
	r.idxMu.Lock()
	r.idx = idx
	r.idxMu.Unlock()
	st.IndexBytes, _ = idx.Size() // what is on disk so far; a statistic only
	return r, st, nil
}

// catalog saves r's schema in dir and syncs its schema index there,
// which it returns open.
func (r *Remote) catalog(ctx context.Context, dir string) (*index.Index, CatalogStats, error) {
	st := CatalogStats{Tables: len(r.Schema.Tables), DiscoveredAt: time.Now().UTC()}
	start := time.Now()
	if err := remote.SaveCatalog(dir, r.Name, r.Schema, st.DiscoveredAt); err != nil {
		return nil, st, err
	}
	st.CatalogMS = ms(time.Since(start))
	if fi, err := os.Stat(remote.CatalogPath(dir)); err == nil {
		st.CatalogBytes = fi.Size()
	}
	notes, err := remote.LoadNotes(dir)
	if err != nil {
		return nil, st, err
	}
	r.notesMu.Lock()
	r.notes = notes // before derive describes the tables with them
	r.notesMu.Unlock()
	start = time.Now()
	idx, err := index.Open(dir)
	if err != nil {
		return nil, st, fmt.Errorf("open the schema index of %s: %w", r.Name, err)
	}
	sync, err := idx.Sync(ctx, Origin(r.Name), r.current().tables)
	if err != nil {
		return nil, st, errors.Join(fmt.Errorf("index the schema of %s: %w", r.Name, err), idx.Close())
	}
	st.Indexed, st.Removed = sync.Indexed, sync.Removed
	st.IndexMS = ms(time.Since(start))
	return idx, st, nil
}

// indexTable describes t, which the tools see as d, for the schema
// index: its name as the tools know it, its schema as the source searched
// lightly, its and its columns' descriptions (the user's notes, else the
// database's comments) as text, its keys, and its foreign keys by the
// names of the tables they refer to.
func (r *Remote) indexTable(t *remote.Table, d catalog.Dataset) index.Table {
	it := index.Table{Name: d.Name, Origin: Origin(r.Name), Source: t.Schema, Group: t.Schema,
		Description: d.Description(), Rows: t.Rows, PrimaryKey: t.PrimaryKey}
	if t.Kind != "" && t.Kind != "table" {
		it.Source = t.Kind + " " + t.Schema
	}
	it.Columns = make([]index.Column, len(d.Columns))
	for i, c := range d.Columns {
		it.Columns[i] = index.Column{Name: c.Name, Type: c.Type, Description: c.Description()}
	}
	for _, fk := range t.ForeignKeys {
		to := fk.RefTable
		if target := r.ref(fk); target != nil {
			to = r.tableName(target)
		}
		it.Foreign = append(it.Foreign, index.ForeignKey{Columns: fk.Columns, RefTable: to, RefColumns: fk.RefColumns})
	}
	return it
}

// searchIndex is the connection's schema index: the one OpenRemote
// opened, else one built in memory on first use.
func (r *Remote) searchIndex(ctx context.Context) (*index.Index, error) {
	r.idxMu.Lock()
	defer r.idxMu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("connection %s: %w", r.Name, ErrClosed)
	}
	if r.idx != nil {
		return r.idx, nil
	}
	idx, err := index.OpenMem()
	if err != nil {
		return nil, err
	}
	if _, err := idx.Sync(ctx, Origin(r.Name), r.current().tables); err != nil {
		return nil, errors.Join(fmt.Errorf("index the schema of %s: %w", r.Name, err), idx.Close())
	}
	r.idx = idx
	return idx, nil
}

// RemoteIndex is the connection R's schema index as search_schema uses
// it: searches are kept to the connection's origin, and the workspace
// sync search_schema asks for first is not this index's (its tables were
// indexed, with their comments and keys, when they were discovered).
type RemoteIndex struct{ R *Remote }

var _ search.Index = RemoteIndex{}

// Sync does nothing: the connection's tables are indexed at discovery.
func (x RemoteIndex) Sync(context.Context, string, []index.Table) (index.SyncStats, error) {
	return index.SyncStats{Unchanged: len(x.R.Schema.Tables)}, nil
}

// Search searches the connection's tables only.
func (x RemoteIndex) Search(ctx context.Context, question string, o index.Options) ([]index.Hit, error) {
	idx, err := x.R.searchIndex(ctx)
	if err != nil {
		return nil, err
	}
	o.Origin = Origin(x.R.Name)
	return idx.Search(ctx, question, o)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// dirSize is the bytes of the files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	return n, err
}
