package app

import (
	"os"
	"path/filepath"
)

// FileFilter is a file type a dialog offers: a name and patterns separated
// by semicolons ("*.csv;*.tsv").
type FileFilter struct {
	Name    string
	Pattern string
}

// DialogOptions configure a native dialog.
type DialogOptions struct {
	Title       string
	DefaultName string // save dialogs: the suggested file name
	Filters     []FileFilter
}

// Dialogs are the native file dialogs. A canceled dialog is not an error:
// OpenFiles returns no paths and SaveFile an empty path.
type Dialogs interface {
	OpenFiles(o DialogOptions) ([]string, error)
	SaveFile(o DialogOptions) (string, error)
}

// windowDialogs are the window's dialogs (runtime.go); without a window
// (tests, web mode) they choose nothing.
type windowDialogs struct{ a *App }

var _ Dialogs = windowDialogs{}

func (d windowDialogs) OpenFiles(o DialogOptions) ([]string, error) {
	ctx := d.a.windowContext()
	if ctx == nil {
		return nil, nil
	}
	return openFilesDialog(ctx, o)
}

func (d windowDialogs) SaveFile(o DialogOptions) (string, error) {
	ctx := d.a.windowContext()
	if ctx == nil {
		return "", nil
	}
	return saveFileDialog(ctx, o)
}

// SaveInto is the dialogs of headless use (web mode for end-to-end tests):
// opening chooses nothing, and saving accepts the suggested name inside
// Dir at once, as if the user had clicked Save. An empty Dir cancels every
// save.
type SaveInto struct{ Dir string }

var _ Dialogs = SaveInto{}

// OpenFiles chooses nothing.
func (SaveInto) OpenFiles(DialogOptions) ([]string, error) { return nil, nil }

// SaveFile returns Dir/DefaultName, creating Dir.
func (s SaveInto) SaveFile(o DialogOptions) (string, error) {
	if s.Dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return "", err
	}
	name := filepath.Base(o.DefaultName)
	if name == "." || name == string(filepath.Separator) {
		name = "export"
	}
	return filepath.Join(s.Dir, name), nil
}
