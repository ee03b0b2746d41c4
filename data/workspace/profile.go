package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// reprofileMax bounds how many datasets one open profiles; the rest wait
// for a later open.
const reprofileMax = 20

// profiler computes, in the background, the statistics of datasets whose
// load was stopped after its commit but before profiling (see
// catalog.Dataset.NeedsProfile), so that no command waits for them. Each
// dataset's profile is bounded like a load's (catalog.DefaultBudget, the
// engine's memory limit). A dataset that cannot be profiled is reported
// once: the failure is recorded in its record with its fingerprint, and
// it is not tried again until the dataset changes.
type profiler struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startProfiler starts the background profile of eng's datasets.
func startProfiler(eng *duck.Engine, log *slog.Logger) *profiler {
	ctx, cancel := context.WithCancel(context.Background())
	p := &profiler{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if err := reprofile(ctx, eng, log); err != nil && ctx.Err() == nil {
			log.Error("profile datasets left without statistics", "err", err)
		}
	}()
	return p
}

// stop interrupts the background profile and waits for it to end.
func (p *profiler) stop() {
	p.cancel()
	<-p.done
}

// reprofile profiles the datasets that need it, at most reprofileMax,
// until ctx ends. Only the records not marked Profiled are read.
func reprofile(ctx context.Context, eng *duck.Engine, log *slog.Logger) error {
	ds, err := catalog.Unprofiled(ctx, eng.DB())
	if err != nil {
		return err
	}
	done := 0
	for _, d := range ds {
		if !d.NeedsProfile() || d.GaveUpProfiling() {
			continue
		}
		if done == reprofileMax {
			log.Info("profiling left for a later open", "dataset", d.Name)
			continue
		}
		done++
		err := profileOne(ctx, eng, d)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			log.Info("profiled a dataset an interrupted load left without statistics", "dataset", d.Name)
			continue
		}
		log.Warn("dataset left without statistics; not retried until it is loaded again", "dataset", d.Name, "source", d.Source, "err", err)
		if rerr := record(ctx, eng, d, func(cur *catalog.Dataset) {
			cur.ProfileFailure = &catalog.Failure{Fingerprint: cur.Fingerprint(), Error: err.Error(), At: time.Now().UTC()}
		}); rerr != nil && ctx.Err() == nil {
			log.Error("record a failed profile", "dataset", d.Name, "err", rerr)
		}
	}
	return nil
}

// errChanged means the dataset was reloaded, renamed or removed while it
// was being profiled; the result is dropped.
var errChanged = errors.New("the dataset changed while it was profiled")

// profileOne profiles d on a connection of its own, so that loads and
// queries go on meanwhile, and records the statistics, keeping the notes
// and comments of its record.
func profileOne(ctx context.Context, eng *duck.Engine, d catalog.Dataset) error {
	var r catalog.Report
	err := eng.Raw(ctx, func(c *duckdb.Conn) error {
		var err error
		r, err = catalog.ProfileWithin(ctx, c, d.Name, catalog.DefaultBudget)
		return err
	})
	if err != nil {
		return fmt.Errorf("profile %s: %w", d.Name, err)
	}
	if len(r.Columns) == 0 {
		// Profile finds no columns for a table or view that is gone;
		// recording that would erase the record's columns.
		return fmt.Errorf("profile %s: no such table or view in the workspace", d.Name)
	}
	err = record(ctx, eng, d, func(cur *catalog.Dataset) {
		catalog.KeepColumnText(cur.Columns, r.Columns)
		cur.Rows, cur.Columns, cur.Profiled = r.Rows, r.Columns, true
		if w := r.Warning(); w != "" {
			cur.Warnings = append(cur.Warnings, w)
		}
	})
	if errors.Is(err, errChanged) {
		return nil
	}
	return err
}

// record applies change to d's current record on the loading connection,
// unless the dataset changed since d was read.
func record(ctx context.Context, eng *duck.Engine, d catalog.Dataset, change func(*catalog.Dataset)) error {
	return eng.Write(ctx, func(c *duckdb.Conn) error {
		cur, err := catalog.GetOn(ctx, c, d.Name)
		if errors.Is(err, catalog.ErrNotFound) {
			return errChanged
		}
		if err != nil {
			return err
		}
		if cur.Fingerprint() != d.Fingerprint() || cur.Profiled {
			return errChanged
		}
		change(&cur)
		return catalog.Put(ctx, c, cur)
	})
}
