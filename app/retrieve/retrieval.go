package retrieve

import (
	"context"
	"errors"
	"fmt"
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
// index's; its table embeddings are made in the background
// (EmbedInBackground), never while a question waits.
type Retrieval struct {
	ws     *workspace.Workspace
	Index  *index.Index
	Memory *memory.Store

	life context.Context // ends with Close: the background embedding's
	stop context.CancelFunc
	jobs sync.WaitGroup

	mu    sync.Mutex
	boost *boost // nil: text alone
	job   embedJob
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
	life, stop := context.WithCancel(context.Background())
	return &Retrieval{ws: ws, Index: idx, Memory: mem, life: life, stop: stop}, nil
}

// Tools are search_schema and find_prior_query.
func (r *Retrieval) Tools() []tools.Tool {
	return []tools.Tool{search.NewSchema(r.ws, r.Index), search.NewPrior(r.Memory, r.ws)}
}

// Schema is the prompt's data section for question: the retrieved tables
// within the default budget (see Retrieve). With the semantic boost on,
// Meta.Semantic names the embedding model whose ranking was fused, and
// Meta.Warnings says why it was left out (the tables are then ranked by
// text alone; the error is not returned), how many tables it could rank
// when not all are embedded yet, and how the last background embedding
// failed. A question never waits for tables to be embedded: it embeds
// itself only, and when tables lack a vector it starts the background
// embedding (unless it runs, or failed less than boostRetry ago).
func (r *Retrieval) Schema(ctx context.Context, question string) (agent.Schema, Meta, error) {
	b, warning := r.attach()
	s, meta, err := Retrieve(ctx, r.ws, r.Index, question, Budget{})
	if err != nil {
		return s, meta, err
	}
	if warning != "" {
		meta.Warnings = append(meta.Warnings, warning)
	}
	if b == nil {
		return s, meta, nil
	}
	if meta.boost.Model != "" {
		b.settle(meta.boost)
	}
	jobWarning, may := r.jobState()
	if jobWarning != "" && meta.boost.Err == nil {
		meta.Warnings = append(meta.Warnings, jobWarning)
	}
	if may && meta.boost.Fused() && meta.boost.Embedded < meta.boost.Tables {
		r.startJob(nil)
	}
	return s, meta, nil
}

// Search ranks the workspace's tables for question as search_schema does
// (`loupe search`), fused with the semantic boost's ranking when it is on
// (scores are then fused scores). It embeds the question only: tables not
// embedded yet (EmbedTables) rank by text alone. The notes say how the
// tables were ranked and what the boost could not do, as Meta.Notes would.
func (r *Retrieval) Search(ctx context.Context, question string, k int) ([]search.TableMatch, []string, error) {
	b, warning := r.attach()
	x := &reporting{Index: r.Index}
	matches, err := search.Tables(ctx, r.ws, x, question, k)
	if err != nil {
		return nil, nil, err
	}
	var m Meta
	if warning != "" {
		m.Warnings = append(m.Warnings, warning)
	}
	if b != nil && x.boost.Model != "" {
		b.settle(x.boost)
	}
	if x.boost.Fused() {
		m.Semantic = x.boost.Model
	}
	m.Warnings = append(m.Warnings, boostWarnings(x.boost)...)
	return matches, m.Notes(), nil
}

// reporting is the schema index as search.Tables uses it, keeping the
// semantic boost's report of the last search.
type reporting struct {
	*index.Index
	boost index.Boost
}

var _ search.Index = (*reporting)(nil)

func (x *reporting) Search(ctx context.Context, question string, o index.Options) ([]index.Hit, error) {
	hits, b, err := x.Index.SearchFused(ctx, question, o)
	x.boost = b
	return hits, err
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

// Close stops the background embedding, waits for it, and closes the
// index.
func (r *Retrieval) Close() error {
	r.mu.Lock()
	r.stop()
	r.mu.Unlock()
	r.jobs.Wait()
	return r.Index.Close()
}
