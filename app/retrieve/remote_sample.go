package retrieve

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// Bounds of the value sample of a connection's tables.
const (
	SampleTables = 200
	SampleRows   = 20
	sampleTime   = 5 * time.Second
)

// TextSamples returns a few values of the connection's text columns
// (SampleRows rows of at most SampleTables tables, read within 5 s once
// per open connection, the columns whose names already say their kind
// left out), by table name as the tools know it, then column: what
// proposing private columns by their values reads. A table that cannot be
// read is left out (logged at debug level); without a source (NewRemote
// over a catalog) there are none.
func (r *Remote) TextSamples(ctx context.Context) map[string]map[string][]string {
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
	ctx, cancel := context.WithTimeout(ctx, sampleTime)
	defer cancel()
	n := 0
	for i := range r.Schema.Tables {
		if n == SampleTables || ctx.Err() != nil {
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
			quoted[j] = r.Quote(c)
		}
		q := fmt.Sprintf("SELECT %s FROM %s LIMIT %d", strings.Join(quoted, ", "), r.QuotedTable(t), SampleRows)
		res, err := r.Source.Query(ctx, q, remote.Defaults(query.Limits{Timeout: sampleTime, MaxRows: SampleRows}))
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

// Table is the table the tools call name, false when the database has
// none by that name (any longer).
func (r *Remote) Table(name string) (*remote.Table, bool) {
	r.derive()
	i, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return &r.Schema.Tables[i], true
}

// TableName is t's name as the tools know it: bare when every table is
// in one schema, else schema-qualified.
func (r *Remote) TableName(t *remote.Table) string { return r.tableName(t) }

// QuotedTable is t's name quoted for the source's dialect, qualified by
// its schema when it has one.
func (r *Remote) QuotedTable(t *remote.Table) string {
	table := r.Quote(t.Name)
	if t.Schema != "" {
		table = r.Quote(t.Schema) + "." + table
	}
	return table
}

// Quote quotes an identifier for the source's dialect (remote.QuoteIdent).
func (r *Remote) Quote(name string) string {
	return remote.QuoteIdent(r.Source.Dialect().Kind, name)
}
