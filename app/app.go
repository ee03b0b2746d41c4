// Package app is the Wails-bound façade of Loupe: the exported methods of App
// are what the frontend can call (through the bindings generated in
// frontend/wailsjs, or over HTTP in web mode, see app/web). It translates:
// DTOs, error codes (session.Error) and event batching; asking, recording,
// replaying, reports, the runs in flight and the connections are the
// session layer's (app/session), which the CLI uses too.
//
// Every exported method except the two lifecycle hooks is bound, so
// anything tests or the web server need beyond the frontend's API goes
// through Options, never through an exported method.
package app

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/loupeapp/loupe/app/buildinfo"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/app/status"
	"github.com/loupeapp/loupe/data/results"
)

// Options configure an App. The zero value is the desktop app's setup.
type Options struct {
	// WorkspaceDir is the workspace folder; empty means
	// workspace.DefaultDir ($LOUPE_WORKSPACE or the user data folder).
	WorkspaceDir string
	// ConfigDir holds settings.json and recent.json; empty means
	// DefaultConfigDir ($LOUPE_CONFIG_DIR or the user config folder).
	ConfigDir string
	// Keychain keeps the API key; nil means OSKeychain (data/secret).
	Keychain Keychain
	// Dialogs are the native dialogs; nil means the window's (none when
	// there is no window: choosing files gives nothing, saving is canceled).
	Dialogs Dialogs
	// Emit, when set, receives every event the frontend receives (web
	// mode's event stream, tests). It must not block.
	Emit func(name string, data any)
	// Getenv reads the environment for settings' defaults and the API key's
	// fallback; nil means os.Getenv.
	Getenv func(string) string
	// DockerHost is the Docker daemon the status probes; empty means
	// $DOCKER_HOST, else the platform's default socket.
	DockerHost string
	// Logger receives the app's logs; nil means slog.Default().
	Logger *slog.Logger
}

// App is the object bound to the window. Create it with New, pass Startup and
// Shutdown as the Wails OnStartup and OnShutdown hooks (Wails does not bind
// methods passed as hooks, so the frontend cannot call them), and bind the
// App itself.
type App struct {
	opts Options
	log  *slog.Logger

	// life is the app's lifetime: every run, load and query derives its
	// context from it, so Shutdown cancels them all.
	life context.Context
	stop context.CancelFunc
	bg   *session.Background // the work Shutdown waits for

	mu    sync.Mutex
	wails context.Context // the Wails context between Startup and Shutdown, else nil

	s        *session.Session // the workspace, conversations, runs and connections
	settings *config.Store
	choices  *config.Choices // the privacy level chosen per model server
	recent   *config.Recent
	status   status.Cache
}

// New returns an App ready to be bound. It does no I/O: the workspace opens
// in the background after Startup (or on first use).
func New(o Options) *App {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Keychain == nil {
		o.Keychain = config.UserKeychain()
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	life, stop := context.WithCancel(context.Background())
	a := &App{opts: o, log: log.With("subsystem", "app"), life: life, stop: stop, bg: session.NewBackground(life)}
	runs := session.NewRuns()
	local := session.NewLocal(life, o.WorkspaceDir, a.configDir, a.log)
	local.Embedding, local.OnChange = a.embedding, a.datasetsChanged
	conns := session.NewConnections(session.NewPool(), a.configDir, o.Keychain, a.log)
	conns.Explain = connError
	a.s = &session.Session{Life: life, Log: a.log, Local: local, Runs: runs, Conns: conns, Results: results.New(results.Config{}),
		Chats: session.NewConversations(life, local.Dir, runs, a.log), Go: a.background}
	context.AfterFunc(life, conns.Pool.Close)
	a.settings = config.NewStore(a.configDir, o.Getenv, o.Keychain)
	a.choices, a.recent = config.NewChoices(a.configDir), config.NewRecent(a.configDir)
	if a.opts.Dialogs == nil {
		a.opts.Dialogs = windowDialogs{a}
	}
	return a
}

// Startup is the Wails OnStartup hook, called once before the page loads.
// ctx is the Wails context, which runtime calls need; it is valid until
// Shutdown. It returns at once: the workspace opens and the status is
// checked in the background, so the window is interactive without waiting
// for either.
func (a *App) Startup(ctx context.Context) {
	a.mu.Lock()
	a.wails = ctx
	a.mu.Unlock()
	Warm(a)
}

// Warm opens a's workspace and checks its status in the background. The
// window's Startup calls it; web mode calls it after New. (A function, not a
// method, so that it is not bound to the frontend.)
func Warm(a *App) {
	a.background(func(ctx context.Context) {
		if _, err := a.s.Local.Open(ctx); err != nil {
			a.log.Warn("open the workspace", "err", err)
		}
	})
	a.background(func(ctx context.Context) { a.refreshStatus(ctx) })
}

// Shutdown is the Wails OnShutdown hook, called once after the window closed
// (including on SIGINT/SIGTERM, which Wails handles). It cancels every run,
// load and query, waits briefly for them to end, and closes the workspace.
// It is safe to call without a prior Startup, and more than once.
func (a *App) Shutdown(context.Context) {
	a.stop()
	if !a.bg.Wait(3 * time.Second) {
		a.log.Warn("shutdown: background work still running after 3 s")
	}
	a.s.Local.Close()
	a.mu.Lock()
	a.wails = nil
	a.mu.Unlock()
}

// background runs fn in the background within the app's lifetime, and
// makes Shutdown wait for it (session.Background). Work started after
// Shutdown is not run.
func (a *App) background(fn func(ctx context.Context)) bool { return a.bg.Go(fn) }

// publish sends the event name with data to the frontend: the window (once
// Startup ran and until Shutdown) and Options.Emit. Callers need not know
// whether a window exists (tests and web mode have none).
func (a *App) publish(name string, data any) {
	a.mu.Lock()
	ctx := a.wails
	a.mu.Unlock()
	if ctx != nil {
		emit(ctx, name, data)
	}
	if a.opts.Emit != nil {
		a.opts.Emit(name, data)
	}
}

// windowContext is the Wails context, or nil without a window.
func (a *App) windowContext() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.wails
}

// Version returns the version of the running binary (buildinfo.Version,
// what `loupe --version` prints). It does not fail today; the error keeps
// the binding's signature stable for when it reads more than build
// metadata.
func (a *App) Version() (string, error) {
	return buildinfo.Version(), nil
}
