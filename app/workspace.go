package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/perm"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python"
)

// wsHolder opens the workspace once, lazily: the first caller (usually the
// background warm-up after Startup) starts the open, later callers wait for
// it. A failed open is retried by the next caller.
type wsHolder struct {
	dir    string
	config func() (string, error) // the config folder, made private with the workspace

	// use is held (read) by every caller using the workspace, and
	// (write) by close, so the workspace never closes under a query.
	use sync.RWMutex

	mu      sync.Mutex
	ws      *workspace.Workspace
	ret     *assemble.Retrieval // the workspace's schema index and query memory
	python  []tools.Tool        // run_python, when Docker and the sandbox image are there
	closePy func()
	opening chan struct{} // closed when the open in progress ends
	err     error
	closed  bool
}

// withWorkspace runs fn with the open workspace (opening it if needed) and
// the app's lifetime context; the workspace stays open until fn returns.
func (a *App) withWorkspace(fn func(ctx context.Context, ws *workspace.Workspace) error) error {
	a.ws.use.RLock()
	defer a.ws.use.RUnlock()
	ws, err := a.workspace(a.life)
	if err != nil {
		return err
	}
	return fn(a.life, ws)
}

// workspace returns the open workspace, opening it if needed. It waits for
// an open in progress until ctx ends. Callers other than the warm-up go
// through withWorkspace.
func (a *App) workspace(ctx context.Context) (*workspace.Workspace, error) {
	h := &a.ws
	h.mu.Lock()
	if h.ws != nil {
		defer h.mu.Unlock()
		return h.ws, nil
	}
	if h.closed {
		h.mu.Unlock()
		return nil, &Error{Code: CodeCanceled, Message: "Loupe is shutting down."}
	}
	wait := h.opening
	if wait == nil {
		wait = make(chan struct{})
		h.opening = wait
		go func() {
			h.open(a.life, wait)
			a.embedTables()
		}()
	}
	h.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ws != nil {
		return h.ws, nil
	}
	return nil, h.err
}

func (h *wsHolder) open(ctx context.Context, done chan struct{}) {
	dir := h.dir
	var (
		ws  *workspace.Workspace
		err error
	)
	if dir == "" {
		dir, err = workspace.DefaultDir()
	}
	if err == nil {
		ws, err = workspace.Open(ctx, dir)
	}
	if err == nil {
		err = h.tightenConfig()
		if err != nil {
			_ = ws.Close()
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	defer close(done)
	h.opening = nil
	if err != nil {
		h.err = &Error{Code: CodeFile, Message: fmt.Sprintf("Cannot open the workspace in %s: %v", dir, err),
			Hint: "Check that the folder is writable and that no other Loupe window or command is using it.", Err: err}
		return
	}
	if h.closed { // Shutdown came first
		_ = ws.Close()
		h.err = &Error{Code: CodeCanceled, Message: "Loupe is shutting down."}
		return
	}
	ret, err := assemble.OpenRetrieval(ws)
	if err != nil {
		_ = ws.Close()
		h.err = &Error{Code: CodeFile, Message: fmt.Sprintf("Cannot open the workspace's schema index in %s: %v", dir, err),
			Hint: "Check that the folder is writable; deleting its schema-index folder makes Loupe rebuild it.", Err: err}
		return
	}
	h.ws, h.ret, h.err = ws, ret, nil
	h.python, h.closePy = pythonTool(ctx, ws)
}

// embedTables starts embedding, in the background, the tables that have
// no embedding of the settings' embedding model yet (nothing without one,
// or before the workspace is open): after the workspace opens and after
// every change to its datasets (loads, refreshes, imports, renames), so
// that questions find them embedded. The Retrieval
// runs one job at a time, Shutdown cancels it (closing the Retrieval),
// and a failure is said in the next question's notes. Settings that
// cannot be read start nothing: every question reads them too and fails
// with their error.
func (a *App) embedTables() {
	ret, _ := a.ws.extras()
	if ret == nil {
		return
	}
	s, err := a.settings.get()
	if err != nil {
		return
	}
	ret.EmbedInBackground(a.modelConfig(s))
}

// extras returns the retrieval and the extra tools of the open workspace.
func (h *wsHolder) extras() (*assemble.Retrieval, []tools.Tool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ret, h.python
}

// pythonTool returns run_python over ws when Docker and the sandbox image
// are there (the status bar says why not), and a func that removes its
// container.
func pythonTool(ctx context.Context, ws *workspace.Workspace) ([]tools.Tool, func()) {
	py, st, err := python.Open(ctx, ws.Engine, ws, python.Config{})
	if err != nil || !st.OK {
		return nil, func() {}
	}
	return []tools.Tool{py}, func() { _ = py.Close(context.WithoutCancel(ctx)) }
}

// close closes the workspace if it is open; later calls to workspace fail.
func (h *wsHolder) close() {
	h.use.Lock()
	defer h.use.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.closePy != nil {
		h.closePy()
		h.closePy, h.python = nil, nil
	}
	if h.ret != nil {
		_ = h.ret.Close()
		h.ret = nil
	}
	if h.ws != nil {
		_ = h.ws.Close()
		h.ws = nil
	}
}

// tightenConfig makes the config folder (settings, recent files,
// connections, the secrets file) the user's alone, as the workspace is;
// old ones are tightened at the workspace's open. A config folder that
// cannot be found is left to the settings to report.
func (h *wsHolder) tightenConfig() error {
	if h.config == nil {
		return nil
	}
	dir, err := h.config()
	if err != nil {
		return nil
	}
	r, err := perm.Tighten(dir)
	if err != nil {
		return fmt.Errorf("config folder: %w", err)
	}
	if r.Changed > 0 || r.Failed > 0 {
		slog.Default().Info("made the config folder private", "subsystem", "app", "dir", dir, "report", r.String())
	}
	return nil
}
