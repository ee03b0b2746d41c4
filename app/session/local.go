package session

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/perm"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python"
)

// Local is the workspace folder of a long-lived process (the window, `loupe
// serve`), opened once, lazily: the first caller (usually a warm-up in the
// background) starts the open, later callers wait for it, and a failed
// open is retried by the next caller. With the workspace it holds the
// schema index and query memory (retrieve.Retrieval) and run_python, when
// Docker and the sandbox image are there. It is safe for concurrent use.
type Local struct {
	life context.Context
	dir  string
	// config is the config folder, made private with the workspace.
	config func() (string, error)
	// Embedding is the model server whose embedding model embeds the
	// tables (off when it names none); false when it cannot be read (the
	// next question says why).
	Embedding func() (provider.Config, bool)
	// OnChange hears the datasets' summaries after every change to them
	// (Changed); no record is decoded for it.
	OnChange func(ctx context.Context, ss []catalog.Summary)
	Log      *slog.Logger

	// use is held (read) by every caller using the workspace, and
	// (write) by Close, so the workspace never closes under a query.
	use sync.RWMutex

	mu      sync.Mutex
	ws      *workspace.Workspace
	ret     *retrieve.Retrieval
	python  []tools.Tool
	closePy func()
	opening chan struct{} // closed when the open in progress ends
	err     error
	closed  bool
}

// NewLocal returns the workspace in dir (workspace.DefaultDir when empty),
// opened within life; config is the config folder, made the user's alone
// when the workspace opens.
func NewLocal(life context.Context, dir string, config func() (string, error), log *slog.Logger) *Local {
	return &Local{life: life, dir: dir, config: config, Log: log}
}

// Dir is the workspace folder, which also holds the conversation store.
func (l *Local) Dir() (string, error) {
	if l.dir != "" {
		return l.dir, nil
	}
	return workspace.DefaultDir()
}

// Use runs fn with the open workspace (opening it if needed) and the
// lifetime context; the workspace stays open until fn returns.
func (l *Local) Use(fn func(ctx context.Context, ws *workspace.Workspace) error) error {
	l.use.RLock()
	defer l.use.RUnlock()
	ws, err := l.Open(l.life)
	if err != nil {
		return err
	}
	return fn(l.life, ws)
}

// Open returns the open workspace, opening it if needed. It waits for an
// open in progress until ctx ends. Callers other than a warm-up go through
// Use, which keeps it open meanwhile.
func (l *Local) Open(ctx context.Context) (*workspace.Workspace, error) {
	l.mu.Lock()
	if l.ws != nil {
		defer l.mu.Unlock()
		return l.ws, nil
	}
	if l.closed {
		l.mu.Unlock()
		return nil, NewError(CodeCanceled, "Loupe is shutting down.", "")
	}
	wait := l.opening
	if wait == nil {
		wait = make(chan struct{})
		l.opening = wait
		go func() {
			l.open(wait)
			l.Embed()
		}()
	}
	l.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ws != nil {
		return l.ws, nil
	}
	return nil, l.err
}

