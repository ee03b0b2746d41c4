package app

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

// FolderInfo is a folder among the paths the user opened (dropped, chosen
// or typed), for the window's choice between one dataset per file and one
// dataset of all its files. Error says why it cannot be opened at all.
type FolderInfo struct {
	Path    string `json:"path"`
	Files   int    `json:"files"`   // data files directly inside (subfolders are not read)
	Skipped int    `json:"skipped"` // other entries, left out
	Name    string `json:"name"`    // the folder's name: the one dataset's, unless changed
	Error   *Error `json:"error,omitempty"`
}

// FoldersAmong returns the folders among paths, in order, each with what
// load.Folder finds in it; files and paths that do not exist are left
// out (OpenFiles reports those).
func (a *App) FoldersAmong(paths []string) ([]FolderInfo, error) {
	out := []FolderInfo{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			continue
		}
		f := FolderInfo{Path: abs, Name: filepath.Base(abs)}
		files, skipped, err := load.Folder(abs)
		f.Files, f.Skipped = len(files), skipped
		if err != nil {
			f.Error = AsError(err)
		}
		out = append(out, f)
	}
	return out, nil
}

// loadKey is the run key under which a load of path (a file or a folder)
// is registered, for CancelLoad.
func loadKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "load:" + path
}

// OpenFolder loads the data files directly inside dir: as one dataset
// called name (asOne; CSV or TSV files read together, columns matched by
// name, see load.Loader.LoadFolder), or as one dataset per file, as
// OpenFiles does. Progress comes as load:progress events of the folder
// (File is dir; Table says which file, and how many of how many); one
// report per file (one for the folder when asOne). CancelLoad(dir) stops
// it: the file being loaded is left as it was, the files loaded before it
// stay, and the folder's report says how many were not loaded.
func (a *App) OpenFolder(dir string, asOne bool, name string) ([]LoadReport, error) {
	out := []LoadReport{}
	err := a.s.Local.Use(func(life context.Context, ws *workspace.Workspace) error {
		ctx, cancel := context.WithCancel(life)
		defer cancel()
		key := loadKey(dir)
		if !a.s.Runs.Add(key, cancel) {
			return newError(CodeBusy, fmt.Sprintf("%s is already being opened.", filepath.Base(dir)), "Wait for it, or cancel it first.")
		}
		defer a.s.Runs.Remove(key)
		defer a.s.Local.Changed(life, ws)
		if asOne {
			ds, err := ws.Loader.LoadFolder(ctx, dir, name, load.Options{Progress: a.progressPublisher(nil)})
			out = append(out, folderReport(dir, ds, err))
			return nil
		}
		files, _, err := load.Folder(dir)
		if err != nil {
			out = append(out, LoadReport{File: dir, Error: AsError(err)})
			return nil
		}
		for i, f := range files {
			if ctx.Err() == nil {
				ds, err := ws.Loader.Load(ctx, f, load.Options{Progress: a.progressPublisher(ofFolder(dir, f, i, len(files)))})
				if err == nil || ctx.Err() == nil {
					out = append(out, fileReport(f, ds, err))
					continue
				}
			}
			out = append(out, LoadReport{File: dir, Error: &Error{Code: CodeCanceled,
				Message: fmt.Sprintf("Canceled: %d of the folder's %d files were not opened.", len(files)-i, len(files)),
				Hint:    "Those opened before the cancel stay; open the folder again to load the rest (files loaded already are loaded again)."}})
			return nil
		}
		return nil
	})
	return out, wrap(err)
}

// CancelLoad stops the load of path (a file OpenFiles is loading, or a
// folder OpenFolder is), if one is going.
func (a *App) CancelLoad(path string) error {
	a.s.Runs.Cancel(loadKey(path))
	return nil
}

// ofFolder maps the progress of the i-th of n files of dir onto the
// folder's: the folder is the file shown, the file and its place the
// table, and the percent the share of files done.
func ofFolder(dir, file string, i, n int) func(load.Progress) load.Progress {
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

func fileReport(file string, ds []catalog.Dataset, err error) LoadReport {
	if err != nil {
		return LoadReport{File: file, Error: AsError(err)}
	}
	return LoadReport{File: file, Datasets: datasetDTOs(ds)}
}

func folderReport(dir string, ds []catalog.Dataset, err error) LoadReport {
	if errors.Is(err, context.Canceled) {
		return LoadReport{File: dir, Error: &Error{Code: CodeCanceled, Message: "Canceled: the folder was not opened.",
			Hint: "Nothing was changed; open it again when you want it.", Err: err}}
	}
	return fileReport(dir, ds, err)
}

// folderDialog is the native dialog for choosing a folder, where the
// dialogs have one (the window's).
type folderDialog interface {
	OpenFolder(o DialogOptions) (string, error)
}

var _ folderDialog = windowDialogs{}

// OpenFolder shows the window's folder dialog; "" when canceled or
// without a window.
func (d windowDialogs) OpenFolder(o DialogOptions) (string, error) {
	ctx := d.a.windowContext()
	if ctx == nil {
		return "", nil
	}
	return openFolderDialog(ctx, o)
}

// ChooseFolder shows the native folder dialog and returns the chosen
// folder ("" when canceled, or in web mode); the window then offers
// OpenFolder's choice for it.
func (a *App) ChooseFolder() (string, error) {
	d, ok := a.opts.Dialogs.(folderDialog)
	if !ok {
		return "", nil
	}
	dir, err := d.OpenFolder(DialogOptions{Title: "Open a folder of data files"})
	return dir, wrap(err)
}
