// Package index is the workspace's schema index: every table's name,
// columns, types, descriptions and frequent values, searched with BM25 in
// bleve so that a question finds its tables among thousands. Identifiers
// are split (customer_name, orderDate, address2), abbreviations spelled
// out and words stemmed, for the indexed text and the question alike.
//
// The index lives in the workspace folder (DirName). It carries a version
// stamp: an index from an older Loupe, or one that cannot be opened, is
// thrown away and rebuilt by the next Sync. Sync reconciles one origin
// (the workspace's datasets, a remote connection's tables) with what is
// indexed, re-indexing only tables whose Version changed.
package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/blevesearch/bleve/v2"

	"github.com/loupeapp/loupe/data/perm"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DirName is the index's folder inside the workspace folder.
const DirName = "schema-index"

// Version is the index's format: the analysis and the fields. Raising it
// makes every existing index rebuild.
const Version = "2"

// Internal keys.
var (
	keyVersion  = []byte("loupe_version")
	keyManifest = []byte("loupe_manifest")
)

// batchSize is how many tables go into one bleve batch.
const batchSize = 500

// Index is an open schema index. It is safe for concurrent use.
type Index struct {
	bi  bleve.Index
	dir string
	log *slog.Logger

	mu sync.Mutex
	// manifest maps a document id to the Version it was indexed at.
	manifest map[string]string
	// rebuilt is set when Open found no usable index and started anew.
	rebuilt bool
	// sem is the optional semantic boost (SetSemantic).
	sem *Semantic
	// comp is the compound words of the indexed names, for the search.
	comp compoundCache
	// terms caches each table's analysed terms, for ranking by group.
	terms termCache
}

// Path is where the index of the workspace in wsDir lives.
func Path(wsDir string) string { return filepath.Join(wsDir, DirName) }

// Open opens the index of the workspace folder wsDir, creating it if it is
// missing and rebuilding it (empty, to be filled by Sync) when it is from
// another Version or damaged.
func Open(wsDir string) (*Index, error) {
	dir := Path(wsDir)
	log := slog.Default().With("subsystem", "index")
	bi, err := bleve.OpenUsing(dir, map[string]any{"bolt_timeout": "3s"})
	switch {
	case err == nil:
		v, verr := bi.GetInternal(keyVersion)
		if verr == nil && string(v) == Version {
			idx := &Index{bi: bi, dir: dir, log: log}
			if err := idx.loadManifest(); err == nil {
				return keepPrivate(idx)
			}
		}
		log.Info("schema index is from another version; rebuilding", "dir", dir, "found", string(v), "want", Version)
		_ = bi.Close()
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist), errors.Is(err, bleve.ErrorIndexMetaMissing):
	case isLocked(err):
		return nil, fmt.Errorf("open the schema index %s: %w", dir, err)
	default:
		log.Warn("schema index cannot be opened; rebuilding", "dir", dir, "err", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("remove the old schema index %s: %w", dir, err)
	}
	bi, err = bleve.New(dir, newMapping())
	if err != nil {
		return nil, fmt.Errorf("create the schema index %s: %w", dir, err)
	}
	if err := bi.SetInternal(keyVersion, []byte(Version)); err != nil {
		_ = bi.Close()
		return nil, fmt.Errorf("stamp the schema index: %w", err)
	}
	return keepPrivate(&Index{bi: bi, dir: dir, log: log, manifest: map[string]string{}, rebuilt: true})
}

// keepPrivate makes the index's folder and files the user's alone
// (package perm) and returns idx: bleve writes some of them
// (index_meta.json) readable by all. On failure it closes idx.
func keepPrivate(idx *Index) (*Index, error) {
	if _, err := perm.Tighten(idx.dir); err != nil {
		_ = idx.bi.Close()
		return nil, fmt.Errorf("make the schema index private: %w", err)
	}
	return idx, nil
}

// OpenMem opens an index held in memory only, for tests and throwaway use.
func OpenMem() (*Index, error) {
	bi, err := bleve.NewMemOnly(newMapping())
	if err != nil {
		return nil, fmt.Errorf("create a schema index: %w", err)
	}
	return &Index{bi: bi, log: slog.Default().With("subsystem", "index"), manifest: map[string]string{}, rebuilt: true}, nil
}

// isLocked reports whether err is bolt's timeout on a file another process
// holds.
func isLocked(err error) bool {
	return errors.Is(err, bolterrors.ErrTimeout)
}

func (x *Index) loadManifest() error {
	raw, err := x.bi.GetInternal(keyManifest)
	if err != nil {
		return err
	}
	x.manifest = map[string]string{}
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, &x.manifest)
}

