// Package duck owns the workspace's DuckDB database: opening it locked down,
// staging user files where the locked database may read them, and handing
// out connections.
//
// The database is locked at open: external access is off (no files, URLs,
// extensions or secrets) except for the workspace's import folder, and the
// configuration cannot be changed afterwards. Every connection, the agent's
// and the loader's alike, shares that lock; what differs between them is the
// statement guard and the read-only transaction that data/query adds.
package duck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/perm"
)

// FileName is the name of the DuckDB file inside a workspace folder.
const FileName = "workspace.duckdb"

// BlockSize is the storage block size of a workspace database created
// from now on; one created before keeps its own (DuckDB fixes it when it
// creates the file, 256 KiB by default). DuckDB's checkpoint holds a
// block-sized buffer for every column of a row group it writes, so with
// 256 KiB blocks a 4-row CSV of 10,000 columns took 1.9 GB to write out
// (1.5 GB of it in the checkpoint) and one of 30,000 columns 2.3 GB;
// with 64 KiB blocks the checkpoint adds 0.14-0.3 GB to the ~0.4 GB
// (10,000 columns) and ~1 GB (30,000) that DuckDB's CSV reader and the
// new table's row group need (scripts/widemeasure). The price, measured
// on a 10-million-row, six-column table: a file 25% larger (138 MB
// against 110 MB), in one run no slower to load or scan. 16 KiB blocks
// gained little more on wide files and tripled that file.
const BlockSize = 64 << 10

// importDirName is the folder (inside the workspace) the locked database
// may read: staged copies or hard links of the user's loaded files.
const importDirName = "import"

// Engine is an open workspace database. It is safe for concurrent use.
// The caller closes it with Close.
type Engine struct {
	dir       string
	importDir string
	connector *duckdb.Connector
	db        *sql.DB
	log       *slog.Logger

	// writer is the one connection that loads data. It is set up before
	// the lock (DuckDB's progress tracking is a per-connection setting
	// that the lock freezes) and used by one load at a time.
	writerMu sync.Mutex
	writer   *sql.Conn

	limits Limits
}

// ErrLocked means another Loupe process holds the workspace open.
var ErrLocked = errors.New("workspace is in use by another Loupe process")

// Open opens (creating if needed) the workspace in dir and locks it down.
func Open(ctx context.Context, dir string) (*Engine, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	imp := filepath.Join(abs, importDirName)
	if err := os.MkdirAll(imp, perm.Dir); err != nil {
		return nil, fmt.Errorf("create workspace %s: %w (choose a folder you can write to with --workspace)", abs, err)
	}
	connector, err := duckdb.NewConnector(filepath.Join(abs, FileName)+"?default_block_size="+strconv.Itoa(BlockSize), nil)
	if err != nil {
		if strings.Contains(err.Error(), "Could not set lock") || strings.Contains(err.Error(), "Conflicting lock") {
			return nil, fmt.Errorf("open workspace %s: %w: close the other Loupe window or command, or use another --workspace", abs, ErrLocked)
		}
		return nil, fmt.Errorf("open workspace %s: %w", abs, err)
	}
	db := sql.OpenDB(connector)
	e := &Engine{dir: abs, importDir: imp, connector: connector, db: db, log: slog.Default().With("subsystem", "duck")}
	if err := e.keepPrivate(); err != nil {
		_ = e.Close()
		return nil, err
	}
	if err := e.lockDown(ctx); err != nil {
		_ = e.Close()
		return nil, err
	}
	return e, nil
}

// lockDown applies the instance-wide settings that close DuckDB's doors.
// They are global and the last one freezes them for the life of the instance.
func (e *Engine) lockDown(ctx context.Context) error {
	w, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect workspace: %w", err)
	}
	e.writer = w
	for _, s := range []string{"SET enable_progress_bar = true", "SET enable_progress_bar_print = false"} {
		if _, err := w.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("set up loading connection (%s): %w", s, err)
		}
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect workspace: %w", err)
	}
	defer conn.Close()
	lim, err := limits(e.dir)
	if err != nil {
		return err
	}
	e.limits = lim
	settings := append(lim.settings(),
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
		"SET allowed_directories = ["+quoteString(e.importDir+string(filepath.Separator))+"]",
		"SET enable_external_access = false",
		"SET lock_configuration = true",
	)
	for _, s := range settings {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("lock workspace (%s): %w", s, err)
		}
	}
	return nil
}

