package assemble

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/index"
)

var _ index.Embedder = (*provider.Embedder)(nil)

// boostRetry is how long a failed embedding model is left alone before
// it is tried again: questions meanwhile are ranked by text alone without
// waiting for a server that is down.
var boostRetry = time.Minute

// probeTimeout bounds embedding the question (a cold model may load
// first).
const probeTimeout = 20 * time.Second

// boost is the semantic boost of a Retrieval: the embedding model, its
// table vectors, and whether it works.
type boost struct {
	key string // what it was made from (UseEmbedding), "" for UseEmbedder
	emb *watched
	sem *index.Semantic

	mu      sync.Mutex
	down    error     // the last failure; nil while the model answers
	retryAt time.Time // when down, the next time the model is tried
}

// watched is an Embedder that remembers its last failure and the last
// single text it embedded (the question: embedded once to check the
// model, then reused by the search).
type watched struct {
	index.Embedder

	mu     sync.Mutex
	failed error
	text   string
	vec    []float32
}

func (w *watched) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 {
		w.mu.Lock()
		hit := w.vec != nil && w.text == texts[0]
		v := w.vec
		w.mu.Unlock()
		if hit {
			return [][]float32{v}, nil
		}
	}
	vs, err := w.Embedder.Embed(ctx, texts)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		w.failed = err
	}
	if err == nil && len(texts) == 1 && len(vs) == 1 {
		w.text, w.vec = texts[0], vs[0]
	}
	return vs, err
}

// take returns and clears the last failure.
func (w *watched) take() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.failed
	w.failed = nil
	return err
}

// UseEmbedding turns the semantic boost on with cfg.EmbedModel on cfg's
// server, or off when cfg.EmbedModel is empty. Calling it again with the
// same configuration does nothing, so callers may call it before every
// question. It does not contact the model server: a model that fails later
// leaves retrieval to the text index, and says so in Meta.Warnings.
func (r *Retrieval) UseEmbedding(ctx context.Context, cfg provider.Config) error {
	if cfg.EmbedModel == "" {
		return r.UseEmbedder(ctx, nil)
	}
	key := fmt.Sprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s", cfg.Provider, cfg.BaseURL, cfg.EmbedModel, cfg.APIKey, cfg.APIVersion)
	r.mu.Lock()
	same := r.boost != nil && r.boost.key == key
	r.mu.Unlock()
	if same {
		return nil
	}
	emb, err := provider.OpenEmbedder(cfg)
	if err != nil {
		return err
	}
	return r.use(ctx, emb, key)
}

// UseEmbedder turns the semantic boost on with emb, or off when emb is
// nil. The table vectors stored for emb's model are loaded from the
// workspace; tables without one are embedded by the next Schema.
func (r *Retrieval) UseEmbedder(ctx context.Context, emb index.Embedder) error {
	return r.use(ctx, emb, "")
}

func (r *Retrieval) use(ctx context.Context, emb index.Embedder, key string) error {
	if emb == nil {
		r.mu.Lock()
		r.boost = nil
		r.mu.Unlock()
		r.Index.SetSemantic(nil)
		return nil
	}
	w := &watched{Embedder: emb}
	sem, err := index.OpenSemantic(ctx, r.ws.Engine, w)
	if err != nil {
		return fmt.Errorf("open the stored table embeddings: %w", err)
	}
	r.mu.Lock()
	r.boost = &boost{key: key, emb: w, sem: sem}
	r.mu.Unlock()
	return nil
}

// Embedding names the embedding model in use, "" when the boost is off.
func (r *Retrieval) Embedding() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.boost == nil {
		return ""
	}
	return r.boost.emb.Model()
}

// prepare attaches the boost to the index for question when its model
// answers (it embeds the question, which the search then reuses), and
// detaches it otherwise; it returns the model attached ("" if none) and
// a warning when the boost is on but unusable.
func (r *Retrieval) prepare(ctx context.Context, question string) (string, string) {
	r.mu.Lock()
	b := r.boost
	r.mu.Unlock()
	if b == nil {
		r.Index.SetSemantic(nil)
		return "", ""
	}
	b.mu.Lock()
	down, wait := b.down, time.Now().Before(b.retryAt)
	b.mu.Unlock()
	if down != nil && wait {
		r.Index.SetSemantic(nil)
		return "", offWarning(b.emb.Model(), down)
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	_, err := b.emb.Embed(pctx, []string{question})
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return "", ""
		}
		r.Index.SetSemantic(nil)
		b.emb.take()
		return "", r.failed(b, err)
	}
	r.Index.SetSemantic(b.sem)
	return b.emb.Model(), ""
}

// settle checks, after a search with the boost attached, whether the
// model failed part-way (embedding new tables); it returns a warning if
// so.
func (r *Retrieval) settle(model string) string {
	if model == "" {
		return ""
	}
	r.mu.Lock()
	b := r.boost
	r.mu.Unlock()
	if b == nil || b.emb.Model() != model {
		return ""
	}
	if err := b.emb.take(); err != nil {
		return r.failed(b, err)
	}
	b.mu.Lock()
	was := b.down
	b.down = nil
	b.mu.Unlock()
	if was != nil {
		r.log.Info("semantic boost back", "model", model)
	}
	return ""
}

// failed marks b down after err, logging the change once, and returns
// the warning for the run.
func (r *Retrieval) failed(b *boost, err error) string {
	b.mu.Lock()
	was := b.down
	b.down, b.retryAt = err, time.Now().Add(boostRetry)
	b.mu.Unlock()
	if was == nil {
		r.log.Warn("semantic boost off: ranking tables by text alone until the embedding model answers",
			"model", b.emb.Model(), "retry_in", boostRetry, "err", err)
	}
	return offWarning(b.emb.Model(), err)
}

func offWarning(model string, err error) string {
	return fmt.Sprintf("semantic search with %s is unavailable (%v); tables were ranked by text alone", model, err)
}

func retrievalLog() *slog.Logger { return slog.Default().With("subsystem", "retrieval") }

// Notes says in a line or two how the tables were chosen, for the run's
// metadata (agent.Input.Notes): the embedding model fused with the text
// ranking, and what went wrong with it.
func (m Meta) Notes() []string {
	var out []string
	if m.Semantic != "" {
		out = append(out, fmt.Sprintf("tables ranked by text and by %s embeddings", m.Semantic))
	}
	return append(out, m.Warnings...)
}
