package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/loupeapp/loupe/data/catalog"
)

// notesFile holds the user's notes on a connection's tables, in its cache
// folder beside the catalog. Discovery rewrites the catalog, never this.
const notesFile = "notes.json"

// notesVersion is the notes file's format.
const notesVersion = 1

// notesMu serializes the read-modify-write of notes files in this process.
var notesMu sync.Mutex

// Notes are the user's words about a connection's tables and columns,
// kept apart from the discovered schema so that discovery never loses
// them. Tables is keyed by the table's QualifiedName. A note on a table
// or column the database no longer has is kept, and ignored.
type Notes struct {
	Version int                   `json:"version"`
	Tables  map[string]TableNotes `json:"tables"`
}

// TableNotes are the notes on one table: its own and its columns' (by
// column name). Empty notes are not kept.
type TableNotes struct {
	Note    string            `json:"note,omitempty"`
	Columns map[string]string `json:"columns,omitempty"`
}

// NoteTargetError means a note names a table, or a column of a table,
// that the connection's schema does not have. Known lists what there is.
type NoteTargetError struct {
	Connection string
	Table      string
	Column     string // empty when the table is unknown
	Known      []string
}

func (e *NoteTargetError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("connection %s has no table %q (its tables: %s)", e.Connection, e.Table, e.KnownList())
	}
	return fmt.Sprintf("%s has no column %q (its columns: %s)", e.Table, e.Column, e.KnownList())
}

// KnownList lists what there is: the first 12 tables, or 30 columns,
// saying how many more there are.
func (e *NoteTargetError) KnownList() string {
	if e.Column == "" {
		return listSome(e.Known, 12)
	}
	return listSome(e.Known, 30)
}

// listSome joins the first n of names, saying how many more there are.
func listSome(names []string, n int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// NotesPath is the notes file in a connection's cache folder dir.
func NotesPath(dir string) string { return filepath.Join(dir, notesFile) }

// Of returns the notes on t (none when there are none).
func (n Notes) Of(t *Table) TableNotes { return n.Tables[t.QualifiedName()] }

// LoadNotes reads the notes kept in dir; none (and no error) when there
// is no notes file. A damaged file is an error: the notes are the user's
// work, never silently dropped.
func LoadNotes(dir string) (Notes, error) {
	b, err := os.ReadFile(NotesPath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return Notes{Version: notesVersion, Tables: map[string]TableNotes{}}, nil
	}
	if err != nil {
		return Notes{}, fmt.Errorf("read the notes: %w", err)
	}
	var n Notes
	if err := json.Unmarshal(b, &n); err != nil || n.Version != notesVersion {
		return Notes{}, fmt.Errorf("the notes file %s is damaged or from another version: fix or remove it", NotesPath(dir))
	}
	if n.Tables == nil {
		n.Tables = map[string]TableNotes{}
	}
	return n, nil
}

// SetNotes sets, in the notes kept in dir for the connection called name,
// the notes set asks for on table (schema.name or a bare name, as
// sch.Table finds it; else the first name that matches ignoring case):
// set.Table replaces the table's note when not nil, each of set.Columns
// the note of that column; an empty note clears one. Notes are trimmed.
// It returns all the connection's notes and the table's QualifiedName.
// Errors are *NoteTargetError (no such table or column) or
// *catalog.NoteError (a note over catalog.MaxNote characters), and then
// nothing is written. The file is replaced atomically.
func SetNotes(dir, name string, sch *Schema, table string, set catalog.Notes) (Notes, string, error) {
	t := findTable(sch, table)
	if t == nil {
		known := make([]string, len(sch.Tables))
		for i := range sch.Tables {
			known[i] = sch.Tables[i].QualifiedName()
		}
		return Notes{}, "", &NoteTargetError{Connection: name, Table: table, Known: known}
	}
	key := t.QualifiedName()
	if set.Table != nil {
		if err := checkNote(key, "", *set.Table); err != nil {
			return Notes{}, "", err
		}
	}
	cols := make(map[string]string, len(set.Columns))
	for col, text := range set.Columns {
		c := findColumn(t.Columns, col)
		if c == "" {
			known := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				known[i] = c.Name
			}
			return Notes{}, "", &NoteTargetError{Connection: name, Table: key, Column: col, Known: known}
		}
		if err := checkNote(key, c, text); err != nil {
			return Notes{}, "", err
		}
		cols[c] = strings.TrimSpace(text)
	}

	notesMu.Lock()
	defer notesMu.Unlock()
	n, err := LoadNotes(dir)
	if err != nil {
		return Notes{}, "", err
	}
	tn := n.Tables[key]
	if set.Table != nil {
		tn.Note = strings.TrimSpace(*set.Table)
	}
	merged := make(map[string]string, len(tn.Columns)+len(cols))
	for c, text := range tn.Columns {
		merged[c] = text
	}
	for c, text := range cols {
		merged[c] = text
	}
	tn.Columns = map[string]string{}
	for c, text := range merged {
		if text != "" {
			tn.Columns[c] = text
		}
	}
	if len(tn.Columns) == 0 {
		tn.Columns = nil
	}
	if tn.Note == "" && tn.Columns == nil {
		delete(n.Tables, key)
	} else {
		n.Tables[key] = tn
	}
	if err := saveNotes(dir, name, n); err != nil {
		return Notes{}, "", err
	}
	return n, key, nil
}

// saveNotes writes n as the notes file in dir, atomically.
func saveNotes(dir, name string, n Notes) error {
	n.Version = notesVersion
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the notes of %s: %w", name, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := writeAtomic(dir, notesFile, append(b, '\n')); err != nil {
		return fmt.Errorf("save the notes of %s: %w", name, err)
	}
	return nil
}

// checkNote refuses a note longer than catalog.MaxNote characters, as
// the workspace's notes are refused.
func checkNote(table, column, text string) error {
	if n := utf8.RuneCountInString(strings.TrimSpace(text)); n > catalog.MaxNote {
		return &catalog.NoteError{Dataset: table, Column: column,
			Problem: fmt.Sprintf("%d characters, more than the %d a note may hold", n, catalog.MaxNote)}
	}
	return nil
}

// findTable is sch.Table, else the first table whose qualified or bare
// name matches name ignoring case.
func findTable(sch *Schema, name string) *Table {
	if t := sch.Table(name); t != nil {
		return t
	}
	for i := range sch.Tables {
		t := &sch.Tables[i]
		if strings.EqualFold(t.QualifiedName(), name) || strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// findColumn is the name of the column called name, matched exactly,
// else ignoring case; "" when there is none.
func findColumn(cols []Column, name string) string {
	for _, c := range cols {
		if c.Name == name {
			return c.Name
		}
	}
	for _, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return c.Name
		}
	}
	return ""
}

// MoveNotes moves the notes of the connection called from to the one
// called to, for a rename; nothing happens when from has none. Notes the
// connection to already had are replaced.
func (s *Store) MoveNotes(from, to string) error {
	notesMu.Lock()
	defer notesMu.Unlock()
	src := NotesPath(s.CacheDir(from))
	if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	dir := s.CacheDir(to)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Rename(src, NotesPath(dir)); err != nil {
		return fmt.Errorf("move the notes of %s to %s: %w", from, to, err)
	}
	return nil
}

// clearCache deletes what was discovered about a connection (its catalog
// and schema index) from dir, its cache folder, keeping the user's notes.
func clearCache(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.Name() == notesFile {
			continue
		}
		if err := removeCache(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
