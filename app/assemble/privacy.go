package assemble

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/masked"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools"
)

// PrivateValues bounds how many distinct values of each private column
// the mask learns before a run: the most a conversation can hide by value
// (shapes — emails, card numbers, IBANs, SSNs, phones — are hidden
// wherever they appear, known or not).
const PrivateValues = 50_000

// privateTimeout bounds the queries that read the private values.
const privateTimeout = 20 * time.Second

// conversations keeps each conversation's placeholders while the process
// lives.
var conversations = privacy.NewBook(512)

// Private is where a run finds the private columns and their values.
type Private interface {
	// PrivateColumns lists the columns that are private now.
	PrivateColumns(ctx context.Context) ([]privacy.Column, error)
	// PrivateValues returns up to limit distinct values of c, as text.
	PrivateValues(ctx context.Context, c privacy.Column, limit int) ([]string, error)
}

// Guard returns p as the level requires: p itself at Open (or no level),
// behind the privacy gate at Masked, with the values of src's private
// columns learnt once per conversation and gate; behind the value gate at
// Schema (see privacy_schema.go).
func Guard(p llm.Provider, level privacy.Level, src Private) (llm.Provider, error) {
	g, err := newGuard(level, src)
	if err != nil {
		return nil, err
	}
	return g.provider(p), nil
}

// QuestionMask returns what the level does to a question's text before a
// model server other than the chat model sees it (the semantic boost's
// embedding model, for the question and for search_schema's queries): at
// Masked, the conversation's mask (tools.ChatFrom, else a run's own),
// primed from src at first use, as the chat model's requests are; nil at
// the other levels, which send the question as the chat model gets it.
func QuestionMask(level privacy.Level, src Private) func(context.Context, string) (string, error) {
	if level != privacy.Masked {
		return nil
	}
	g, err := newGuard(level, src)
	if err != nil {
		return nil
	}
	return g.questionMask()
}

// questionMask is QuestionMask with g's masker; nil unless g is Masked's.
func (g *guard) questionMask() func(context.Context, string) (string, error) {
	if g == nil || g.schema != nil {
		return nil
	}
	return func(ctx context.Context, s string) (string, error) {
		m, err := g.masker(ctx)
		if err != nil {
			return "", err
		}
		return m.MaskText(s), nil
	}
}

// guard is one agent's privacy state: nil at Open. It finds each
// request's conversation masker (its own for a run without a
// conversation), primes it once, and teaches it the values run_sql
// derives from private columns.
type guard struct {
	schema *schemaGuard // set at Schema only; the fields below are Masked's
	src    Private
	mysql  bool            // src's queries run on MySQL or MariaDB (see mysqlSource)
	own    *privacy.Masker // for runs with no conversation id
	mu     sync.Mutex
	primed map[*privacy.Masker]bool
}

func newGuard(level privacy.Level, src Private) (*guard, error) {
	switch level {
	case "", privacy.Open:
		return nil, nil
	case privacy.Masked:
		my, _ := src.(mysqlSource)
		return &guard{src: src, mysql: my != nil && my.MySQL(), own: privacy.NewMasker(), primed: map[*privacy.Masker]bool{}}, nil
	case privacy.Schema:
		return &guard{schema: newSchemaGuard(src)}, nil
	}
	_, err := privacy.Parse(string(level))
	return nil, err
}

// provider is p behind the gate (p itself at Open).
func (g *guard) provider(p llm.Provider) llm.Provider {
	if g == nil {
		return p
	}
	if g.schema != nil {
		return g.schema.provider(p)
	}
	return masked.New(p, func(ctx context.Context) (masked.Masker, error) {
		m, err := g.masker(ctx)
		if err != nil {
			return nil, err
		}
		if g.mysql {
			return mysqlCalls{m}, nil
		}
		return m, nil
	})
}

var (
	_ masked.Masker = (*privacy.Masker)(nil)
	_ masked.Masker = mysqlCalls{}
)

// mysqlSource is a Private that says whether its queries run on MySQL or
// MariaDB, whose strings read a backslash as an escape: the values put
// back in the model's calls are escaped for them (see
// privacy.Masker.UnmaskCallMySQL).
type mysqlSource interface{ MySQL() bool }

