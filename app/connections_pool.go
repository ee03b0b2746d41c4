package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
)

// remotePool holds the databases the app is connected to: each opened
// (and its schema discovered) on first use, then shared by the runs of its
// conversations, the sidebar and imports. A connection that is edited or
// removed is evicted: closed once its last user lets go. Shutdown closes
// them all. It is safe for concurrent use.
type remotePool struct {
	watch sync.Once // ties the pool to the app's lifetime

	mu       sync.Mutex
	profiles *remote.Store
	conns    map[string]*pooled
	// lastRole is the role warning of the profile the connection dialog
	// last tested, kept for SaveConnection of that same profile.
	lastRole struct {
		profile remote.Profile
		warning *remote.RoleWarning
		set     bool
	}
	closed bool
	// described is, for each open connection, its notes file as it was
	// when its tables were last described with the notes (useNotes).
	described map[*assemble.Remote]fileStamp
}

// pooled is one open connection and how many hold it.
type pooled struct {
	ready chan struct{} // closed once the open ended
	rem   *assemble.Remote
	err   error
	refs  int
	gone  bool // evicted: closed when refs drops to 0
}

func newRemotePool() *remotePool {
	return &remotePool{conns: map[string]*pooled{}, described: map[*assemble.Remote]fileStamp{}}
}

// store returns the profile store kept in the file at path, one per
// process so that its writes are serialized.
func (p *remotePool) store(path string) *remote.Store {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.profiles == nil || p.profiles.Path() != path {
		p.profiles = remote.NewStore(path)
	}
	return p.profiles
}

// acquire returns the open connection name, opening it with open when no
// one has; several callers share one open. The caller calls release once
// done with it. A failed open is not kept: the next acquire tries again.
func (p *remotePool) acquire(ctx context.Context, name string, open func(context.Context) (*assemble.Remote, error)) (rem *assemble.Remote, release func(), err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, newError(CodeCanceled, "Loupe is shutting down.", "")
	}
	c := p.conns[name]
	opener := c == nil
	if opener {
		c = &pooled{ready: make(chan struct{})}
		p.conns[name] = c
	}
	c.refs++
	p.mu.Unlock()
	if opener {
		r, err := open(ctx)
		p.mu.Lock()
		c.rem, c.err = r, err
		if err != nil && p.conns[name] == c {
			delete(p.conns, name)
		}
		close(c.ready)
		p.mu.Unlock()
	} else {
		select {
		case <-c.ready:
		case <-ctx.Done():
			p.release(c)
			return nil, nil, ctx.Err()
		}
	}
	if c.err != nil {
		p.release(c)
		return nil, nil, c.err
	}
	var once sync.Once
	return c.rem, func() { once.Do(func() { p.release(c) }) }, nil
}

func (p *remotePool) release(c *pooled) {
	p.mu.Lock()
	c.refs--
	last := c.gone && c.refs == 0 && c.rem != nil
	if last {
		delete(p.described, c.rem)
	}
	p.mu.Unlock()
	if last {
		_ = c.rem.Close() // the source and its schema index
	}
}

// evict forgets the open connection name; it closes once unused.
func (p *remotePool) evict(name string) {
	p.mu.Lock()
	c := p.conns[name]
	delete(p.conns, name)
	last := false
	if c != nil {
		c.gone = true
		last = c.refs == 0 && c.rem != nil
		if last {
			delete(p.described, c.rem)
		}
	}
	p.mu.Unlock()
	if last {
		_ = c.rem.Close() // the source and its schema index
	}
}

// closeAll evicts every connection and refuses new ones.
func (p *remotePool) closeAll() {
	p.mu.Lock()
	p.closed = true
	names := make([]string, 0, len(p.conns))
	for n := range p.conns {
		names = append(names, n)
	}
	p.mu.Unlock()
	for _, n := range names {
		p.evict(n)
	}
}

// remote returns the open connection name (connecting and discovering its
// schema when needed), described with the notes its notes file holds now,
// and the func that lets go of it. Errors are shaped for the frontend
// (connError; a damaged notes file is CodeFile).
func (a *App) remote(ctx context.Context, name string) (*assemble.Remote, func(), error) {
	pool := a.remotes
	pool.watch.Do(func() { context.AfterFunc(a.life, pool.closeAll) })
	r, release, err := pool.acquire(ctx, name, func(ctx context.Context) (*assemble.Remote, error) {
		return a.openRemote(ctx, name)
	})
	if err != nil {
		return nil, nil, connError(err)
	}
	if err := a.freshNotes(ctx, r); err != nil {
		release()
		return nil, nil, err
	}
	return r, release, nil
}

