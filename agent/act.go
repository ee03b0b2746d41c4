package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/tools"
)

// act runs the step's tool calls in order and appends one tool message per
// call. It reports ended when a tool ended the turn (ask_user); calls after
// it are not run. On cancel or the time limit the remaining calls get a
// "not run" result, so the transcript stays valid, and ctx's error is
// returned.
func (r *run) act(ctx context.Context, calls []llm.ToolCall) (ended bool, err error) {
	for i, call := range calls {
		if ctx.Err() != nil {
			r.skipAll(calls[i:], "not run: the run was stopped")
			return false, ctx.Err()
		}
		if ended {
			r.skip(call, "not run: the turn ended with a question for the user")
			continue
		}
		res, d, cerr := r.call(ctx, call)
		if cerr != nil {
			r.skipAll(calls[i:], "not run: the run was stopped")
			return false, cerr
		}
		r.record(call, res, d)
		ended = res.EndTurn
	}
	return ended, nil
}

// call runs one tool call. Near-miss tool names are matched and
// almost-JSON arguments repaired (with a note to the model); unknown tools,
// unusable arguments and tool errors become failed results the model
// reads; only ctx ending is returned as an error.
func (r *run) call(ctx context.Context, call llm.ToolCall) (tools.Result, time.Duration, error) {
	name, args, note, failure := r.reader.Resolve(call)
	ce := &CallEvent{ID: call.ID, Name: call.Name, Arguments: encodable(call.Arguments)}
	if s := r.reader.spec(name); s.View != (tools.View{}) {
		v := s.View
		ce.View = &v
	}
	r.emit(Event{Type: ToolCalled, Call: ce})
	if failure != "" {
		return tools.Result{ForModel: failure, Summary: oneLine(failure), Failed: true,
			Display: tools.Display{Kind: tools.KindError, Text: failure}}, 0, nil
	}
	t, _ := r.a.cfg.Tools.Get(name)
	start := time.Now()
	res, err := t.Run(ctx, args)
	d := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return res, d, ctx.Err()
		}
		r.a.log.Error("tool failed", "run", r.in.RunID, "tool", name, "err", err)
		msg := fmt.Sprintf("The tool %s failed: %v. This is not a problem with your call; try another way or tell the user.", name, err)
		res = tools.Result{ForModel: msg, Summary: "internal error", Failed: true,
			Display: tools.Display{Kind: tools.KindError, Text: err.Error()}}
	}
	if note != "" {
		res.ForModel = note + "\n" + res.ForModel
	}
	if res.Failed {
		key := callKey(name, args)
		if r.repeats[key]++; r.repeats[key] >= 2 {
			res.ForModel += fmt.Sprintf("\n\nYou have made exactly this call %d times and it failed each time. Do not repeat it: try something different.", r.repeats[key])
		}
	}
	return res, d, nil
}

// oneLine is s's first line, clipped for a summary.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// record appends the tool message for res, files evidence, counts
// failures and emits the result events.
func (r *run) record(call llm.ToolCall, res tools.Result, d time.Duration) {
	spec := r.reader.spec(call.Name)
	ref := r.fileEvidence(call, spec, res)
	text := res.ForModel
	if r.a.cfg.SchemaOnly {
		text = r.view(ref, call.Name, spec, call.Arguments, res)
	}
	if ref != "" {
		text = "[" + ref + "] " + text
	}
	r.meta.ToolCalls++
	if res.Failed {
		r.meta.FailedCalls++
		r.failures++
		if r.failures >= failuresBeforeNudge {
			reread := "re-read the table's columns"
			if d := r.reader.cat.nameOf(describesTables); d != "" {
				reread += " (" + d + ")"
			}
			text += fmt.Sprintf("\n\nThat is %d failed calls in a row. Stop repeating this approach: %s, simplify the query, or answer with what you know and say what you could not check.", r.failures, reread)
		}
	} else {
		r.failures = 0
	}
	r.meta.ToolTimes = append(r.meta.ToolTimes, ToolTime{Step: r.step, CallID: call.ID, Tool: call.Name, MS: ms(d), Failed: res.Failed})
	r.msgs = append(r.msgs, llm.Message{Role: llm.Tool, ToolCallID: call.ID, Name: call.Name, Content: text})
	r.emit(Event{Type: ToolResult, Result: &ResultEvent{CallID: call.ID, Name: call.Name, Ref: ref,
		Summary: res.Summary, Failed: res.Failed, Display: res.Display, DurationMS: ms(d)}})
	if res.Display.Kind == tools.KindChart && res.Display.Chart != nil && !res.Failed {
		r.emit(Event{Type: ChartMade, Chart: &ChartEvent{CallID: call.ID, Ref: ref, SQL: res.Display.SQL, Chart: res.Display.Chart}})
	}
	if res.EndTurn && res.Display.Question != nil {
		r.question = res.Display.Question
		r.emit(Event{Type: QuestionAsked, Question: res.Display.Question})
	}
}

