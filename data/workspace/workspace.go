// Package workspace ties a workspace folder's parts together: the locked
// DuckDB engine, the catalog, the loader and the query runner.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/perm"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// SandboxInputs is the folder, relative to the workspace, where the Python
// sandbox's inputs are exported (tools/python: the import folder's
// ".python"). It keeps readable modes: the container's user reads it
// through a bind mount, and the 0700 workspace folder keeps everyone
// else out.
const SandboxInputs = "import/.python"

// EnvDir names the environment variable that picks the workspace folder.
const EnvDir = "LOUPE_WORKSPACE"

// Workspace is an open workspace. Close it when done.
type Workspace struct {
	Engine *duck.Engine
	Loader *load.Loader
	Query  *query.Runner

	profiler *profiler
}

// DefaultDir is the workspace folder used when none is given: $LOUPE_WORKSPACE,
// else "workspace" in Loupe's folder under the OS user data directory
// (~/.local/share/loupe on Linux, ~/Library/Application Support/Loupe on
// macOS, %LocalAppData%\Loupe on Windows).
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	base, err := dataHome()
	if err != nil {
		return "", fmt.Errorf("find the user data folder: %w (set %s)", err, EnvDir)
	}
	return filepath.Join(base, "workspace"), nil
}

func dataHome() (string, error) {
	switch runtime.GOOS {
	case "darwin":
		d, err := os.UserConfigDir()
		return filepath.Join(d, "Loupe"), err
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "Loupe"), nil
		}
		d, err := os.UserConfigDir()
		return filepath.Join(d, "Loupe"), err
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "loupe"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "loupe"), nil
}

// Open opens the workspace in dir, creating it if needed, and starts
// profiling, in the background and within bounds, the datasets an
// interrupted load left without statistics (see profiler): no command
// waits for them.
//
// The workspace is the user's alone: its folders are 0700 and its files
// 0600 (package perm). A workspace made before that is tightened here, in
// one bounded walk (about 0.2 s for 10,000 files, 0.1 s when nothing is
// left to change), except the Python sandbox's inputs, which the
// container's own user reads through a bind mount.
func Open(ctx context.Context, dir string) (*Workspace, error) {
	log := slog.Default().With("subsystem", "workspace")
	r, err := perm.Tighten(dir, SandboxInputs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	if r.Changed > 0 || r.Failed > 0 || r.Truncated {
		log.Info("made the workspace private", "dir", dir, "report", r.String())
	}
	eng, err := duck.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	err = eng.Write(ctx, func(c *duckdb.Conn) error {
		if err := catalog.Ensure(ctx, c); err != nil {
			return err
		}
		if err := load.Sweep(ctx, c); err != nil {
			return err
		}
		n, err := load.SweepCopies(ctx, c, eng.ImportDir())
		if err != nil {
			return err
		}
		if n > 0 {
			log.Info("removed private copies no dataset reads", "files", n)
		}
		if err := remote.Sweep(ctx, c); err != nil {
			return err
		}
		attached, err := catalog.Attached(ctx, eng.DB())
		if err != nil {
			return err
		}
		if err := sweepWide(eng, attached); err != nil {
			return err
		}
		return reattach(ctx, eng, c, attached)
	})
	if err != nil {
		_ = eng.Close()
		return nil, err
	}
	w := &Workspace{Engine: eng, Loader: load.New(eng), Query: query.NewRunner(eng)}
	w.profiler = startProfiler(eng, log)
	return w, nil
}

// reattach attaches the DuckDB files of ds, the datasets that read one
// (catalog.Attached, so that an open does not decode every record);
// attachments do not outlive the process. A file that has gone missing
// leaves its datasets failing with DuckDB's error until they are
// reloaded or removed. So does a loaded DuckDB file one of whose
// datasets now reads a view that reads outside the file (load.RefusedParts:
// the file was overwritten in place, or loaded before views were checked):
// it is detached again, and a reload keeps what passes.
func reattach(ctx context.Context, eng *duck.Engine, c *duckdb.Conn, ds []catalog.Attachment) error {
	parts := map[string][]string{}
	for _, d := range ds {
		if d.Kind == "duckdb" && d.Part != "" {
			parts[d.Attach] = append(parts[d.Attach], d.Part)
		}
	}
	done := map[string]bool{}
	for _, d := range ds {
		if d.Attach == "" || done[d.Attach] {
			continue
		}
		done[d.Attach] = true
		if _, err := os.Stat(d.Staged); errors.Is(err, os.ErrNotExist) {
			continue
		}
		q := "ATTACH IF NOT EXISTS " + duck.QuoteString(d.Staged) + " AS " + duck.QuoteIdent(d.Attach) + " (READ_ONLY)"
		if _, err := eng.DB().ExecContext(ctx, q); err != nil {
			return fmt.Errorf("reattach %s: %w", d.Source, err)
		}
		if len(parts[d.Attach]) == 0 {
			continue
		}
		refused, why, err := load.RefusedParts(ctx, c, d.Attach, parts[d.Attach])
		if err != nil {
			return fmt.Errorf("reattach %s: %w", d.Source, err)
		}
		if len(refused) > 0 {
			slog.Warn("a loaded DuckDB file's view reads outside the file: its tables are unavailable until it is reloaded",
				"subsystem", "workspace", "file", d.Source, "views", refused, "why", why)
			if _, err := eng.DB().ExecContext(ctx, "DETACH DATABASE IF EXISTS "+duck.QuoteIdent(d.Attach)); err != nil {
				return fmt.Errorf("detach %s: %w", d.Source, err)
			}
		}
	}
	return nil
}

// sweepWide removes the database files of wide datasets (see
// load.SweepWide) that none of ds, the datasets that read an attached
// database, reads.
func sweepWide(eng *duck.Engine, ds []catalog.Attachment) error {
	keep := make(map[string]bool, len(ds))
	for _, d := range ds {
		keep[d.Staged] = true
	}
	return load.SweepWide(eng.ImportDir(), keep)
}

// Datasets lists the loaded datasets, decoding every record; a list to
// show uses Summaries.
func (w *Workspace) Datasets(ctx context.Context) ([]catalog.Dataset, error) {
	return catalog.List(ctx, w.Engine.DB())
}

// Summaries lists the loaded datasets' summaries (name, kind, source,
// rows, size, column count, notes and warnings) without decoding any
// record: its cost per dataset stays small however many there are.
func (w *Workspace) Summaries(ctx context.Context) ([]catalog.Summary, error) {
	return catalog.Summaries(ctx, w.Engine.DB())
}

// ProfilingDone is closed when the background profile started at Open
// has ended (see profiler).
func (w *Workspace) ProfilingDone() <-chan struct{} { return w.profiler.done }

// Close stops the background profile (interrupting DuckDB) and closes the
// workspace.
func (w *Workspace) Close() error {
	if w.profiler != nil {
		w.profiler.stop()
	}
	return w.Engine.Close()
}
