package index

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
)

// Workspace is the origin of the datasets loaded into the workspace.
// Other origins (a remote connection's tables) use their own name, e.g.
// "remote:prod", so that syncing one origin leaves the others alone.
const Workspace = "workspace"

// Table is a table as the index (and join inference) knows it: a plain
// description any source can fill — a loaded dataset (FromDataset) or a
// remote database's discovered table, with its comments and keys.
type Table struct {
	// Name is how SQL refers to the table: a dataset name, or
	// schema.table for a remote database. Unique within an origin.
	Name string `json:"name"`
	// Origin groups tables that are synced together (Workspace, or a
	// remote connection's "remote:<profile>").
	Origin string `json:"origin"`
	// Source says where the table came from, briefly: a file name and
	// sheet, or a connection and database. It is searched, lightly.
	Source string `json:"source,omitempty"`
	// Group names where the table came from (a file, a database):
	// inferred joins within a group are likelier than across groups.
	Group string `json:"group,omitempty"`
	// Description is the table's comment or the user's note.
	Description string `json:"description,omitempty"`
	// Rows is the row count, or -1 when unknown.
	Rows       int64        `json:"rows"`
	Columns    []Column     `json:"columns"`
	PrimaryKey []string     `json:"primary_key,omitempty"`
	Foreign    []ForeignKey `json:"foreign_keys,omitempty"`
	// Version changes whenever the table does (a load time, a schema
	// hash); Sync re-indexes a table whose version changed. Empty means
	// "hash the content".
	Version string `json:"version,omitempty"`
}

// Column is a column as the index knows it.
type Column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	// Values are a few frequent values of a low-cardinality text column
	// ("Electronics", "EMEA"): questions often name them.
	Values []string `json:"values,omitempty"`
	// Distinct is the approximate number of distinct values; 0 when
	// unknown. Join inference uses it to find key columns.
	Distinct int64 `json:"distinct,omitempty"`
	// Nulls counts missing values; 0 when unknown.
	Nulls int64 `json:"nulls,omitempty"`
}

// ForeignKey is a declared reference from Columns to RefColumns of RefTable
// (a Name in the same origin).
type ForeignKey struct {
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// Column returns the column called name (ignoring case), or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

// id is the table's document id: origin and name.
func (t *Table) id() string { return t.Origin + "\x1f" + t.Name }

// version returns t.Version, or a hash of the table's content.
func (t *Table) version() string {
	if t.Version != "" {
		return t.Version
	}
	b, _ := json.Marshal(t) // plain data: cannot fail
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("h%x", h.Sum64())
}

// maxValues and maxValueLen bound the values indexed per column.
const (
	maxValues   = 8
	maxValueLen = 60
)

// FromDataset describes a loaded dataset for the index: its columns and
// types, its declared keys, its and its columns' descriptions (the user's notes, else the
// source's comments), and the frequent values of its low-cardinality text columns.
func FromDataset(d catalog.Dataset) Table {
	t := Table{Name: d.Name, Origin: Workspace, Source: filepath.Base(d.Source), Group: d.Source, Rows: d.Rows,
		Description: d.Description(),
		Version:     fmt.Sprintf("%d/%d/%d/%s", d.LoadedAt.UnixNano(), d.Rows, len(d.Columns), textHash(d))}
	if d.Part != "" {
		t.Source += " " + d.Part
	}
	if schema, _, ok := strings.Cut(d.Part, "."); ok && d.Kind == "duckdb" {
		t.Group += "#" + schema // one database of several in the file
	}
	t.PrimaryKey = d.PrimaryKey
	for _, fk := range d.Foreign {
		t.Foreign = append(t.Foreign, ForeignKey{Columns: fk.Columns, RefTable: fk.RefTable, RefColumns: fk.RefColumns})
	}
	for _, c := range d.Columns {
		col := Column{Name: c.Name, Type: c.Type, Description: c.Description(), Distinct: c.Distinct, Nulls: c.Nulls}
		if isText(c.Type) {
			for _, v := range c.Top {
				if len(col.Values) == maxValues {
					break
				}
				if v.Value != "" && len(v.Value) <= maxValueLen {
					col.Values = append(col.Values, v.Value)
				}
			}
		}
		t.Columns = append(t.Columns, col)
	}
	return t
}

// textHash hashes the descriptions of d and its columns, so that a note
// changed without a reload changes the table's version.
func textHash(d catalog.Dataset) string {
	h := fnv.New32a()
	h.Write([]byte(d.Description()))
	for _, c := range d.Columns {
		h.Write([]byte{0})
		h.Write([]byte(c.Description()))
	}
	return fmt.Sprintf("%x", h.Sum32())
}

// FromDatasets describes every dataset.
func FromDatasets(ds []catalog.Dataset) []Table {
	out := make([]Table, len(ds))
	for i, d := range ds {
		out[i] = FromDataset(d)
	}
	return out
}

func isText(typ string) bool {
	t := strings.ToUpper(typ)
	return strings.HasPrefix(t, "VARCHAR") || strings.HasPrefix(t, "TEXT") || strings.HasPrefix(t, "CHAR") ||
		strings.HasPrefix(t, "STRING") || strings.HasPrefix(t, "ENUM") || strings.Contains(t, "CHARACTER")
}