// fileEvidence gives successful results a ref that findings cite — "q1"
// for a query, "c1" for a chart, as the tool's Spec.Evidence says — and
// keeps them for the outcome.
func (r *run) fileEvidence(call llm.ToolCall, spec tools.Spec, res tools.Result) string {
	if res.Failed {
		return ""
	}
	tool := spec.Name
	if tool == "" {
		tool = call.Name
	}
	e := Evidence{CallID: call.ID, Tool: tool, SQL: res.Display.SQL, Summary: res.Summary, Purpose: purpose(call.Arguments)}
	switch evidenceOf(spec.Evidence, res.Display) {
	case tools.EvidenceChart:
		r.nc++
		e.Ref, e.Chart = fmt.Sprintf("c%d", r.nc), res.Display.Chart
	case tools.EvidenceQuery:
		r.nq++
		e.Ref, e.Table = fmt.Sprintf("q%d", r.nq), res.Display.Table
	default:
		return ""
	}
	disp := res.Display
	e.Display = &disp
	r.evidence = append(r.evidence, e)
	return e.Ref
}

// evidenceOf is what a successful result with display d counts as for a
// tool whose Spec says declared: a chart only when one was drawn, a query
// only when something computed is shown, and by the display kind when the
// tool does not say.
func evidenceOf(declared tools.Evidence, d tools.Display) tools.Evidence {
	chart := d.Kind == tools.KindChart && d.Chart != nil
	shown := d.Kind == tools.KindTable && d.Table != nil || d.Kind == tools.KindProfile || d.Kind == tools.KindVerdict
	switch {
	case declared == tools.EvidenceChart && chart, declared == tools.EvidenceByKind && chart:
		return tools.EvidenceChart
	case declared == tools.EvidenceQuery && (shown || d.Table != nil), declared == tools.EvidenceByKind && shown:
		return tools.EvidenceQuery
	}
	return tools.EvidenceNone
}

// purpose pulls a "purpose" or "reason" argument out of a call, if any.
func purpose(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"purpose", "reason", "title"} {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

// skip answers a call that was not run, so the transcript stays valid.
func (r *run) skip(call llm.ToolCall, why string) {
	r.msgs = append(r.msgs, llm.Message{Role: llm.Tool, ToolCallID: call.ID, Name: call.Name, Content: why})
	r.emit(Event{Type: ToolResult, Result: &ResultEvent{CallID: call.ID, Name: call.Name, Summary: why, Skipped: true,
		Display: tools.Display{Kind: tools.KindText, Text: why}}})
}

func (r *run) skipAll(calls []llm.ToolCall, why string) {
	for _, c := range calls {
		r.skip(c, why)
	}
}

// encodable returns args if they are valid JSON, else args as a JSON
// string, so that events always encode.
func encodable(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(args) {
		return args
	}
	s, _ := json.Marshal(string(args)) // a string always marshals
	return s
}
