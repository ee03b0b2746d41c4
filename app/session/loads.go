package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// Loads of the user's files into the workspace, for the window and `loupe
// serve`. Each takes send, which gets the load's progress reports,
// throttled (Throttle) and, for a folder's files, as the folder's.

// Loaded is what loading one file (or a folder as one dataset) gave: its
// datasets, or why it failed.
type Loaded struct {
	File     string
	Datasets []catalog.Dataset
	Err      error
}

// LoadKey is the run key under which a load of path (a file or a folder)
// is registered, so that Runs.Cancel(LoadKey(path)) stops it.
func LoadKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "load:" + path
}

// ProgressOf returns a load's progress callback handing reports on to
// send, mapped through as when set, throttled (Throttle).
func ProgressOf(send func(load.Progress), as func(load.Progress) load.Progress) func(load.Progress) {
	publish := Throttle(func(p load.Progress) string { return p.Phase }, send)
	if as == nil {
		return publish
	}
	return func(p load.Progress) { publish(as(p)) }
}

// LoadFile loads one file, reading a text file with the import options
// text (zero: detected).
func LoadFile(ctx context.Context, ws *workspace.Workspace, path string, text load.TextOptions, send func(load.Progress)) ([]catalog.Dataset, error) {
	return ws.Loader.Load(ctx, path, load.Options{Progress: ProgressOf(send, nil), Text: text})
}

// LoadCancellable is LoadFile registered under LoadKey(path), so that a
// cancel stops it (a canceled load is that file's CodeCanceled error); a
// second load of the same path at once is CodeBusy.
func (s *Session) LoadCancellable(ctx context.Context, ws *workspace.Workspace, path string, text load.TextOptions, send func(load.Progress)) ([]catalog.Dataset, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := LoadKey(path)
	if !s.Runs.Add(key, cancel) {
		return nil, NewError(CodeBusy, fmt.Sprintf("%s is already being opened.", filepath.Base(path)), "Wait for it, or cancel it first.")
	}
	defer s.Runs.Remove(key)
	ds, err := LoadFile(ctx, ws, path, text, send)
	if errors.Is(err, context.Canceled) {
		return nil, &Error{Code: CodeCanceled, Message: "Canceled: " + filepath.Base(path) + " was not opened.", Hint: "Nothing was changed; open it again when you want it.", Err: err}
	}
	return ds, err
}

// OpenFiles loads each file in turn (LoadCancellable) with the import
// options text, and returns one Loaded per file: a file that fails does
// not stop the others. It tells Local the list changed once, after.
// Only the end of the session's life stops it as a whole.
func (s *Session) OpenFiles(paths []string, text load.TextOptions, send func(load.Progress)) ([]Loaded, error) {
	out := make([]Loaded, 0, len(paths))
	err := s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		for _, p := range paths {
			ds, err := s.LoadCancellable(ctx, ws, p, text, send)
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			out = append(out, Loaded{File: p, Datasets: ds, Err: err})
		}
		s.Local.Changed(ctx, ws)
		return nil
	})
	return out, err
}

// OpenFolder loads the data files directly inside dir: as one dataset
// called name (asOne; see load.Loader.LoadFolder), or as one dataset per
// file, with one Loaded per file (one for the folder when asOne). Progress
// reports are the folder's (FolderProgress). It is registered under
// LoadKey(dir): a cancel leaves the file being loaded as it was, the files
// loaded before it stay, and the last Loaded says how many were not loaded.
func (s *Session) OpenFolder(dir string, asOne bool, name string, send func(load.Progress)) ([]Loaded, error) {
	out := []Loaded{}
	err := s.Local.Use(func(life context.Context, ws *workspace.Workspace) error {
		ctx, cancel := context.WithCancel(life)
		defer cancel()
		key := LoadKey(dir)
		if !s.Runs.Add(key, cancel) {
			return NewError(CodeBusy, fmt.Sprintf("%s is already being opened.", filepath.Base(dir)), "Wait for it, or cancel it first.")
		}
		defer s.Runs.Remove(key)
		defer s.Local.Changed(life, ws)
		if asOne {
			ds, err := ws.Loader.LoadFolder(ctx, dir, name, load.Options{Progress: ProgressOf(send, nil)})
			if errors.Is(err, context.Canceled) {
				err = &Error{Code: CodeCanceled, Message: "Canceled: the folder was not opened.",
					Hint: "Nothing was changed; open it again when you want it.", Err: err}
			}
			out = append(out, Loaded{File: dir, Datasets: ds, Err: err})
			return nil
		}
		files, _, err := load.Folder(dir)
		if err != nil {
			out = append(out, Loaded{File: dir, Err: err})
			return nil
		}
		for i, f := range files {
			if ctx.Err() == nil {
				ds, err := ws.Loader.Load(ctx, f, load.Options{Progress: ProgressOf(send, FolderProgress(dir, f, i, len(files)))})
				if err == nil || ctx.Err() == nil {
					out = append(out, Loaded{File: f, Datasets: ds, Err: err})
					continue
				}
			}
			out = append(out, Loaded{File: dir, Err: &Error{Code: CodeCanceled,
				Message: fmt.Sprintf("Canceled: %d of the folder's %d files were not opened.", len(files)-i, len(files)),
				Hint:    "Those opened before the cancel stay; open the folder again to load the rest (files loaded already are loaded again)."}})
			return nil
		}
		return nil
	})
	return out, err
}

