package privacy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// MarksFile is the name of the file that keeps the user's private-column
// decisions: in the workspace folder for loaded datasets, in a
// connection's cache folder (beside its notes) for a database.
const MarksFile = "private.json"

const marksVersion = 1

// Decision is the user's word on one column: private or not. A column
// with no decision is private when Loupe proposes it.
type Decision struct {
	Table   string `json:"table"`
	Column  string `json:"column"`
	Private bool   `json:"private"`
	// Kind is the kind the user chose; "" keeps the detected one.
	Kind Kind `json:"kind,omitempty"`
}

// Marks are the user's decisions for one workspace or connection.
type Marks struct {
	Version   int        `json:"version"`
	Decisions []Decision `json:"decisions"`
}

// marksMu serializes read-modify-write of marks files in this process.
var marksMu sync.Mutex

// LoadMarks reads the marks in dir; a missing file is no decisions.
func LoadMarks(dir string) (Marks, error) {
	b, err := os.ReadFile(filepath.Join(dir, MarksFile))
	if errors.Is(err, os.ErrNotExist) {
		return Marks{Version: marksVersion}, nil
	}
	if err != nil {
		return Marks{}, fmt.Errorf("read private columns: %w", err)
	}
	var m Marks
	if err := json.Unmarshal(b, &m); err != nil {
		return Marks{}, fmt.Errorf("read private columns %s: %w (fix or delete the file; Loupe proposes private columns again)", filepath.Join(dir, MarksFile), err)
	}
	return m, nil
}

// Decide records the user's decision for table.column in dir's marks,
// replacing an earlier one.
func Decide(dir string, d Decision) error {
	marksMu.Lock()
	defer marksMu.Unlock()
	m, err := LoadMarks(dir)
	if err != nil {
		return err
	}
	m.set(d)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".private-*.json")
	if err != nil {
		return fmt.Errorf("save private columns: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("save private columns: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save private columns: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, MarksFile)); err != nil {
		return fmt.Errorf("save private columns: %w", err)
	}
	return nil
}

func (m *Marks) set(d Decision) {
	m.Version = marksVersion
	for i, e := range m.Decisions {
		if strings.EqualFold(e.Table, d.Table) && strings.EqualFold(e.Column, d.Column) {
			m.Decisions[i] = d
			return
		}
	}
	m.Decisions = append(m.Decisions, d)
}

// decision returns the user's decision on table.column, if any.
func (m Marks) decision(table, column string) (Decision, bool) {
	for _, e := range m.Decisions {
		if strings.EqualFold(e.Table, table) && strings.EqualFold(e.Column, column) {
			return e, true
		}
	}
	return Decision{}, false
}

// Table is what Resolve reads about one table: its name and, per column,
// its name and a few sample values (bounded by the caller: the catalog's
// samples and most frequent values).
type Table struct {
	Name    string
	Columns []SampledColumn
}

// SampledColumn is a column's name and sample values.
type SampledColumn struct {
	Name   string
	Sample []string
}

// Column is one column's privacy as it stands.
type Column struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	// Private is whether its values are masked under Masked.
	Private bool `json:"private"`
	Kind    Kind `json:"kind,omitempty"`
	// Proposed is whether Loupe proposes it (by name or values).
	Proposed bool `json:"proposed"`
	// Decided is whether the user has confirmed or changed it.
	Decided bool `json:"decided"`
	// Sample is the sample Resolve read (the catalog's); a run masks
	// these values whatever else it learns.
	Sample []string `json:"-"`
}

// Resolve says, for every column of tables, whether it is private: the
// user's decision when there is one, Loupe's proposal otherwise.
func Resolve(tables []Table, m Marks) []Column {
	var out []Column
	for _, t := range tables {
		for _, c := range t.Columns {
			k, proposed := Propose(c.Name, c.Sample)
			col := Column{Table: t.Name, Column: c.Name, Kind: k, Proposed: proposed, Private: proposed, Sample: c.Sample}
			if d, ok := m.decision(t.Name, c.Name); ok {
				col.Decided, col.Private = true, d.Private
				if d.Kind != "" {
					col.Kind = d.Kind
				}
			}
			if col.Private && col.Kind == "" {
				col.Kind = Private
			}
			out = append(out, col)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out
}

// PrivateOnly keeps the private columns of cs.
func PrivateOnly(cs []Column) []Column {
	var out []Column
	for _, c := range cs {
		if c.Private {
			out = append(out, c)
		}
	}
	return out
}
