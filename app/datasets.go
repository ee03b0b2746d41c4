package app

import (
	"context"
	"time"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
)

// Event names of the data views.
const (
	EventLoadProgress    = "load:progress"
	EventDatasetsChanged = "datasets:changed"
)

// Dataset is a loaded dataset as the sidebar shows it.
type Dataset struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind"`
	Source    string          `json:"source"`
	Part      string          `json:"part,omitempty"`
	Rows      int64           `json:"rows"`
	Columns   []DatasetColumn `json:"columns"`
	SizeBytes int64           `json:"sizeBytes"`
	LoadedAt  time.Time       `json:"loadedAt"`
	Warnings  []string        `json:"warnings"`
	Storage   string          `json:"storage"`
	// Note is the user's note on the dataset; Comment the source's own
	// comment (a DuckDB file's COMMENT ON), shown when there is no note.
	Note    string `json:"note,omitempty"`
	Comment string `json:"comment,omitempty"`
	// Text is the import options a text file was loaded with; absent
	// when everything was detected.
	Text *TextOptions `json:"text,omitempty"`
}

// DatasetSummary is a dataset as a list of thousands shows it: read
// without decoding its record (catalog.Summary); ColumnCount says how many
// columns the whole record (Dataset) has.
type DatasetSummary struct {
	Name        string    `json:"name"`
	Kind        string    `json:"kind"`
	Source      string    `json:"source"`
	Part        string    `json:"part,omitempty"`
	Rows        int64     `json:"rows"`
	ColumnCount int       `json:"columnCount"`
	SizeBytes   int64     `json:"sizeBytes"`
	LoadedAt    time.Time `json:"loadedAt"`
	Warnings    []string  `json:"warnings"`
	Storage     string    `json:"storage"`
	Note        string    `json:"note,omitempty"`
	Comment     string    `json:"comment,omitempty"`
}

func summaryDTOs(ss []catalog.Summary) []DatasetSummary {
	out := make([]DatasetSummary, len(ss))
	for i, s := range ss {
		out[i] = DatasetSummary{Name: s.Name, Kind: s.Kind, Source: s.Source, Part: s.Part, Rows: s.Rows, ColumnCount: s.Columns,
			SizeBytes: s.SizeBytes, LoadedAt: s.LoadedAt, Warnings: append([]string{}, s.Warnings...), Storage: s.Storage, Note: s.Note, Comment: s.Comment}
	}
	return out
}

// DatasetColumn is a column and the statistics computed at load.
type DatasetColumn struct {
	Name     string     `json:"name"`
	Type     string     `json:"type"`
	Nulls    int64      `json:"nulls"`
	Distinct int64      `json:"distinct"`
	Min      *string    `json:"min,omitempty"`
	Max      *string    `json:"max,omitempty"`
	Top      []TopValue `json:"top,omitempty"`
	Note     string     `json:"note,omitempty"`
	Comment  string     `json:"comment,omitempty"`
}

// TopValue is a frequent value and its count.
type TopValue struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}

func datasetDTO(d catalog.Dataset) Dataset {
	out := Dataset{Name: d.Name, Kind: d.Kind, Source: d.Source, Part: d.Part, Rows: d.Rows,
		SizeBytes: d.SizeBytes, LoadedAt: d.LoadedAt, Storage: d.Storage, Note: d.Note, Comment: d.Comment,
		Columns: make([]DatasetColumn, len(d.Columns)), Warnings: append([]string{}, d.Warnings...), Text: textOptionsDTO(d.Text)}
	for i, c := range d.Columns {
		col := DatasetColumn{Name: c.Name, Type: c.Type, Nulls: c.Nulls, Distinct: c.Distinct, Min: c.Min, Max: c.Max, Note: c.Note, Comment: c.Comment}
		for _, t := range c.Top {
			col.Top = append(col.Top, TopValue{Value: t.Value, Count: t.Count})
		}
		out.Columns[i] = col
	}
	return out
}

func datasetDTOs(ds []catalog.Dataset) []Dataset {
	out := make([]Dataset, len(ds))
	for i, d := range ds {
		out[i] = datasetDTO(d)
	}
	return out
}

// ListDatasets returns the loaded datasets' summaries, by name, without
// decoding their records: a workspace of thousands lists in milliseconds.
// GetDataset returns one whole, with its columns.
func (a *App) ListDatasets() ([]DatasetSummary, error) {
	ss, err := a.s.Summaries()
	return summaryDTOs(ss), wrap(err)
}

// GetDataset returns the dataset called name with its columns and their
// statistics; an unknown name is a not_found Error.
func (a *App) GetDataset(name string) (*Dataset, error) {
	d, err := a.s.GetDataset(name)
	if err != nil {
		return nil, wrap(err)
	}
	dto := datasetDTO(d)
	return &dto, nil
}

// datasetsChanged tells the frontend the list changed, with the new
// list's summaries (session.Local.OnChange; no record decoded).
func (a *App) datasetsChanged(_ context.Context, ss []catalog.Summary) {
	a.publish(EventDatasetsChanged, summaryDTOs(ss))
}

// dataset returns the catalog record of name, or a not_found Error
// (session.Dataset).
func dataset(ctx context.Context, ws *workspace.Workspace, name string) (catalog.Dataset, error) {
	return session.Dataset(ctx, ws, name)
}

// RenameDataset renames a dataset (its table or view and its record).
// newName must be a plain identifier not taken by another dataset.
func (a *App) RenameDataset(name, newName string) error {
	return wrap(a.s.Rename(name, newName))
}

// RemoveDataset removes a dataset from the workspace; the user's file is
// not touched.
func (a *App) RemoveDataset(name string) error {
	return wrap(a.s.Remove(name))
}

// RefreshDataset loads a dataset's file again (keeping its name), with
// load:progress events; a dataset imported from a connection runs its
// query there again, with import:progress events (session.Refresh).
func (a *App) RefreshDataset(name string) error {
	conn, err := a.s.Refresh(name, a.loadProgress, func(conn string, rowLimit int) func(remote.ImportProgress) {
		return a.importProgress(conn, name, rowLimit)
	})
	if conn != "" && err != nil {
		return wrap(importError(err, conn, name))
	}
	return wrap(err)
}

// PreviewDataset returns the first rows of a dataset, through the guard.
func (a *App) PreviewDataset(name string) (*QueryResult, error) {
	var out *QueryResult
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		var err error
		out, err = queryResult(a.s.PreviewDataset(ctx, ws, name))
		return err
	})
	return out, wrap(err)
}

// ProfileDataset profiles every column of a dataset: the profile_data
// tool's display payload (kind "profile"; session.ProfileDataset).
func (a *App) ProfileDataset(name string) (*tools.Display, error) {
	var out *tools.Display
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) (err error) {
		out, err = session.ProfileDataset(ctx, ws, name)
		return err
	})
	return out, wrap(err)
}

// wrap turns err into an *Error (nil stays nil), so that every bound
// method fails with one.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	return AsError(err)
}
