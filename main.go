// Command loupe is the Loupe desktop app. Run without arguments it opens the
// window; with only data files as arguments (`loupe sales.csv`, what "Open
// with Loupe" runs) it opens the window and loads them; `loupe --version`
// prints the version; with other arguments it is the command-line interface
// to the same engine (see app/cli), for scripts and tests.
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/mac"

	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/app/cli"
	"github.com/loupeapp/loupe/app/web"
)

// assets is the built frontend (npm run build writes frontend/dist). Only a
// keep-file is committed there, so that the package compiles in a fresh
// clone; `make build` (wails build) always builds the frontend first.
//
//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	// `loupe serve` (web mode, for development and tests) serves the same
	// built frontend the window shows.
	if dist, err := fs.Sub(assets, "frontend/dist"); err == nil {
		cli.FrontendAssets = dist
	}
	cli.Web = webServer()
	var files []string
	if wd, err := os.Getwd(); err == nil {
		files, _ = windowFiles(os.Args[1:], wd)
	}
	if len(os.Args) > 1 && files == nil {
		// SIGINT/SIGTERM cancel ctx, so a command stops its work and exits.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}

	// Wails closes the window on SIGINT/SIGTERM and runs OnShutdown; the
	// window adds no handler that touches GTK (quitting GTK from two places
	// at once crashes it), only exitIfStuck's last resort.
	if err := runWindow(files); err != nil {
		fmt.Fprintf(os.Stderr, "loupe: %v\n", err)
		os.Exit(1)
	}
}

// runWindow opens the main window, loads files into it once the page is up,
// and blocks until the window is closed.
func runWindow(files []string) error {
	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		return fmt.Errorf("frontend assets: %w", err)
	}

	a := app.New(app.Options{})
	defer exitIfStuck(a, quitGrace)()
	started := time.Now()
	launch := &launcher{pending: files}
	err = wails.Run(&options.App{
		Title:     "Loupe",
		Width:     1280,
		Height:    800,
		MinWidth:  720,
		MinHeight: 480,
		AssetServer: &assetserver.Options{
			Assets: dist,
		},
		// Shown until the page paints: the light theme's background.
		BackgroundColour: options.NewRGB(0xf6, 0xf7, 0xf9),
		OnStartup:        a.Startup,
		// A second launch on the same workspace (double-clicking another
		// file) opens its files here.
		SingleInstanceLock: singleInstance(launch),
		// Bound methods fail with *app.Error; the frontend gets it as the
		// object {code, message, hint}.
		ErrorFormatter: app.FormatError,
		OnShutdown:     a.Shutdown,
		// The page has loaded: the moment the window becomes usable. The
		// smoke test (scripts/screenshot.sh) times cold start by this line.
		OnDomReady: func(ctx context.Context) {
			slog.Info("window ready", "subsystem", "app", "since_main", time.Since(started).Round(time.Millisecond), "unix_ms", time.Now().UnixMilli())
			// Files named on the command line (Open with Loupe); a reload
			// of the page does not load them again.
			launch.ready(ctx)
		},
		Bind: []any{a},
		// Files dropped on the window reach the frontend with their paths
		// (api.onFileDrop); the webview itself never opens them.
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true, DisableWebViewDrop: true},
		// Finder's "Open With" and double-click deliver files as events,
		// not arguments (untested: macOS is built only in CI).
		Mac: &mac.Options{OnFileOpen: func(path string) { launch.open(path) }},
		Linux: &linux.Options{
			Icon:        icon,
			ProgramName: "loupe",
			// Wails' own default when Linux options are absent: GPU
			// compositing in WebKitGTK gives blank windows on many drivers
			// and under Xvfb.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		return fmt.Errorf("run window: %w", err)
	}
	return nil
}

// quitGrace is how long a SIGINT or SIGTERM may take to close the window
// before exitIfStuck ends the app.
const quitGrace = 5 * time.Second

// exitIfStuck ends the process when a SIGINT or SIGTERM has not closed
// the window within grace: Wails' quit waits while a native dialog (the
// open-files dialog, say) runs its own GTK loop. It closes a's workspace
// first (a.Shutdown cancels runs and loads, so nothing committed is lost)
// and exits with status 130. It touches no GTK. The returned func stops
// the watch; call it when the window has closed.
func exitIfStuck(a *app.App, grace time.Duration) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
		case <-done:
			return
		}
		select {
		case <-time.After(grace):
			slog.Warn("the window did not close within the grace period after the signal (a native dialog is open?); closing the workspace and exiting",
				"subsystem", "app", "grace", grace)
			a.Shutdown(context.Background())
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// webServer is web mode (app/web) as `loupe serve` calls it: the CLI does
// not import the window's package, so main hands it in.
func webServer() cli.WebServer {
	return cli.WebServer{
		ParseOrigin: web.ParseOrigin,
		Serve: func(ctx context.Context, c cli.ServeConfig, ready func(net.Addr, string)) error {
			return web.Serve(ctx, web.ServeOptions{Addr: c.Addr, WorkspaceDir: c.WorkspaceDir, ConfigDir: c.ConfigDir,
				SaveDir: c.SaveDir, Assets: c.Assets, AllowOrigins: c.AllowOrigins, Ready: ready})
		},
	}
}
