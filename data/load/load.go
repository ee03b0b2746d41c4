// Package load turns the user's files into workspace datasets: one table
// (or view) per file, per Excel sheet, or per table of a database file,
// each recorded in the catalog with its statistics. A load is all or
// nothing: a failure leaves the workspace as it was.
package load

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// Progress reports a running load. Percent is -1 when unknown.
type Progress struct {
	File    string  `json:"file"`
	Table   string  `json:"table,omitempty"`
	Phase   string  `json:"phase"` // "reading", "profiling", "done"
	Percent float64 `json:"percent"`
	Rows    uint64  `json:"rows"`
	Bytes   int64   `json:"bytes"`
	Total   int64   `json:"total_bytes"`
}

// Options tune one load.
type Options struct {
	// Progress, if set, is called from the loading goroutine and from a
	// watcher goroutine; it must be quick and safe for concurrent use.
	Progress func(Progress)
	// ProfileBudget bounds the time spent on each dataset's statistics;
	// the columns not reached in it are left without statistics, with a
	// warning. 0 means catalog.DefaultBudget.
	ProfileBudget time.Duration
	// Text are the import options of a CSV or TSV file; zero detects
	// everything. Other formats refuse options that are set.
	Text TextOptions
}

// Loader loads files into a workspace engine.
type Loader struct {
	eng *duck.Engine
	log *slog.Logger
}

// New returns a loader for eng; eng must outlive it.
func New(eng *duck.Engine) *Loader {
	return &Loader{eng: eng, log: slog.Default().With("subsystem", "load")}
}

// source is a file being loaded, with what detection found.
type source struct {
	path string // absolute
	info os.FileInfo
	kind kind
	opt  Options
	// clean is set when a text file loaded without retries or warnings:
	// a small one is then kept as a view (see keepAsView).
	clean bool
	// published is set when the datasets were put in place by the
	// loader itself (see loadPlainView), not left to Loader.publish.
	published bool
}

func (s *source) report(p Progress) {
	if s.opt.Progress != nil {
		p.File = s.path
		p.Table = finalName(p.Table)
		if p.Total == 0 {
			p.Total = s.info.Size()
		}
		s.opt.Progress(p)
	}
}

// Load loads one file and returns the datasets it produced. Errors are
// *FileError for problems with the file itself (with a hint), ctx.Err()
// when cancelled, or an infrastructure error.
//
// A load is one change to the workspace: its tables and views are made
// under staging names and committed, profiled (statistics need committed
// data), then renamed into place with their catalog records in a second
// transaction. A failure or a cancel at any stage, the profile included,
// drops the staging objects, so the datasets stay as they were; a process
// killed in between leaves staging objects that the next open sweeps (see
// Sweep). A small plain CSV or TSV takes one transaction instead: its
// view over a private copy is made, profiled and put in place at once
// (see loadPlainView). Cancelling interrupts the DuckDB statement
// running.
func (l *Loader) Load(ctx context.Context, path string, opt Options) ([]catalog.Dataset, error) {
	start := time.Now()
	src, err := open(path)
	if err != nil {
		return nil, err
	}
	if !opt.Text.IsZero() {
		if opt.Text, err = ValidText(src.path, opt.Text); err != nil {
			return nil, err
		}
		if f := src.kind.format; f != CSV && f != TSV {
			return nil, fileErr(src.path, "import options apply to delimited text files (CSV, TSV), not to "+string(f)+" files",
				"load it without the options", nil)
		}
	}
	src.opt = opt
	var out []catalog.Dataset
	switch src.kind.format {
	case CSV, TSV, JSON:
		out, err = l.loadText(ctx, src)
	case Parquet:
		out, err = l.loadParquet(ctx, src)
	case XLSX:
		out, err = l.loadXLSX(ctx, src)
	case SQLite:
		out, err = l.loadSQLite(ctx, src)
	case DuckDB:
		out, err = l.loadDuckDB(ctx, src)
	default:
		err = fileErr(src.path, "unknown format", "open a CSV, TSV, JSON, Parquet, Excel (.xlsx), DuckDB or SQLite file", ErrUnsupported)
	}
	if err != nil {
		l.discard(out)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, l.memErr(src, err)
	}
	if !src.published {
		if err := l.publish(ctx, src, out); err != nil {
			l.discard(out)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, l.memErr(src, err)
		}
	}
	l.log.Info("loaded", "file", src.path, "datasets", len(out), "elapsed", time.Since(start))
	src.report(Progress{Phase: "done", Percent: 100, Bytes: src.info.Size()})
	return out, nil
}

