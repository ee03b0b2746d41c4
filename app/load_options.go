package app

import (
	"path/filepath"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
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
	ls, err := a.s.OpenFiles(paths, o.load(), a.loadProgress)
	for _, l := range ls {
		if l.Err == nil {
			if abs, err := filepath.Abs(l.File); err == nil {
				a.recent.Add(abs)
			}
		}
	}
	return loadReports(ls), wrap(err)
}

// ReloadDataset loads the file of the text dataset name again with the
// import options o (kept for its later refreshes), with load:progress
// events, and returns it as loaded. Errors: not_found, invalid for a
// dataset that is not a CSV or TSV file or for options that are not
// valid (the message says which), and the load's own.
func (a *App) ReloadDataset(name string, o TextOptions) (*Dataset, error) {
	d, err := a.s.ReloadText(name, o.load(), a.loadProgress)
	if err != nil || d == nil {
		return nil, wrap(err)
	}
	dto := datasetDTO(*d)
	return &dto, nil
}
