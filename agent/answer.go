package agent

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/agent/evidence"
	"github.com/loupeapp/loupe/agent/llm"
)

var (
	findingsHeading = regexp.MustCompile(`(?im)^\s*(?:#{1,4}\s*)?(?:\*\*)?(?:key\s+)?findings(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$`)
	bullet          = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)])\s+(.*)$`)
	refGroup        = regexp.MustCompile(`\[((?:[qc]\d+)(?:\s*[,;]\s*[qc]\d+)*)\]`)
	refSplit        = regexp.MustCompile(`[qc]\d+`)
)

// parseAnswer splits a final answer into its summary and its findings,
// each with the evidence refs it cites. Refs the run never produced are
// dropped from the evidence (the text keeps them). An answer without a
// "Findings" section is all summary.
func parseAnswer(text string, known map[string]bool) (string, []Finding) {
	loc := findingsHeading.FindStringIndex(text)
	if loc == nil {
		return strings.TrimSpace(text), nil
	}
	summary := strings.TrimSpace(text[:loc[0]])
	var out []Finding
	for _, line := range strings.Split(text[loc[1]:], "\n") {
		if m := bullet.FindStringSubmatch(line); m != nil {
			out = append(out, Finding{Text: strings.TrimSpace(m[1])})
		} else if strings.TrimSpace(line) != "" && len(out) > 0 {
			out[len(out)-1].Text += " " + strings.TrimSpace(line)
		}
	}
	for i := range out {
		for _, g := range refGroup.FindAllStringSubmatch(out[i].Text, -1) {
			for _, ref := range refSplit.FindAllString(g[1], -1) {
				if known[ref] && !contains(out[i].Evidence, ref) {
					out[i].Evidence = append(out[i].Evidence, ref)
				}
			}
		}
	}
	return summary, out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// numberPool gathers what can back an answer's numbers: the user's
// messages (not the corrections Loupe sent the model), every tool result and call argument (the SQL) in the
// conversation, and the real values of the run's result tables, held
// locally whatever the model was shown. Result tables come first, so a
// number is credited to its query's ref.
func (r *run) numberPool() *evidence.Pool {
	p := &evidence.Pool{}
	for _, e := range r.evidence {
		p.AddText(e.Ref, e.SQL)
		if e.Table == nil {
			continue
		}
		p.Add(e.Ref, float64(e.Table.Rows))
		for _, row := range e.Table.Preview {
			for _, cell := range row {
				p.AddCell(e.Ref, cell)
			}
		}
	}
	for i, m := range r.msgs {
		switch m.Role {
		case llm.User:
			if i <= r.runStart && !strings.HasPrefix(m.Content, challengeLead) { // the user's words, not Loupe's notes or the data sent with them
				p.AddText("question", UserWords(m.Content))
			}
		case llm.Tool:
			p.AddText(m.Name, m.Content)
		case llm.Assistant:
			if i < r.runStart { // an earlier answer, with the results it read
				p.AddEarlier("earlier answer", m.Content)
			}
			for _, c := range m.ToolCalls {
				p.AddText(c.Name, string(c.Arguments))
			}
		}
	}
	return p
}

// challengeLead opens the message that challenges an answer's numbers; a
// later run's history holds it, and it backs nothing.
const challengeLead = "Before this answer goes to the user:"

// challenge checks an answer's numbers before it is accepted. The first
// time in a run that some number is backed by nothing, the model is told
// which and asked to query or withdraw them, and challenge reports true:
// the run goes on. Otherwise it reports false.
func (r *run) challenge(text string) bool {
	if r.challenged {
		return false
	}
	checks := evidence.Verify(text, r.numberPool())
	bad := evidence.Unbacked(checks)
	if len(bad) == 0 {
		return false
	}
	r.challenged, r.meta.Challenged = true, true
	r.emit(Event{Type: NumbersChecked, Numbers: &NumbersEvent{Checks: checks, Challenged: true}})
	r.msgs = append(r.msgs, llm.Message{Role: llm.User, Content: fmt.Sprintf(
		challengeLead+" these numbers in it appear in no tool result of this run: %s. "+
			"Run a query that computes them, or remove them and answer again without them. Do not state a number the data did not give you.",
		evidence.List(bad))})
	return true
}

// holdToEvidence checks the final answer's numbers and marks those nothing
// backs with evidence.Mark.
func (r *run) holdToEvidence(text string) (string, []evidence.Check) {
	checks := evidence.Verify(text, r.numberPool())
	if len(checks) == 0 {
		return text, nil
	}
	r.emit(Event{Type: NumbersChecked, Numbers: &NumbersEvent{Checks: checks}})
	return evidence.MarkText(text, checks), checks
}
