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
