package remote

import (
	"sort"
	"strings"
	"time"
)

// Schema is what Discover found in a source.
type Schema struct {
	Dialect   Dialect       `json:"dialect"`
	Database  string        `json:"database"`
	Tables    []Table       `json:"tables"`
	Elapsed   time.Duration `json:"-"`
	ElapsedMS float64       `json:"elapsed_ms"`
}

// Table is a table, view, materialized view or foreign table.
type Table struct {
	Schema  string `json:"schema,omitempty"` // "" where the engine has none (SQLite, MySQL's current database)
	Name    string `json:"name"`
	Kind    string `json:"kind"` // table, view, materialized view, foreign table, partitioned table
	Comment string `json:"comment,omitempty"`
	// Rows is the server's own estimate from its statistics (PostgreSQL's
	// reltuples, MySQL's TABLE_ROWS, SQLite's sqlite_stat1 or a count), or
	// -1 when it has none (a view, a table never analyzed).
	Rows        int64        `json:"rows"`
	Columns     []Column     `json:"columns"`
	PrimaryKey  []string     `json:"primary_key,omitempty"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
}

// Column is a table's column.
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"` // as the server spells it, e.g. character varying(120)
	Nullable bool   `json:"nullable"`
	Comment  string `json:"comment,omitempty"`
}

// ForeignKey is a declared reference from Columns to RefColumns of RefTable.
type ForeignKey struct {
	Name       string   `json:"name,omitempty"`
	Columns    []string `json:"columns"`
	RefSchema  string   `json:"ref_schema,omitempty"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// QualifiedName is schema.name, or name where there is no schema.
func (t *Table) QualifiedName() string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// Table returns the table called name (schema.name or a bare name, which
// matches in any schema, the first by order), or nil.
func (s *Schema) Table(name string) *Table {
	for i := range s.Tables {
		if s.Tables[i].QualifiedName() == name {
			return &s.Tables[i]
		}
	}
	for i := range s.Tables {
		if s.Tables[i].Name == name {
			return &s.Tables[i]
		}
	}
	return nil
}

// JoinPath is one declared way to join two tables.
type JoinPath struct {
	From string `json:"from"` // qualified name of the referencing table
	To   string `json:"to"`   // qualified name of the referenced table
	// On pairs the columns: from_col = to_col, joined with AND.
	On string `json:"on"`
}

// JoinPaths lists the join paths the foreign keys declare, sorted.
func (s *Schema) JoinPaths() []JoinPath {
	var out []JoinPath
	for i := range s.Tables {
		t := &s.Tables[i]
		for _, fk := range t.ForeignKeys {
			to := fk.RefTable
			if fk.RefSchema != "" {
				to = fk.RefSchema + "." + fk.RefTable
			}
			pairs := make([]string, len(fk.Columns))
			for j, c := range fk.Columns {
				ref := ""
				if j < len(fk.RefColumns) {
					ref = fk.RefColumns[j]
				}
				pairs[j] = t.Name + "." + c + " = " + fk.RefTable + "." + ref
			}
			out = append(out, JoinPath{From: t.QualifiedName(), To: to, On: strings.Join(pairs, " AND ")})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].From != out[b].From {
			return out[a].From < out[b].From
		}
		return out[a].On < out[b].On
	})
	return out
}

// Sort orders tables by schema and name, as every connector returns them.
func (s *Schema) Sort() {
	sort.Slice(s.Tables, func(a, b int) bool {
		if s.Tables[a].Schema != s.Tables[b].Schema {
			return s.Tables[a].Schema < s.Tables[b].Schema
		}
		return s.Tables[a].Name < s.Tables[b].Name
	})
}
