// Package remote is Loupe's view of a database that lives elsewhere: a
// PostgreSQL or MySQL/MariaDB server, or a SQLite file, queried where it
// lives instead of copied. Each engine is one package (data/remote/pg,
// data/remote/mysql, data/remote/sqlite) implementing Source and passing the
// contract suite in data/remote/remotetest.
//
// Safety is in layers, as for the workspace: Check allows exactly one
// statement of a read-only kind; every query runs in a read-only
// transaction (or on a read-only file) with a server-side time limit; the
// rows and bytes returned are capped; cancelling the context stops the
// query on the server, not just the client. The user is advised to connect
// with a read-only role as well (ReadOnlyRoleSQL).
package remote

import (
	"context"
	"errors"
	"time"

	"github.com/loupeapp/loupe/data/query"
)

// Kind names a database engine.
type Kind string

// The engines Loupe connects to.
const (
	Postgres Kind = "postgres"
	MySQL    Kind = "mysql"
	SQLite   Kind = "sqlite"
)

// Kinds lists every engine, in the order they are offered.
var Kinds = []Kind{Postgres, MySQL, SQLite}

// Source is one connected database. Implementations are safe for
// concurrent use. Every method honours ctx: cancelling it stops the work on
// the server.
type Source interface {
	// Dialect says which SQL the source speaks, for the agent's prompt.
	Dialect() Dialect
	// Ping checks that the source answers, with an error that says what
	// to do (*ConnError) when it does not.
	Ping(ctx context.Context) error
	// Discover reads the schema: tables, views, columns, keys, comments
	// and row estimates, in a few bulk catalog queries.
	Discover(ctx context.Context) (*Schema, error)
	// Query checks and runs one read-only statement and returns a capped
	// result shaped like a workspace query's (see Collect).
	Query(ctx context.Context, text string, lim query.Limits) (*query.Result, error)
	// Stream checks and runs one read-only statement and hands its rows
	// to v as they arrive, normalized to JSON-ready values. The statement
	// is stopped on the server after timeout, or when v returns ErrStop.
	// Errors: *guard.RefusedError, guard.ErrEmpty, *query.TimeoutError,
	// ctx.Err() when the caller cancelled, *ConnError when the connection
	// failed, or the server's own error for a mistake in the SQL.
	Stream(ctx context.Context, text string, timeout time.Duration, v Visitor) error
	// Close releases the connections.
	Close() error
}

// Visitor receives a streamed result: Columns once, then Row per row. The
// row slice is reused between calls; copy it to keep it. Returning ErrStop
// from Row ends the statement early without an error.
type Visitor struct {
	Columns func(cols []query.Column) error
	Row     func(row []any) error
}

// ErrStop, returned by a Visitor, stops a stream early.
var ErrStop = errors.New("stop reading rows")

// Dialect describes a source's SQL for the agent's prompt.
type Dialect struct {
	Kind    Kind   `json:"kind"`
	Name    string `json:"name"`    // PostgreSQL, MySQL, MariaDB, SQLite
	Version string `json:"version"` // as the server reports it
	// Tips is a few lines of advice for writing this dialect's SQL.
	Tips string `json:"tips"`
}

// Defaults fills the zero fields of lim with query.Defaults.
func Defaults(lim query.Limits) query.Limits {
	if lim.Timeout <= 0 {
		lim.Timeout = query.Defaults.Timeout
	}
	if lim.MaxRows <= 0 {
		lim.MaxRows = query.Defaults.MaxRows
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = query.Defaults.MaxBytes
	}
	return lim
}
