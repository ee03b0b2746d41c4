package assemble

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/search"
)

// Retrieval is a workspace's schema index and query memory: what narrows
// the prompt to the tables a question needs and lets follow-ups reuse
// earlier queries. Close it before the workspace. The optional semantic
// boost (UseEmbedding) fuses an embedding model's ranking with the text
// index's.
type Retrieval struct {
	ws     *workspace.Workspace
	Index  *index.Index
	Memory *memory.Store
	log    *slog.Logger

	mu    sync.Mutex
	boost *boost // nil: text alone
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
	return &Retrieval{ws: ws, Index: idx, Memory: mem, log: retrievalLog()}, nil
}

// Tools are search_schema and find_prior_query.
func (r *Retrieval) Tools() []tools.Tool {
	return []tools.Tool{search.NewSchema(r.ws, r.Index), search.NewPrior(r.Memory, r.ws)}
}

// Schema is the prompt's data section for question: the retrieved tables
// within the default budget (see Retrieve). With the semantic boost on,
// Meta.Semantic names the embedding model whose ranking was fused, or
// Meta.Warnings says why it was not (the tables are then ranked by text
// alone; the error is not returned).
func (r *Retrieval) Schema(ctx context.Context, question string) (agent.Schema, Meta, error) {
	model, warning := r.prepare(ctx, question)
	s, meta, err := Retrieve(ctx, r.ws, r.Index, question, Budget{})
	if err != nil {
		return s, meta, err
	}
	if w := r.settle(model); w != "" {
		model, warning = "", w
	}
	meta.Semantic = model
	if warning != "" {
		meta.Warnings = append(meta.Warnings, warning)
	}
	return s, meta, nil
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
