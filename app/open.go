package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// LoadProgress is a load:progress event. Percent is -1 when unknown.
type LoadProgress struct {
	File       string  `json:"file"`
	Table      string  `json:"table,omitempty"`
	Phase      string  `json:"phase"` // reading, profiling, done
	Percent    float64 `json:"percent"`
	Rows       uint64  `json:"rows"`
	Bytes      int64   `json:"bytes"`
	TotalBytes int64   `json:"totalBytes"`
}

// LoadReport is what loading one file gave: its datasets, or why it failed.
type LoadReport struct {
	File     string    `json:"file"`
	Datasets []Dataset `json:"datasets,omitempty"`
	Error    *Error    `json:"error,omitempty"`
}

// ChooseFiles shows the native open dialog and returns the chosen paths
// (none when canceled, or in web mode).
func (a *App) ChooseFiles() ([]string, error) {
	paths, err := a.opts.Dialogs.OpenFiles(DialogOptions{Title: "Open data files", Filters: dataFilters})
	if paths == nil {
		paths = []string{}
	}
	return paths, wrap(err)
}

// OpenFiles loads each file in turn, with load:progress events, and
// returns one report per file: a file that fails, or whose load
// CancelLoad(path) stops, does not stop the others. A folder among paths
// fails with a hint; OpenFolder opens folders.
// It emits datasets:changed after, and starts embedding the new tables
// in the background when the settings name an embedding model.
func (a *App) OpenFiles(paths []string) ([]LoadReport, error) {
	return a.OpenFilesWith(paths, TextOptions{})
}

// loadCancellable is loadFile registered under the file's path, so that
// CancelLoad(path) stops it (a canceled load is that file's error).
func (a *App) loadCancellable(ctx context.Context, ws *workspace.Workspace, path string, text load.TextOptions) ([]catalog.Dataset, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := loadKey(path)
	if !a.s.Runs.Add(key, cancel) {
		return nil, newError(CodeBusy, fmt.Sprintf("%s is already being opened.", filepath.Base(path)), "Wait for it, or cancel it first.")
	}
	defer a.s.Runs.Remove(key)
	ds, err := a.loadFile(ctx, ws, path, text)
	if errors.Is(err, context.Canceled) {
		return nil, &Error{Code: CodeCanceled, Message: "Canceled: " + filepath.Base(path) + " was not opened.", Hint: "Nothing was changed; open it again when you want it.", Err: err}
	}
	return ds, err
}

// loadFile loads one file, reading a text file with the import options
// text (zero: detected), its progress published as load:progress events
// (session.Throttle).
func (a *App) loadFile(ctx context.Context, ws *workspace.Workspace, path string, text load.TextOptions) ([]catalog.Dataset, error) {
	return ws.Loader.Load(ctx, path, load.Options{Progress: a.progressPublisher(nil), Text: text})
}

// progressPublisher returns a load's progress callback: it publishes
// load:progress events, mapped through as when set, throttled
// (session.Throttle).
func (a *App) progressPublisher(as func(load.Progress) load.Progress) func(load.Progress) {
	publish := session.Throttle(func(p load.Progress) string { return p.Phase }, func(p load.Progress) {
		a.publish(EventLoadProgress, LoadProgress{File: p.File, Table: p.Table, Phase: p.Phase,
			Percent: p.Percent, Rows: p.Rows, Bytes: p.Bytes, TotalBytes: p.Total})
	})
	if as == nil {
		return publish
	}
	return func(p load.Progress) { publish(as(p)) }
}

// RecentFiles returns the files opened most recently, newest first, that
// still exist.
func (a *App) RecentFiles() ([]string, error) {
	return a.recent.List(), nil
}

// dataFilters are the open dialog's file types.
var dataFilters = []FileFilter{
	{Name: "Data files", Pattern: "*.csv;*.tsv;*.tab;*.txt;*.dat;*.json;*.jsonl;*.ndjson;*.parquet;*.pq;*.xlsx;*.xlsm;*.duckdb;*.ddb;*.db;*.sqlite;*.sqlite3;*.gz;*.bz2;*.zst"},
	{Name: "All files", Pattern: "*"},
}
