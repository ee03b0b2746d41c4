package retrieve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/index"
)

var _ index.Embedder = (*provider.Embedder)(nil)

// boostRetry is how long a failed embedding model is left alone before
// it is tried again: questions meanwhile are ranked by text alone without
// waiting for a server that is down, and a failed background embedding is
// not restarted by a question before it.
var boostRetry = time.Minute

// questionTimeout bounds embedding a question (a cold model may load
// first); past it the question is ranked by text alone.
const questionTimeout = 20 * time.Second

// boost is the semantic boost of a Retrieval: the embedding model, its
// table vectors, and whether it works.
type boost struct {
	key string // what it was made from (UseEmbedding), "" for UseEmbedder
	sem *index.Semantic

	mu      sync.Mutex
	down    error     // the last failure on a question; nil while the model answers
	retryAt time.Time // when down, the next time the model is tried
}

// bounded is an Embedder whose single texts (questions) are embedded
// within questionTimeout.
type bounded struct{ index.Embedder }

func (e bounded) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, questionTimeout)
		defer cancel()
	}
	return e.Embedder.Embed(ctx, texts)
}

// UseEmbedding turns the semantic boost on with cfg.EmbedModel on cfg's
// server, or off when cfg.EmbedModel is empty. Calling it again with the
// same configuration does nothing, so callers may call it before every
// question. It does not contact the model server: tables are embedded by
// EmbedInBackground (or by a question that finds some not embedded), and
// a model that fails leaves retrieval to the text index, saying so in
// Meta.Warnings.
func (r *Retrieval) UseEmbedding(ctx context.Context, cfg provider.Config) error {
	if cfg.EmbedModel == "" {
		return r.UseEmbedder(ctx, nil)
	}
	key := boostKey(cfg)
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

func boostKey(cfg provider.Config) string {
	return fmt.Sprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s", cfg.Provider, cfg.BaseURL, cfg.EmbedModel, cfg.APIKey, cfg.APIVersion)
}

// UseEmbedder turns the semantic boost on with emb, or off when emb is
// nil. The table vectors stored for emb's model are loaded from the
// workspace; the tables without one rank by text alone until they are
// embedded (EmbedInBackground, EmbedTables).
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
	sem, err := index.OpenSemantic(ctx, r.ws.Engine, bounded{emb})
	if err != nil {
		return fmt.Errorf("open the stored table embeddings: %w", err)
	}
	r.mu.Lock()
	r.boost = &boost{key: key, sem: sem}
	r.mu.Unlock()
	return nil
}

// Embedding names the embedding model in use, "" when the boost is off.
func (r *Retrieval) Embedding() string {
	if b := r.current(); b != nil {
		return b.sem.Model()
	}
	return ""
}

func (r *Retrieval) current() *boost {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.boost
}

// attach attaches the boost to the index for a question unless its model
// failed less than boostRetry ago; it returns the boost attached (nil if
// none) and, when the boost is on but left out, the warning for the run.
func (r *Retrieval) attach() (*boost, string) {
	b := r.current()
	if b == nil {
		r.Index.SetSemantic(nil)
		return nil, ""
	}
	b.mu.Lock()
	down, wait := b.down, time.Now().Before(b.retryAt)
	b.mu.Unlock()
	if down != nil && wait {
		r.Index.SetSemantic(nil)
		return nil, offWarning(b.sem.Model(), down)
	}
	r.Index.SetSemantic(b.sem)
	return b, ""
}

// settle records how the boost did on a question's search: a failure
// leaves the model alone for boostRetry, a success clears it.
func (b *boost) settle(got index.Boost) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if got.Err != nil {
		b.down, b.retryAt = got.Err, time.Now().Add(boostRetry)
		return
	}
	b.down = nil
}

func offWarning(model string, err error) string {
	return fmt.Sprintf("semantic search with %s is unavailable (%v); tables were ranked by text alone", model, err)
}

// boostWarnings are the warnings of a search's semantic boost: it failed,
// or it could rank only the tables embedded so far.
func boostWarnings(b index.Boost) []string {
	switch {
	case b.Model == "":
		return nil
	case b.Err != nil:
		return []string{offWarning(b.Model, b.Err)}
	case b.Embedded < b.Tables:
		return []string{fmt.Sprintf("semantic boost: %s of %s tables embedded so far; the others were ranked by text alone",
			thousands(b.Embedded), thousands(b.Tables))}
	}
	return nil
}

// thousands writes n with thousands separators (10,000).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

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
