package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/agent"
)

// jsonSink writes one JSON event per line.
type jsonSink struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newJSONSink(w io.Writer) *jsonSink {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonSink{enc: enc}
}

func (s *jsonSink) Emit(e agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.enc.Encode(e) // a closed stdout ends the process anyway
}

// traceSink writes a readable trace: steps, the model's text as it
// streams, each tool call with its SQL and each result's summary.
type traceSink struct {
	w        io.Writer
	midText  bool            // the last thing written was streamed text without a newline
	stepText strings.Builder // text streamed in the current step
}

func (s *traceSink) Emit(e agent.Event) {
	switch e.Type {
	case agent.StepStarted:
		s.endText()
		s.stepText.Reset()
		fmt.Fprintf(s.w, "\n▸ step %d\n", e.Step)
	case agent.TextDelta:
		fmt.Fprint(s.w, e.Text)
		s.stepText.WriteString(e.Text)
		s.midText = !strings.HasSuffix(e.Text, "\n")
	case agent.TextReset:
		s.endText()
		s.stepText.Reset()
		fmt.Fprintln(s.w, "  (the model's reply broke off; retrying)")
	case agent.ToolCalled:
		s.endText()
		fmt.Fprintf(s.w, "  → %s%s\n", e.Call.Name, callDetail(e.Call.Arguments))
	case agent.ToolResult:
		r := e.Result
		mark := "←"
		switch {
		case r.Skipped:
			mark = "·"
		case r.Failed:
			mark = "✗"
		}
		ref := ""
		if r.Ref != "" {
			ref = "[" + r.Ref + "] "
		}
		fmt.Fprintf(s.w, "  %s %s%s (%.0f ms)\n", mark, ref, oneLine(r.Summary, 160), r.DurationMS)
	case agent.NumbersChecked:
		s.endText()
		fmt.Fprintf(s.w, "  # numbers checked: %s\n", numbersLine(e.Numbers))
	case agent.RunFinished:
		s.endText()
	}
}

// numbersLine lists an answer's checked numbers with what backs each:
// "40 ✓ q1, 37 ✗ unverified (the model was asked to back or withdraw them)".
func numbersLine(n *agent.NumbersEvent) string {
	parts := make([]string, 0, len(n.Checks))
	for _, c := range n.Checks {
		if c.Backed() {
			parts = append(parts, c.Number.Text+" ✓ "+c.Source)
		} else {
			parts = append(parts, c.Number.Text+" ✗ unverified")
		}
	}
	line := strings.Join(parts, ", ")
	if n.Challenged {
		line += " (the model was asked to back or withdraw them)"
	}
	return line
}

func (s *traceSink) endText() {
	if s.midText {
		fmt.Fprintln(s.w)
		s.midText = false
	}
}

// callDetail shows the interesting argument of a call: its SQL, else its
// arguments compactly.
func callDetail(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		var s string
		if json.Unmarshal(args, &s) != nil || json.Unmarshal([]byte(s), &m) != nil {
			return " " + oneLine(string(args), 200)
		}
	}
	for _, k := range []string{"sql", "query"} {
		if q, ok := m[k].(string); ok {
			return "  " + oneLine(q, 200)
		}
	}
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	return " " + oneLine(string(b), 200)
}

// oneLine collapses whitespace and clips s to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// streamed reports whether the answer was already shown as it streamed.
func (s *traceSink) streamed(out *agent.Outcome) bool {
	return out.Answer != "" && strings.TrimSpace(s.stepText.String()) == out.Answer
}

// printOutcome writes the answer (unless it was already streamed in full),
// findings, question or reason, and the run's accounting.
func printOutcome(w io.Writer, out *agent.Outcome, streamed bool) {
	fmt.Fprintln(w)
	switch {
	case out.Status == agent.Done && streamed:
	case out.Status == agent.Done:
		fmt.Fprintln(w, "Answer")
		fmt.Fprintln(w, indent(out.Summary))
		if len(out.Findings) > 0 {
			fmt.Fprintln(w, "\nFindings")
			for _, f := range out.Findings {
				fmt.Fprintf(w, "  • %s\n", f.Text)
			}
		}
	case out.Status == agent.NeedsInput:
		if q := out.Question; q != nil {
			fmt.Fprintln(w, "Question")
			fmt.Fprintln(w, indent(q.Text))
			for i, o := range q.Options {
				fmt.Fprintf(w, "  %d) %s\n", i+1, o)
			}
			fmt.Fprintln(w, "\nAsk again with the detail it needs.")
		}
	default:
		fmt.Fprintf(w, "Stopped (%s): %s\n", out.Status, out.Reason)
	}
	m := out.Meta
	fmt.Fprintf(w, "\n%d step(s) · %d tool call(s) · %d prompt + %d completion tokens · %.1f s\n",
		m.Steps, m.ToolCalls, m.PromptTokens, m.CompletionTokens, m.DurationMS/1000)
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}
