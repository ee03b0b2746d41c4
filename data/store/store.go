// Package store is Loupe's local store of conversations: their messages
// with a status (generating, complete, failed, interrupted, needs_input),
// each assistant message's metadata (tool calls with arguments and results
// capped at MaxToolText characters, tokens, datasets used, durations,
// error), the charts it drew with a snapshot of their data, and reports
// with their export history.
//
// It is one SQLite file (modernc.org/sqlite, pure Go) in WAL mode. SQLite
// rather than DuckDB because this is transactional data written in many
// small commits while an answer streams — DuckDB is built for analytical
// scans — and because SQLite lets two processes (the window and `loupe
// ask`) use the same file at once, which DuckDB does not.
//
// Every write is one transaction, so a crash leaves each message either as
// it was or as it became, never half written. A run's writes are committed
// as they happen (partial text, each finished tool call), so a process
// killed mid-answer loses nothing it had said: the next Open marks the
// message interrupted, keeping its partial content and finished tool
// calls, and Retry answers its question again. A message is started by an
// atomic Claim: a second start of the same message is refused with
// ErrClaimed, and a conversation runs one answer at a time (ErrBusy).
//
// The schema is versioned (PRAGMA user_version) and migrated forward on
// Open, one transaction per version.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/loupeapp/loupe/data/perm"
)

// FileName is the store's file in the folder it is opened in.
const FileName = "chats.db"

// MaxToolText caps a stored tool call's arguments and result, in
// characters; the cut says how much was left out.
const MaxToolText = 2000

// Errors callers tell apart with errors.Is.
var (
	ErrNotFound     = errors.New("store: not found")
	ErrBusy         = errors.New("store: the conversation is still answering its previous question; wait for it or stop it first")
	ErrClaimed      = errors.New("store: the message is already being answered (or is finished); it cannot be started twice")
	ErrNotRetryable = errors.New("store: only an interrupted or failed answer can be retried")
	ErrNewerSchema  = errors.New("store: the file was written by a newer Loupe; update Loupe to open it")
)

// Store is an open store. It is safe for concurrent use, and several
// processes may open the same file.
type Store struct {
	db   *sql.DB
	path string
	log  *slog.Logger
	now  func() time.Time
	last atomic.Int64 // the last stamp handed out
	// maxOutbox overrides MaxOutboxBytes when positive (tests).
	maxOutbox int
}

// Open opens (creating if needed) the store in the file at path, migrates
// its schema to the latest version and marks messages left generating by a
// process that is gone as interrupted (Recover).
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), perm.Dir); err != nil {
		return nil, fmt.Errorf("store: create the folder for %s: %w", path, err)
	}
	// Created private before SQLite opens it: SQLite gives the -wal and
	// -shm files the database file's mode.
	if err := perm.Create(path); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := perm.Private(path+"-wal", path+"-shm"); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	s := &Store{db: db, path: path, log: slog.Default().With("subsystem", "store"), now: time.Now}
	if err := enableWAL(ctx, db, path); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if _, err := s.Recover(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// OpenDir opens the store kept in dir (dir/FileName).
func OpenDir(ctx context.Context, dir string) (*Store, error) {
	return Open(ctx, filepath.Join(dir, FileName))
}

// dsn is the driver's connection string: NORMAL sync (with WAL, which
// Open sets once for the file, a commit survives the process being killed;
// only a power cut can lose the last ones), foreign keys on, a generous
// busy timeout for the other process's writes, and write transactions that
// take the write lock when they begin, so two writers queue instead of
// failing.
func dsn(path string) string {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "synchronous(NORMAL)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// tx runs fn in one write transaction.
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// stamp is a time as stored: Unix milliseconds. Stamps from one Store
// strictly increase, so that two changes in the same millisecond still
// order by when they happened (the conversation list sorts by them).
func (s *Store) stamp() int64 {
	now := s.now().UnixMilli()
	for {
		last := s.last.Load()
		next := max(now, last+1)
		if s.last.CompareAndSwap(last, next) {
			return next
		}
	}
}

func fromStamp(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// NewID returns prefix_<16 random hex digits>: the IDs of the records the
// store keeps (chat, msg, report) and of the runs it records (run).
func NewID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return prefix + "_" + hex.EncodeToString(b[:])
}

// Cap cuts s to at most n characters (runes), ending with a note of how
// many were left out.
func Cap(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	keep := n
	note := ""
	for range 3 { // the note's length depends on the count it states
		note = fmt.Sprintf("… [%d more characters]", len(r)-keep)
		keep = max(n-utf8.RuneCountInString(note), 0)
	}
	return string(r[:keep]) + fmt.Sprintf("… [%d more characters]", len(r)-keep)
}

// NameFrom makes a conversation's name from its first question: the first
// line, cut at a word boundary near 60 characters.
func NameFrom(question string) string {
	q := strings.Join(strings.Fields(strings.SplitN(strings.TrimSpace(question), "\n", 2)[0]), " ")
	const max = 60
	if utf8.RuneCountInString(q) <= max {
		return q
	}
	cut := string([]rune(q)[:max])
	if i := strings.LastIndex(cut, " "); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}
