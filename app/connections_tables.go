package app

import (
	"context"

	"github.com/loupeapp/loupe/app/retrieve"
)

// remote returns the open connection name (session.Connections.Open)
// and the func that lets go of it, its errors shaped for the frontend
// (connError).
func (a *App) remote(ctx context.Context, name string) (*retrieve.Remote, func(), error) {
	r, release, err := a.s.Conns.Open(ctx, name)
	return r, release, connError(err)
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
	l, err := a.s.Conns.ListTables(a.life, name, refresh)
	if err != nil {
		return nil, connError(err)
	}
	out := &ConnectionSchema{Name: name, Dialect: l.Dialect.Name, Version: l.Dialect.Version, Database: l.Database,
		Tables: make([]ConnectionTable, len(l.Tables))}
	for i, t := range l.Tables {
		ct := ConnectionTable{Name: t.Name, Schema: t.Schema, Kind: t.Kind, Rows: t.Rows, Comment: t.Comment, Note: t.Notes.Note,
			Columns: make([]ConnectionColumn, len(t.Columns))}
		for j, c := range t.Columns {
			ct.Columns[j] = ConnectionColumn{Name: c.Name, Type: c.Type, Comment: c.Comment, Note: t.Notes.Columns[c.Name]}
		}
		out.Tables[i] = ct
	}
	return out, nil
}

// NewConnectionChat starts an empty conversation about a saved
// connection: its questions run on that database (see Ask).
func (a *App) NewConnectionChat(name string) (*ChatSummary, error) {
	c, err := a.s.NewConnectionChat(a.life, name)
	if err != nil {
		return nil, err
	}
	s := summaryOf(*c)
	return &s, nil
}
