package assemble

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

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
	R   *Remote
	Dir string // the connection's cache folder
}

var _ Private = RemotePrivate{}

// Columns resolves every column of every table: by name, and by the
// values of a sample (RemoteSampleRows rows of the text columns of at most
// RemoteSampleTables tables, read once per open connection, within
// remoteSampleTime; a table that cannot be read is judged by names).
func (rp RemotePrivate) Columns(ctx context.Context) ([]privacy.Column, error) {
	var m privacy.Marks
	if rp.Dir != "" {
		var err error
		if m, err = privacy.LoadMarks(rp.Dir); err != nil {
			return nil, err
		}
	}
	samples := rp.sample(ctx)
	var ts []privacy.Table
	for i := range rp.R.Schema.Tables {
		t := &rp.R.Schema.Tables[i]
		name := rp.R.tableName(t)
		pt := privacy.Table{Name: name}
		for _, c := range t.Columns {
			pt.Columns = append(pt.Columns, privacy.SampledColumn{Name: c.Name, Sample: samples[name][c.Name]})
		}
		ts = append(ts, pt)
	}
	return privacy.Resolve(ts, m), nil
}

// Bounds of the value sample of a connection's tables.
const (
	RemoteSampleTables = 200
	RemoteSampleRows   = 20
	remoteSampleTime   = 5 * time.Second
)

// sample returns the sampled values of the connection's text columns,
// reading the tables not sampled yet (within the bounds).
func (rp RemotePrivate) sample(ctx context.Context) map[string]map[string][]string {
	r := rp.R
	r.samplesMu.Lock()
	defer r.samplesMu.Unlock()
	if r.samples == nil {
		r.samples = map[string]map[string][]string{}
	} else {
		return r.samples // sampled once per open connection
	}
	if r.Source == nil {
		return r.samples
	}
	ctx, cancel := context.WithTimeout(ctx, remoteSampleTime)
	defer cancel()
	d := r.Source.Dialect()
	n := 0
	for i := range r.Schema.Tables {
		if n == RemoteSampleTables || ctx.Err() != nil {
			break
		}
		t := &r.Schema.Tables[i]
		var cols []string
		for _, c := range t.Columns {
			if isTextType(c.Type) && privacy.KindOfName(c.Name) == "" {
				cols = append(cols, c.Name)
			}
		}
		if len(cols) == 0 {
			continue
		}
		n++
		quoted := make([]string, len(cols))
		for j, c := range cols {
			quoted[j] = quoteRemote(d, c)
		}
		table := quoteRemote(d, t.Name)
		if t.Schema != "" {
			table = quoteRemote(d, t.Schema) + "." + table
		}
		q := fmt.Sprintf("SELECT %s FROM %s LIMIT %d", strings.Join(quoted, ", "), table, RemoteSampleRows)
		res, err := r.Source.Query(ctx, q, remote.Defaults(query.Limits{Timeout: remoteSampleTime, MaxRows: RemoteSampleRows}))
		if err != nil {
			slog.Debug("sample a table for private columns", "subsystem", "privacy", "table", t.Name, "err", err)
			continue
		}
		byCol := map[string][]string{}
		for _, row := range res.Rows {
			for j, v := range row {
				if s, ok := v.(string); ok && j < len(cols) {
					byCol[cols[j]] = append(byCol[cols[j]], s)
				}
			}
		}
		r.samples[r.tableName(t)] = byCol
	}
	return r.samples
}

func isTextType(typ string) bool {
	t := strings.ToUpper(typ)
	for _, p := range []string{"VARCHAR", "TEXT", "CHAR", "STRING", "CHARACTER", "NVARCHAR", "CITEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT"} {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// PrivateColumns lists the private ones.
func (rp RemotePrivate) PrivateColumns(ctx context.Context) ([]privacy.Column, error) {
	cs, err := rp.Columns(ctx)
	return privacy.PrivateOnly(cs), err
}

// PrivateValues reads the values of c's first limit rows on the server.
func (rp RemotePrivate) PrivateValues(ctx context.Context, c privacy.Column, limit int) ([]string, error) {
	rp.R.derive()
	i, ok := rp.R.byName[c.Table]
	if !ok {
		return nil, nil // a mark on a table the database no longer has
	}
	t := &rp.R.Schema.Tables[i]
	d := rp.R.Source.Dialect()
	table := quoteRemote(d, t.Name)
	if t.Schema != "" {
		table = quoteRemote(d, t.Schema) + "." + table
	}
	col := quoteRemote(d, c.Column)
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

func quoteRemote(d remote.Dialect, name string) string {
	switch strings.ToLower(d.Name) {
	case "mysql", "mariadb":
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
