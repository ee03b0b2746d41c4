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
		"serve [--addr 127.0.0.1:7480] [--allow-origin URL]... [--workspace DIR] [--config DIR] [--assets DIR] [--save-dir DIR]",
		"(development and tests) the app's API and frontend over HTTP on loopback; open the address it prints (with its token)", runServe})
}

// runServe is web mode: the App façade over HTTP for Playwright and
// `npm run dev`. Once ready it prints, as its first line, "loupe serve:
// listening on http://ADDR/#token=TOKEN": the token, new at each start, must
// come with every API call (web.TokenHeader); it sits in the fragment,
// which browsers never send to a server or put in a Referer. It stops on
// SIGINT/SIGTERM. The API key is kept in memory only,
// and native dialogs are replaced: opening chooses nothing, saving writes
// into --save-dir (or is canceled without it).
const serveHelp = `Usage: loupe serve [flags]

The app's API and frontend over HTTP on a loopback address, for development
and end-to-end tests. Its first line of output is the address to open:

  loupe serve: listening on http://127.0.0.1:7480/#token=…

The token is new at each start. The page reads it from the address (the part
after #, which a browser never sends to a server), keeps it for the tab and
sends it with every call; any call without it is refused (401), and so is any
call from a page at another origin (403) unless --allow-origin names it. A
program calls POST /api/<Method> with the token in the X-Loupe-Token header.
For the Vite dev server: loupe serve --allow-origin http://localhost:5173,
then open http://localhost:5173/#token=… as printed.

Flags:
`

func runServe(ctx context.Context, e env, args []string) int {
	fs, ws := newFlags("serve", e)
	fs.Usage = func() { fmt.Fprint(fs.Output(), serveHelp); fs.PrintDefaults() }
	addr := fs.String("addr", "127.0.0.1:7480", "loopback address to listen on (port 0 picks a free one)")
	config := fs.String("config", "", "folder for settings and recent files (default $"+app.EnvConfigDir+" or the user config folder)")
	assets := fs.String("assets", "", "serve the frontend from this folder (e.g. frontend/dist) instead of the built-in one")
	saveDir := fs.String("save-dir", "", "exports (CSV, reports) are saved into this folder without a dialog")
	var origins []string
	fs.Func("allow-origin", "also accept calls (with the token) from pages at this loopback origin, e.g. http://localhost:5173 for the Vite dev server; repeatable",
		func(v string) error {
			o, err := web.ParseOrigin(v)
			if err != nil {
				return err
			}
			origins = append(origins, o)
			return nil
		})
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
	token, err := web.NewToken()
	if err != nil {
		return fail(e, err)
	}
	ln, err := web.Listen(*addr)
	if err != nil {
		return fail(e, fmt.Errorf("listen on %s: %w", *addr, err))
	}
	hub := web.NewHub()
	a := app.New(app.Options{WorkspaceDir: *ws, ConfigDir: *config, Keychain: app.NewMemoryKeychain(),
		Dialogs: app.SaveInto{Dir: *saveDir}, Emit: hub.Publish})
	h, err := web.Handler(a, hub, files, web.Options{Token: token, AllowOrigins: origins})
	if err != nil {
		_ = ln.Close()
		return fail(e, err)
	}
	app.Warm(a)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(e.stdout, "loupe serve: listening on http://%s/#token=%s\n", ln.Addr(), token)
	for _, o := range origins {
		fmt.Fprintf(e.stdout, "loupe serve: pages at %s may call too: open %s/#token=%s\n", o, o, token)
	}
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