// mysqlCalls is a conversation's masker putting values back into calls
// whose SQL runs on MySQL.
type mysqlCalls struct{ *privacy.Masker }

func (m mysqlCalls) UnmaskCall(raw []byte) []byte { return m.Masker.UnmaskCallMySQL(raw) }

// unmaskCall puts the values behind m's placeholders back into a call's
// arguments, escaped for the SQL of g's source.
func (g *guard) unmaskCall(m *privacy.Masker, raw []byte) []byte {
	if g.mysql {
		return m.UnmaskCallMySQL(raw)
	}
	return m.UnmaskCall(raw)
}

// masker is the primed masker of ctx's conversation.
func (g *guard) masker(ctx context.Context) (*privacy.Masker, error) {
	m := g.own
	if chat := tools.ChatFrom(ctx); chat != "" {
		m = conversations.For(chat)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.primed[m] {
		return m, nil
	}
	if err := prime(ctx, m, g.src); err != nil {
		return nil, err
	}
	g.primed[m] = true
	return m, nil
}

// observer is run_sql's Observe at Masked (nil at Open): every text cell
// of a result column derived from a private column (privacy.Lineage), and
// every number of seven digits or more in one, gets a placeholder, so
// that values a query transformed (lower, substr, concatenations) are
// masked wherever they travel next.
func (g *guard) observer() func(context.Context, string, *query.Result) {
	if g == nil {
		return nil
	}
	if g.schema != nil {
		return g.schema.observer()
	}
	return func(ctx context.Context, sql string, res *query.Result) {
		m, err := g.masker(ctx)
		if err != nil {
			return // the next request fails closed on the same error
		}
		cols, err := g.src.PrivateColumns(ctx)
		if err != nil || len(cols) == 0 {
			return
		}
		observe(m, sql, res, cols)
	}
}

func observe(m *privacy.Masker, sql string, res *query.Result, cols []privacy.Column) {
	names := make([]string, len(cols))
	kinds := map[string]privacy.Kind{}
	for i, c := range cols {
		names[i] = c.Column
		kinds[strings.ToLower(c.Column)] = c.Kind
	}
	result := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		result[i] = c.Name
	}
	derived := privacy.Lineage(sql, result, names)
	for i, d := range derived {
		if !d {
			continue
		}
		k, ok := kinds[strings.ToLower(result[i])]
		if !ok {
			k = kindMentioned(sql, cols)
		}
		for _, row := range res.Rows {
			if i >= len(row) {
				continue
			}
			if v, ok := observable(row[i]); ok {
				m.Mask(v, k)
			}
		}
	}
}

// kindMentioned is the kind of the first private column sql names.
func kindMentioned(sql string, cols []privacy.Column) privacy.Kind {
	low := strings.ToLower(sql)
	for _, c := range cols {
		if strings.Contains(low, strings.ToLower(c.Column)) {
			return c.Kind
		}
	}
	return privacy.Private
}

// observable is v as text when it may identify someone: any text, or a
// whole number of seven digits or more (a card, phone or account number
// stored as a number).
func observable(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, x != ""
	case int64:
		return fmt.Sprint(x), x >= 1_000_000 || x <= -1_000_000
	case float64:
		return fmt.Sprint(x), x == float64(int64(x)) && (x >= 1_000_000 || x <= -1_000_000)
	}
	return "", false
}

// prime teaches m the values of src's private columns.
func prime(ctx context.Context, m *privacy.Masker, src Private) error {
	start := time.Now()
	cols, err := src.PrivateColumns(ctx)
	if err != nil {
		return fmt.Errorf("list private columns: %w", err)
	}
	n := 0
	for _, c := range cols {
		for _, v := range c.Sample {
			m.Mask(v, c.Kind)
		}
		vs, err := src.PrivateValues(ctx, c, PrivateValues)
		if err != nil {
			return fmt.Errorf("read the values of private column %s.%s: %w", c.Table, c.Column, err)
		}
		for _, v := range vs {
			m.Mask(v, c.Kind)
		}
		n += len(vs)
	}
	slog.Debug("privacy mask primed", "subsystem", "privacy", "columns", len(cols), "values", n, "ms", time.Since(start).Milliseconds())
	return nil
}
