package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/store"
)

// maxExamples is how many verified question→SQL pairs a prompt offers.
const maxExamples = 3

// verifiedExamples are the verified question→SQL pairs closest to
// question (query memory's own retrieval, verified entries only, over
// tables that still exist), and a note for the trace naming them; none and
// "" when there are none.
func verifiedExamples(mem *memory.Store, chat, question string, tables []string) ([]agent.Example, string) {
	if mem == nil {
		return nil, ""
	}
	ms := mem.Similar(question, memory.Options{Chat: chat, K: maxExamples, Tables: tables, VerifiedOnly: true})
	if len(ms) == 0 {
		return nil, ""
	}
	ex := make([]agent.Example, len(ms))
	names := make([]string, len(ms))
	for i, m := range ms {
		ex[i] = agent.Example{Question: m.Question, SQL: m.SQL}
		names[i] = fmt.Sprintf("“%s”", m.Question)
	}
	return ex, fmt.Sprintf("Offered %d verified %s as %s: %s.", len(ms), plural(len(ms), "query", "queries"),
		plural(len(ms), "an example", "examples"), strings.Join(names, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FeedbackRequest is a verdict on one answer of a conversation.
type FeedbackRequest struct {
	Store  *store.Store
	Memory *memory.Store // the workspace's query memory; nil for a connection's conversation
	ChatID string
	// MessageID is the answer judged; empty with Turn picks the answer to
	// question Turn (from 1), and with neither the conversation's last
	// finished answer.
	MessageID string
	Turn      int
	Verdict   string // store.Up or store.Down
	Note      string
	// Tables are the workspace's tables now, to file the verified
	// queries under the tables they read; nil takes the datasets the
	// answer used.
	Tables []string
}

// Feedback is what a verdict did: the answer it was given on, and the
// queries it verified (up) or withdrew (down).
type Feedback struct {
	store.Feedback
	Turn     int      `json:"turn"`
	Question string   `json:"question"`
	SQL      []string `json:"sql"`
}

// GiveFeedback records the user's verdict on an answer. Up marks the
// question and the SQL behind the answer's findings (every query it ran
// when its findings cite none) as verified in the query memory, so
// find_prior_query and the prompt prefer them; down keeps the note and
// stops those queries being offered. An answer that is not finished, or a
// question without one, is CodeInvalid.
func GiveFeedback(ctx context.Context, r FeedbackRequest) (*Feedback, error) {
	if r.Verdict != store.Up && r.Verdict != store.Down {
		return nil, NewError(CodeInvalid, fmt.Sprintf("Unknown verdict %q.", r.Verdict), `Say "up" (the answer is right) or "down" (it is wrong).`)
	}
	var turns []int
	if r.Turn > 0 {
		turns = []int{r.Turn}
	}
	c, err := Cover(ctx, r.Store, r.ChatID, turns)
	if err != nil {
		return nil, err
	}
	i := len(c.Asked) - 1
	if r.MessageID != "" {
		i = -1
		for j, a := range c.Answers {
			if a.ID == r.MessageID {
				i = j
			}
		}
		if i < 0 {
			return nil, NewError(CodeInvalid, "Only a finished answer takes a verdict.", "Wait for the answer, or judge another one.")
		}
	}
	asked, answer := c.Asked[i], c.Answers[i]
	f, err := r.Store.SetFeedback(ctx, answer.ID, r.Verdict, r.Note)
	if err != nil {
		return nil, err
	}
	out := &Feedback{Feedback: *f, Turn: asked.Turn, Question: asked.Question, SQL: backingSQL(asked.Outcome)}
	if r.Memory != nil && len(out.SQL) > 0 {
		verdict := memory.Verified
		if r.Verdict == store.Down {
			verdict = memory.Rejected
		}
		tables := r.Tables
		if tables == nil {
			tables = answer.Datasets
		}
		if err := r.Memory.Mark(ctx, r.ChatID, asked.Question, out.SQL, verdict, tables); err != nil {
			return out, fmt.Errorf("mark the answer's queries: %w", err)
		}
	}
	return out, nil
}

// backingSQL is the SQL of the queries an answer's findings cite, in
// order, or of every query it ran when they cite none.
func backingSQL(out *agent.Outcome) []string {
	cited := map[string]bool{}
	for _, f := range out.Findings {
		for _, ref := range f.Evidence {
			cited[ref] = true
		}
	}
	var all, backing []string
	seen := map[string]bool{}
	for _, e := range out.Evidence {
		if strings.TrimSpace(e.SQL) == "" || seen[e.SQL] || e.Table == nil && e.Chart == nil {
			continue
		}
		seen[e.SQL] = true
		all = append(all, e.SQL)
		if cited[e.Ref] {
			backing = append(backing, e.SQL)
		}
	}
	if len(backing) == 0 {
		return all
	}
	return backing
}

// tables are the names of the workspace's datasets now; nil when they
// cannot be listed (then nothing is filtered by table).
func (w *Workspace) tables(ctx context.Context) []string {
	ds, err := w.WS.Datasets(ctx)
	if err != nil {
		return nil
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	return names
}
