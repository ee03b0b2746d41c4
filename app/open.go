package app

import (
	"context"

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
// returns one report per file: a file that fails does not stop the others.
// It emits datasets:changed after, and starts embedding the new tables
// in the background when the settings name an embedding model.
func (a *App) OpenFiles(paths []string) ([]LoadReport, error) {
	return a.OpenFilesWith(paths, TextOptions{})
}

// loadFile loads one file, detecting how text files are written.
func (a *App) loadFile(ctx context.Context, ws *workspace.Workspace, path string) ([]catalog.Dataset, error) {
	return a.loadFileWith(ctx, ws, path, load.TextOptions{})
}

// loadFileWith loads one file, reading a text file with the import
// options text, its progress published as load:progress events
// (session.Throttle).
func (a *App) loadFileWith(ctx context.Context, ws *workspace.Workspace, path string, text load.TextOptions) ([]catalog.Dataset, error) {
	progress := session.Throttle(func(p load.Progress) string { return p.Phase }, func(p load.Progress) {
		a.publish(EventLoadProgress, LoadProgress{File: p.File, Table: p.Table, Phase: p.Phase,
			Percent: p.Percent, Rows: p.Rows, Bytes: p.Bytes, TotalBytes: p.Total})
	})
	return ws.Loader.Load(ctx, path, load.Options{Progress: progress, Text: text})
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
