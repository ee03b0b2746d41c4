package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"time"

	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/app/web"
)

// FrontendAssets is the built frontend `loupe serve` serves unless --assets
// names a folder; main sets it to the files embedded in the binary.
var FrontendAssets fs.FS

func init() {
	register(command{"serve",
		"serve [--addr 127.0.0.1:7480] [--workspace DIR] [--config DIR] [--assets DIR] [--save-dir DIR]",
		"(development and tests) the app's API and frontend over HTTP on loopback", runServe})
}

// runServe is web mode: the App façade over HTTP for Playwright and
// `npm run dev`. It prints "loupe serve: listening on http://ADDR" once
// ready, and stops on SIGINT/SIGTERM. The API key is kept in memory only,
// and native dialogs are replaced: opening chooses nothing, saving writes
// into --save-dir (or is canceled without it).
func runServe(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("serve", e)
	addr := fs.String("addr", "127.0.0.1:7480", "loopback address to listen on (port 0 picks a free one)")
	config := fs.String("config", "", "folder for settings and recent files (default $"+app.EnvConfigDir+" or the user config folder)")
	assets := fs.String("assets", "", "serve the frontend from this folder (e.g. frontend/dist) instead of the built-in one")
	saveDir := fs.String("save-dir", "", "exports (CSV, reports) are saved into this folder without a dialog")
	pos, err := parse(fs, args)
	if err != nil || len(pos) > 0 {
		if len(pos) > 0 {
			fmt.Fprintf(e.stderr, "loupe serve: unexpected argument %q\n", pos[0])
		}
		return ExitUsage
	}
	files := FrontendAssets
	if *assets != "" {
		if st, err := os.Stat(*assets); err != nil || !st.IsDir() {
			fmt.Fprintf(e.stderr, "loupe serve: --assets %s is not a folder\n", *assets)
			return ExitUsage
		}
		files = os.DirFS(*assets)
	}
	ln, err := web.Listen(*addr)
	if err != nil {
		return fail(e, fmt.Errorf("listen on %s: %w", *addr, err))
	}
	hub := web.NewHub()
	a := app.New(app.Options{WorkspaceDir: *ws, ConfigDir: *config, Keychain: app.NewMemoryKeychain(),
		Dialogs: app.SaveInto{Dir: *saveDir}, Emit: hub.Publish})
	h, err := web.Handler(a, hub, files)
	if err != nil {
		_ = ln.Close()
		return fail(e, err)
	}
	app.Warm(a)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(e.stdout, "loupe serve: listening on http://%s\n", ln.Addr())
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	// Event streams never end by themselves, so the server is closed rather
	// than drained; then the runs are canceled and the workspace closed.
	_ = srv.Close()
	a.Shutdown(context.Background())
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fail(e, err)
	}
	return ExitOK
}
