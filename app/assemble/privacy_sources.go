package assemble

import (
	"context"
	"fmt"

	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
)

// WorkspacePrivate is the workspace's private columns: proposed from each
// dataset's column names and catalog samples, changed by the user's marks
// kept in the workspace folder.
type WorkspacePrivate struct{ WS *workspace.Workspace }

var _ Private = WorkspacePrivate{}

// Columns resolves every column of every dataset.
func (w WorkspacePrivate) Columns(ctx context.Context) ([]privacy.Column, error) {
	ds, err := w.WS.Datasets(ctx)
	if err != nil {
		return nil, err
	}
	m, err := privacy.LoadMarks(w.WS.Engine.Dir())
	if err != nil {
		return nil, err
	}
	return privacy.Resolve(DatasetTables(ds), m), nil
}

// PrivateColumns lists the private ones.
func (w WorkspacePrivate) PrivateColumns(ctx context.Context) ([]privacy.Column, error) {
	cs, err := w.Columns(ctx)
	return privacy.PrivateOnly(cs), err
}

// PrivateValues reads c's distinct values through the guarded runner.
func (w WorkspacePrivate) PrivateValues(ctx context.Context, c privacy.Column, limit int) ([]string, error) {
	col := duck.QuoteIdent(c.Column)
	q := fmt.Sprintf("SELECT DISTINCT CAST(%s AS VARCHAR) FROM %s WHERE %s IS NOT NULL LIMIT %d", col, duck.QuoteIdent(c.Table), col, limit)
	res, err := w.WS.Query.Run(ctx, q, query.Limits{Timeout: privateTimeout, MaxRows: limit, MaxBytes: 64 << 20})
	if err != nil {
		return nil, err
	}
	return texts(res), nil
}

// DatasetTables is what privacy.Resolve reads of datasets: column names
// and the catalog's samples, frequent values and extremes.
func DatasetTables(ds []catalog.Dataset) []privacy.Table {
	out := make([]privacy.Table, 0, len(ds))
	for _, d := range ds {
		t := privacy.Table{Name: d.Name}
		for _, c := range d.Columns {
			sc := privacy.SampledColumn{Name: c.Name, Sample: append([]string(nil), c.Samples...)}
			for _, v := range c.Top {
				sc.Sample = append(sc.Sample, v.Value)
			}
			for _, v := range []*string{c.Min, c.Max} {
				if v != nil {
					sc.Sample = append(sc.Sample, *v)
				}
			}
			t.Columns = append(t.Columns, sc)
		}
		out = append(out, t)
	}
	return out
}

func texts(res *query.Result) []string {
	out := make([]string, 0, len(res.Rows))
	for _, r := range res.Rows {
		if len(r) == 0 || r[0] == nil {
			continue
		}
		out = append(out, fmt.Sprint(r[0]))
	}
	return out
}

// RemotePrivate is a connection's private columns: proposed from column
// names, changed by the user's marks kept in its cache folder.
type RemotePrivate struct {
	R   *retrieve.Remote
	Dir string // the connection's cache folder
}

var (
	_ Private     = RemotePrivate{}
	_ mysqlSource = RemotePrivate{}
)

// MySQL says whether the connection is to MySQL or MariaDB.
func (rp RemotePrivate) MySQL() bool {
	return rp.R != nil && rp.R.Source != nil && rp.R.Source.Dialect().Kind == remote.MySQL
}

// Columns resolves every column of every table: by name, and by the
// values of a sample (Remote.TextSamples; a table that cannot be read is
// judged by names).
func (rp RemotePrivate) Columns(ctx context.Context) ([]privacy.Column, error) {
	var m privacy.Marks
	if rp.Dir != "" {
		var err error
		if m, err = privacy.LoadMarks(rp.Dir); err != nil {
			return nil, err
		}
	}
	samples := rp.R.TextSamples(ctx)
	var ts []privacy.Table
	for i := range rp.R.Schema.Tables {
		t := &rp.R.Schema.Tables[i]
		name := rp.R.TableName(t)
		pt := privacy.Table{Name: name}
		for _, c := range t.Columns {
			pt.Columns = append(pt.Columns, privacy.SampledColumn{Name: c.Name, Sample: samples[name][c.Name]})
		}
		ts = append(ts, pt)
	}
	return privacy.Resolve(ts, m), nil
}

// PrivateColumns lists the private ones.
func (rp RemotePrivate) PrivateColumns(ctx context.Context) ([]privacy.Column, error) {
	cs, err := rp.Columns(ctx)
	return privacy.PrivateOnly(cs), err
}

// PrivateValues reads the values of c's first limit rows on the server.
func (rp RemotePrivate) PrivateValues(ctx context.Context, c privacy.Column, limit int) ([]string, error) {
	t, ok := rp.R.Table(c.Table)
	if !ok {
		return nil, nil // a mark on a table the database no longer has
	}
	table := rp.R.QuotedTable(t)
	col := rp.R.Quote(c.Column)
	// No DISTINCT: on a large table the server would read it all to
	// dedupe; the first rows stream, and repeats are dropped here.
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s IS NOT NULL LIMIT %d", col, table, col, limit)
	res, err := rp.R.Source.Query(ctx, q, remote.Defaults(query.Limits{Timeout: privateTimeout, MaxRows: limit, MaxBytes: 64 << 20}))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, v := range texts(res) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}
