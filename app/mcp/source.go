package mcp

import (
	"context"
	"fmt"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/search"
)

// Catalog lists the source's tables with their notes.
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// Source is what the tools read: the tables and their notes, the schema
// index that ranks them, Loupe's agent tools over them (their run_sql
// behind the gate) and the target ask hands questions about.
type Source struct {
	Catalog Catalog
	Index   search.Index
	Tools   *tools.Set
	Target  session.Target
	// Private are the private columns, for the report's privacy gate.
	Private assemble.Private
	// Results keeps the result sets of the tools' and ask's queries.
	Results *results.Store
}

// Workspace is the source over an open workspace and its retrieval, its
// tools built behind gate.
func Workspace(ws *workspace.Workspace, ret *retrieve.Retrieval, gate *assemble.Gate, embed *provider.Config) (*Source, error) {
	res := results.New(results.Config{})
	set, err := gate.WorkspaceTools(ws, res)
	if err != nil {
		return nil, fmt.Errorf("build the workspace tools: %w", err)
	}
	return &Source{Catalog: ws, Index: ret.Index, Tools: set, Results: res, Private: assemble.WorkspacePrivate{WS: ws},
		Target: &session.Workspace{WS: ws, Retrieval: ret, Embedding: embed}}, nil
}

// Connection is the source over a connected database.
func Connection(r *retrieve.Remote, gate *assemble.Gate) (*Source, error) {
	res := results.New(results.Config{})
	set, err := gate.RemoteTools(r, res)
	if err != nil {
		return nil, fmt.Errorf("build the connection's tools: %w", err)
	}
	return &Source{Catalog: r, Index: retrieve.RemoteIndex{R: r}, Tools: set, Results: res,
		Private: assemble.RemotePrivate{R: r, Dir: r.Dir}, Target: &session.Connection{Remote: r}}, nil
}