// memErr turns DuckDB failing at the workspace's memory limit into a
// FileError that says so and what to do; other errors pass unchanged.
func (l *Loader) memErr(src *source, err error) error {
	if !duck.IsOutOfMemory(err) {
		return err
	}
	return fileErr(src.path, "loading it needs more memory than the workspace allows (DuckDB's memory limit is "+l.eng.Limits().Memory+"; very wide files need the most)",
		"set "+duck.EnvMemory+" to a larger size (for example 8GB) if the machine has it, or split the file into files with fewer columns", err)
}

// open checks the path and detects the format, turning OS errors into
// FileErrors that say what to do.
func open(path string) (*source, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fileErr(path, "the path is not valid", "check the file name", err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, osErr(abs, err)
	}
	if info.IsDir() {
		return nil, fileErr(abs, "this is a folder, not a file", "open the data files inside it", nil)
	}
	if !info.Mode().IsRegular() {
		return nil, fileErr(abs, "this is not a regular file (a device, pipe or socket)", "save the data to a file first", nil)
	}
	if info.Size() == 0 {
		return nil, fileErr(abs, "the file is empty (0 bytes)", "check that it was saved or downloaded completely", nil)
	}
	head, err := readHead(abs)
	if err != nil {
		return nil, osErr(abs, err)
	}
	k, ferr := detect(abs, head)
	if ferr != nil {
		return nil, ferr
	}
	return &source{path: abs, info: info, kind: k}, nil
}

func osErr(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileErr(path, "no such file", "check the path and the file name", err)
	case errors.Is(err, fs.ErrPermission):
		return fileErr(path, "permission denied", "make the file readable by your user (for example chmod u+r) or copy it to a folder you own", err)
	case errors.Is(err, syscall.EISDIR):
		return fileErr(path, "this is a folder, not a file", "open the data files inside it", err)
	}
	return fileErr(path, "cannot read the file", "check the disk and the path", err)
}

// commit runs fn in one transaction on a dedicated connection and commits,
// or rolls back on any error so that no half-made table is left.
func (l *Loader) commit(ctx context.Context, fn func(c *duckdb.Conn) error) error {
	return l.eng.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
			return fmt.Errorf("begin load: %w", err)
		}
		if err := fn(c); err != nil {
			_ = duck.Exec(context.Background(), c, "ROLLBACK")
			return err
		}
		if err := duck.Exec(ctx, c, "COMMIT"); err != nil {
			_ = duck.Exec(context.Background(), c, "ROLLBACK")
			return fmt.Errorf("commit load: %w", err)
		}
		return nil
	})
}

// replaceObject drops whatever table or view holds name, so a reload can
// recreate it (in the caller's transaction).
func replaceObject(ctx context.Context, c *duckdb.Conn, name string) error {
	q := duck.QuoteIdent(name)
	for _, s := range []string{"DROP VIEW IF EXISTS " + q, "DROP TABLE IF EXISTS " + q} {
		if err := duck.Exec(ctx, c, s); err != nil {
			// DROP VIEW on a table (or the reverse) is an error in DuckDB.
			if !strings.Contains(err.Error(), "trying to drop") && !strings.Contains(err.Error(), "is of type") {
				return fmt.Errorf("replace %s: %w", name, err)
			}
		}
	}
	return nil
}

