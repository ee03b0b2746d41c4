package session

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/app/sqlhistory"
	"github.com/loupeapp/loupe/data/workspace"
)

// Console is the SQL console's running queries: one per tab, so that Stop
// knows what to stop and a new Start of a tab replaces the tab's last
// (RunConsole). Tabs run side by side. The zero Console runs none.
type Console struct {
	mu      sync.Mutex
	seq     uint64
	running map[string]running
}

// running is a tab's query in flight.
type running struct {
	seq    uint64
	cancel context.CancelFunc
}

// Start cancels the query running in tab (a new run supersedes it) and
// returns the context of the next one and the function to call when it
// ends.
func (q *Console) Start(parent context.Context, tab string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	q.mu.Lock()
	if r, ok := q.running[tab]; ok {
		r.cancel()
	}
	if q.running == nil {
		q.running = map[string]running{}
	}
	q.seq++
	seq := q.seq
	q.running[tab] = running{seq: seq, cancel: cancel}
	q.mu.Unlock()
	return ctx, func() {
		q.mu.Lock()
		if r, ok := q.running[tab]; ok && r.seq == seq {
			delete(q.running, tab)
		}
		q.mu.Unlock()
		cancel()
	}
}

// Stop cancels tab's running query and reports whether there was one.
func (q *Console) Stop(tab string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	r, ok := q.running[tab]
	if ok {
		r.cancel()
		delete(q.running, tab)
	}
	return ok
}

// StopAll cancels every tab's running query and reports whether there was
// one.
func (q *Console) StopAll() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, r := range q.running {
		r.cancel()
	}
	any := len(q.running) > 0
	clear(q.running)
	return any
}

// RunConsole runs sql as the query of the console's tab: bounded by
// ConsoleLimits, held in Results like RunQuery's, stopped by
// Console.Stop(tab) or by the tab's next query. Every query that ran —
// with its result, error or stop — is added to the workspace's
// QueryHistory; a history that cannot be written is logged and does not
// fail the query (its List says why).
func (s *Session) RunConsole(ctx context.Context, ws *workspace.Workspace, tab, sql string) (*Held, error) {
	ctx, done := s.Console.Start(ctx, tab)
	defer done()
	start := time.Now()
	h, err := s.RunQuery(ctx, ws, sql, ConsoleLimits)
	if strings.TrimSpace(sql) != "" {
		s.remember(sql, start, h, err)
	}
	return h, err
}

// remember adds a console query's end to the history.
func (s *Session) remember(sql string, start time.Time, h *Held, err error) {
	e := sqlhistory.Entry{SQL: sql, At: start.UTC(), DurationMS: float64(time.Since(start).Microseconds()) / 1000, Outcome: sqlhistory.Done}
	switch {
	case err != nil && AsError(err).Code == CodeCanceled:
		e.Outcome, e.Error = sqlhistory.Canceled, "Stopped."
	case err != nil:
		e.Outcome, e.Error = sqlhistory.Failed, AsError(err).Message
	default:
		e.Rows, e.DurationMS = h.Page.Total, h.ElapsedMS
	}
	hist, herr := s.QueryHistory()
	if herr == nil {
		_, herr = hist.Add(e)
	}
	if herr != nil {
		s.Log.Error("keep a console query in the history", "err", herr)
	}
}

// QueryHistory is the workspace's SQL console history (sqlhistory), in
// its folder.
func (s *Session) QueryHistory() (*sqlhistory.History, error) {
	s.histMu.Lock()
	defer s.histMu.Unlock()
	if s.hist != nil {
		return s.hist, nil
	}
	dir, err := s.Local.Dir()
	if err != nil {
		return nil, Wrap(err)
	}
	s.hist = sqlhistory.New(filepath.Join(dir, sqlhistory.FileName), sqlhistory.Max)
	return s.hist, nil
}

// HistoryError shapes the history's errors as CodeFile, with what to do:
// a file that is not a history is moved away, one that cannot be opened
// needs the folder's permissions fixed.
func HistoryError(err error) error {
	if err == nil {
		return nil
	}
	hint := "Check that the workspace folder is readable and writable. Your queries still run."
	if errors.Is(err, sqlhistory.ErrUnreadable) {
		hint = "Move the file away (or delete it); Loupe then starts a new history. Your queries still run."
	}
	return &Error{Code: CodeFile, Message: "The SQL console's history cannot be read or written: " + err.Error(), Hint: hint, Err: err}
}
