package cli

import (
	"context"
	"errors"
	"fmt"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

func init() {
	register(command{"note", "note [--workspace DIR | --connection NAME] TABLE [COLUMN] TEXT", "note what a table or column holds (empty TEXT clears); the agent searches and reads notes", runNote})
}

// runNote sets the user's note on a dataset (TABLE TEXT) or on one of its
// columns (TABLE COLUMN TEXT); with --connection, on a table of that
// saved connection (see runConnectionNote).
func runNote(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("note", e)
	conn := fs.String("connection", "", "note a table of a connected database (see loupe connect) instead of a dataset")
	pos, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) < 2 || len(pos) > 3 {
		fmt.Fprintln(e.stderr, `loupe note: give TABLE TEXT or TABLE COLUMN TEXT, e.g. loupe note orders "One row per web order"`)
		return ExitUsage
	}
	if *conn != "" {
		if *ws != "" {
			fmt.Fprintln(e.stderr, "loupe note: give --workspace or --connection, not both")
			return ExitUsage
		}
		return runConnectionNote(ctx, e, *conn, pos)
	}
	table, text := pos[0], pos[len(pos)-1]
	w, err := openWorkspace(ctx, *ws)
	if err != nil {
		return fail(e, err)
	}
	defer w.Close()
	var what string
	err = w.Engine.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
			return err
		}
		d, err := notes(ctx, c, table, pos)
		if err != nil {
			_ = duck.Exec(context.WithoutCancel(ctx), c, "ROLLBACK")
			return err
		}
		what = d
		return duck.Exec(ctx, c, "COMMIT")
	})
	var ne *catalog.NoteError
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return fail(e, fmt.Errorf("loupe note: no dataset is called %q (loupe search or the window lists them)", table))
	case errors.As(err, &ne):
		return fail(e, fmt.Errorf("loupe note: %w", err))
	case err != nil:
		return fail(e, err)
	}
	if text == "" {
		fmt.Fprintf(e.stdout, "%s: note cleared\n", what)
	} else {
		fmt.Fprintf(e.stdout, "%s: note set\n", what)
	}
	return ExitOK
}

// notes sets the note pos asks for on c and returns what it is on
// ("orders" or "orders.region").
func notes(ctx context.Context, c *duckdb.Conn, table string, pos []string) (string, error) {
	if len(pos) == 2 {
		_, err := catalog.SetNotes(ctx, c, table, catalog.Notes{Table: &pos[1]})
		return table, err
	}
	_, err := catalog.SetNotes(ctx, c, table, catalog.Notes{Columns: map[string]string{pos[1]: pos[2]}})
	return table + "." + pos[1], err
}
