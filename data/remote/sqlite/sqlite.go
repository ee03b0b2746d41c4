// Package sqlite connects Loupe to a SQLite file in place, through
// modernc.org/sqlite: opened read-only (immutable when no write-ahead log
// is pending, so not even a lock file is written), with query_only set,
// and every query interrupted when its context ends.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

func init() {
	remote.Register(remote.SQLite, func(ctx context.Context, p remote.Profile, _ string) (remote.Source, error) {
		return Open(ctx, p)
	})
}

// Tips is the advice the agent's prompt gives for SQLite SQL.
const Tips = `SQLite: quote identifiers with double quotes, strings with single quotes; types are loose (a column may hold text and numbers). ` +
	`Dates are text: use strftime('%Y-%m', d), date(d) and julianday(b) - julianday(a) for differences. ` +
	`Integer division truncates: write x * 1.0 / y. Use LIMIT n, group_concat(x, ', '), IFNULL(x, 0), and CAST(x AS REAL). ` +
	`There is no RIGHT or FULL JOIN before SQLite 3.39, and no ILIKE (LIKE already ignores ASCII case).`

// SQLite primary result codes.
const (
	codeReadonly  = 8
	codeInterrupt = 9
	codeCantOpen  = 14
	codeNotADB    = 26
)

// Source is an open SQLite file. It is safe for concurrent use.
type Source struct {
	db      *sql.DB
	profile remote.Profile
	dialect remote.Dialect
	log     *slog.Logger
}

var _ remote.Source = (*Source)(nil)

// Open opens the file p names read-only and checks that it is a database.
// Errors are *remote.ConnError with Problem NoFile and what to do.
func Open(ctx context.Context, p remote.Profile) (*Source, error) {
	p, err := p.Normalize()
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(p.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fileError(p, "no such file", "check the path; the file may have been moved or renamed", err)
	case errors.Is(err, os.ErrPermission):
		return nil, fileError(p, "permission denied", "make the file readable by your user", err)
	case err != nil:
		return nil, fileError(p, "cannot read the file", "check the disk and the path", err)
	case info.IsDir():
		return nil, fileError(p, "this is a folder, not a database file", "give the path of the .db or .sqlite file", nil)
	}
	db, err := sql.Open("sqlite", dsn(p.Path, !pendingLog(p.Path)))
	if err != nil {
		return nil, fileError(p, "cannot open the file", "check the path", err)
	}
	db.SetMaxOpenConns(4)
	s := &Source{db: db, profile: p, log: slog.Default().With("subsystem", "remote.sqlite", "source", p.Name)}
	var version string
	// Reading the schema is the first access that checks the file.
	if err := db.QueryRowContext(ctx, "SELECT sqlite_version() FROM sqlite_master LIMIT 1").Scan(&version); err != nil && !errors.Is(err, sql.ErrNoRows) {
		db.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if code(err) == codeNotADB {
			return nil, fileError(p, "the file is not a SQLite database", "open a SQLite file (.db, .sqlite), or load other files in the workspace instead", err)
		}
		return nil, fileError(p, "cannot read the database", "check that the file is complete and readable", err)
	}
	if version == "" {
		_ = db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version)
	}
	s.dialect = remote.Dialect{Kind: remote.SQLite, Name: "SQLite", Version: version, Tips: Tips}
	return s, nil
}

func fileError(p remote.Profile, msg, hint string, err error) error {
	return &remote.ConnError{Problem: remote.NoFile, Target: p.Path, Msg: msg, Hint: hint, Err: err}
}

// dsn is a read-only SQLite URI for path. immutable tells SQLite the file
// cannot change, so it takes no locks and writes nothing beside it; it is
// only safe when no write-ahead log or journal is pending.
func dsn(path string, immutable bool) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/…
	}
	q := "?mode=ro&_pragma=query_only(1)"
	if immutable {
		q += "&immutable=1"
	}
	return (&url.URL{Scheme: "file", Path: p}).String() + q
}

// pendingLog reports whether a non-empty -wal or -journal file sits beside
// the database (another program is writing it).
func pendingLog(path string) bool {
	for _, suffix := range []string{"-wal", "-journal"} {
		if info, err := os.Stat(path + suffix); err == nil && info.Size() > 0 {
			return true
		}
	}
	return false
}

func code(err error) int {
	var e *msqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// Dialect implements remote.Source.
func (s *Source) Dialect() remote.Dialect { return s.dialect }

// Ping implements remote.Source.
func (s *Source) Ping(ctx context.Context) error {
	if _, err := os.Stat(s.profile.Path); err != nil {
		return fileError(s.profile, "the database file is gone", "check that it was not moved, renamed or deleted", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fileError(s.profile, "cannot read the database", "check that the file is complete and readable", err)
	}
	return nil
}

// Close implements remote.Source.
func (s *Source) Close() error { return s.db.Close() }

// Query implements remote.Source.
func (s *Source) Query(ctx context.Context, text string, lim query.Limits) (*query.Result, error) {
	return remote.Collect(ctx, s, text, lim)
}

// Stream implements remote.Source.
func (s *Source) Stream(ctx context.Context, text string, timeout time.Duration, v remote.Visitor) error {
	stmt, err := remote.Check(remote.SQLite, text)
	if err != nil {
		return err
	}
	return s.run(ctx, stmt, timeout, v)
}

func (s *Source) run(ctx context.Context, stmt string, timeout time.Duration, v remote.Visitor) error {
	if timeout <= 0 {
		timeout = query.Defaults.Timeout
	}
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := s.stream(qctx, stmt, v, cancel)
	switch {
	case err == nil, errors.Is(err, remote.ErrStop):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(qctx.Err(), context.DeadlineExceeded):
		return &query.TimeoutError{Limit: timeout}
	case code(err) == codeReadonly:
		return refused(err)
	}
	return err
}

func (s *Source) stream(ctx context.Context, stmt string, v remote.Visitor, stop func()) error {
	rows, err := s.db.QueryContext(ctx, stmt)
	if err != nil {
		return err
	}
	defer rows.Close()
	// interrupts SQLite (stop)
	return remote.Stream(rows, func(ct *sql.ColumnType) string { return strings.ToUpper(ct.DatabaseTypeName()) }, remote.Normalize, v, stop)
}

// unchecked runs text without Loupe's statement check, still on the
// read-only file. It exists for tests that prove SQLite itself refuses
// writes; nothing else may call it.
func (s *Source) unchecked(ctx context.Context, text string) error {
	return s.run(ctx, text, 10*time.Second, remote.Visitor{Row: func([]any) error { return nil }})
}

func (s *Source) String() string { return fmt.Sprintf("sqlite source %s", s.profile.Name) }