// Rebuilt reports whether Open started a new index (none was there, or the
// old one was from another version): the caller's first Sync fills it.
func (x *Index) Rebuilt() bool { return x.rebuilt }

// Dir is the index's folder ("" for an in-memory index).
func (x *Index) Dir() string { return x.dir }

// Close closes the index, waiting for pending writes to reach the disk.
func (x *Index) Close() error { return x.bi.Close() }

// Len returns the number of tables indexed.
func (x *Index) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.manifest)
}

// SyncStats says what a Sync or Update did.
type SyncStats struct {
	Indexed, Removed, Unchanged int
}

// Sync makes the index hold exactly tables for origin: new and changed
// tables (by Version) are indexed, tables of origin no longer present are
// removed, other origins are left alone. Every table's Origin is set to
// origin. Cancelling ctx stops between batches; what was done stays
// consistent. Sync never calls an embedding model: the semantic boost's
// vectors are brought up to date by Semantic.Sync, which may take minutes
// and is best run in the background.
func (x *Index) Sync(ctx context.Context, origin string, tables []Table) (SyncStats, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	keep := make(map[string]bool, len(tables))
	var pending []Table
	var st SyncStats
	for _, t := range tables {
		t.Origin = origin
		id := t.id()
		keep[id] = true
		if x.manifest[id] == t.version() {
			st.Unchanged++
			continue
		}
		pending = append(pending, t)
	}
	var gone []string
	prefix := origin + "\x1f"
	for id := range x.manifest {
		if len(id) > len(prefix) && id[:len(prefix)] == prefix && !keep[id] {
			gone = append(gone, id)
		}
	}
	if err := x.apply(ctx, pending, gone); err != nil {
		return st, err
	}
	st.Indexed, st.Removed = len(pending), len(gone)
	if st.Indexed+st.Removed > 0 {
		x.log.Debug("synced", "origin", origin, "indexed", st.Indexed, "removed", st.Removed, "unchanged", st.Unchanged)
	}
	return st, nil
}

// Update indexes tables (a load or refresh), replacing earlier versions of
// them; tables with an empty Origin belong to Workspace.
func (x *Index) Update(ctx context.Context, tables ...Table) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	pending := make([]Table, len(tables))
	for i, t := range tables {
		if t.Origin == "" {
			t.Origin = Workspace
		}
		pending[i] = t
	}
	return x.apply(ctx, pending, nil)
}

// Remove forgets the tables called names in origin (a dataset removed or
// renamed away). Unknown names are ignored.
func (x *Index) Remove(ctx context.Context, origin string, names ...string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	ids := make([]string, len(names))
	for i, n := range names {
		ids[i] = (&Table{Name: n, Origin: origin}).id()
	}
	return x.apply(ctx, nil, ids)
}

// apply indexes pending and deletes gone in batches, recording each batch in
// the manifest with the batch itself. x.mu is held.
func (x *Index) apply(ctx context.Context, pending []Table, gone []string) error {
	if len(pending)+len(gone) > 0 {
		x.comp.reset()
	}
	next := make(map[string]string, len(x.manifest))
	for k, v := range x.manifest {
		next[k] = v
	}
	for len(pending) > 0 || len(gone) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := x.bi.NewBatch()
		n := 0
		for ; n < len(gone) && n < batchSize; n++ {
			b.Delete(gone[n])
			delete(next, gone[n])
		}
		gone = gone[n:]
		m := 0
		for ; m < len(pending) && n+m < batchSize; m++ {
			t := pending[m]
			doc, err := document(t)
			if err != nil {
				return err
			}
			if err := b.Index(t.id(), doc); err != nil {
				return fmt.Errorf("index table %s: %w", t.Name, err)
			}
			next[t.id()] = t.version()
		}
		pending = pending[m:]
		raw, err := json.Marshal(next)
		if err != nil {
			return fmt.Errorf("encode the index manifest: %w", err)
		}
		b.SetInternal(keyManifest, raw)
		if err := x.bi.Batch(b); err != nil {
			return fmt.Errorf("write the schema index: %w", err)
		}
		x.manifest = next
		next = make(map[string]string, len(x.manifest))
		for k, v := range x.manifest {
			next[k] = v
		}
	}
	return nil
}

// Size returns the bytes the index takes on disk (0 in memory).
func (x *Index) Size() (int64, error) {
	if x.dir == "" {
		return 0, nil
	}
	var n int64
	err := filepath.WalkDir(x.dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	return n, err
}
