package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/workspace"
)

// runLoupe loads the generated wide CSV with Loupe's own loader into a
// fresh workspace (the wide layout for a plain file over 5,000 columns,
// see data/load's wide.go), reopens the workspace, and times the queries
// the agent and the console run on it (a few columns, COUNT(*), the
// profile as the catalog holds it), printing the peak and current
// resident memory after each step.
func runLoupe(cols, rows int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "widemeasure")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "wide.csv")
	if err := os.WriteFile(path, wide(cols, rows), 0o600); err != nil {
		return err
	}
	s := newSteps()
	ws := filepath.Join(dir, "ws")
	w, err := workspace.Open(ctx, ws)
	if err != nil {
		return err
	}
	s.done("open")
	ds, err := w.Loader.Load(ctx, path, load.Options{})
	if err != nil {
		w.Close()
		return err
	}
	d := ds[0]
	s.done(fmt.Sprintf("load (%s, %d columns)", d.Storage, len(d.Columns)))
	if err := w.Close(); err != nil {
		return err
	}
	w, err = workspace.Open(ctx, ws)
	if err != nil {
		return err
	}
	defer w.Close()
	s.done("reopen")
	for _, q := range []string{
		fmt.Sprintf("SELECT c0, c%d, c%d FROM %s", cols/2, cols-1, d.Name),
		"SELECT count(*) FROM " + d.Name,
		fmt.Sprintf("SELECT c0, c%d FROM %s", cols-1, d.Name),
	} {
		if _, err := w.Query.Run(ctx, q, query.Limits{}); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		s.done(fmt.Sprintf("query %.24s", q))
	}
	start := time.Now()
	got, err := catalog.Get(ctx, w.Engine.DB(), d.Name)
	if err != nil {
		return err
	}
	s.done(fmt.Sprintf("profile record (%d columns, %s)", len(got.Columns), time.Since(start).Round(time.Millisecond)))
	return nil
}
