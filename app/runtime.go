package app

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// This file is the only one in Loupe that imports the Wails runtime, so that
// everything else builds and tests without GTK or WebKit. Each wrapper needs
// the context Wails passed to Startup: with any other context the runtime
// aborts the process.

// emit sends the event name with data to the frontend's listeners.
func emit(ctx context.Context, name string, data any) {
	runtime.EventsEmit(ctx, name, data)
}

func filters(fs []FileFilter) []runtime.FileFilter {
	out := make([]runtime.FileFilter, len(fs))
	for i, f := range fs {
		out[i] = runtime.FileFilter{DisplayName: f.Name, Pattern: f.Pattern}
	}
	return out
}

// openFilesDialog shows the native dialog for choosing files to open.
func openFilesDialog(ctx context.Context, o DialogOptions) ([]string, error) {
	return runtime.OpenMultipleFilesDialog(ctx, runtime.OpenDialogOptions{Title: o.Title, Filters: filters(o.Filters)})
}

// openFolderDialog shows the native dialog for choosing a folder; "" when
// canceled.
func openFolderDialog(ctx context.Context, o DialogOptions) (string, error) {
	return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{Title: o.Title})
}

// saveFileDialog shows the native save dialog; "" when canceled.
func saveFileDialog(ctx context.Context, o DialogOptions) (string, error) {
	return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: o.Title, DefaultFilename: o.DefaultName,
		Filters: filters(o.Filters), CanCreateDirectories: true})
}
