package retrieve

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/remote"
)

// noted is the connection's tables with the user's notes merged into the
// database's comments: as the tools list them (ds) and as the schema index
// holds them (tables), both in Schema.Tables order. SetNotes replaces it
// whole, so a reader holding one sees consistent notes.
type noted struct {
	ds     []catalog.Dataset
	tables []index.Table
}

// current is the tables as described with the notes last set.
func (r *Remote) current() *noted {
	r.derive()
	r.notesMu.RLock()
	defer r.notesMu.RUnlock()
	return r.view
}

// SetNotes makes r describe its tables with n, the connection's notes (a
// note wins over the database's comment, as a dataset's note does): the
// prompt, describe_table and the schema index use them from now on. When
// r's schema index is open, the tables whose notes changed are indexed
// again, and only those. Notes on tables or columns the schema does not
// have are ignored.
func (r *Remote) SetNotes(ctx context.Context, n remote.Notes) error {
	r.derive()
	v := r.describeAll(n)
	r.idxMu.Lock()
	defer r.idxMu.Unlock()
	if r.closed {
		return fmt.Errorf("connection %s: %w", r.Name, ErrClosed)
	}
	if r.idx != nil {
		if _, err := r.idx.Sync(ctx, Origin(r.Name), v.tables); err != nil {
			return fmt.Errorf("index the notes of %s: %w", r.Name, err)
		}
	}
	r.notesMu.Lock()
	r.notes, r.view = n, v
	r.notesMu.Unlock()
	return nil
}

// describeAll describes every table with the notes n.
func (r *Remote) describeAll(n remote.Notes) *noted {
	kind := ""
	if r.Source != nil {
		kind = string(r.Source.Dialect().Kind)
	}
	v := &noted{ds: make([]catalog.Dataset, len(r.Schema.Tables)), tables: make([]index.Table, len(r.Schema.Tables))}
	for i := range r.Schema.Tables {
		t := &r.Schema.Tables[i]
		tn := n.Of(t)
		d := catalog.Dataset{Name: r.tableName(t), Kind: kind, Source: r.Name, Storage: t.Kind, Rows: max(t.Rows, 0),
			Comment: t.Comment, Note: tn.Note}
		d.Columns = make([]catalog.Column, len(t.Columns))
		for j, c := range t.Columns {
			d.Columns[j] = catalog.Column{Name: c.Name, Type: c.Type, Comment: c.Comment, Note: tn.Columns[c.Name]}
		}
		v.ds[i] = d
		v.tables[i] = r.indexTable(t, d)
	}
	return v
}

// SyncNotes brings the schema index kept in dir (a connection's
// remote.Store.CacheDir) up to date with the notes kept there, for the
// connection called name as last discovered (its catalog): the tables
// whose notes changed are indexed again, and only those. It returns how
// many were. Without a catalog (the connection was never discovered) it
// does nothing: discovery indexes the notes with the tables.
func SyncNotes(ctx context.Context, dir, name string) (int, error) {
	c, err := remote.LoadCatalog(dir)
	if errors.Is(err, remote.ErrNoCatalog) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := remote.LoadNotes(dir)
	if err != nil {
		return 0, err
	}
	r := NewRemote(name, nil, c.Schema)
	if err := r.SetNotes(ctx, n); err != nil {
		return 0, err
	}
	idx, err := index.Open(dir)
	if err != nil {
		return 0, fmt.Errorf("open the schema index of %s: %w", name, err)
	}
	st, err := idx.Sync(ctx, Origin(name), r.current().tables)
	if cerr := idx.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close the schema index of %s: %w", name, cerr)
	}
	if err != nil {
		return 0, fmt.Errorf("index the notes of %s: %w", name, err)
	}
	return st.Indexed, nil
}
