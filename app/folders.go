package app

import (
	"github.com/loupeapp/loupe/app/session"
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
	fs := session.FoldersAmong(paths)
	out := make([]FolderInfo, len(fs))
	for i, f := range fs {
		out[i] = FolderInfo{Path: f.Path, Files: f.Files, Skipped: f.Skipped, Name: f.Name, Error: AsError(f.Err)}
	}
	return out, nil
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
	ls, err := a.s.OpenFolder(dir, asOne, name, a.loadProgress)
	return loadReports(ls), wrap(err)
}

// CancelLoad stops the load of path (a file OpenFiles is loading, or a
// folder OpenFolder is), if one is going.
func (a *App) CancelLoad(path string) error {
	a.s.Runs.Cancel(session.LoadKey(path))
	return nil
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
