package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// walWait bounds how long Open waits for another process that is
// switching the same file to WAL mode; it matches the busy timeout.
const walWait = 10 * time.Second

// enableWAL puts the file in WAL mode, which then stays with the file for
// every later connection. SQLite answers a journal-mode change that races
// another connection's with SQLITE_BUSY at once, without waiting through
// the busy timeout, so two processes creating the same store together
// would fail; enableWAL retries until walWait is spent or ctx is done.
//
// A file system without the shared memory WAL needs (some network shares)
// leaves the file in its old mode; that is an error saying so.
func enableWAL(ctx context.Context, db *sql.DB, path string) error {
	deadline := time.Now().Add(walWait)
	pause := 2 * time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		switch {
		case err == nil && strings.EqualFold(mode, "wal"):
			return nil
		case err == nil:
			return fmt.Errorf("store: %s cannot use WAL mode (its journal mode stays %q); keep the workspace on a local disk", path, mode)
		case !isBusy(err) || time.Now().After(deadline):
			return fmt.Errorf("store: switch %s to WAL mode: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("store: switch %s to WAL mode: %w", path, ctx.Err())
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (another connection
// holds the lock).
func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}
