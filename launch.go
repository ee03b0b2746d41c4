package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/loupeapp/loupe/data/workspace"
)

// windowFiles tells whether args (without the program name) ask for the
// window with files to open — what a file manager's "Open with Loupe" or a
// double-click runs (the .desktop entry's `loupe %F`) — and returns them as
// absolute paths, resolved against dir.
//
// It is so when every argument names an existing regular file and the first
// has a dot or a path separator in it: a command name (load, sql, …) never
// does, so `loupe load x.csv` stays the command line even beside a file
// called "load". Anything else is the command line's to judge.
func windowFiles(args []string, dir string) ([]string, bool) {
	if len(args) == 0 || !strings.ContainsAny(args[0], "./"+string(filepath.Separator)) {
		return nil, false
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			return nil, false
		}
		out = append(out, filepath.Clean(p))
	}
	return out, true
}

// openInWindow hands paths to the page as if they had been dropped on the
// window, so they load through the same path as a drop (progress, errors
// shown where loads are shown, the new table selected). The page subscribes
// to drops once React has mounted, which may be after OnDomReady; the script
// waits for that subscription (up to 30 s) rather than drop the files.
// Paths are JSON-encoded, so any file name is data, never script.
func openInWindow(ctx context.Context, paths []string) {
	if len(paths) == 0 {
		return
	}
	msg, err := json.Marshal(map[string]any{"name": "wails:file-drop", "data": []any{0, 0, paths}})
	if err != nil {
		slog.Error("open files given at launch", "subsystem", "launch", "err", err)
		return
	}
	quoted, _ := json.Marshal(string(msg)) // a JSON string is a JS string literal
	js := fmt.Sprintf(`(function(){var m=%s,n=0;(function t(){var l=window.wails&&window.wails.eventListeners&&window.wails.eventListeners["wails:file-drop"];if(l&&l.length){window.wails.EventsNotify(m);return}if(++n<300)setTimeout(t,100)})()})()`, quoted)
	runtime.WindowExecJS(ctx, js)
	slog.Info("opening files given at launch", "subsystem", "launch", "files", len(paths))
}

// launcher holds the files the window is asked to open — from its command
// line, a second launch, or macOS's open-file events — until the page is up
// to take them.
type launcher struct {
	mu      sync.Mutex
	ctx     context.Context // the window's, once its page is ready
	pending []string
}

// ready is the OnDomReady hook: the page is up; open what is pending.
func (l *launcher) ready(ctx context.Context) {
	l.mu.Lock()
	l.ctx = ctx
	files := l.pending
	l.pending = nil
	l.mu.Unlock()
	openInWindow(ctx, files)
}

// open opens paths in the window now, or once its page is ready.
func (l *launcher) open(paths ...string) {
	l.mu.Lock()
	ctx := l.ctx
	if ctx == nil {
		l.pending = append(l.pending, paths...)
	}
	l.mu.Unlock()
	if ctx != nil {
		runtime.WindowUnminimise(ctx)
		runtime.Show(ctx)
		openInWindow(ctx, paths)
	}
}

// singleInstance makes a second `loupe FILE` (a second double-click) open
// its files in the window already running on the same workspace, instead of
// a second window that could not open the workspace (DuckDB locks it). The
// lock is per workspace folder, so windows on different workspaces (tests,
// LOUPE_WORKSPACE) stay independent. Without a D-Bus session (Linux) Wails
// skips the lock and every launch gets its own window.
func singleInstance(l *launcher) *options.SingleInstanceLock {
	ws, err := workspace.DefaultDir()
	if err != nil {
		return nil // the window reports the workspace problem itself
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	sum := sha256.Sum256([]byte(ws))
	return &options.SingleInstanceLock{
		UniqueId: "loupe-" + hex.EncodeToString(sum[:8]),
		OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
			if files, ok := windowFiles(d.Args, d.WorkingDirectory); ok {
				l.open(files...)
			}
		},
	}
}
