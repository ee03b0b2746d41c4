package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
)

// Connections opens the saved database connections on demand and shares
// them (Pool): each connected to, its schema discovered and its role
// audited on first use, then described with the user's notes as its
// notes file holds them now (`loupe note --connection` writes it from
// another process while the window holds the connection). It is safe for
// concurrent use.
type Connections struct {
	Pool *Pool
	// ConfigDir is the config folder, which holds the profiles
	// (ConnectionsFile); Keychain keeps their passwords.
	ConfigDir func() (string, error)
	Keychain  config.Keychain
	// Explain words data/remote's errors for whoever shows them (the
	// window's dialog); nil leaves them as they are.
	Explain func(error) error
	Log     *slog.Logger

	notes sync.Mutex // serializes note changes: the open connection ends up with the last written

	mu       sync.Mutex
	store    *remote.Store
	lastRole struct { // of the profile the connection dialog last tested, for saving that same profile
		profile remote.Profile
		warning *remote.RoleWarning
		set     bool
	}
}

// NewConnections returns the connections saved in the config folder dir
// names, their passwords in keys, opened into pool.
func NewConnections(pool *Pool, dir func() (string, error), keys config.Keychain, log *slog.Logger) *Connections {
	return &Connections{Pool: pool, ConfigDir: dir, Keychain: keys, Log: log}
}

// shape words err with Explain.
func (c *Connections) shape(err error) error {
	if err == nil || c.Explain == nil {
		return err
	}
	return c.Explain(err)
}

// Open returns the open connection name (connecting when needed),
// described with its notes as they are now, and the func that lets go of
// it. Its errors are data/remote's (*remote.ConnError) or *Error.
func (c *Connections) Open(ctx context.Context, name string) (*retrieve.Remote, func(), error) {
	r, release, err := c.Pool.Acquire(ctx, name, func(ctx context.Context) (*retrieve.Remote, error) {
		return c.connect(ctx, name)
	})
	if err != nil {
		return nil, nil, err
	}
	if err := c.freshNotes(ctx, r); err != nil {
		release()
		return nil, nil, err
	}
	return r, release, nil
}

// connect connects to the saved connection name and discovers its schema,
// described with the user's notes on it. Its schema index is built in
// memory when first searched rather than kept in the connection's cache
// folder (retrieve.OpenRemote): the window holds a connection for long,
// and the index on disk is locked while open, which would keep `loupe ask
// --connection` out meanwhile.
func (c *Connections) connect(ctx context.Context, name string) (*retrieve.Remote, error) {
	p, pw, err := c.Saved(name)
	if err != nil {
		return nil, err
	}
	ps, err := c.Profiles()
	if err != nil {
		return nil, err
	}
	src, err := remote.Open(ctx, p, pw)
	if err != nil {
		return nil, err
	}
	sch, err := src.Discover(ctx)
	if err != nil {
		_ = src.Close()
		return nil, fmt.Errorf("read the schema of %s: %w", p.Name, err)
	}
	c.Log.Info("connected", "connection", p.Name, "kind", p.Kind, "tables", len(sch.Tables), "elapsed", sch.Elapsed)
	if err := ps.SetRole(p.Name, remote.AuditRole(ctx, src, p)); err != nil {
		_ = src.Close()
		return nil, err
	}
	r := retrieve.NewRemote(p.Name, src, sch)
	r.Dir = ps.CacheDir(p.Name) // its private-column marks are kept there
	if err := c.useNotes(ctx, r); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// Notes reads the notes kept for the connection name. A damaged notes
// file is CodeFile.
func (c *Connections) Notes(name string) (remote.Notes, error) {
	ps, err := c.Profiles()
	if err != nil {
		return remote.Notes{}, err
	}
	n, err := remote.LoadNotes(ps.CacheDir(name))
	if err != nil {
		return remote.Notes{}, &Error{Code: CodeFile, Message: UpperFirst(err.Error()) + ".",
			Hint: "The notes on the connection's tables are kept there; fix the file, or remove it to start again.", Err: err}
	}
	return n, nil
}

// SetNote sets the user's notes on table (named as the sidebar names it)
// of the open connection r, keeps them beside its schema and describes r
// with them. An unknown table is CodeNotFound; an unknown column or a
// note over catalog.MaxNote characters is CodeInvalid, and then nothing
// changes.
func (c *Connections) SetNote(ctx context.Context, r *retrieve.Remote, table string, n catalog.Notes) error {
	ps, err := c.Profiles()
	if err != nil {
		return err
	}
	c.notes.Lock()
	defer c.notes.Unlock()
	all, _, err := remote.SetNotes(ps.CacheDir(r.Name), r.Name, r.Schema, table, n)
	if err != nil {
		return noteError(r.Name, table, err)
	}
	return r.SetNotes(ctx, all)
}

// useNotes describes the tables of r with the notes kept for its
// connection, and remembers which version of the notes file that was.
func (c *Connections) useNotes(ctx context.Context, r *retrieve.Remote) error {
	ps, err := c.Profiles()
	if err != nil {
		return err
	}
	seen := stampOf(remote.NotesPath(ps.CacheDir(r.Name))) // before the read: a write meanwhile shows next time
	n, err := c.Notes(r.Name)
	if err != nil {
		return err
	}
	if err := r.SetNotes(ctx, n); err != nil {
		return err
	}
	c.Pool.Mark(r, seen)
	return nil
}

// freshNotes describes r, an open connection, with its notes again when
// the notes file changed since they were last read.
func (c *Connections) freshNotes(ctx context.Context, r *retrieve.Remote) error {
	ps, err := c.Profiles()
	if err != nil {
		return err
	}
	now := stampOf(remote.NotesPath(ps.CacheDir(r.Name)))
	if seen, ok := c.Pool.Marked(r); ok && seen == now {
		return nil
	}
	c.notes.Lock()
	defer c.notes.Unlock()
	c.Log.Debug("the notes of an open connection changed; reading them again", "connection", r.Name)
	return c.useNotes(ctx, r)
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

// noteError says what remote.SetNotes's refusals mean.
func noteError(conn, table string, err error) error {
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
	return Wrap(err)
}
