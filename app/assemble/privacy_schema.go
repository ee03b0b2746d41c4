package assemble

import (
	"context"
	"fmt"
	"sync"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/valuegate"
	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools"
)

// At the schema level the agent sends no value (agent.Config.SchemaOnly);
// the value gate (agent/llm/valuegate) checks every request against the
// values the conversation is known to hold: the private columns' values,
// the catalog's samples, frequent values and ranges, and every cell of
// every result run_sql returned. They are kept per conversation while the
// process lives, so that a follow-up is checked against the earlier
// answers' results too.

// maxConversationValues bounds how many conversations keep their values.
const maxConversationValues = 512

var (
	valuesMu sync.Mutex
	values   = map[string]*valuegate.Values{}
)

// conversationValues is the value set of chat, made on first use.
func conversationValues(chat string) *valuegate.Values {
	valuesMu.Lock()
	defer valuesMu.Unlock()
	vs, ok := values[chat]
	if !ok {
		if len(values) >= maxConversationValues {
			values = map[string]*valuegate.Values{} // forget the oldest all at once
		}
		vs = valuegate.NewValues()
		values[chat] = vs
	}
	return vs
}

// schemaGuard is the schema level's state for one agent.
type schemaGuard struct {
	src    Private
	own    *valuegate.Values // for runs with no conversation id
	mu     sync.Mutex
	primed map[*valuegate.Values]bool
}

func newSchemaGuard(src Private) *schemaGuard {
	return &schemaGuard{src: src, own: valuegate.NewValues(), primed: map[*valuegate.Values]bool{}}
}

func (g *schemaGuard) provider(p llm.Provider) llm.Provider { return valuegate.New(p, g.values) }

// values is ctx's conversation's value set, primed once.
func (g *schemaGuard) values(ctx context.Context) (*valuegate.Values, error) {
	vs := g.own
	if chat := tools.ChatFrom(ctx); chat != "" {
		vs = conversationValues(chat)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.primed[vs] {
		return vs, nil
	}
	if err := primeValues(ctx, vs, g.src); err != nil {
		return nil, err
	}
	g.primed[vs] = true
	return vs, nil
}

// observer adds every cell of a result to the conversation's values.
func (g *schemaGuard) observer() func(context.Context, string, *query.Result) {
	return func(ctx context.Context, _ string, res *query.Result) {
		vs, err := g.values(ctx)
		if err != nil {
			return // the next request fails closed on the same error
		}
		for _, row := range res.Rows {
			for _, v := range row {
				if v != nil {
					vs.Add(fmt.Sprint(v))
				}
			}
		}
	}
}

// primeValues teaches vs the private columns' values and the catalog's.
func primeValues(ctx context.Context, vs *valuegate.Values, src Private) error {
	cols, err := src.PrivateColumns(ctx)
	if err != nil {
		return fmt.Errorf("list private columns: %w", err)
	}
	for _, c := range cols {
		got, err := src.PrivateValues(ctx, c, PrivateValues)
		if err != nil {
			return fmt.Errorf("read the values of private column %s.%s: %w", c.Table, c.Column, err)
		}
		for _, v := range got {
			vs.Add(v)
		}
	}
	var ds []catalog.Dataset
	switch s := src.(type) {
	case WorkspacePrivate:
		ds, err = s.WS.Datasets(ctx)
	case RemotePrivate:
		ds, err = s.R.Datasets(ctx)
	}
	if err != nil {
		return fmt.Errorf("list datasets: %w", err)
	}
	for _, d := range ds {
		for _, c := range d.Columns {
			for _, v := range c.Samples {
				vs.Add(v)
			}
			for _, v := range c.Top {
				vs.Add(v.Value)
			}
			for _, v := range []*string{c.Min, c.Max} {
				if v != nil {
					vs.Add(*v)
				}
			}
		}
	}
	return nil
}
