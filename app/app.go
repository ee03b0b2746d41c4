// Package app is the Wails-bound façade of Loupe: the exported methods of App
// are what the frontend can call (through the bindings generated in
// frontend/wailsjs). It stays thin: DTOs, lifecycle and error shaping; the
// work happens in the packages below it.
package app

import (
	"context"
	"runtime/debug"
	"sync"
)

// version is the release this binary was built from, set at link time:
//
//	-ldflags "-X github.com/loupeapp/loupe/app.version=v1.2.3"
//
// The Makefile sets it from `git describe`.
var version string

// App is the object bound to the window. Create it with New, pass Startup and
// Shutdown as the Wails OnStartup and OnShutdown hooks (Wails does not bind
// methods passed as hooks, so the frontend cannot call them), and bind the
// App itself.
type App struct {
	mu  sync.Mutex
	ctx context.Context // the Wails context between Startup and Shutdown, else nil
}

// New returns an App ready to be bound.
func New() *App {
	return &App{}
}

// Startup is the Wails OnStartup hook, called once before the page loads.
// ctx is the Wails context, which runtime calls need; it is valid until
// Shutdown.
func (a *App) Startup(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ctx = ctx
}

// Shutdown is the Wails OnShutdown hook, called once after the window closed
// (including on SIGINT/SIGTERM, which Wails handles). It is safe to call
// without a prior Startup.
func (a *App) Shutdown(context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ctx = nil
}

// publish sends the event name with data to the frontend. Events published
// before Startup or after Shutdown are dropped, so callers need not know
// whether a window exists (tests and the CLI have none).
func (a *App) publish(name string, data any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ctx != nil {
		emit(a.ctx, name, data)
	}
}

// Version returns the version of the running binary: the link-time version
// when set, else the module version the Go toolchain recorded, else "dev".
// It does not fail today; the error keeps the binding's signature stable for
// when it reads more than build metadata.
func (a *App) Version() (string, error) {
	if version != "" {
		return version, nil
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version, nil
	}
	return "dev", nil
}
