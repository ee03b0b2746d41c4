package assemble

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/data/privacy"
)

// Asked is one question of a conversation and the outcome of its answer.
type Asked struct {
	Turn     int // the question's number in the conversation, from 1
	Question string
	Outcome  *agent.Outcome
}

// ConversationExploration is the report stage's input for several
// questions of one conversation, in order: every answer's findings with
// the evidence they cite, every query and chart, and the questions as the
// question and its follow-ups. Refs are unique across a conversation;
// one stored before they were (each answer restarting at q1) has its
// later refs renumbered after the highest one, in its findings, charts and
// texts alike, so every finding keeps the evidence of the question that
// produced it. level is as for ExplorationAt.
func ConversationExploration(asked []Asked, level privacy.Level) report.Exploration {
	if len(asked) == 1 {
		exp := ExplorationAt(asked[0].Question, asked[0].Outcome, level)
		exp.Turns = []int{asked[0].Turn}
		return exp
	}
	parts := make([]report.Exploration, len(asked))
	next := refCounter{}
	for i, a := range asked {
		parts[i] = ExplorationAt(a.Question, a.Outcome, level)
		next.see(parts[i])
	}
	taken := map[string]bool{}
	var exp report.Exploration
	var summaries []string
	for i, a := range asked {
		p := renumber(parts[i], taken, &next)
		exp.Turns = append(exp.Turns, a.Turn)
		if i == 0 {
			exp.Question = a.Question
		} else {
			exp.FollowUps = append(exp.FollowUps, a.Question)
		}
		if s := strings.TrimSpace(p.Summary); s != "" {
			summaries = append(summaries, fmt.Sprintf("Question %d (%s): %s", a.Turn, oneLine(a.Question), s))
		}
		exp.Findings = append(exp.Findings, p.Findings...)
		exp.Queries = append(exp.Queries, p.Queries...)
		exp.Charts = append(exp.Charts, p.Charts...)
		exp.Notes = append(exp.Notes, p.Notes...)
		exp.Numbers = append(exp.Numbers, p.Numbers...)
		exp.SchemaOnly = exp.SchemaOnly || p.SchemaOnly
		for _, d := range p.Datasets {
			if !contains(exp.Datasets, d) {
				exp.Datasets = append(exp.Datasets, d)
			}
		}
	}
	exp.Summary = strings.Join(summaries, "\n\n")
	return exp
}

// refCounter knows the highest query and chart numbers in use.
type refCounter struct{ q, c int }

func (n *refCounter) see(e report.Exploration) {
	for _, q := range e.Queries {
		n.q = max(n.q, refNumber(q.Ref))
	}
	for _, c := range e.Charts {
		n.c = max(n.c, refNumber(c.Ref))
	}
}

func refNumber(ref string) int {
	if len(ref) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(ref[1:])
	return n
}

var refWord = regexp.MustCompile(`\b[qc]\d+\b`)

// renumber gives e's refs that an earlier part took new numbers (after
// the highest in use) everywhere e names them, and marks e's refs taken.
func renumber(e report.Exploration, taken map[string]bool, next *refCounter) report.Exploration {
	moved := map[string]string{}
	for i := range e.Queries {
		if taken[e.Queries[i].Ref] {
			next.q++
			moved[e.Queries[i].Ref] = "q" + strconv.Itoa(next.q)
		}
	}
	for i := range e.Charts {
		if taken[e.Charts[i].Ref] {
			next.c++
			moved[e.Charts[i].Ref] = "c" + strconv.Itoa(next.c)
		}
	}
	to := func(ref string) string {
		if m, ok := moved[ref]; ok {
			return m
		}
		return ref
	}
	text := func(s string) string {
		if len(moved) == 0 {
			return s
		}
		return refWord.ReplaceAllStringFunc(s, to)
	}
	for i := range e.Queries {
		e.Queries[i].Ref = to(e.Queries[i].Ref)
		taken[e.Queries[i].Ref] = true
	}
	for i := range e.Charts {
		c := &e.Charts[i]
		c.Ref, c.QueryRef = to(c.Ref), to(c.QueryRef)
		taken[c.Ref] = true
	}
	for i := range e.Findings {
		f := &e.Findings[i]
		f.Text = text(f.Text)
		ev := make([]string, len(f.Evidence))
		for j, r := range f.Evidence {
			ev[j] = to(r)
		}
		f.Evidence = ev
	}
	for i := range e.Numbers {
		e.Numbers[i].Source = to(e.Numbers[i].Source)
	}
	e.Summary = text(e.Summary)
	return e
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
