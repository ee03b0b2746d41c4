package retrieve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/joins"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// Remote is a connected database described for the agent: its tables as
// the tools see them, its schema index (for the prompt and search_schema)
// and its schema. It is safe for concurrent use; Close it when done.
type Remote struct {
	Name   string // the connection's name
	Source remote.Source
	Schema *remote.Schema
	// Dir is the connection's cache folder (OpenRemote), where its notes
	// and private-column marks are kept; "" for NewRemote.
	Dir string
	// bare is true when every table is in one schema, so tables go by
	// their bare names.
	bare bool

	// idx is the connection's schema index (OpenRemote), or one built in
	// memory on first use (NewRemote).
	idxMu  sync.Mutex
	idx    *index.Index
	closed bool

	derived sync.Once
	byName  map[string]int   // tableName → position
	lookup  map[string]int   // lower-cased schema.name and bare name → position
	fks     []agent.JoinPath // every declared join path

	// notesMu guards notes and view, which SetNotes replaces.
	notesMu sync.RWMutex
	notes   remote.Notes
	view    *noted

	linksOnce sync.Once
	idLinks   *joins.Links // id-like columns, for bridges where no keys are declared

	// samples holds a few values of each sampled table's text columns, for
	// proposing private columns by their values (see RemotePrivate).
	samplesMu sync.Mutex
	samples   map[string]map[string][]string // tableName → column → values
}

// NewRemote describes src, whose schema was discovered as sch. Its schema
// index is built in memory when first searched; OpenRemote keeps one on
// disk instead.
func NewRemote(name string, src remote.Source, sch *remote.Schema) *Remote {
	schemas := map[string]bool{}
	for _, t := range sch.Tables {
		schemas[t.Schema] = true
	}
	return &Remote{Name: name, Source: src, Schema: sch, bare: len(schemas) <= 1}
}

// Close closes the schema index and the source.
func (r *Remote) Close() error {
	r.idxMu.Lock()
	var err error
	if r.idx != nil {
		err = r.idx.Close()
		r.idx = nil
	}
	r.closed = true
	r.idxMu.Unlock()
	if r.Source != nil {
		err = errors.Join(err, r.Source.Close())
	}
	return err
}

// Run runs one query on the server (the tools' Runner).
func (r *Remote) Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error) {
	return r.Source.Query(ctx, sql, lim)
}

// Datasets lists the remote tables the way the tools list workspace
// datasets (the tools' Catalog). The datasets' columns are shared: do
// not modify them.
func (r *Remote) Datasets(context.Context) ([]catalog.Dataset, error) {
	return slices.Clone(r.current().ds), nil
}

// derive builds, once, the lookups, the declared join paths and the
// tables described with the notes given so far (SetNotes).
func (r *Remote) derive() {
	r.derived.Do(func() {
		n := len(r.Schema.Tables)
		r.byName = make(map[string]int, n)
		r.lookup = make(map[string]int, 2*n)
		for i := range r.Schema.Tables {
			t := &r.Schema.Tables[i]
			r.lookup[strings.ToLower(t.QualifiedName())] = i
			if _, ok := r.lookup[strings.ToLower(t.Name)]; !ok {
				r.lookup[strings.ToLower(t.Name)] = i // a bare name: the first schema's, as Schema.Table
			}
		}
		for i := range r.Schema.Tables {
			r.byName[r.tableName(&r.Schema.Tables[i])] = i
		}
		r.fks = r.declaredPaths()
		r.notesMu.Lock()
		r.view = r.describeAll(r.notes)
		r.notesMu.Unlock()
	})
}

func (r *Remote) tableName(t *remote.Table) string {
	if r.bare {
		return t.Name
	}
	return t.QualifiedName()
}

// ref finds the table a foreign key refers to, or nil.
func (r *Remote) ref(fk remote.ForeignKey) *remote.Table {
	if fk.RefSchema != "" {
		if i, ok := r.lookup[strings.ToLower(fk.RefSchema+"."+fk.RefTable)]; ok {
			return &r.Schema.Tables[i]
		}
	}
	if i, ok := r.lookup[strings.ToLower(fk.RefTable)]; ok {
		return &r.Schema.Tables[i]
	}
	return nil
}

// declaredPaths lists the join paths the foreign keys declare, one per
// column pair, by the names the tools use.
func (r *Remote) declaredPaths() []agent.JoinPath {
	var out []agent.JoinPath
	for i := range r.Schema.Tables {
		t := &r.Schema.Tables[i]
		for _, fk := range t.ForeignKeys {
			target := r.ref(fk)
			if target == nil {
				continue
			}
			for k := range fk.Columns {
				if k >= len(fk.RefColumns) {
					break
				}
				out = append(out, agent.JoinPath{From: r.tableName(t), FromColumn: fk.Columns[k],
					To: r.tableName(target), ToColumn: fk.RefColumns[k], Confidence: 1, Declared: true})
			}
		}
	}
	return out
}

// header is the prompt's data section without tables: the dialect, its
// tips and where the queries run.
func (r *Remote) header() agent.Schema {
	d := r.Source.Dialect()
	s := agent.Schema{Dialect: d.Name, Where: fmt.Sprintf("the %s database %s (connection %s)", d.Name, r.Schema.Database, r.Name)}
	if d.Tips != "" {
		s.Tips = "- " + strings.TrimSpace(d.Tips)
	}
	return s
}

// PromptSchema describes the whole connected database for the agent's
// prompt: its dialect and tips, every table with columns, types and
// descriptions (the user's notes, else the database's comments), and
// every declared join path. It suits small databases only;
// Retrieve narrows the prompt to the tables a question needs.
func (r *Remote) PromptSchema() agent.Schema {
	v := r.current()
	s := r.header()
	for i := range r.Schema.Tables {
		t := &r.Schema.Tables[i]
		d := v.ds[i]
		at := agent.Table{Name: d.Name, Rows: d.Rows, Description: d.Description()}
		if t.Kind != "" && t.Kind != "table" {
			at.Source = t.Kind
		}
		for _, c := range d.Columns {
			at.Columns = append(at.Columns, agent.Column{Name: c.Name, Type: c.Type, Description: c.Description()})
		}
		s.Tables = append(s.Tables, at)
	}
	s.JoinPaths = append(s.JoinPaths, r.fks...)
	return s
}
