package eval

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/query"
)

// Failure kinds.
const (
	WrongResult = "wrong_result" // the final query's result differs from the gold one
	WrongAnswer = "wrong_answer" // the answer lacks the expected text
	NoQuery     = "no_query"     // the agent answered without a successful query
	BadQuery    = "bad_query"    // the agent's final query fails when run again
	Asked       = "asked_user"   // the agent asked a question instead of answering
	LimitHit    = "limit"        // step, time or token limit
	RunFailed   = "run_failed"   // the model or the run failed
	Canceled    = "canceled"
	GoldError   = "gold_error" // the gold query itself fails: the question is broken
)

// Env is what one question runs against.
type Env struct {
	Agent *agent.Agent
	Query *query.Runner
	// Schema is the prompt's description of the data.
	Schema agent.Schema
}

// Opener returns the environment for a question's database ("" for the
// default one). Run calls it once per distinct database and never closes
// what it returns; the caller does.
type Opener func(ctx context.Context, db string) (*Env, error)

// Result is one question's outcome.
type Result struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Pass     bool   `json:"pass"`
	Failure  string `json:"failure,omitempty"` // a failure kind
	Detail   string `json:"detail,omitempty"`
	SQL      string `json:"sql,omitempty"` // the agent's final query
	// Answer is the answer as the user reads it (at the schema privacy
	// level, with its value references filled in).
	Answer    string `json:"answer,omitempty"`
	Steps     int    `json:"steps"`
	ToolCalls int    `json:"tool_calls"`
	Tokens    int    `json:"tokens"`
	// PromptTokens and CompletionTokens split Tokens, as the model
	// server reported them.
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Seconds          float64 `json:"seconds"`
}

// Summary sums up a run.
type Summary struct {
	Total     int            `json:"total"`
	Passed    int            `json:"passed"`
	Accuracy  float64        `json:"accuracy"` // execution accuracy, 0–1
	AvgSteps  float64        `json:"avg_steps"`
	AvgCalls  float64        `json:"avg_tool_calls"`
	Tokens    int            `json:"tokens"`
	P50       float64        `json:"latency_p50_s"`
	P95       float64        `json:"latency_p95_s"`
	Failures  map[string]int `json:"failures"`
	Results   []Result       `json:"results"`
	StartedAt time.Time      `json:"started_at"`
}

// Run asks each question in turn and scores the answers. done, if set, is
// called after each question. It stops early only when ctx ends (returning
// what it has and ctx.Err()) or a database cannot be opened.
func Run(ctx context.Context, qs []Question, open Opener, done func(Result)) (*Summary, error) {
	s := &Summary{Failures: map[string]int{}, StartedAt: time.Now()}
	envs := map[string]*Env{}
	for _, q := range qs {
		if ctx.Err() != nil {
			return s.finish(), ctx.Err()
		}
		env, ok := envs[q.DB]
		if !ok {
			var err error
			if env, err = open(ctx, q.DB); err != nil {
				return s.finish(), fmt.Errorf("question %s: open database %q: %w", q.ID, q.DB, err)
			}
			envs[q.DB] = env
		}
		r := ask(ctx, env, q)
		s.Results = append(s.Results, r)
		if done != nil {
			done(r)
		}
	}
	return s.finish(), nil
}

// ask runs one question and scores it.
func ask(ctx context.Context, env *Env, q Question) Result {
	start := time.Now()
	out := env.Agent.Run(ctx, agent.Input{RunID: "eval_" + q.ID, Question: q.Question, Schema: env.Schema}, agent.Discard)
	r := Result{ID: q.ID, Question: q.Question, Steps: out.Meta.Steps, ToolCalls: out.Meta.ToolCalls,
		Tokens: out.Meta.PromptTokens + out.Meta.CompletionTokens, PromptTokens: out.Meta.PromptTokens,
		CompletionTokens: out.Meta.CompletionTokens, Seconds: time.Since(start).Seconds(), SQL: finalQuery(out), Answer: out.Answer}
	fail := func(kind, detail string) Result {
		r.Failure, r.Detail = kind, detail
		return r
	}
	switch out.Status {
	case agent.Done:
	case agent.NeedsInput:
		return fail(Asked, questionText(out))
	case agent.Limit:
		return fail(LimitHit, out.Reason)
	case agent.Canceled:
		return fail(Canceled, out.Reason)
	default:
		return fail(RunFailed, out.Reason)
	}
	if q.SQL == "" {
		if !containsFold(out.Answer, q.Answer) {
			return fail(WrongAnswer, fmt.Sprintf("the answer does not contain %q", q.Answer))
		}
		r.Pass = true
		return r
	}
	lim := query.Limits{MaxRows: 100_000, MaxBytes: 64 << 20}
	var golds []*query.Result
	for _, v := range goldVariants(q.SQL) {
		gold, err := env.Query.Run(ctx, v, lim)
		if err != nil {
			return fail(GoldError, err.Error())
		}
		golds = append(golds, gold)
	}
	if r.SQL == "" {
		return fail(NoQuery, "the agent ran no successful query")
	}
	got, err := env.Query.Run(ctx, r.SQL, lim)
	if err != nil {
		return fail(BadQuery, err.Error())
	}
	var why string
	for _, gold := range golds {
		var ok bool
		if ok, why = sameResult(gold, got, q.ordered()); ok {
			r.Pass = true
			return r
		}
	}
	return fail(WrongResult, why)
}

// finalQuery is the SQL of the last successful query the run made.
func finalQuery(out *agent.Outcome) string {
	for i := len(out.Evidence) - 1; i >= 0; i-- {
		if e := out.Evidence[i]; e.Table != nil && e.SQL != "" {
			return e.SQL
		}
	}
	return ""
}

func questionText(out *agent.Outcome) string {
	if out.Question != nil {
		return "asked: " + out.Question.Text
	}
	return "asked the user"
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(strings.TrimSpace(sub)))
}

func (s *Summary) finish() *Summary {
	s.Total = len(s.Results)
	s.Passed, s.Tokens = 0, 0
	var steps, calls int
	var secs []float64
	for _, r := range s.Results {
		if r.Pass {
			s.Passed++
		} else {
			s.Failures[r.Failure]++
		}
		steps += r.Steps
		calls += r.ToolCalls
		s.Tokens += r.Tokens
		secs = append(secs, r.Seconds)
	}
	if s.Total > 0 {
		s.Accuracy = float64(s.Passed) / float64(s.Total)
		s.AvgSteps = float64(steps) / float64(s.Total)
		s.AvgCalls = float64(calls) / float64(s.Total)
		sort.Float64s(secs)
		s.P50, s.P95 = percentile(secs, 0.5), percentile(secs, 0.95)
	}
	return s
}

// percentile of sorted xs, nearest rank.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(p*float64(len(xs))+0.999999) - 1
	return xs[max(0, min(i, len(xs)-1))]
}
