package app

import (
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/load"
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

// loadProgress publishes a load's progress report as a load:progress
// event (throttled by the session's loads).
func (a *App) loadProgress(p load.Progress) {
	a.publish(EventLoadProgress, LoadProgress{File: p.File, Table: p.Table, Phase: p.Phase,
		Percent: p.Percent, Rows: p.Rows, Bytes: p.Bytes, TotalBytes: p.Total})
}

// loadReports are the load reports of what the session's loads gave.
func loadReports(ls []session.Loaded) []LoadReport {
	out := make([]LoadReport, len(ls))
	for i, l := range ls {
		out[i] = LoadReport{File: l.File, Datasets: datasetDTOs(l.Datasets), Error: AsError(l.Err)}
		if l.Err != nil {
			out[i].Datasets = nil
		}
	}
	return out
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
