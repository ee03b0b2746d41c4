package cli

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
)

// FrontendAssets is the built frontend `loupe serve` serves unless --assets
// names a folder; main sets it to the files embedded in the binary.
var FrontendAssets fs.FS

// Web is web mode's server, the window's façade over HTTP (app/web), which
// main (the composition root) provides: the CLI never imports the window's
// package. Without it `loupe serve` says it is not built in.
var Web WebServer

// WebServer is what `loupe serve` needs of web mode.
type WebServer struct {
	// ParseOrigin checks an --allow-origin value and returns the origin.
	ParseOrigin func(s string) (string, error)
	// Serve serves until ctx ends, calling ready once it listens.
	Serve func(ctx context.Context, o ServeConfig, ready func(addr net.Addr, token string)) error
}

// envConfigDir is the variable that picks the window's config folder
// (app.EnvConfigDir; named here so that the CLI does not import app).
const envConfigDir = "LOUPE_CONFIG_DIR"

// ServeConfig is what the serve flags say.
type ServeConfig struct {
	Addr, WorkspaceDir, ConfigDir, SaveDir string
	Assets                                 fs.FS
	AllowOrigins                           []string
}

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
	if Web.Serve == nil || Web.ParseOrigin == nil {
		fmt.Fprintln(e.stderr, "loupe serve: this build has no web mode")
		return ExitError
	}
	fs, ws := newFlags("serve", e)
	fs.Usage = func() { fmt.Fprint(fs.Output(), serveHelp); fs.PrintDefaults() }
	addr := fs.String("addr", "127.0.0.1:7480", "loopback address to listen on (port 0 picks a free one)")
	config := fs.String("config", "", "folder for settings and recent files (default $"+envConfigDir+" or the user config folder)")
	assets := fs.String("assets", "", "serve the frontend from this folder (e.g. frontend/dist) instead of the built-in one")
	saveDir := fs.String("save-dir", "", "exports (CSV, reports) are saved into this folder without a dialog")
	var origins []string
	fs.Func("allow-origin", "also accept calls (with the token) from pages at this loopback origin, e.g. http://localhost:5173 for the Vite dev server; repeatable",
		func(v string) error {
			o, err := Web.ParseOrigin(v)
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
	cfg := ServeConfig{Addr: *addr, WorkspaceDir: *ws, ConfigDir: *config, SaveDir: *saveDir, Assets: files, AllowOrigins: origins}
	err = Web.Serve(ctx, cfg, func(addr net.Addr, token string) {
		fmt.Fprintf(e.stdout, "loupe serve: listening on http://%s/#token=%s\n", addr, token)
		for _, o := range origins {
			fmt.Fprintf(e.stdout, "loupe serve: pages at %s may call too: open %s/#token=%s\n", o, o, token)
		}
	})
	if err != nil {
		return fail(e, err)
	}
	return ExitOK
}
