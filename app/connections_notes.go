package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
)

// connNotesMu serializes note changes, so that the open connection ends
// up described with the notes last written.
var connNotesMu sync.Mutex

// SetConnectionNote sets the user's note on a table of a saved connection
// and, for each column named in columns, the column's note (an empty text
// clears a note; columns not named keep theirs), as SetDatasetNote does
// for a dataset. table is named as ConnectionTables names it. The notes
// are kept beside the connection's schema (never in the database), kept
// when its schema is read again, and the agent searches and reads them, a
// note winning over the database's own comment. Errors: not_found for an
// unknown connection or table, invalid for an unknown column or a note
// over catalog.MaxNote characters, and then nothing changes; a db_* code
// when the database cannot be reached to read its tables.
func (a *App) SetConnectionNote(conn, table, note string, columns map[string]string) error {
	ps, err := a.profiles()
	if err != nil {
		return err
	}
	r, release, err := a.remote(a.life, conn)
	if err != nil {
		return err
	}
	defer release()
	connNotesMu.Lock()
	defer connNotesMu.Unlock()
	n, _, err := remote.SetNotes(ps.CacheDir(conn), conn, r.Schema, table, catalog.Notes{Table: &note, Columns: columns})
	if err != nil {
		return connNoteError(conn, table, err)
	}
	return wrap(r.SetNotes(a.life, n))
}

// useNotes describes the tables of r with the notes kept for its
// connection, and remembers which version of the notes file that was.
func (a *App) useNotes(ctx context.Context, r *assemble.Remote) error {
	ps, err := a.profiles()
	if err != nil {
		return err
	}
	seen := stampOf(remote.NotesPath(ps.CacheDir(r.Name))) // before the read: a write meanwhile shows next time
	n, err := a.connectionNotes(r.Name)
	if err != nil {
		return err
	}
	if err := r.SetNotes(ctx, n); err != nil {
		return err
	}
	a.remotes.Mark(r, seen)
	return nil
}

// freshNotes describes r, an open connection, with its notes again when
// the notes file changed since they were last read: `loupe note
// --connection` writes it from another process while the window has the
// connection open, and the next question must see the note.
func (a *App) freshNotes(ctx context.Context, r *assemble.Remote) error {
	ps, err := a.profiles()
	if err != nil {
		return err
	}
	now := stampOf(remote.NotesPath(ps.CacheDir(r.Name)))
	if seen, ok := a.remotes.Marked(r); ok && seen == now {
		return nil
	}
	connNotesMu.Lock()
	defer connNotesMu.Unlock()
	a.log.Debug("the notes of an open connection changed; reading them again", "connection", r.Name)
	return a.useNotes(ctx, r)
}

// fileStamp tells versions of a file apart: its size and time of change,
// the zero stamp when there is no file.
type fileStamp struct {
	size int64
	mod  int64 // UnixNano
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime().UnixNano()}
}

// connectionNotes reads the notes kept for the connection name.
func (a *App) connectionNotes(name string) (remote.Notes, error) {
	ps, err := a.profiles()
	if err != nil {
		return remote.Notes{}, err
	}
	n, err := remote.LoadNotes(ps.CacheDir(name))
	if err != nil {
		return remote.Notes{}, &Error{Code: CodeFile, Message: upperFirst(err.Error()) + ".",
			Hint: "The notes on the connection's tables are kept there; fix the file, or remove it to start again.", Err: err}
	}
	return n, nil
}

// connNoteError turns the errors of remote.SetNotes into the app's.
func connNoteError(conn, table string, err error) error {
	var te *remote.NoteTargetError
	var ne *catalog.NoteError
	switch {
	case errors.As(err, &te) && te.Column == "":
		return &Error{Code: CodeNotFound, Message: fmt.Sprintf("The connection %s has no table %q.", conn, table),
			Hint: "Its tables: " + te.KnownList() + ". Refresh its tables if it was added since.", Err: err}
	case errors.As(err, &te):
		return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s has no column %q.", te.Table, te.Column),
			Hint: "Notes can be written only for the table's own columns: " + te.KnownList() + ".", Err: err}
	case errors.As(err, &ne):
		what := "The note on " + table
		if ne.Column != "" {
			what = "The note on column " + ne.Column
		}
		return &Error{Code: CodeInvalid, Message: fmt.Sprintf("%s is too long (at most %d characters).", what, catalog.MaxNote),
			Hint: "Shorten it: a sentence or two on what the data is and how to read it helps most.", Err: err}
	}
	return wrap(err)
}