// FolderProgress maps the progress of the i-th of n files of dir onto the
// folder's: the folder is the file shown, the file and its place the
// table, and the percent the share of files done.
func FolderProgress(dir, file string, i, n int) func(load.Progress) load.Progress {
	return func(p load.Progress) load.Progress {
		frac := 0.0
		switch {
		case p.Phase == "done":
			frac = 1
		case p.Percent > 0:
			frac = p.Percent / 100
		}
		if p.Phase == "done" {
			p.Phase = "reading" // the folder is done when OpenFolder returns
		}
		return load.Progress{File: dir, Table: fmt.Sprintf("%s (%d of %d)", filepath.Base(file), i+1, n), Phase: p.Phase,
			Percent: 100 * (float64(i) + frac) / float64(n), Rows: p.Rows}
	}
}

// Dataset returns the catalog record of name, or a CodeNotFound Error.
func Dataset(ctx context.Context, ws *workspace.Workspace, name string) (catalog.Dataset, error) {
	d, err := catalog.Get(ctx, ws.Engine.DB(), name)
	if errors.Is(err, catalog.ErrNotFound) {
		return d, &Error{Code: CodeNotFound, Message: fmt.Sprintf("No dataset is called %q.", name),
			Hint: "It may have been renamed or removed; the sidebar lists the datasets.", Err: err}
	}
	return d, err
}

// StoredText is the import options a dataset was loaded with (none for
// detected ones), for its refresh.
func StoredText(d catalog.Dataset) load.TextOptions {
	if d.Text == nil {
		return load.TextOptions{}
	}
	return *d.Text
}

// ReloadText loads the file of the text dataset name again with the import
// options text (kept for its later refreshes), tells Local the list
// changed, and returns the dataset as loaded (nil when the load gave no
// dataset of that name and more than one other). Errors: CodeNotFound,
// CodeInvalid for a dataset that is not a CSV or TSV file, and the load's
// own.
func (s *Session) ReloadText(name string, text load.TextOptions, send func(load.Progress)) (*catalog.Dataset, error) {
	var out *catalog.Dataset
	err := s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		d, err := Dataset(ctx, ws, name)
		if err != nil {
			return err
		}
		if d.Kind != string(load.CSV) && d.Kind != string(load.TSV) {
			return NewError(CodeInvalid, fmt.Sprintf("%s is not a CSV or TSV file: import options do not apply to it.", name),
				"Use Refresh to load it again.")
		}
		ds, err := LoadFile(ctx, ws, d.Source, text, send)
		if err != nil {
			return err
		}
		s.Local.Changed(ctx, ws)
		for i := range ds {
			if ds[i].Name == name || len(ds) == 1 {
				out = &ds[i]
			}
		}
		return nil
	})
	return out, err
}

// Folder is a folder among the paths the user opened, with what
// load.Folder finds in it: the data files directly inside (subfolders are
// not read), the other entries left out, and why it cannot be opened at
// all (Err).
type Folder struct {
	Path    string
	Name    string // the folder's name: the one dataset's, unless changed
	Files   int
	Skipped int
	Err     error
}

// FoldersAmong returns the folders among paths, in order; files and paths
// that do not exist are left out (loading them reports those).
func FoldersAmong(paths []string) []Folder {
	out := []Folder{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			continue
		}
		files, skipped, err := load.Folder(abs)
		out = append(out, Folder{Path: abs, Name: filepath.Base(abs), Files: len(files), Skipped: skipped, Err: err})
	}
	return out
}

// GetDataset is the catalog record of the workspace's dataset name, with
// its columns and their statistics; an unknown name is CodeNotFound.
func (s *Session) GetDataset(name string) (catalog.Dataset, error) {
	var d catalog.Dataset
	err := s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) (err error) {
		d, err = Dataset(ctx, ws, name)
		return err
	})
	return d, err
}

// Summaries are the workspace's datasets' summaries, by name, read
// without decoding their records.
func (s *Session) Summaries() ([]catalog.Summary, error) {
	var ss []catalog.Summary
	err := s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) (err error) {
		ss, err = ws.Summaries(ctx)
		return err
	})
	return ss, err
}
