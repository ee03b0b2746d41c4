package assemble

import (
	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/askuser"
	"github.com/loupeapp/loupe/tools/chart"
	"github.com/loupeapp/loupe/tools/schema"
	"github.com/loupeapp/loupe/tools/search"
	"github.com/loupeapp/loupe/tools/sqltool"
)

// RemoteTools is the tool set over a connected database: queries, the
// schema tools, search_schema over the connection's schema index, charts
// and questions. Profiling and finding checks use DuckDB's SQL and are
// offered for workspace data only.
func RemoteTools(r *retrieve.Remote, store *results.Store) (*tools.Set, error) {
	return remoteTools(r, store, sqltool.Config{})
}

func remoteTools(r *retrieve.Remote, store *results.Store, cfg sqltool.Config) (*tools.Set, error) {
	sql := sqltool.New(r, r, store, cfg)
	all := []tools.Tool{sql}
	all = append(all, schema.Tools(r, sql)...)
	all = append(all, search.NewSchema(r, retrieve.RemoteIndex{R: r}), chart.New(r), askuser.New())
	return tools.NewSet(all...)
}

// RemoteAgent builds an agent whose queries run on the connected database.
func RemoteAgent(r *retrieve.Remote, store *results.Store, p llm.Provider, model string, o Options) (*agent.Agent, error) {
	g, err := newGuard(o.Privacy, RemotePrivate{R: r, Dir: r.Dir})
	if err != nil {
		return nil, err
	}
	set, err := remoteTools(r, store, sqltool.Config{Observe: g.observer()})
	if err != nil {
		return nil, err
	}
	return newAgent(set, g.provider(p), model, o)
}
