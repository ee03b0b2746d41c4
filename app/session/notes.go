package session

import (
	"context"
	"errors"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
)

// SetDatasetNotes writes the notes on dataset name in one transaction:
// nothing changes when one is refused. An unknown dataset is
// CodeNotFound; an unknown column or a note over catalog.MaxNote
// characters is CodeInvalid.
func SetDatasetNotes(ctx context.Context, ws *workspace.Workspace, name string, n catalog.Notes) error {
	err := InTransaction(ctx, ws, func(c *duckdb.Conn) error {
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

// MoveImports makes the datasets imported from the connection from name
// to, its new name (after a rename), so that refreshing them still runs
// their query there. All move or none.
func MoveImports(ctx context.Context, ws *workspace.Workspace, from, to string) error {
	err := InTransaction(ctx, ws, func(c *duckdb.Conn) error {
		ds, err := catalog.Names(ctx, c)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if remote.LabelName(d.Source) != from {
				continue
			}
			d.Source = remote.Label(to)
			if err := catalog.Put(ctx, c, d); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("keep the datasets imported from %s after its rename: %w", from, err)
	}
	return nil
}
