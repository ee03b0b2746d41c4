package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/evidence"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/refs"
	"github.com/loupeapp/loupe/tools"
)

// errTimeLimit is the cause of a run's context ending at its wall-clock
// limit, which tells it apart from a cancel by the user.
var errTimeLimit = errors.New("time limit")

// run is the state of one Run.
type run struct {
	a       *Agent
	in      Input
	sink    Sink
	started time.Time

	msgs     []llm.Message // everything sent to the model
	runStart int           // msgs[runStart:] is this run's transcript
	specs    []llm.ToolSpec
	reader   *CallReader    // knows the tools (reader.cat)
	repeats  map[string]int // failures per call (tool + arguments)

	step       int
	limit      int    // the model's context window in tokens, 0 if unknown
	textMode   bool   // the model takes no native tools: use the text protocol
	bounce     string // set by recoverCalls: a broken call to send back instead of answering
	challenged bool   // the model was asked once to back or withdraw numbers
	failures   int    // consecutive failed tool calls
	empty      int    // empty replies so far
	nq, nc     int    // evidence counters
	evidence   []Evidence
	question   *tools.Question
	meta       Meta
}

func newRun(a *Agent, in Input, sink Sink) *run {
	r := &run{a: a, in: in, sink: sink, started: time.Now(), repeats: map[string]int{}}
	specs := a.cfg.Tools.Specs()
	for _, s := range specs {
		r.specs = append(r.specs, llm.ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
	}
	r.reader = NewCallReader(specs)
	r.nq, r.nc = max(in.Refs.Queries, 0), max(in.Refs.Charts, 0)
	r.meta.Model = a.cfg.Model
	r.meta.Provider = a.cfg.Provider.Name()
	r.meta.Notes = in.Notes
	return r
}

func (r *run) emit(e Event) {
	e.RunID, e.ChatID, e.At = r.in.RunID, r.in.ChatID, time.Now()
	if e.Step == 0 && e.Type != RunStarted && e.Type != RunFinished {
		e.Step = r.step
	}
	r.sink.Emit(e)
}

// loop is the run: prepare, then think → act until an answer, a question
// for the user, a limit, a failure or a cancel.
func (r *run) loop(parent context.Context) *Outcome {
	ctx, cancel := context.WithTimeoutCause(parent, r.a.cfg.Timeout, errTimeLimit)
	defer cancel()
	r.prepare()
	r.limit = r.contextLimit(ctx)
	if r.prefersText(ctx) {
		r.textMode, r.meta.TextProtocol = true, true
	}
	max := r.a.cfg.MaxSteps
	for r.step = 1; r.step <= max; r.step++ {
		r.emit(Event{Type: StepStarted})
		stepStart := time.Now()
		resp, err := r.think(ctx, r.step == max)
		st := StepTime{Step: r.step, ModelMS: ms(time.Since(stepStart)), Prompt: resp.Usage.PromptTokens, Complete: resp.Usage.CompletionTokens}
		r.meta.Steps = r.step
		if err != nil {
			r.meta.StepTimes = append(r.meta.StepTimes, st)
			return r.stopped(ctx, err)
		}
		msg := r.recoverCalls(resp.Message)
		msg.Role = llm.Assistant
		r.msgs = append(r.msgs, msg)
		if len(msg.ToolCalls) == 0 {
			r.meta.StepTimes = append(r.meta.StepTimes, st)
			if r.bounce != "" && r.step < max {
				r.msgs = append(r.msgs, llm.Message{Role: llm.User, Content: r.bounce})
				r.bounce = ""
				r.meta.FailedCalls++
				continue
			}
			r.bounce = ""
			if strings.TrimSpace(msg.Content) == "" {
				if r.empty++; r.empty == 1 && r.step < max {
					r.msgs = append(r.msgs, llm.Message{Role: llm.User, Content: "Your reply was empty. Call a tool or give your final answer."})
					continue
				}
				return r.finish(Failed, "the model returned an empty reply twice; try again, or choose another model in Settings")
			}
			if r.step < max && r.challenge(msg.Content) {
				continue
			}
			return r.answer(msg.Content)
		}
		if r.step == max {
			r.skipAll(msg.ToolCalls, "not run: the step limit was reached")
			r.meta.StepTimes = append(r.meta.StepTimes, st)
			return r.finish(Limit, fmt.Sprintf("stopped after %d steps without a final answer; ask a narrower question, or raise the step limit in Settings", max))
		}
		toolsStart := time.Now()
		ended, err := r.act(ctx, msg.ToolCalls)
		st.ToolsMS = ms(time.Since(toolsStart))
		r.meta.StepTimes = append(r.meta.StepTimes, st)
		if err != nil {
			return r.stopped(ctx, err)
		}
		if ended {
			return r.finish(NeedsInput, "")
		}
		if used := r.meta.PromptTokens + r.meta.CompletionTokens; used > r.a.cfg.TokenBudget {
			return r.finish(Limit, fmt.Sprintf("stopped after using %d tokens (budget %d); ask a narrower question, or raise the budget in Settings", used, r.a.cfg.TokenBudget))
		}
	}
	return r.finish(Limit, fmt.Sprintf("stopped after %d steps", max))
}

// prepare builds the messages of the first step: the system prompt (the
// same for every question of a conversation), the history as the caller
// replays it, and the question's user turn with the data it needs.
func (r *run) prepare() {
	schema := r.in.Schema
	r.meta.SchemaOnly = r.a.cfg.SchemaOnly
	if r.a.cfg.SchemaOnly {
		schema = withoutValues(schema)
	}
	o := promptOptions{maxSteps: r.a.cfg.MaxSteps, tools: r.reader.cat}
	sys := systemPrompt(schema, o)
	if r.a.cfg.SchemaOnly {
		sys += schemaRules
	}
	turn := questionTurn(schema, o, r.in.History, r.in.Question)
	r.meta.PromptChars = len(sys) + len(turn)
	r.meta.PromptTokensEst = estimateTokens(sys) + estimateTokens(turn)
	r.msgs = append(r.msgs, llm.Message{Role: llm.System, Content: sys})
	r.msgs = append(r.msgs, r.in.History...)
	r.runStart = len(r.msgs)
	r.msgs = append(r.msgs, llm.Message{Role: llm.User, Content: turn})
}

// think is one model call, streamed to the sink. On the last step the
// model is told to answer now. The messages are compacted to the model's
// context window; a model that refuses tools is switched to the text
// protocol and asked again.
func (r *run) think(ctx context.Context, last bool) (llm.Response, error) {
	msgs := r.msgs
	if last && r.step > 1 {
		msgs = append(msgs[:len(msgs):len(msgs)], llm.Message{Role: llm.User,
			Content: "This is your last step: do not call any tool. Give your final answer now from the results you have, and say what remains unchecked."})
	}
	msgs, n := fit(msgs, r.runStart, r.limit)
	r.meta.Compacted += n
	req := llm.Request{Model: r.a.cfg.Model, Messages: msgs, Tools: r.specs, Temperature: r.a.cfg.Temperature, CacheKey: r.cacheKey()}
	if r.textMode {
		req.Tools, req.Messages = nil, textProtocol(msgs, r.specs)
	}
	resp, err := r.a.cfg.Provider.Chat(ctx, req, func(d llm.Delta) {
		switch {
		case d.Restart:
			r.emit(Event{Type: TextReset})
		case d.Content != "":
			r.emit(Event{Type: TextDelta, Text: d.Content})
		case d.Thinking != "":
			r.emit(Event{Type: ThinkingDelta, Text: d.Thinking})
		}
	})
	if llm.KindOf(err) == llm.ToolsUnsupported && !r.textMode {
		r.a.log.Info("model takes no tools; using the text protocol", "run", r.in.RunID, "model", r.a.cfg.Model)
		r.textMode, r.meta.TextProtocol = true, true
		return r.think(ctx, last)
	}
	if err != nil {
		return resp, err
	}
	u := resp.Usage
	r.meta.PromptTokens += u.PromptTokens
	r.meta.CompletionTokens += u.CompletionTokens
	r.meta.Usage = append(r.meta.Usage, u)
	r.emit(Event{Type: UsageReported, Usage: &u})
	return resp, nil
}

// cacheKey names the run's conversation (its run when it has none) for a
// server's prompt cache: a digest of the id, the same for every request of
// the conversation and telling nothing of it.
func (r *run) cacheKey() string {
	id := r.in.ChatID
	if id == "" {
		id = r.in.RunID
	}
	sum := sha256.Sum256([]byte("loupe prompt cache " + id))
	return "loupe-" + hex.EncodeToString(sum[:12])
}

// stopped ends a run that an error interrupted: a cancel, the time limit,
// or a provider failure.
func (r *run) stopped(ctx context.Context, err error) *Outcome {
	switch {
	case errors.Is(context.Cause(ctx), errTimeLimit):
		return r.finish(Limit, fmt.Sprintf("stopped at the time limit (%s); ask a narrower question, or raise the limit in Settings", r.a.cfg.Timeout))
	case ctx.Err() != nil:
		return r.finish(Canceled, "stopped by the user")
	}
	r.a.log.Warn("run failed", "run", r.in.RunID, "step", r.step, "err", err)
	return r.finish(Failed, err.Error())
}

// finish builds the outcome.
func (r *run) finish(status Status, reason string) *Outcome {
	r.meta.DurationMS = ms(time.Since(r.started))
	out := &Outcome{
		RunID:      r.in.RunID,
		Status:     status,
		Reason:     reason,
		Question:   r.question,
		Evidence:   r.evidence,
		Transcript: append([]llm.Message(nil), r.msgs[r.runStart:]...),
		Meta:       r.meta,
	}
	return out
}

// answer finishes a run whose model replied without tool calls.
func (r *run) answer(text string) *Outcome {
	out := r.finish(Done, "")
	out.Answer = strings.TrimSpace(text)
	out.Answer, out.Numbers = r.holdToEvidence(out.Answer)
	out.Meta.Unverified = len(evidence.Unbacked(out.Numbers))
	out.Summary, out.Findings = parseAnswer(out.Answer, r.refs())
	if r.a.cfg.SchemaOnly {
		rs := r.results()
		out.Written = out.Answer
		out.Answer, out.Summary = refs.Fill(out.Answer, rs), refs.Fill(out.Summary, rs)
		for i := range out.Findings {
			out.Findings[i].Text = refs.Fill(out.Findings[i].Text, rs)
		}
	}
	return out
}

func (r *run) refs() map[string]bool {
	m := map[string]bool{}
	for _, e := range r.evidence {
		m[e.Ref] = true
	}
	return m
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