// Limits are the resource bounds the database was opened with.
func (e *Engine) Limits() Limits { return e.limits }

// IsOutOfMemory reports whether err is DuckDB failing a statement at its
// memory limit.
func IsOutOfMemory(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "failed to allocate") || strings.Contains(msg, "Out of Memory Error")
}

// Dir is the absolute workspace folder.
func (e *Engine) Dir() string { return e.dir }

// ImportDir is the only folder the locked database may read files from.
func (e *Engine) ImportDir() string { return e.importDir }

// DB is the pool of connections to the locked database. Statements from
// the model or the user must go through data/query, never straight here.
func (e *Engine) DB() *sql.DB { return e.db }

// Raw runs fn with a dedicated driver connection, returned to the pool after.
func (e *Engine) Raw(ctx context.Context, fn func(c *duckdb.Conn) error) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect workspace: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		return fn(c)
	})
}

// Write runs fn on the workspace's loading connection, one caller at a
// time. Loads and other internal writes go through it; it is never handed
// to statements from the model or the user.
func (e *Engine) Write(ctx context.Context, fn func(c *duckdb.Conn) error) error {
	e.writerMu.Lock()
	defer e.writerMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	err := e.writer.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		return fn(c)
	})
	if perr := e.keepPrivate(); perr != nil {
		// What fn wrote is committed; failing it now would say otherwise.
		e.log.Warn("the workspace's files could not be made private", "err", perr)
	}
	return err
}

// keepPrivate makes the files DuckDB creates itself with the process's
// umask private (package perm): the database, its write-ahead log (made
// at the first write, gone at a checkpoint) and its spill folder. They
// sit in the 0700 workspace folder meanwhile.
func (e *Engine) keepPrivate() error {
	db := filepath.Join(e.dir, FileName)
	return perm.Private(db, db+".wal", db+".tmp")
}

// Close closes every connection and the database.
func (e *Engine) Close() error {
	if e.writer != nil {
		_ = e.writer.Close()
	}
	err := e.db.Close()
	if cerr := e.connector.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// Exec runs an internal statement with no result on the driver connection.
func Exec(ctx context.Context, c driver.ExecerContext, query string) error {
	_, err := c.ExecContext(ctx, query, nil)
	return err
}

// ExecOne runs query, which must be exactly one statement, on c: it is
// prepared first with the driver's Prepare, which refuses a text of
// several statements before running any (PrepareContext would run all
// but the last). A statement built around text that came from a file (a
// CSV's column names in a view's definition) goes through it, so that
// even a fault in its quoting cannot run a second statement.
func ExecOne(ctx context.Context, c driver.Conn, query string) error {
	st, err := c.Prepare(query)
	if err != nil {
		return err
	}
	defer st.Close()
	x, ok := st.(driver.StmtExecContext)
	if !ok {
		return fmt.Errorf("prepared statement %T cannot run with a context", st)
	}
	_, err = x.ExecContext(ctx, nil)
	return err
}

// QuoteIdent quotes name as a DuckDB identifier. It is the one way Loupe
// puts a table or column name into SQL it builds: any name, whatever it
// holds (quotes, control characters, ten thousand characters), makes one
// identifier and cannot end the statement early. A NUL cannot travel in a
// statement (the text crosses DuckDB's C API as a C string, which a NUL
// would cut) and becomes U+FFFD; loaders rename such columns when they
// read them (see CleanName), so no table Loupe makes has one.
func QuoteIdent(name string) string {
	if strings.IndexByte(name, 0) >= 0 {
		name = strings.ReplaceAll(name, "\x00", "\uFFFD")
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// CleanName returns name without NUL and other control characters (a run
// of them between two other characters becomes one space, unless one of
// those is a space) and whether it changed. Column names read from files go through it, so that no name
// breaks a statement or a terminal.
func CleanName(name string) (string, bool) {
	if !strings.ContainsFunc(name, isControl) {
		return name, false
	}
	var b strings.Builder
	gap, last := false, rune(0)
	for _, r := range name {
		if isControl(r) {
			gap = true
			continue
		}
		if gap && last != 0 && last != ' ' && r != ' ' {
			b.WriteByte(' ')
		}
		gap, last = false, r
		b.WriteRune(r)
	}
	return b.String(), true
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// quoteString quotes a string literal for DuckDB SQL.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// QuoteString quotes a string literal for DuckDB SQL.
func QuoteString(s string) string { return quoteString(s) }