// openRemote connects to the saved connection name and discovers its
// schema, described with the user's notes on it. Its schema index is
// built in memory when first searched rather than kept in the
// connection's cache folder (assemble.OpenRemote): the
// window holds a connection for long, and the index on disk is locked
// while open, which would keep `loupe ask --connection` out meanwhile.
func (a *App) openRemote(ctx context.Context, name string) (*assemble.Remote, error) {
	p, pw, err := a.saved(name)
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
	a.log.Info("connected", "connection", p.Name, "kind", p.Kind, "tables", len(sch.Tables), "elapsed", sch.Elapsed)
	if ps, err := a.profiles(); err != nil {
		_ = src.Close()
		return nil, err
	} else if err := ps.SetRole(p.Name, remote.AuditRole(ctx, src, p)); err != nil {
		_ = src.Close()
		return nil, err
	}
	r := assemble.NewRemote(p.Name, src, sch)
	if ps, err := a.profiles(); err == nil {
		r.Dir = ps.CacheDir(p.Name) // its private-column marks are kept there
	}
	if err := a.useNotes(ctx, r); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// ConnectionSchema is what a connection holds, for the sidebar.
type ConnectionSchema struct {
	Name     string            `json:"name"`
	Dialect  string            `json:"dialect"`
	Version  string            `json:"version"`
	Database string            `json:"database"`
	Tables   []ConnectionTable `json:"tables"`
}

// ConnectionTable is a table or view of a connected database.
type ConnectionTable struct {
	// Name is how SQL on the connection names it: bare when every table
	// is in one schema, else schema.name.
	Name    string             `json:"name"`
	Schema  string             `json:"schema,omitempty"`
	Kind    string             `json:"kind"` // table, view, materialized view, …
	Rows    int64              `json:"rows"` // the server's estimate; -1 when it has none
	Comment string             `json:"comment,omitempty"`
	Note    string             `json:"note,omitempty"` // the user's (SetConnectionNote)
	Columns []ConnectionColumn `json:"columns"`
}

// ConnectionColumn is a column of a connected table.
type ConnectionColumn struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Comment string `json:"comment,omitempty"` // the database's own
	Note    string `json:"note,omitempty"`    // the user's
}

// ConnectionTables connects to a saved connection (or reuses the open
// one) and returns its tables and views, with the user's notes on them.
// refresh reads the schema again, for tables added since.
func (a *App) ConnectionTables(name string, refresh bool) (*ConnectionSchema, error) {
	if refresh {
		a.remotes.evict(name)
	}
	r, release, err := a.remote(a.life, name)
	if err != nil {
		return nil, err
	}
	defer release()
	notes, err := a.connectionNotes(name)
	if err != nil {
		return nil, err
	}
	schemas := map[string]bool{}
	for _, t := range r.Schema.Tables {
		schemas[t.Schema] = true
	}
	d := r.Source.Dialect()
	out := &ConnectionSchema{Name: name, Dialect: d.Name, Version: d.Version, Database: r.Schema.Database,
		Tables: make([]ConnectionTable, len(r.Schema.Tables))}
	for i, t := range r.Schema.Tables {
		tn := notes.Of(&t)
		ct := ConnectionTable{Name: t.Name, Schema: t.Schema, Kind: t.Kind, Rows: t.Rows, Comment: t.Comment, Note: tn.Note,
			Columns: make([]ConnectionColumn, len(t.Columns))}
		if len(schemas) > 1 {
			ct.Name = t.QualifiedName()
		}
		for j, c := range t.Columns {
			ct.Columns[j] = ConnectionColumn{Name: c.Name, Type: c.Type, Comment: c.Comment, Note: tn.Columns[c.Name]}
		}
		out.Tables[i] = ct
	}
	return out, nil
}

// NewConnectionChat starts an empty conversation about a saved
// connection: its questions run on that database (see Ask).
func (a *App) NewConnectionChat(name string) (*ChatSummary, error) {
	if _, err := a.profile(name); err != nil {
		return nil, err
	}
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	c, err := st.CreateConversation(a.life, "", remote.Label(name))
	if err != nil {
		return nil, wrap(err)
	}
	s := summaryOf(*c)
	return &s, nil
}

// chatConnection returns the connection the conversation id is about,
// "" for the workspace.
func chatConnection(ctx context.Context, st *store.Store, id string) (string, error) {
	c, err := st.Conversation(ctx, id)
	if err != nil {
		return "", err
	}
	return remote.LabelName(c.Workspace), nil
}

// tested remembers the role warning the connection dialog's test of p found.
func (p *remotePool) tested(prof remote.Profile, w *remote.RoleWarning) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastRole.profile, p.lastRole.warning, p.lastRole.set = prof, w, true
}

// lastTested returns the role warning of the last test of exactly prof.
func (p *remotePool) lastTested(prof remote.Profile) (*remote.RoleWarning, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.lastRole.set || p.lastRole.profile != prof {
		return nil, false
	}
	return p.lastRole.warning, true
}