func (l *Local) open(done chan struct{}) {
	dir, err := l.Dir()
	var ws *workspace.Workspace
	if err == nil {
		ws, err = workspace.Open(l.life, dir)
	}
	if err == nil {
		if err = l.tightenConfig(); err != nil {
			_ = ws.Close()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	defer close(done)
	l.opening = nil
	if err != nil {
		l.err = &Error{Code: CodeFile, Message: fmt.Sprintf("Cannot open the workspace in %s: %v", dir, err),
			Hint: "Check that the folder is writable and that no other Loupe window or command is using it.", Err: err}
		return
	}
	if l.closed { // Close came first
		_ = ws.Close()
		l.err = NewError(CodeCanceled, "Loupe is shutting down.", "")
		return
	}
	ret, err := retrieve.OpenRetrieval(ws)
	if err != nil {
		_ = ws.Close()
		l.err = &Error{Code: CodeFile, Message: fmt.Sprintf("Cannot open the workspace's schema index in %s: %v", dir, err),
			Hint: "Check that the folder is writable; deleting its schema-index folder makes Loupe rebuild it.", Err: err}
		return
	}
	l.ws, l.ret, l.err = ws, ret, nil
	l.python, l.closePy = PythonTool(l.life, ws)
}

// Target is a question about the open workspace ws (held by the caller
// through Use), with the embedding model of the semantic boost cfg.
func (l *Local) Target(ws *workspace.Workspace, cfg *provider.Config) *Workspace {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &Workspace{WS: ws, Retrieval: l.ret, Extra: l.python, Embedding: cfg}
}

// Retrieval is the open workspace's schema index and query memory, nil
// before it opened.
func (l *Local) Retrieval() *retrieve.Retrieval {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ret
}

// Embed starts embedding, in the background, the tables that have no
// embedding of the embedding model yet (nothing without one, or before
// the workspace is open): after the workspace opens and after every change
// to its datasets, so that questions find them embedded. The retrieval
// runs one job at a time, Close cancels it, and a failure is said in the
// next question's notes.
func (l *Local) Embed() {
	ret := l.Retrieval()
	if ret == nil || l.Embedding == nil {
		return
	}
	if cfg, ok := l.Embedding(); ok {
		ret.EmbedInBackground(cfg)
	}
}

// Changed is said after every change to the datasets of ws (loads,
// refreshes, imports, renames, notes): it starts embedding what changed
// and hands the datasets' summaries to OnChange.
func (l *Local) Changed(ctx context.Context, ws *workspace.Workspace) {
	l.Embed()
	if l.OnChange == nil {
		return
	}
	ss, err := ws.Summaries(ctx)
	if err != nil {
		l.Log.Warn("list datasets after a change", "err", err)
		return
	}
	l.OnChange(ctx, ss)
}

// EnablePython offers run_python in the open workspace when it was not
// offered yet (the sandbox image was missing when the workspace opened,
// and has been built since).
func (l *Local) EnablePython() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ws == nil || l.closed || l.python != nil {
		return
	}
	l.python, l.closePy = PythonTool(l.life, l.ws)
}

// PythonTool returns run_python over ws when Docker and the sandbox image
// are there (the status bar and `loupe doctor` say why not), and a func
// that removes its container.
func PythonTool(ctx context.Context, ws *workspace.Workspace) ([]tools.Tool, func()) {
	py, st, err := python.Open(ctx, ws.Engine, ws, python.Config{})
	if err != nil || !st.OK {
		slog.Debug("run_python not offered", "subsystem", "session", "reason", st.Reason, "err", err)
		return nil, func() {}
	}
	return []tools.Tool{py}, func() { _ = py.Close(context.WithoutCancel(ctx)) }
}

// Close closes the workspace if it is open, waiting for its users; later
// opens fail with CodeCanceled.
func (l *Local) Close() {
	l.use.Lock()
	defer l.use.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.closePy != nil {
		l.closePy()
		l.closePy, l.python = nil, nil
	}
	if l.ret != nil {
		_ = l.ret.Close()
		l.ret = nil
	}
	if l.ws != nil {
		_ = l.ws.Close()
		l.ws = nil
	}
}

// tightenConfig makes the config folder (settings, recent files,
// connections, the secrets file) the user's alone, as the workspace is;
// old ones are tightened at the workspace's open. A config folder that
// cannot be found is left to the settings to report.
func (l *Local) tightenConfig() error {
	if l.config == nil {
		return nil
	}
	dir, err := l.config()
	if err != nil {
		return nil
	}
	r, err := perm.Tighten(dir)
	if err != nil {
		return fmt.Errorf("config folder: %w", err)
	}
	if r.Changed > 0 || r.Failed > 0 {
		l.Log.Info("made the config folder private", "dir", dir, "report", r.String())
	}
	return nil
}
