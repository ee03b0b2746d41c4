package assemble

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/search"
)

// Retrieval is a workspace's schema index and query memory: what narrows
// the prompt to the tables a question needs and lets follow-ups reuse
// earlier queries. Close it before the workspace.
type Retrieval struct {
	ws     *workspace.Workspace
	Index  *index.Index
	Memory *memory.Store
}

// OpenRetrieval opens (or builds) ws's schema index and query memory.
func OpenRetrieval(ws *workspace.Workspace) (*Retrieval, error) {
	idx, err := index.Open(ws.Engine.Dir())
	if err != nil {
		return nil, fmt.Errorf("open the schema index: %w", err)
	}
	mem, err := memory.Open(ws.Engine.Dir())
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open the query memory: %w", err), idx.Close())
	}
	return &Retrieval{ws: ws, Index: idx, Memory: mem}, nil
}

// Tools are search_schema and find_prior_query.
func (r *Retrieval) Tools() []tools.Tool {
	return []tools.Tool{search.NewSchema(r.ws, r.Index), search.NewPrior(r.Memory, r.ws)}
}

// Schema is the prompt's data section for question: the retrieved tables
// within the default budget (see Retrieve).
func (r *Retrieval) Schema(ctx context.Context, question string) (agent.Schema, Meta, error) {
	return Retrieve(ctx, r.ws, r.Index, question, Budget{})
}

// Remember files a finished run's queries in the query memory for chat.
func (r *Retrieval) Remember(ctx context.Context, chat, question string, out *agent.Outcome) error {
	ds, err := r.ws.Datasets(ctx)
	if err != nil {
		return err
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	_, err = Remember(ctx, r.Memory, chat, question, out, names)
	return err
}

// Close closes the index.
func (r *Retrieval) Close() error { return r.Index.Close() }
