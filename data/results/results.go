// Package results holds query results by reference so the UI can page
// through them and never receives one whole. The store is in memory and
// bounded: the least recently used results are evicted once the total size
// or count passes its caps. The API names results only by Ref, so the
// storage behind it may change (e.g. to DuckDB tables) without callers
// noticing.
package results

import (
	"container/list"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/loupeapp/loupe/data/query"
)

// Ref names a stored result: "r_" and a short random suffix.
type Ref string

// ErrNotFound is matched (errors.Is) by every *NotFoundError.
var ErrNotFound = errors.New("result not found")

// NotFoundError means a ref was never stored or has been evicted.
type NotFoundError struct{ Ref Ref }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("result %s is no longer held (evicted to free memory, or never stored): run its query again", e.Ref)
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// ErrRange means a page was asked for with a negative offset or limit.
var ErrRange = errors.New("page offset and limit must not be negative")

// Config bounds a store. Zero fields take the defaults.
type Config struct {
	MaxBytes   int64 // estimated bytes of all held results; default 256 MiB
	MaxEntries int   // results held; default 1,000
	MaxPage    int   // rows one Page returns at most; default 1,000
}

// Defaults are the bounds used where a Config field is zero.
var Defaults = Config{MaxBytes: 256 << 20, MaxEntries: 1000, MaxPage: 1000}

// DefaultPage is the page size used when Page is asked for limit 0.
const DefaultPage = 100

// Entry is a held result. Entries are immutable once stored: callers must
// not modify Columns or Rows.
type Entry struct {
	Ref       Ref
	SQL       string
	Columns   []query.Column
	Rows      [][]any // the rows held (Kept), JSON-ready
	Total     int64   // rows the query produced (≥ len(Rows))
	Truncated bool    // len(Rows) < Total
	Stored    time.Time
	Bytes     int64 // estimated memory held
	// Local says SQL runs again on the workspace's DuckDB (the console's
	// and the previews' results), so a view of a truncated result can be
	// made from all the rows the query produces, not only those held.
	Local bool
}

// Kept is the number of rows held.
func (e *Entry) Kept() int { return len(e.Rows) }

// Page is a window of a held result.
type Page struct {
	Ref       Ref            `json:"ref"`
	SQL       string         `json:"sql"`
	Columns   []query.Column `json:"columns"`
	Offset    int            `json:"offset"`
	Rows      [][]any        `json:"rows"`
	Kept      int            `json:"kept"`      // rows held; pages end here
	Total     int64          `json:"total"`     // rows the query produced
	Truncated bool           `json:"truncated"` // Kept < Total
}

// Store holds results. It is safe for concurrent use.
type Store struct {
	cfg   Config
	log   *slog.Logger
	mu    sync.Mutex
	lru   *list.List // of *Entry, most recently used first
	byRef map[Ref]*list.Element
	bytes int64
}

// New returns an empty store bounded by cfg.
func New(cfg Config) *Store {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = Defaults.MaxBytes
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = Defaults.MaxEntries
	}
	if cfg.MaxPage <= 0 {
		cfg.MaxPage = Defaults.MaxPage
	}
	return &Store{
		cfg:   cfg,
		log:   slog.Default().With("subsystem", "results"),
		lru:   list.New(),
		byRef: map[Ref]*list.Element{},
	}
}

// Put stores res (which the store now owns: the caller must not modify
// it) with the SQL that produced it and returns its ref. It evicts the
// least recently used results until the caps hold again; the result just
// stored is never evicted by its own Put, so one result larger than
// MaxBytes is held alone.
func (s *Store) Put(res *query.Result, sql string) Ref {
	return s.put(res, sql, false)
}

// PutLocal is Put for a result of sql run on the workspace's DuckDB
// (Entry.Local).
func (s *Store) PutLocal(res *query.Result, sql string) Ref {
	return s.put(res, sql, true)
}

func (s *Store) put(res *query.Result, sql string, local bool) Ref {
	e := &Entry{SQL: sql, Columns: res.Columns, Rows: res.Rows, Total: res.RowCount, Stored: time.Now(), Local: local}
	if e.Total < int64(len(e.Rows)) {
		e.Total = int64(len(e.Rows))
	}
	e.Truncated = res.Truncated || e.Total > int64(len(e.Rows))
	e.Bytes = estimate(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Ref = s.newRef()
	s.byRef[e.Ref] = s.lru.PushFront(e)
	s.bytes += e.Bytes
	s.evict()
	return e.Ref
}

// Get returns the entry for ref and marks it recently used, or a
// *NotFoundError.
func (s *Store) Get(ref Ref) (*Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byRef[ref]
	if !ok {
		return nil, &NotFoundError{Ref: ref}
	}
	s.lru.MoveToFront(el)
	return el.Value.(*Entry), nil
}

// Page returns up to limit rows of ref starting at offset (limit 0 means
// DefaultPage; it is capped at Config.MaxPage). An offset at or past the
// held rows gives an empty page. Errors: *NotFoundError, ErrRange.
func (s *Store) Page(ref Ref, offset, limit int) (Page, error) {
	if offset < 0 || limit < 0 {
		return Page{}, fmt.Errorf("page %s at %d+%d: %w", ref, offset, limit, ErrRange)
	}
	if limit == 0 {
		limit = DefaultPage
	}
	limit = min(limit, s.cfg.MaxPage)
	e, err := s.Get(ref)
	if err != nil {
		return Page{}, err
	}
	p := Page{Ref: ref, SQL: e.SQL, Columns: e.Columns, Offset: offset, Kept: len(e.Rows), Total: e.Total, Truncated: e.Truncated}
	start := min(offset, len(e.Rows))
	end := min(start+limit, len(e.Rows))
	p.Rows = append(make([][]any, 0, end-start), e.Rows[start:end]...)
	return p, nil
}

// Delete forgets ref; unknown refs are ignored.
func (s *Store) Delete(ref Ref) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byRef[ref]; ok {
		s.remove(el)
	}
}

// Stats reports how many results and estimated bytes are held.
func (s *Store) Stats() (entries int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len(), s.bytes
}

// evict drops least recently used entries, never the newest, until the
// caps hold. Callers hold s.mu.
func (s *Store) evict() {
	for s.lru.Len() > 1 && (s.bytes > s.cfg.MaxBytes || s.lru.Len() > s.cfg.MaxEntries) {
		el := s.lru.Back()
		e := el.Value.(*Entry)
		s.remove(el)
		s.log.Debug("evicted", "ref", e.Ref, "bytes", e.Bytes, "held", s.bytes)
	}
}

func (s *Store) remove(el *list.Element) {
	e := el.Value.(*Entry)
	s.lru.Remove(el)
	delete(s.byRef, e.Ref)
	s.bytes -= e.Bytes
}

// newRef returns a ref not in use. Callers hold s.mu.
func (s *Store) newRef() Ref {
	for {
		r := Ref("r_" + rand.Text()[:10])
		if _, dup := s.byRef[r]; !dup {
			return r
		}
	}
}
