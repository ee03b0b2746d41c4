package catalog

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxNote is the longest note, in characters, a dataset or a column may
// carry: notes go into the agent's prompt, which has a token budget.
const MaxNote = 2000

// Notes are the user's words about a dataset and its columns. Table is
// the table's note (nil leaves it as it is, empty clears it); Columns maps
// a column name to its note, an empty note clearing it. Columns not named
// are left as they are.
type Notes struct {
	Table   *string
	Columns map[string]string
}

// NoteError says why notes were refused: a column that does not exist, or
// a note longer than MaxNote.
type NoteError struct {
	Dataset string
	Column  string // empty for the table's note
	Problem string
}

func (e *NoteError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("note on %s: %s", e.Dataset, e.Problem)
	}
	return fmt.Sprintf("note on %s.%s: %s", e.Dataset, e.Column, e.Problem)
}

// Description is what describes d: the user's note, else the source's
// comment.
func (d Dataset) Description() string {
	if d.Note != "" {
		return d.Note
	}
	return d.Comment
}

// Description is what describes c: the user's note, else the source's
// comment.
func (c Column) Description() string {
	if c.Note != "" {
		return c.Note
	}
	return c.Comment
}

// SetNotes sets the notes of the dataset called name on c (the caller's
// transaction) and returns the updated record. Notes are trimmed; errors
// are ErrNotFound (wrapped) or *NoteError, and then nothing is written.
func SetNotes(ctx context.Context, c Conn, name string, n Notes) (Dataset, error) {
	d, err := getOn(ctx, c, name)
	if err != nil {
		return Dataset{}, err
	}
	if n.Table != nil {
		if err := checkNote(name, "", *n.Table); err != nil {
			return Dataset{}, err
		}
		d.Note = strings.TrimSpace(*n.Table)
	}
	for col, text := range n.Columns {
		i := columnIndex(d.Columns, col)
		if i < 0 {
			return Dataset{}, &NoteError{Dataset: name, Column: col, Problem: "no such column"}
		}
		if err := checkNote(name, col, text); err != nil {
			return Dataset{}, err
		}
		d.Columns[i].Note = strings.TrimSpace(text)
	}
	if err := Put(ctx, c, d); err != nil {
		return Dataset{}, err
	}
	return d, nil
}

func checkNote(dataset, column, text string) error {
	if n := utf8.RuneCountInString(strings.TrimSpace(text)); n > MaxNote {
		return &NoteError{Dataset: dataset, Column: column, Problem: fmt.Sprintf("%d characters, more than the %d a note may hold", n, MaxNote)}
	}
	return nil
}

func columnIndex(cols []Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// CarryNotes copies the user's notes of old onto d: the table's note, and
// each column's note onto the column of the same name (a column that is
// gone loses its note). Source comments are not copied: d has the
// source's current ones.
func CarryNotes(old Dataset, d *Dataset) {
	d.Note = old.Note
	for _, oc := range old.Columns {
		if oc.Note == "" {
			continue
		}
		if i := columnIndex(d.Columns, oc.Name); i >= 0 {
			d.Columns[i].Note = oc.Note
		}
	}
}

// getOn reads the record of name on c (inside the caller's transaction).
func getOn(ctx context.Context, c Conn, name string) (Dataset, error) {
	rows, err := c.QueryContext(ctx, "SELECT info FROM _loupe.datasets WHERE name = $1", []driver.NamedValue{{Ordinal: 1, Value: name}})
	if err != nil {
		return Dataset{}, fmt.Errorf("dataset %q: %w", name, err)
	}
	defer rows.Close()
	dest := []driver.Value{nil}
	if err := rows.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			return Dataset{}, fmt.Errorf("dataset %q: %w", name, ErrNotFound)
		}
		return Dataset{}, fmt.Errorf("dataset %q: %w", name, err)
	}
	raw, _ := dest[0].(string)
	var d Dataset
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return Dataset{}, fmt.Errorf("decode dataset %q: %w", name, err)
	}
	return d, nil
}

// KeepColumnText copies the notes and comments of from onto the columns
// of cols with the same names, for when a column list is made anew (by
// Profile) for the same table.
func KeepColumnText(from, cols []Column) {
	for _, f := range from {
		if f.Note == "" && f.Comment == "" {
			continue
		}
		if i := columnIndex(cols, f.Name); i >= 0 {
			cols[i].Note, cols[i].Comment = f.Note, f.Comment
		}
	}
}
