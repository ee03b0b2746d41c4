// Package assemble builds Loupe's engine for one workspace — data, tools,
// agent — the same way for the window and the command line.
package assemble

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/askuser"
	"github.com/loupeapp/loupe/tools/chart"
	"github.com/loupeapp/loupe/tools/outliers"
	"github.com/loupeapp/loupe/tools/profile"
	"github.com/loupeapp/loupe/tools/python"
	"github.com/loupeapp/loupe/tools/schema"
	"github.com/loupeapp/loupe/tools/search"
	"github.com/loupeapp/loupe/tools/sqltool"
	"github.com/loupeapp/loupe/tools/validate"
)

// Tools returns the standard tool set over ws, plus extra (run_python when
// the sandbox is available); query results the UI pages through are kept
// in store.
func Tools(ws *workspace.Workspace, store *results.Store, extra ...tools.Tool) (*tools.Set, error) {
	return workspaceTools(ws, store, sqltool.Config{}, extra...)
}

func workspaceTools(ws *workspace.Workspace, store *results.Store, cfg sqltool.Config, extra ...tools.Tool) (*tools.Set, error) {
	sql := sqltool.New(ws.Query, ws, store, cfg)
	all := []tools.Tool{sql}
	all = append(all, schema.Tools(ws, sql)...)
	all = append(all,
		profile.New(ws, ws.Query),
		chart.New(ws.Query),
		validate.New(ws, ws.Query),
		askuser.New(),
		outliers.New(ws, ws.Query, sql),
	)
	return tools.NewSet(append(all, extra...)...)
}

// Specs are the specs of every tool a run may be offered (a workspace's,
// a connection's, the retrieval's and run_python), built without data:
// what a stored call is shown by when it is replayed (agent.WithViews).
func Specs() []tools.Spec {
	sql := sqltool.New(nil, nil, nil, sqltool.Config{})
	all := []tools.Tool{sql}
	all = append(all, schema.Tools(nil, sql)...)
	all = append(all, profile.New(nil, nil), chart.New(nil), validate.New(nil, nil), askuser.New(), outliers.New(nil, nil, sql),
		search.NewSchema(nil, nil), search.NewPrior(nil, nil), new(python.Tool))
	out := make([]tools.Spec, len(all))
	for i, t := range all {
		out[i] = t.Spec()
	}
	return out
}

// Options are a run's settings beyond the model.
type Options struct {
	MaxSteps      int
	Timeout       time.Duration
	TokenBudget   int
	ContextTokens int // the model's context window; 0 asks the provider
	// Privacy is the level in force for the run (privacy.Open when empty):
	// at Masked the provider is put behind the privacy gate, at Schema the
	// agent sends no value and the value gate checks it (see Guard).
	Privacy privacy.Level
}

// Agent builds an agent over ws with the standard tools and extra.
func Agent(ws *workspace.Workspace, store *results.Store, p llm.Provider, model string, o Options, extra ...tools.Tool) (*agent.Agent, error) {
	g, err := newGuard(o.Privacy, WorkspacePrivate{WS: ws})
	if err != nil {
		return nil, err
	}
	set, err := workspaceTools(ws, store, sqltool.Config{Observe: g.observer()}, extra...)
	if err != nil {
		return nil, err
	}
	return newAgent(set, g.provider(p), model, o)
}

// WorkspaceSchema describes ws's datasets for the agent's prompt.
func WorkspaceSchema(ctx context.Context, ws *workspace.Workspace) (agent.Schema, error) {
	ds, err := ws.Datasets(ctx)
	if err != nil {
		return agent.Schema{}, fmt.Errorf("list datasets: %w", err)
	}
	return retrieve.Schema(ds), nil
}

// newAgent builds an agent with set. It starts compiling the chart schema
// in the background (about 0.4 s), so that the first chart does not wait
// for it.
func newAgent(set *tools.Set, p llm.Provider, model string, o Options) (*agent.Agent, error) {
	go warmCharts()
	return agent.New(agent.Config{
		Provider: p, Model: model, Tools: set,
		MaxSteps: o.MaxSteps, Timeout: o.Timeout, TokenBudget: o.TokenBudget, ContextTokens: o.ContextTokens,
		Logger: slog.Default(), SchemaOnly: o.Privacy == privacy.Schema,
	})
}

// warmCharts compiles the Vega-Lite schema ahead of the first chart. A
// failure here is reported again, to the model, by that chart.
func warmCharts() {
	if err := chart.Warm(); err != nil {
		slog.Warn("compile the chart schema", "subsystem", "assemble", "err", err)
	}
}
