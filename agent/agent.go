// Package agent runs Loupe's analyst: a ReAct loop over a chat model with
// native tool calling, written as explicit phases (prepare, think, act,
// decide), bounded by steps, wall-clock time and tokens, streaming typed
// events to a Sink. Cancel stops it within a second and leaves a transcript
// in which every tool call has a result.
package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/tools"
)

// Defaults for Config's zero fields.
const (
	DefaultMaxSteps    = 15
	DefaultTimeout     = 10 * time.Minute
	DefaultTokenBudget = 400_000
	// failuresBeforeNudge consecutive failed tool calls make the agent tell
	// the model to change approach.
	failuresBeforeNudge = 3
)

// Config is an agent's fixed setup.
type Config struct {
	Provider llm.Provider
	Model    string
	Tools    *tools.Set
	// MaxSteps bounds model calls per run; the last one is made without
	// tools so that the model answers with what it has.
	MaxSteps int
	// Timeout bounds a run's wall-clock time.
	Timeout time.Duration
	// TokenBudget bounds prompt+completion tokens per run, as the provider
	// reports them.
	TokenBudget int
	// ContextTokens is the model's context window; 0 asks the provider
	// (Ollama knows it) and otherwise leaves messages uncompacted.
	ContextTokens int
	Temperature   *float64
	Logger        *slog.Logger
	// SchemaOnly is the schema privacy level: no cell value goes into a
	// message to the model (see schemaonly.go), and the answer's value
	// references are filled in locally (Outcome.Written keeps the text as
	// the model wrote it).
	SchemaOnly bool
}

// Agent answers questions. It is safe for concurrent runs.
type Agent struct {
	cfg Config
	log *slog.Logger
}

// New returns an agent; Provider, Model and Tools are required.
func New(cfg Config) (*Agent, error) {
	switch {
	case cfg.Provider == nil:
		return nil, errors.New("agent: no model provider configured")
	case cfg.Model == "":
		return nil, errors.New("agent: no model chosen — pick one in Settings or pass --model")
	case cfg.Tools == nil:
		return nil, errors.New("agent: no tools")
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.TokenBudget <= 0 {
		cfg.TokenBudget = DefaultTokenBudget
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Agent{cfg: cfg, log: log.With("subsystem", "agent")}, nil
}

// Input is one question to answer.
type Input struct {
	RunID  string // required; events and the outcome carry it
	ChatID string
	// Question is the user's message.
	Question string
	// History is the conversation before this question (already compacted
	// by the caller), without a system message.
	History []llm.Message
	Schema  Schema
	// Notes go into the outcome's Meta.Notes unchanged.
	Notes []string
	// Refs is how many queries and charts the conversation's earlier
	// answers filed: this run's evidence is numbered after them (q4, c2…),
	// so that a ref names one query or chart in the whole conversation.
	Refs RefBase
}

// RefBase counts the evidence refs already taken in a conversation: the
// next query is q(Queries+1), the next chart c(Charts+1).
type RefBase struct {
	Queries int `json:"queries"`
	Charts  int `json:"charts"`
}

// Run answers in.Question. It always returns an Outcome and always emits
// exactly one RunFinished event, last; the run's own failures (the model is
// unreachable, a limit is hit, ctx is cancelled) are reported in the
// Outcome's Status and Reason, not as an error.
func (a *Agent) Run(ctx context.Context, in Input, sink Sink) *Outcome {
	if sink == nil {
		sink = Discard
	}
	r := newRun(a, in, sink)
	r.emit(Event{Type: RunStarted})
	out := r.loop(ctx)
	r.emit(Event{Type: RunFinished, Finished: out})
	return out
}

// errLimit reports a run stopped by one of its limits.
type errLimit struct{ reason string }

func (e *errLimit) Error() string { return e.reason }

func limitf(format string, args ...any) error { return &errLimit{fmt.Sprintf(format, args...)} }
