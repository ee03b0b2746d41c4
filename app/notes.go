package app

import (
	"context"
	"errors"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/workspace"
)

// SetDatasetNote sets the user's note on a dataset and, for each column
// named in columns, the column's note (an empty text clears a note;
// columns not named keep theirs). The notes help the agent find and
// understand the table. Errors: not_found for an unknown dataset,
// invalid for an unknown column or a note over catalog.MaxNote
// characters, and then nothing changes. Emits datasets:changed.
func (a *App) SetDatasetNote(name, note string, columns map[string]string) error {
	return wrap(a.withWorkspace(func(ctx context.Context, ws *workspace.Workspace) error {
		if err := setNotes(ctx, ws, name, catalog.Notes{Table: new(note), Columns: columns}); err != nil {
			return err
		}
		a.datasetsChanged(ctx, ws)
		return nil
	}))
}

// setNotes writes the notes in one transaction, turning the catalog's
// errors into the app's.
func setNotes(ctx context.Context, ws *workspace.Workspace, name string, n catalog.Notes) error {
	err := session.InTransaction(ctx, ws, func(c *duckdb.Conn) error {
		_, err := catalog.SetNotes(ctx, c, name, n)
		return err
	})
	var ne *catalog.NoteError
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: fmt.Sprintf("No dataset is called %q.", name),
			Hint: "It may have been renamed or removed; the sidebar lists the datasets.", Err: err}
	case errors.As(err, &ne) && ne.Problem == "no such column":
		return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s has no column %q.", name, ne.Column),
			Hint: "Notes can be written only for the dataset's own columns.", Err: err}
	case errors.As(err, &ne):
		what := "The note on " + name
		if ne.Column != "" {
			what = "The note on column " + ne.Column
		}
		return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s is too long (at most %d characters).", what, catalog.MaxNote),
			Hint: "Shorten it: a sentence or two on what the data is and how to read it helps most.", Err: err}
	}
	return err
}
