package session

import (
	"context"

	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
)

// ListedTable is a table or view of a connection as the sidebar lists it:
// Name is how SQL on the connection names it (bare when every table is in
// one schema, else schema.name), with the user's notes on it.
type ListedTable struct {
	*remote.Table
	Name  string
	Notes remote.TableNotes
}

// Listed is what a connection holds, for the sidebar.
type Listed struct {
	Dialect  remote.Dialect
	Database string
	Tables   []ListedTable
}

// ListTables connects to the saved connection name (or reuses the open
// one; refresh reads its schema again, for tables added since) and lists
// its tables and views with the user's notes on them.
func (c *Connections) ListTables(ctx context.Context, name string, refresh bool) (*Listed, error) {
	if refresh {
		c.Pool.Evict(name)
	}
	r, release, err := c.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer release()
	notes, err := c.Notes(name)
	if err != nil {
		return nil, err
	}
	schemas := map[string]bool{}
	for _, t := range r.Schema.Tables {
		schemas[t.Schema] = true
	}
	out := &Listed{Dialect: r.Source.Dialect(), Database: r.Schema.Database, Tables: make([]ListedTable, len(r.Schema.Tables))}
	for i := range r.Schema.Tables {
		t := &r.Schema.Tables[i]
		lt := ListedTable{Table: t, Name: t.Name, Notes: notes.Of(t)}
		if len(schemas) > 1 {
			lt.Name = t.QualifiedName()
		}
		out.Tables[i] = lt
	}
	return out, nil
}

// NewConnectionChat starts an empty conversation about the saved
// connection name: its questions run on that database.
func (s *Session) NewConnectionChat(ctx context.Context, name string) (*store.Conversation, error) {
	if _, err := s.Conns.Profile(name); err != nil {
		return nil, err
	}
	st, err := s.Chats.Store()
	if err != nil {
		return nil, err
	}
	c, err := st.CreateConversation(ctx, "", remote.Label(name))
	return c, Wrap(err)
}
