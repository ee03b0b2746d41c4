package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
)

// runConnectionNote sets the user's note on a table of the saved
// connection name (TABLE TEXT) or on one of its columns (TABLE COLUMN
// TEXT), checked against the connection's schema as last discovered
// (discovering it first when it never was). The note is kept beside the
// schema, never in the database, and the connection's schema index takes
// it at once.
func runConnectionNote(ctx context.Context, e env, name string, pos []string) int {
	path, err := remote.DefaultStorePath()
	if err != nil {
		return fail(e, err)
	}
	store := remote.NewStore(path)
	if _, err := store.Get(name); err != nil {
		return fail(e, fmt.Errorf("loupe note: %w", err))
	}
	dir := store.CacheDir(name)
	sch, err := discovered(ctx, dir, name)
	if err != nil {
		return fail(e, err)
	}
	set := catalog.Notes{Table: &pos[1]}
	if len(pos) == 3 {
		set = catalog.Notes{Columns: map[string]string{pos[1]: pos[2]}}
	}
	_, table, err := remote.SetNotes(dir, name, sch, pos[0], set)
	var te *remote.NoteTargetError
	switch {
	case errors.As(err, &te) && te.Column == "":
		return fail(e, fmt.Errorf("loupe note: %w; loupe connect test %s reads the schema again", err, name))
	case err != nil:
		return fail(e, fmt.Errorf("loupe note: %w", err))
	}
	if _, err := retrieve.SyncNotes(ctx, dir, name); err != nil {
		fmt.Fprintf(e.stderr, "loupe note: the note is saved, but the schema index was not updated (%v); the next question on %s updates it\n", err, name)
	}
	what, text := table, pos[len(pos)-1]
	if len(pos) == 3 {
		what += "." + pos[1]
	}
	if text == "" {
		fmt.Fprintf(e.stdout, "%s: note cleared\n", what)
	} else {
		fmt.Fprintf(e.stdout, "%s: note set\n", what)
	}
	return ExitOK
}

// discovered returns the schema of the connection name kept in dir,
// connecting to discover it when it was never discovered.
func discovered(ctx context.Context, dir, name string) (*remote.Schema, error) {
	c, err := remote.LoadCatalog(dir)
	if errors.Is(err, remote.ErrNoCatalog) {
		r, oerr := openConnection(ctx, name)
		if oerr != nil {
			return nil, oerr
		}
		if oerr := r.Close(); oerr != nil {
			return nil, oerr
		}
		c, err = remote.LoadCatalog(dir)
	}
	if err != nil {
		return nil, err
	}
	return c.Schema, nil
}
