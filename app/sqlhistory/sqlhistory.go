// Package sqlhistory keeps a workspace's SQL console history: every query
// run from the console, with when it started, how long it ran, and how
// many rows it produced or the error it ended with. It is one small JSON
// file in the workspace folder holding the newest Max entries, rewritten
// whole and atomically (a temporary file renamed over it) on every Add,
// so a crash leaves the history as it was or as it became.
//
// The file is read again before each change, so two processes sharing a
// workspace lose none of each other's entries unless they write in the
// same instant (then the later write wins). A file that cannot be read is
// never overwritten: Add and List fail with ErrUnreadable until it is
// moved away.
package sqlhistory

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// FileName is the history's file in the workspace folder.
const FileName = "console-history.json"

// Max is how many entries the history keeps; older ones are dropped.
const Max = 500

// MaxSQL caps a kept query's text, in bytes; a longer query is kept cut,
// ending with "…".
const MaxSQL = 16 << 10

// ErrUnreadable is the error of a history file that is not a history.
var ErrUnreadable = errors.New("sqlhistory: the history file cannot be read")

// Outcome is how a query ended.
type Outcome string

const (
	Done     Outcome = "done"
	Failed   Outcome = "failed"
	Canceled Outcome = "canceled"
)

// Entry is one query run from the console.
type Entry struct {
	ID  string    `json:"id"`
	SQL string    `json:"sql"`
	At  time.Time `json:"at"`
	// DurationMS is how long it ran, from start to result or error.
	DurationMS float64 `json:"durationMs"`
	Outcome    Outcome `json:"outcome"`
	// Rows is how many rows it produced (Outcome Done).
	Rows int64 `json:"rows"`
	// Error is what went wrong (Failed), or why it stopped (Canceled).
	Error string `json:"error,omitempty"`
}

// History is the history in one file. It is safe for concurrent use.
type History struct {
	path string
	max  int
	mu   sync.Mutex
}

// New returns the history kept in the file at path (created on the first
// Add), keeping the newest max entries (Max when max <= 0).
func New(path string, max int) *History {
	if max <= 0 {
		max = Max
	}
	return &History{path: path, max: max}
}

// Path is the history's file.
func (h *History) Path() string { return h.path }

// Add appends e (its ID set when empty, its SQL trimmed and capped at
// MaxSQL) and drops the oldest entries beyond the limit. It returns the
// entry as kept.
func (h *History) Add(e Entry) (Entry, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	all, err := h.read()
	if err != nil {
		return Entry{}, err
	}
	e.SQL = capText(strings.TrimSpace(e.SQL), MaxSQL)
	if e.ID == "" {
		e.ID = newID()
	}
	all = append(all, e)
	if len(all) > h.max {
		all = all[len(all)-h.max:]
	}
	if err := h.write(all); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// List returns up to limit entries (all when limit <= 0), newest first,
// those whose query or error contains search (ignoring case; every entry
// when search is blank).
func (h *History) List(search string, limit int) ([]Entry, error) {
	h.mu.Lock()
	all, err := h.read()
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(search))
	out := []Entry{}
	for i := len(all) - 1; i >= 0; i-- {
		e := all[i]
		if q != "" && !strings.Contains(strings.ToLower(e.SQL), q) && !strings.Contains(strings.ToLower(e.Error), q) {
			continue
		}
		out = append(out, e)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// Clear forgets every entry.
func (h *History) Clear() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := h.read(); err != nil {
		return err
	}
	return h.write([]Entry{})
}

// file is the history file's content.
type file struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// read returns the entries in the file, oldest first; none when there is
// no file yet.
func (h *History) read() ([]Entry, error) {
	b, err := os.ReadFile(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the query history %s: %w", h.path, err)
	}
	var f file
	if err := json.Unmarshal(b, &f); err != nil || f.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, this Loupe reads version 1", f.Version)
		}
		return nil, fmt.Errorf("%w: %s: %v; move the file away and Loupe starts a new history", ErrUnreadable, h.path, err)
	}
	return f.Entries, nil
}

// write replaces the file with entries, atomically; the folder and the
// file are the user's alone, like the workspace.
func (h *History) write(entries []Entry) (err error) {
	b, err := json.Marshal(file{Version: 1, Entries: entries})
	if err != nil {
		return fmt.Errorf("encode the query history: %w", err)
	}
	dir := filepath.Dir(h.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write the query history: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(h.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write the query history: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			err = fmt.Errorf("write the query history %s: %w", h.path, err)
		}
	}()
	if _, err = f.Write(b); err != nil {
		return err
	}
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), h.path)
}

// capText cuts s to at most n bytes at a rune boundary, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// newID is a random entry id.
func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "q_" + hex.EncodeToString(b)
}
