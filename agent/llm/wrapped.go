package llm

import (
	"context"
	"errors"
)

// Wrapped is embedded by a provider that stands in front of another (a
// gate that masks or checks requests): it forwards all but Chat to Next,
// including the optional SupportsTools and ContextLength that a model
// server (Ollama) has, so the wrapper is as capable as what it wraps.
type Wrapped struct{ Next Provider }

// Models lists Next's models.
func (w Wrapped) Models(ctx context.Context) ([]Model, error) { return w.Next.Models(ctx) }

// Name is Next's name.
func (w Wrapped) Name() string { return w.Next.Name() }

// SupportsTools forwards to Next when it knows; known is false otherwise.
func (w Wrapped) SupportsTools(ctx context.Context, model string) (supported, known bool, err error) {
	if ts, ok := w.Next.(interface {
		SupportsTools(context.Context, string) (bool, bool, error)
	}); ok {
		return ts.SupportsTools(ctx, model)
	}
	return false, false, nil
}

// ContextLength forwards to Next when it knows, and is an error otherwise.
func (w Wrapped) ContextLength(ctx context.Context, model string) (int, error) {
	if cs, ok := w.Next.(interface {
		ContextLength(context.Context, string) (int, error)
	}); ok {
		return cs.ContextLength(ctx, model)
	}
	return 0, errors.New("the provider does not report context lengths")
}
