package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// TextOptions are the import options of a CSV or TSV file, where the user
// says what detection would guess: the delimiter (one character, "\t" for
// tab), the decimal separator ("," or "."), whether the first row is a
// header ("yes" or "no"), the encoding ("utf-8", "latin-1", "utf-16") and
// the lines to skip before the header. Empty fields are detected.
type TextOptions struct {
	Delimiter string `json:"delimiter"`
	Decimal   string `json:"decimal"`
	Header    string `json:"header"`
	Encoding  string `json:"encoding"`
	SkipRows  int    `json:"skipRows"`
}

func (o TextOptions) load() load.TextOptions {
	return load.TextOptions{Delimiter: o.Delimiter, Decimal: o.Decimal, Header: o.Header, Encoding: o.Encoding, SkipRows: o.SkipRows}
}

func textOptionsDTO(t *catalog.TextOptions) *TextOptions {
	if t == nil {
		return nil
	}
	return &TextOptions{Delimiter: t.Delimiter, Decimal: t.Decimal, Header: t.Header, Encoding: t.Encoding, SkipRows: t.SkipRows}
}

// OpenFilesWith loads each file as OpenFiles does, reading text files
// with the import options o. A file the options do not fit (a Parquet
// file, a bad delimiter) fails with a report that says why.
func (a *App) OpenFilesWith(paths []string, o TextOptions) ([]LoadReport, error) {
	out := make([]LoadReport, 0, len(paths))
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		for _, p := range paths {
			r := LoadReport{File: p}
			ds, err := a.loadCancellable(ctx, ws, p, o.load())
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r.Error = AsError(err)
			} else {
				r.Datasets = datasetDTOs(ds)
				if abs, err := filepath.Abs(p); err == nil {
					a.recent.Add(abs)
				}
			}
			out = append(out, r)
		}
		a.s.Local.Changed(ctx, ws)
		return nil
	})
	return out, wrap(err)
}

// ReloadDataset loads the file of the text dataset name again with the
// import options o (kept for its later refreshes), with load:progress
// events, and returns it as loaded. Errors: not_found, invalid for a
// dataset that is not a CSV or TSV file or for options that are not
// valid (the message says which), and the load's own.
func (a *App) ReloadDataset(name string, o TextOptions) (*Dataset, error) {
	var out *Dataset
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		d, err := dataset(ctx, ws, name)
		if err != nil {
			return err
		}
		if d.Kind != string(load.CSV) && d.Kind != string(load.TSV) {
			return newError(CodeInvalid, fmt.Sprintf("%s is not a CSV or TSV file: import options do not apply to it.", name),
				"Use Refresh to load it again.")
		}
		ds, err := a.loadFile(ctx, ws, d.Source, o.load())
		if err != nil {
			return err
		}
		a.s.Local.Changed(ctx, ws)
		for _, x := range ds {
			if x.Name == name || len(ds) == 1 {
				dto := datasetDTO(x)
				out = &dto
			}
		}
		return nil
	})
	return out, wrap(err)
}

// storedText is the import options a dataset was loaded with (none for
// detected ones), for its refresh.
func storedText(d catalog.Dataset) load.TextOptions {
	if d.Text == nil {
		return load.TextOptions{}
	}
	return *d.Text
}
