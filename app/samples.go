package app

import (
	"context"
	"path/filepath"

	"github.com/loupeapp/loupe/app/sample"
	"github.com/loupeapp/loupe/data/workspace"
)

// SampleDataset loads the bundled sample (a fictional shop's orders,
// customers and products) like opened files, with the same progress
// events and reports. Its files are written into the workspace folder
// first, since datasets are read from files.
func (a *App) SampleDataset() ([]LoadReport, error) {
	var paths []string
	err := a.s.Local.Use(func(_ context.Context, ws *workspace.Workspace) error {
		var err error
		paths, err = sample.WriteTo(filepath.Join(ws.Engine.Dir(), "sample"))
		return err
	})
	if err != nil {
		return nil, wrap(err)
	}
	return a.OpenFiles(paths)
}

// SampleQuestions returns example questions for the sample dataset.
func (a *App) SampleQuestions() ([]string, error) {
	return append([]string{}, sample.Questions...), nil
}
