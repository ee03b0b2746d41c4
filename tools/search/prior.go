package search

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// Memory is the query memory (data/memory's *Store).
type Memory interface {
	Similar(question string, o memory.Options) []memory.Match
}

var _ Memory = (*memory.Store)(nil)

// Prior is find_prior_query.
type Prior struct {
	mem Memory
	cat Catalog
}

var _ tools.Tool = (*Prior)(nil)

// NewPrior returns find_prior_query over mem; cat tells which tables exist
// now, so that queries over removed tables are not offered.
func NewPrior(mem Memory, cat Catalog) *Prior { return &Prior{mem: mem, cat: cat} }

var priorParams = args.Params{Tool: "find_prior_query", List: []args.Param{
	{Name: "question", Type: args.String, Required: true, Doc: "the question to answer, in words", Aliases: []string{"query", "q", "text"}},
}}

// Spec describes find_prior_query to the model.
func (t *Prior) Spec() tools.Spec {
	return tools.Spec{
		Name:        "find_prior_query",
		Description: "Find earlier successful queries (verified ones — answers the user confirmed — first, then this conversation's, then the workspace's) whose questions are most like this one, with their SQL, tables and result. When one is close (a follow-up such as \"the same for 2024\"), adapt its SQL instead of writing a new query from scratch.",
		Parameters:  priorParams.Schema(),
		Evidence:    tools.EvidenceNone,
		View:        tools.View{Icon: "search", Doing: "Looking for earlier queries", Did: "Looked for earlier queries"},
	}
}

// Run returns up to three similar earlier queries.
func (t *Prior) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Question string `json:"question"`
	}
	if err := priorParams.Decode(raw, &a); err != nil {
		return priorParams.Failure(err), nil
	}
	ds, err := t.cat.Datasets(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, fmt.Errorf("find_prior_query: %w", err)
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	matches := t.mem.Similar(a.Question, memory.Options{Chat: tools.ChatFrom(ctx), K: 3, Tables: names})
	text := describePrior(matches)
	data, err := json.Marshal(matches)
	if err != nil {
		return tools.Result{}, fmt.Errorf("find_prior_query: encode: %w", err)
	}
	summary := fmt.Sprintf("%d earlier queries", len(matches))
	if len(matches) == 1 {
		summary = fmt.Sprintf("1 earlier query (%.0f%% similar)", matches[0].Score*100)
	}
	return tools.Result{ForModel: text, Summary: summary, Display: tools.Display{Kind: tools.KindText, Text: text, Data: data}}, nil
}

func describePrior(ms []memory.Match) string {
	if len(ms) == 0 {
		return "No earlier query is similar to this question: write a new one."
	}
	var b strings.Builder
	b.WriteString("Earlier queries like this question, most similar first. Adapt the closest one (change its filters, grouping or columns) if it fits; check it still answers the question.\n")
	for i, m := range ms {
		where := "this workspace"
		if m.SameChat {
			where = "this conversation"
		}
		verified := ""
		if m.Verified {
			verified = ", verified by the user (prefer it)"
		}
		fmt.Fprintf(&b, "\n%d. %.0f%% similar, from %s%s: %q\n", i+1, m.Score*100, where, verified, m.Question)
		if m.Result != "" {
			fmt.Fprintf(&b, "   result: %s\n", m.Result)
		}
		fmt.Fprintf(&b, "   SQL: %s\n", strings.Join(strings.Fields(m.SQL), " "))
	}
	return b.String()
}
