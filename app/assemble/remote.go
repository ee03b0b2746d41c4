package assemble

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/askuser"
	"github.com/loupeapp/loupe/tools/chart"
	"github.com/loupeapp/loupe/tools/schema"
	"github.com/loupeapp/loupe/tools/sqltool"
)

// Remote is a connected database described for the agent: its tables as
// the tools see them and its schema for the prompt.
type Remote struct {
	Name   string // the connection's name
	Source remote.Source
	Schema *remote.Schema
	// bare is true when every table is in one schema, so tables go by
	// their bare names.
	bare bool
}

// NewRemote describes src, whose schema was discovered as sch.
func NewRemote(name string, src remote.Source, sch *remote.Schema) *Remote {
	schemas := map[string]bool{}
	for _, t := range sch.Tables {
		schemas[t.Schema] = true
	}
	return &Remote{Name: name, Source: src, Schema: sch, bare: len(schemas) <= 1}
}

// Run runs one query on the server (the tools' Runner).
func (r *Remote) Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error) {
	return r.Source.Query(ctx, sql, lim)
}

// Datasets lists the remote tables the way the tools list workspace
// datasets (the tools' Catalog).
func (r *Remote) Datasets(context.Context) ([]catalog.Dataset, error) {
	out := make([]catalog.Dataset, 0, len(r.Schema.Tables))
	for _, t := range r.Schema.Tables {
		d := catalog.Dataset{Name: r.tableName(&t), Kind: string(r.Source.Dialect().Kind), Source: r.Name, Storage: t.Kind, Rows: max(t.Rows, 0)}
		for _, c := range t.Columns {
			d.Columns = append(d.Columns, catalog.Column{Name: c.Name, Type: c.Type})
		}
		out = append(out, d)
	}
	return out, nil
}

func (r *Remote) tableName(t *remote.Table) string {
	if r.bare {
		return t.Name
	}
	return t.QualifiedName()
}

// RemoteTools is the tool set over a connected database: queries, the
// schema tools, charts and questions. Profiling and finding checks use
// DuckDB's SQL and are offered for workspace data only.
func RemoteTools(r *Remote, store *results.Store) (*tools.Set, error) {
	sql := sqltool.New(r, r, store, sqltool.Config{})
	all := []tools.Tool{sql}
	all = append(all, schema.Tools(r, sql)...)
	all = append(all, chart.New(r), askuser.New())
	return tools.NewSet(all...)
}

// RemoteAgent builds an agent whose queries run on the connected database.
func RemoteAgent(r *Remote, store *results.Store, p llm.Provider, model string, o Options) (*agent.Agent, error) {
	set, err := RemoteTools(r, store)
	if err != nil {
		return nil, err
	}
	return newAgent(set, p, model, o)
}

// PromptSchema describes the connected database for the agent's prompt:
// its dialect and tips, its tables with columns, types and comments, and
// its declared foreign keys as the known join paths.
func (r *Remote) PromptSchema() agent.Schema {
	d := r.Source.Dialect()
	s := agent.Schema{Dialect: d.Name, Where: fmt.Sprintf("the %s database %s (connection %s)", d.Name, r.Schema.Database, r.Name)}
	if d.Tips != "" {
		s.Tips = "- " + strings.TrimSpace(d.Tips)
	}
	byKey := map[string]*remote.Table{}
	for i := range r.Schema.Tables {
		t := &r.Schema.Tables[i]
		byKey[strings.ToLower(t.QualifiedName())] = t
		byKey[strings.ToLower(t.Name)] = t
	}
	for i := range r.Schema.Tables {
		t := &r.Schema.Tables[i]
		at := agent.Table{Name: r.tableName(t), Rows: max(t.Rows, 0), Description: t.Comment}
		if t.Kind != "" && t.Kind != "table" {
			at.Source = t.Kind
		}
		for _, c := range t.Columns {
			at.Columns = append(at.Columns, agent.Column{Name: c.Name, Type: c.Type, Description: c.Comment})
		}
		s.Tables = append(s.Tables, at)
		for _, fk := range t.ForeignKeys {
			ref := fk.RefTable
			if fk.RefSchema != "" {
				ref = fk.RefSchema + "." + fk.RefTable
			}
			target, ok := byKey[strings.ToLower(ref)]
			if !ok {
				target = byKey[strings.ToLower(fk.RefTable)]
			}
			for k := range fk.Columns {
				if k >= len(fk.RefColumns) || target == nil {
					break
				}
				s.JoinPaths = append(s.JoinPaths, agent.JoinPath{From: at.Name, FromColumn: fk.Columns[k],
					To: r.tableName(target), ToColumn: fk.RefColumns[k], Confidence: 1, Declared: true})
			}
		}
	}
	return s
}