// restart rolls back c's failed transaction, begins a new one and drops
// name again, so a load can retry with other options.
func restart(ctx context.Context, c *duckdb.Conn, name string) error {
	if err := duck.Exec(ctx, c, "ROLLBACK"); err != nil {
		return fmt.Errorf("roll back failed attempt: %w", err)
	}
	if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
		return fmt.Errorf("begin load: %w", err)
	}
	return replaceObject(ctx, c, name)
}

// finish describes the new table or view in c's transaction: its columns
// (cleaned of control characters, see cleanColumns) and row count,
// keeping the comments a loader put in d.Columns beforehand. The record
// is written when the load publishes it (see Loader.publish).
func finish(ctx context.Context, c *duckdb.Conn, src *source, d *catalog.Dataset, started time.Time) error {
	warn, cols, err := cleanColumns(ctx, c, d)
	if err != nil {
		return err
	}
	if warn != "" {
		d.Warnings = append(d.Warnings, warn)
	}
	_ = each(ctx, c, "SELECT count(*) FROM "+duck.QuoteIdent(d.Name), func(v []any) { d.Rows = toInt(v[0]) })
	catalog.KeepColumnText(d.Columns, cols) // comments the loader read from the source
	d.Columns = cols
	stamp(src, d, started)
	return nil
}

// stamp records on d, described, where it came from and what its load
// took, with the warnings that concern the file or an empty result.
func stamp(src *source, d *catalog.Dataset, started time.Time) {
	d.Source = src.path
	d.SizeBytes = src.info.Size()
	d.ModTime = src.info.ModTime().UTC()
	d.LoadedAt = time.Now().UTC()
	d.LoadMS = float64(time.Since(started).Microseconds()) / 1000
	if src.kind.warning != "" {
		d.Warnings = append([]string{src.kind.warning}, d.Warnings...)
	}
	if d.Rows == 0 {
		d.Warnings = append(d.Warnings, "the table has no rows (only a header or an empty sheet)")
	}
}

// publish profiles the committed staging objects of ds (within the load's
// budget, interrupted when ctx ends), then, in one transaction, puts each
// in place of the dataset of its name and records it with its statistics.
// On return without error ds hold the datasets' names.
func (l *Loader) publish(ctx context.Context, src *source, ds []catalog.Dataset) error {
	return l.eng.Write(ctx, func(c *duckdb.Conn) error {
		for i := range ds {
			d := &ds[i]
			src.report(Progress{Table: d.Name, Phase: "profiling", Percent: -1})
			l.log.Debug("profiling", "dataset", finalName(d.Name), "columns", len(d.Columns), "rows", d.Rows)
			r, err := profileDataset(ctx, c, *d, src.opt.ProfileBudget)
			if err != nil {
				return fmt.Errorf("profile %s: %w", finalName(d.Name), err)
			}
			profiled(d, r)
		}
		if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
			return fmt.Errorf("begin load: %w", err)
		}
		if len(ds) == 1 && src.clean {
			if err := l.keepAsView(ctx, c, src, &ds[0]); err != nil {
				_ = duck.Exec(context.Background(), c, "ROLLBACK")
				return err
			}
		}
		replaced, err := putInPlace(ctx, c, ds)
		if err != nil {
			_ = duck.Exec(context.Background(), c, "ROLLBACK")
			return err
		}
		if err := duck.Exec(ctx, c, "COMMIT"); err != nil {
			_ = duck.Exec(context.Background(), c, "ROLLBACK")
			return fmt.Errorf("commit load: %w", err)
		}
		l.forget(c, replaced)
		return nil
	})
}

// profiled puts the statistics of r, d's profile, on d.
func profiled(d *catalog.Dataset, r catalog.Report) {
	catalog.KeepColumnText(d.Columns, r.Columns)
	d.Rows, d.Columns, d.Profiled = r.Rows, r.Columns, true
	if w := r.Warning(); w != "" {
		d.Warnings = append(d.Warnings, w)
	}
}

