package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"time"

	"github.com/loupeapp/loupe/app"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// Addr is the loopback address to listen on (port 0 picks a free one).
	Addr string
	// WorkspaceDir and ConfigDir are the App's folders (app.Options).
	WorkspaceDir, ConfigDir string
	// SaveDir is where exports are saved without a dialog; empty cancels
	// every save.
	SaveDir string
	// Assets is the built frontend.
	Assets fs.FS
	// AllowOrigins are the other loopback origins whose pages may call
	// (with the token), as ParseOrigin returns them.
	AllowOrigins []string
	// Ready is told the address listened on and the token, once the
	// server accepts calls.
	Ready func(addr net.Addr, token string)
}

// Serve is web mode (`loupe serve`): an App over HTTP on a loopback
// address, its API key kept in memory only and its native dialogs
// replaced (opening chooses nothing, saving writes into SaveDir). The
// token is new at each call. It returns when ctx ends (nil) or the server
// fails; then the runs are canceled and the workspace closed.
func Serve(ctx context.Context, o ServeOptions) error {
	token, err := NewToken()
	if err != nil {
		return err
	}
	ln, err := Listen(o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	hub := NewHub()
	a := app.New(app.Options{WorkspaceDir: o.WorkspaceDir, ConfigDir: o.ConfigDir, Keychain: app.NewMemoryKeychain(),
		Dialogs: app.SaveInto{Dir: o.SaveDir}, Emit: hub.Publish})
	h, err := Handler(a, hub, o.Assets, Options{Token: token, AllowOrigins: o.AllowOrigins})
	if err != nil {
		_ = ln.Close()
		return err
	}
	app.Warm(a)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if o.Ready != nil {
		o.Ready(ln.Addr(), token)
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
		return err
	}
	return nil
}
