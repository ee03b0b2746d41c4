package config

import (
	"context"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// Spec is a model server to open: where it is (from the settings, or the
// environment and flags), how its privacy level is settled, and where the
// requests sent to it on another machine are kept.
type Spec struct {
	Config provider.Config
	Levels Levels
	// Store is the workspace's store, whose outbox keeps every request to
	// a model server on another machine made for no answer (an answer's
	// own go with it, assemble.SendFor); read at each request, so that it
	// may open late. Nil keeps none (loupe doctor, which has no workspace).
	Store func() (*store.Store, error)
	// Getenv reads assemble.EnvOutboxAll; nil means nothing is set.
	Getenv func(string) string
}

// Model is a model server opened for questions.
type Model struct {
	Provider llm.Provider
	// Config is what it was opened with: its HTTPClient keeps in the
	// outbox what goes to another machine.
	Config provider.Config
	// Level is the privacy level in force for its questions.
	Level privacy.Level
}

// Server is the model server's address, as the outbox records it.
func (m *Model) Server() string { return provider.ServerURL(m.Config) }

// Guard puts the provider behind the privacy gate of its level, with the
// private columns of src: itself at open, assemble.Guard at masked and
// schema (for the report stage, whose prompt holds the run's results).
func (m *Model) Guard(src assemble.Private) (llm.Provider, error) {
	if !m.Gated() {
		return m.Provider, nil
	}
	return assemble.Guard(m.Provider, m.Level, src)
}

// Gated says whether Guard puts the provider behind a gate, which reads
// the private columns: at masked and schema, not at open.
func (m *Model) Gated() bool { return m.Level != "" && m.Level != privacy.Open }

// LevelError is a privacy level that cannot be settled: nothing was sent.
type LevelError struct{ Err error }

func (e *LevelError) Error() string { return e.Err.Error() }
func (e *LevelError) Unwrap() error { return e.Err }

// OpenModel opens the model server s names for questions: its requests to
// another machine kept in the outbox (Tee), and the privacy level in force
// settled by s.Levels (a *LevelError when it cannot be, or refuses, e.g. a
// server elsewhere with no level chosen). It is the one way the window and
// the CLI reach a model to ask; provider errors (no model, bad address)
// come first.
func OpenModel(s Spec) (*Model, error) {
	cfg := Tee(s)
	p, err := provider.Open(cfg)
	if err != nil {
		return nil, err
	}
	lvl, err := s.Levels.InForce(s.Config)
	if err != nil {
		return nil, &LevelError{err}
	}
	return &Model{Provider: p, Config: cfg, Level: lvl}, nil
}

// OpenListing opens s's server to list its models: it fails fast (no
// retries), and works before a model is chosen.
func OpenListing(s Spec) (llm.Provider, error) {
	cfg := Tee(s)
	if cfg.Model == "" {
		cfg.Model = "none" // listing needs no model; Open insists on one
	}
	cfg.Retry = llm.RetryPolicy{Retries: -1}
	return provider.Open(cfg)
}

// Tee is s.Config with the HTTP client that keeps every request to
// another machine in the outbox: with the answer its context names
// (assemble.SendFor), else in s.Store for no conversation, at the level
// s.Levels.Loose gives when the request is made.
func Tee(s Spec) provider.Config {
	cfg := s.Config
	if s.Store == nil {
		return cfg
	}
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg.HTTPClient = assemble.TeeClient(looseOutbox{s}, getenv)
	return cfg
}

// looseOutbox keeps the requests made for no conversation (status checks,
// model listing, table-name embeddings) in the workspace's store, with the
// level in force when they were made.
type looseOutbox struct{ s Spec }

var _ provider.Outbox = looseOutbox{}

func (o looseOutbox) Keep(ctx context.Context, sent provider.Sent) error {
	st, err := o.s.Store()
	if err != nil {
		return err
	}
	lvl, err := o.s.Levels.Loose(o.s.Config)
	if err != nil {
		return err
	}
	return assemble.Outbox{Store: st, Level: lvl}.Keep(ctx, sent)
}

// SetProvider chooses the provider of cfg by name (the CLI's --provider).
// The environment's OpenAI settings (OPENAI_API_KEY, bound to its own host,
// and OPENAI_BASE_URL) are read by provider.FromEnv only when
// LOUPE_PROVIDER says openai; when name is what chooses openai, they are
// read now, filling only what is still empty, so that a base URL given
// either side of it wins and the key still goes only to its host.
func SetProvider(cfg *provider.Config, name string, getenv func(string) string) {
	cfg.Provider = strings.ToLower(strings.TrimSpace(name))
	if cfg.Provider != provider.OpenAI {
		return
	}
	if cfg.APIKey == "" {
		cfg.APIKey, cfg.KeyFor = provider.EnvKey(getenv)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = strings.TrimSpace(getenv("OPENAI_BASE_URL"))
	}
}
