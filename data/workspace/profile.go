package workspace

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
)

// Bounds on the profiling Open catches up on, so that a workspace with
// many unprofiled datasets still opens promptly: at most reprofileMax
// datasets, and none started after reprofileBudget. The rest are profiled
// at later opens.
const (
	reprofileMax    = 20
	reprofileBudget = 15 * time.Second
)

// reprofile computes and records the statistics of datasets whose load
// was stopped after its commit but before profiling (see
// catalog.Dataset.NeedsProfile). It stops with ctx's error when ctx is
// cancelled. A dataset that cannot be profiled (its source file for a view
// is gone) stays unprofiled, is logged, and is retried at the next open:
// it must not keep the workspace from opening.
func reprofile(ctx context.Context, eng *duck.Engine, log *slog.Logger) error {
	ds, err := catalog.List(ctx, eng.DB())
	if err != nil {
		return err
	}
	start, done := time.Now(), 0
	for _, d := range ds {
		if !d.NeedsProfile() {
			continue
		}
		if done == reprofileMax || time.Since(start) > reprofileBudget {
			log.Info("profiling left for a later open", "dataset", d.Name)
			continue
		}
		done++
		err := eng.Write(ctx, func(c *duckdb.Conn) error { return profileOne(ctx, c, d) })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			log.Warn("dataset left without statistics", "dataset", d.Name, "source", d.Source, "err", err)
			continue
		}
		log.Info("profiled a dataset an interrupted load left without statistics", "dataset", d.Name)
	}
	return nil
}

// profileOne profiles d's table on c and records the statistics, keeping
// the notes and comments of its record.
func profileOne(ctx context.Context, c *duckdb.Conn, d catalog.Dataset) error {
	rows, cols, err := catalog.Profile(ctx, c, d.Name)
	if err != nil {
		return fmt.Errorf("profile %s: %w", d.Name, err)
	}
	if len(cols) == 0 {
		// Profile finds no columns for a table or view that is gone;
		// recording that would erase the record's columns.
		return fmt.Errorf("profile %s: no such table or view in the workspace", d.Name)
	}
	catalog.KeepColumnText(d.Columns, cols)
	d.Rows, d.Columns, d.Profiled = rows, cols, true
	return catalog.Put(ctx, c, d)
}