// forget removes, on c, the files and attached databases that only the
// datasets replaced, committed, read (see putInPlace).
func (l *Loader) forget(c *duckdb.Conn, replaced []catalog.Dataset) {
	for _, old := range replaced {
		dropCopy(l.eng.ImportDir(), old)
		l.dropSideOn(context.Background(), c, old)
		l.dropReaderOn(c, old)
	}
}

// putInPlace renames each staging object of ds to its dataset's name,
// replacing what held it, and records it (keeping the user's notes of
// an earlier load of the same source), in c's transaction. It returns
// the records it replaced whose staged files the new ones do not read.
func putInPlace(ctx context.Context, c *duckdb.Conn, ds []catalog.Dataset) ([]catalog.Dataset, error) {
	var replaced []catalog.Dataset
	for i := range ds {
		d := &ds[i]
		stage, final := d.Name, finalName(d.Name)
		old, err := catalog.GetOn(ctx, c, final)
		found := err == nil
		if err != nil && !errors.Is(err, catalog.ErrNotFound) {
			return nil, err
		}
		if found && old.Staged != d.Staged {
			replaced = append(replaced, old)
		}
		if err := replaceObject(ctx, c, final); err != nil {
			return nil, err
		}
		kind := "TABLE"
		if d.Storage == "view" {
			kind = "VIEW"
		}
		if err := duck.Exec(ctx, c, "ALTER "+kind+" "+duck.QuoteIdent(stage)+" RENAME TO "+duck.QuoteIdent(final)); err != nil {
			return nil, fmt.Errorf("put %s in place: %w", final, err)
		}
		d.Name = final
		if found {
			if old.Source == d.Source && old.Part == d.Part {
				catalog.CarryNotes(old, d) // a reload keeps the user's notes
			}
			// Deleted, then inserted: replacing a large record in place
			// costs DuckDB several copies of it (see catalog.Put).
			if err := catalog.Delete(ctx, c, final); err != nil {
				return nil, err
			}
		}
		if err := catalog.Insert(ctx, c, *d); err != nil {
			return nil, err
		}
	}
	return replaced, nil
}

// discard drops the staging objects of a load that did not complete. It
// runs to the end whatever the load's context: it is a few catalog
// changes.
func (l *Loader) discard(ds []catalog.Dataset) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := l.eng.Write(ctx, func(c *duckdb.Conn) error {
		for _, d := range ds {
			if !strings.HasPrefix(d.Name, stagePrefix) {
				continue
			}
			if err := replaceObject(ctx, c, d.Name); err != nil {
				return err
			}
			dropCopy(l.eng.ImportDir(), d)
			l.dropSideOn(ctx, c, d)
			l.dropReaderOn(c, d)
		}
		return nil
	})
	if err != nil {
		l.log.Error("drop the staging tables of a failed load", "err", err)
	}
}

// Sweep drops the staging tables and views a load killed before it
// published left behind (see Load), and then the readers no dataset
// reads through (see viewOver). The workspace calls it at open, on its
// loading connection.
func Sweep(ctx context.Context, c *duckdb.Conn) error {
	var names []string
	q := "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND starts_with(table_name, " + duck.QuoteString(stagePrefix) + ")" +
		" UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND starts_with(view_name, " + duck.QuoteString(stagePrefix) + ")"
	if err := each(ctx, c, q, func(v []any) { names = append(names, fmt.Sprint(v[0])) }); err != nil {
		return fmt.Errorf("find the staging tables of interrupted loads: %w", err)
	}
	for _, n := range names {
		if err := replaceObject(ctx, c, n); err != nil {
			return err
		}
	}
	if len(names) == 0 {
		return nil
	}
	return catalog.SweepReaders(ctx, c)
}
